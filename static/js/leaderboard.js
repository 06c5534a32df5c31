// The leaderboard of /players, from GET /api/players. The address holds the state, so every
// view can be shared and Back works: ?sort=wins|games|name, ?page=2, and ?name=Ana to show
// one player's figures above the list (the game's end screen links there).
import { byId, fill, getJSON, h } from "./dom.js";

const PAGE = 20;
const SORTS = ["wins", "games", "name"];

const params = new URLSearchParams(location.search);
const sort = SORTS.includes(params.get("sort")) ? params.get("sort") : "wins";
const page = Math.max(1, Math.floor(Number(params.get("page"))) || 1);
const picked = params.get("name")?.trim() || null;

/** This page's address with `changes` applied (null removes a parameter). */
function link(changes) {
  const next = new URLSearchParams({ sort, page: String(page), ...(picked ? { name: picked } : {}) });
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) next.delete(key);
    else next.set(key, String(value));
  }
  if (next.get("sort") === "wins") next.delete("sort");
  if (next.get("page") === "1") next.delete("page");
  const query = next.toString();
  return query ? `/players?${query}` : "/players";
}

const percent = (rate) => (rate === null ? "–" : `${Math.round(rate * 100)}%`);
const place = (average) => average.toFixed(1);
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** "Dudo 75% (3 of 4)", or "no dudo yet". */
function callLine(call, wins, calls, rate) {
  return calls === 0 ? `no ${call} yet` : `${call} ${percent(rate)} (${wins} of ${calls})`;
}

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
      h("strong", { class: "leader-name" }, player.name),
      h("span", { class: "leader-figures" }, parts(
        plural(player.wins, "win", "wins"),
        plural(player.games, "game", "games"),
        `average place ${place(player.average_place)}`,
      )),
      h("span", { class: "game-when" }, parts(
        callLine("dudo", player.dudo_wins, player.dudo_calls, player.dudo_rate),
        callLine("calza", player.calza_wins, player.calza_calls, player.calza_rate),
      )),
    ),
  );
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
      h("h2", {}, p.name),
      h(
        "dl",
        { class: "stat-grid" },
        figure("Games", String(p.games)),
        figure("Wins", String(p.wins)),
        figure("Average place", place(p.average_place)),
        figure("Dudo", percent(p.dudo_rate), `${p.dudo_wins} of ${p.dudo_calls}`),
        figure("Calza", percent(p.calza_rate), `${p.calza_wins} of ${p.calza_calls}`),
      ),
    );
  } catch (error) {
    fill(
      card,
      h("h2", {}, picked),
      h("p", { class: "muted" }, error.status === 404 ? "No finished game here under this name yet." : "Could not load this player."),
    );
  }
}

function showPager(total) {
  const pages = Math.max(1, Math.ceil(total / PAGE));
  const pager = document.querySelector(".leaderboard-pager");
  pager.hidden = pages === 1 && page === 1;
  byId("page-pos").textContent = `Page ${page} of ${pages}`;
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
    const { players, total } = await getJSON(`/api/players?limit=${PAGE}&offset=${offset}&sort=${sort}`);
    const ranked = sort !== "name";
    const list = fill(byId("players"), players.map((p, i) => entry(p, ranked ? offset + i + 1 : null)));
    list.classList.toggle("ranked", ranked);
    if (total === 0) status.textContent = "No finished games yet. Go and play one!";
    else if (players.length === 0) status.textContent = "This page is past the end of the list.";
    else status.textContent = "";
    showPager(total);
  } catch {
    status.textContent = "Could not load the players. Try again later.";
  }
}

showPicked();
showBoard();
