// Replay of a saved game: round by round, every die shown (the game is over, nothing is secret).
import { byId, fill, getJSON, h } from "./dom.js";
import { dateTime, n, t, tNodes } from "./i18n.js";
import { bidChip } from "./dice.js";
import { countLine, outcomeText, revealRows } from "./result.js";
import { nameOf as nameIn, placeItems } from "./players.js";

const gameId = document.body.dataset.game;
let game = null;
let index = 0;

const nameOf = (seat) => nameIn(game.players, seat);

function showRound(i) {
  index = Math.max(0, Math.min(game.rounds.length - 1, i));
  const round = game.rounds[index];
  const r = round.result;
  history.replaceState(null, "", `#round-${round.number}`);
  byId("round-pos").textContent = t("Round {number} of {total}", { number: round.number, total: game.rounds.length });
  byId("prev-btn").disabled = index === 0;
  byId("next-btn").disabled = index === game.rounds.length - 1;
  // Babel's extractor misses a t() nested in another call's arguments, so these come first.
  const caller = { name: nameOf(r.caller) };
  const called = r.call === "dudo" ? t("{name} called dudo", caller) : t("{name} called calza", caller);
  fill(
    byId("replay-round"),
    round.palifico
      ? h("p", { class: "palifico-banner" }, t("Palifico round for {name}: aces not wild", { name: nameOf(round.palifico_seat) }))
      : null,
    h("p", {}, t("{name} opened.", { name: nameOf(round.opener) })),
    h(
      "ol",
      { class: "replay-bids", "aria-label": t("Bids") },
      round.bids.map((b) => h("li", {}, nameOf(b.seat), " ", bidChip(b))),
    ),
    h(
      "p",
      { class: "reveal-title" },
      tNodes("{call} on {bid} by {bidder}", {
        call: h("strong", {}, called),
        bid: bidChip(r.bid),
        bidder: nameOf(r.bid.seat),
      }),
    ),
    h("ul", { class: "reveal-cups" }, revealRows(r, nameOf)),
    h("p", { class: "reveal-count" }, countLine(r)),
    h("p", { class: "reveal-outcome" }, outcomeText(r, nameOf)),
  );
}

async function load() {
  const status = byId("replay-status");
  try {
    game = await getJSON(`/api/games/${encodeURIComponent(gameId)}`);
  } catch (error) {
    status.textContent = error.status === 404 ? t("No saved game has this id.") : t("Could not load the game.");
    return;
  }
  status.textContent = "";
  const finished = new Date(game.finished_at);
  const rounds = n("{count} round", "{count} rounds", game.rounds.length);
  byId("replay-summary").textContent = n(
    "{name} won a game of {count} player, {rounds}, on {date}.",
    "{name} won a game of {count} players, {rounds}, on {date}.",
    game.players.length,
    { name: game.winner.name, rounds, date: dateTime(finished) },
  );
  fill(byId("replay-places"), placeItems(game.players));
  byId("replay").hidden = false;
  const fromHash = Number((location.hash.match(/^#round-(\d+)$/) ?? [])[1]);
  const start = game.rounds.findIndex((round) => round.number === fromHash);
  if (game.rounds.length === 0) {
    byId("replay-round").textContent = t("This game has no rounds.");
    return;
  }
  showRound(start >= 0 ? start : 0);
}

byId("prev-btn").addEventListener("click", () => showRound(index - 1));
byId("next-btn").addEventListener("click", () => showRound(index + 1));
document.addEventListener("keydown", (event) => {
  if (!game || event.target.closest("input, select, textarea")) return;
  if (event.key === "ArrowLeft") showRound(index - 1);
  if (event.key === "ArrowRight") showRound(index + 1);
});
load();
