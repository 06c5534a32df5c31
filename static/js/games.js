// Recent finished games, newest first, from GET /api/games.
import { byId, getJSON, h } from "./dom.js";
import { dateTime, t } from "./i18n.js";
import { byPlace } from "./players.js";

const PAGE = 20;
let offset = 0;

function when(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : dateTime(date);
}

function gameItem(game) {
  const names = byPlace(game.players)
    .map((p) => (p.bot ? t("{name} (bot)", { name: p.name }) : p.name))
    .join(", ");
  return h(
    "li",
    {},
    h(
      "a",
      { href: `/games/${encodeURIComponent(game.game_id)}` },
      h("strong", {}, t("{name} won", { name: game.winner.name })),
      h("div", {}, names),
      h("div", { class: "game-when" }, when(game.finished_at)),
    ),
  );
}

async function load() {
  const status = byId("games-status");
  const more = byId("more-btn");
  more.disabled = true;
  try {
    const { games } = await getJSON(`/api/games?limit=${PAGE}&offset=${offset}`);
    byId("games").append(...games.map(gameItem));
    offset += games.length;
    more.hidden = games.length < PAGE;
    status.textContent = offset === 0 ? t("No finished games yet. Go and play one!") : "";
  } catch {
    status.textContent = t("Could not load the games. Try again later.");
  }
  more.disabled = false;
}

byId("more-btn").addEventListener("click", load);
load();
