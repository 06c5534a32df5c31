// The leaderboard of /players, from GET /api/players. The address holds the state, so every
// view can be shared and Back works: ?sort=rating|wins|games|name, ?page=2, and ?name=Ana to
// show one player's figures above the list (the game's end screen links there). Each name
// links to the player's own page, /players/<name>, with their rating chart.
import { BOT_LEVELS } from "./codes.js";
import { byId, fill, getJSON, h } from "./dom.js";
import { lang, n, percent, t } from "./i18n.js";

const PAGE = 20;
const SORTS = ["rating", "wins", "games", "name"];

const params = new URLSearchParams(location.search);
const sort = SORTS.includes(params.get("sort")) ? params.get("sort") : "rating";
const page = Math.max(1, Math.floor(Number(params.get("page"))) || 1);
const picked = params.get("name")?.trim() || null;

/** This page's address with `changes` applied (null removes a parameter). */
function link(changes) {
  const next = new URLSearchParams({ sort, page: String(page), ...(picked ? { name: picked } : {}) });
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) next.delete(key);
    else next.set(key, String(value));
  }
  if (next.get("sort") === "rating") next.delete("sort");
  if (next.get("page") === "1") next.delete("page");
  const query = next.toString();
  return query ? `/players?${query}` : "/players";
}

const rateText = (rate) => (rate === null ? "–" : percent(rate));
const placeFormat = new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const place = (average) => placeFormat.format(average);
const ofText = (wins, calls) => t("{wins} of {calls}", { wins, calls });

/** "dudo 75% (3 of 4)", or "no dudo yet". */
function dudoLine(p) {
  if (p.dudo_calls === 0) return t("no dudo yet");
  return t("dudo {rate} ({wins} of {calls})", { rate: percent(p.dudo_rate), wins: p.dudo_wins, calls: p.dudo_calls });
}

/** "calza 50% (1 of 2)", or "no calza yet". */
function calzaLine(p) {
  if (p.calza_calls === 0) return t("no calza yet");
  return t("calza {rate} ({wins} of {calls})", { rate: percent(p.calza_rate), wins: p.calza_wins, calls: p.calza_calls });
}

const ratingFormat = new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const rating = (value) => ratingFormat.format(value);

/** "12.3 (skill 25.0 ± 8.1) · 4 rated games", and the provisional and claimed badges. */
function ratingLine(p) {
  return [
    h("span", { class: "leader-rating nowrap" }, rating(p.rating_low)),
    " ",
    h("span", { class: "nowrap" }, t("(skill {mu} ± {spread})", { mu: rating(p.rating), spread: rating(3 * p.rating_sigma) })),
    " · ",
    h("span", { class: "nowrap" }, n("{count} rated game", "{count} rated games", p.rated_games)),
    ...(p.provisional ? [" ", h("span", { class: "badge provisional" }, t("Provisional"))] : []),
  ];
}

/** The player's own page: their chart and their regular opponents. */
export const playerPage = (name) => `/players/${encodeURIComponent(name)}`;

/** Figures joined by " · ", each kept on one line (a narrow screen wraps between them). */
function parts(...texts) {
  return texts.flatMap((text, i) => [i ? " · " : null, h("span", { class: "nowrap" }, text)]);
}

function entry(player, rank) {
  // Only a highlight: the server matched the name by casefold, lower case comes close enough.
  const same = picked !== null && player.name.toLowerCase() === picked.toLowerCase();
  return h(
    "li",
    { class: same ? "picked" : null },
    h(
      "a",
      { href: link({ name: player.name }), "aria-current": same ? "true" : null },
      rank === null ? null : h("span", { class: "leader-rank" }, String(rank)),
      h(
        "strong",
        { class: "leader-name" },
        player.name,
        player.claimed ? [" ", h("span", { class: "badge claimed" }, t("Claimed"))] : null,
      ),
      h("span", { class: "leader-score" }, ratingLine(player)),
      h("span", { class: "leader-figures" }, parts(
        n("{count} win", "{count} wins", player.wins),
        n("{count} game", "{count} games", player.games),
        t("average place {place}", { place: place(player.average_place) }),
      )),
      h("span", { class: "game-when" }, parts(dudoLine(player), calzaLine(player))),
    ),
  );
}

function botEntry(bot) {
  return h(
    "li",
    {},
    h(
      "div",
      { class: "bot-entry" },
      h("strong", { class: "leader-name" }, h("span", { class: "badge bot" }, t("Bot")), " ", levelName(bot.level)),
      h("span", { class: "leader-score" }, ratingLine(bot)),
    ),
  );
}

/** A bot level's name in this language, as the lobby shows it. */
function levelName(level) {
  return BOT_LEVELS.find((l) => l.value === level)?.label ?? level;
}

function figure(label, value, detail = null) {
  return h("div", {}, h("dt", {}, label), h("dd", {}, value, detail ? h("small", {}, ` ${detail}`) : null));
}

async function showPicked() {
  const card = byId("player-card");
  if (picked === null) return;
  card.hidden = false;
  try {
    const p = await getJSON(`/api/players/${encodeURIComponent(picked)}`);
    fill(
      card,
      h("h2", {}, h("a", { href: playerPage(p.name) }, p.name)),
      h(
        "dl",
        { class: "stat-grid" },
        figure(t("Rating"), rating(p.rating_low), n("{count} rated game", "{count} rated games", p.rated_games)),
        figure(t("Games"), String(p.games)),
        figure(t("Wins"), String(p.wins)),
        figure(t("Average place"), place(p.average_place)),
        figure(t("Dudo"), rateText(p.dudo_rate), ofText(p.dudo_wins, p.dudo_calls)),
        figure(t("Calza"), rateText(p.calza_rate), ofText(p.calza_wins, p.calza_calls)),
      ),
    );
  } catch (error) {
    fill(
      card,
      h("h2", {}, picked),
      h("p", { class: "muted" }, error.status === 404 ? t("No finished game here under this name yet.") : t("Could not load this player.")),
    );
  }
}

function showPager(total) {
  const pages = Math.max(1, Math.ceil(total / PAGE));
  const pager = document.querySelector(".leaderboard-pager");
  pager.hidden = pages === 1 && page === 1;
  byId("page-pos").textContent = t("Page {page} of {pages}", { page, pages });
  for (const [id, target, open] of [
    ["prev-page", Math.min(page - 1, pages), page > 1],
    ["next-page", page + 1, page < pages],
  ]) {
    const button = byId(id);
    if (open) {
      button.href = link({ page: target });
      button.removeAttribute("aria-disabled");
    } else {
      button.removeAttribute("href");
      button.setAttribute("aria-disabled", "true");
    }
  }
}

async function showBoard() {
  for (const tab of document.querySelectorAll(".leaderboard-sort a")) {
    const current = tab.dataset.sort === sort;
    tab.href = link({ sort: tab.dataset.sort, page: 1 });
    tab.classList.toggle("primary", current);
    if (current) tab.setAttribute("aria-current", "page");
  }
  const status = byId("players-status");
  const offset = (page - 1) * PAGE;
  try {
    const { players, total, bots } = await getJSON(`/api/players?limit=${PAGE}&offset=${offset}&sort=${sort}`);
    const ranked = sort !== "name";
    const list = fill(byId("players"), players.map((p, i) => entry(p, ranked ? offset + i + 1 : null)));
    list.classList.toggle("ranked", ranked);
    if (total === 0) status.textContent = t("No finished games yet. Go and play one!");
    else if (players.length === 0) status.textContent = t("This page is past the end of the list.");
    else status.textContent = "";
    showPager(total);
    byId("bots").hidden = bots.length === 0;
    fill(byId("bot-list"), bots.map(botEntry));
  } catch {
    status.textContent = t("Could not load the players. Try again later.");
  }
}

showPicked();
showBoard();
