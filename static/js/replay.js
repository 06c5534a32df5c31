// Replay of a saved game, bid by bid, every die shown (the game is over, nothing is secret).
// A round's steps are its bids, then the call that ended it; ← and → take one step (crossing
// into the next or previous round), Shift+← and Shift+→ a whole round.
import { byId, fill, getJSON, h } from "./dom.js";
import { dateTime, n, t, tNodes } from "./i18n.js";
import { bidChip, bidText } from "./dice.js";
import { countLine, outcomeText, resultSummary, revealRows } from "./result.js";
import { nameOf as nameIn, placeItems } from "./players.js";

const gameId = document.body.dataset.game;
let game = null;
let roundIndex = 0;
let step = 0; // 0 .. bids.length - 1: that bid is the standing one; bids.length: the call

const nameOf = (seat) => nameIn(game.players, seat);
const stepsIn = (round) => round.bids.length + 1;

/** "Bid 2 of 5: Béla bids 4 fives." or the whole call: what a screen reader hears at each step. */
function stepLine(round) {
  if (step === round.bids.length) return resultSummary(round.result, nameOf);
  const bid = round.bids[step];
  return t("Bid {number} of {total}: {name} bids {bid}.", {
    number: step + 1,
    total: round.bids.length,
    name: nameOf(bid.seat),
    bid: bidText(bid),
  });
}

/** Every cup lifted, the dice that count for the standing bid lit (a round not yet called). */
function cupsUnder(round, bid) {
  return revealRows({ bid, palifico: round.palifico, reveal: round.dice, loser: null, gainer: null }, nameOf);
}

function theCall(r) {
  // Babel's extractor misses a t() nested in another call's arguments, so these come first.
  const caller = { name: nameOf(r.caller) };
  const called = r.call === "dudo" ? t("{name} called dudo", caller) : t("{name} called calza", caller);
  return [
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
  ];
}

function bidItems(round) {
  return round.bids.slice(0, step + 1).map((b, i) =>
    h(
      "li",
      { class: i === step ? "current" : null, "aria-current": i === step ? "step" : null },
      nameOf(b.seat),
      " ",
      bidChip(b),
    ),
  );
}

/** Keep the keyboard's place when the button it was on stops working at the first or last step. */
function setDisabled(id, disabled, fallbackId) {
  const button = byId(id);
  const hadFocus = document.activeElement === button;
  button.disabled = disabled;
  if (disabled && hadFocus) byId(fallbackId).focus();
}

function show(newRound, newStep) {
  roundIndex = newRound;
  const round = game.rounds[roundIndex];
  step = Math.max(0, Math.min(stepsIn(round) - 1, newStep));
  const called = step === round.bids.length;
  history.replaceState(null, "", `#round-${round.number}-step-${step + 1}`);
  const last = game.rounds.length - 1;
  byId("round-pos").textContent = t("Round {number} of {total}", { number: round.number, total: game.rounds.length });
  byId("step-pos").textContent = called
    ? t("The call")
    : t("Bid {number} of {total}", { number: step + 1, total: round.bids.length });
  byId("step-line").textContent = stepLine(round);
  setDisabled("prev-btn", roundIndex === 0, "next-btn");
  setDisabled("next-btn", roundIndex === last, "prev-btn");
  setDisabled("prev-step", roundIndex === 0 && step === 0, "next-step");
  setDisabled("next-step", roundIndex === last && called, "prev-step");
  fill(
    byId("replay-round"),
    round.palifico
      ? h("p", { class: "palifico-banner" }, t("Palifico round for {name}: aces not wild", { name: nameOf(round.palifico_seat) }))
      : null,
    h("p", {}, t("{name} opened.", { name: nameOf(round.opener) })),
    h("ol", { class: "replay-bids", "aria-label": t("Bids") }, bidItems(round)),
    called ? theCall(round.result) : h("ul", { class: "reveal-cups" }, cupsUnder(round, round.bids[step])),
  );
}

function showRound(i) {
  show(Math.max(0, Math.min(game.rounds.length - 1, i)), 0);
}

function stepBy(delta) {
  const target = step + delta;
  if (target < 0 && roundIndex > 0) show(roundIndex - 1, stepsIn(game.rounds[roundIndex - 1]) - 1);
  else if (target >= stepsIn(game.rounds[roundIndex]) && roundIndex < game.rounds.length - 1) show(roundIndex + 1, 0);
  else show(roundIndex, target);
}

/** "#round-3-step-2" (or the older "#round-3") -> [round index, step], or null. */
function fromHash() {
  const match = location.hash.match(/^#round-(\d+)(?:-step-(\d+))?$/);
  if (!match) return null;
  const index = game.rounds.findIndex((round) => round.number === Number(match[1]));
  return index < 0 ? null : [index, Number(match[2] ?? 1) - 1];
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
  if (game.rounds.length === 0) {
    byId("replay-nav").hidden = true;
    byId("replay-round").textContent = t("This game has no rounds.");
    return;
  }
  const [start, startStep] = fromHash() ?? [0, 0];
  show(start, startStep);
}

// A link to another step of this same page (history.replaceState above fires no such event).
addEventListener("hashchange", () => {
  const target = game?.rounds.length ? fromHash() : null;
  if (target) show(...target);
});
byId("prev-btn").addEventListener("click", () => showRound(roundIndex - 1));
byId("next-btn").addEventListener("click", () => showRound(roundIndex + 1));
byId("prev-step").addEventListener("click", () => stepBy(-1));
byId("next-step").addEventListener("click", () => stepBy(1));
document.addEventListener("keydown", (event) => {
  if (!game?.rounds.length || event.target.closest("input, select, textarea")) return;
  if (event.altKey || event.ctrlKey || event.metaKey) return; // the browser's own shortcuts
  const delta = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
  if (delta === undefined) return;
  event.preventDefault();
  if (event.shiftKey) showRound(roundIndex + delta);
  else stepBy(delta);
});
load();
