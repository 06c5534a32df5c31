// Telling a player it is their turn when they are not looking: the document title (visible or
// not), a short vibration, the turn's sound (sounds.js, behind the one toggle drawn here), a
// Notification while the page is hidden (if allowed), and a line for screen readers. The same
// for "the bot played for you" and the game's end; each new bid and round result is said to
// screen readers (and the bid sounds).
import { byId, h } from "../dom.js";
import { t } from "../i18n.js";
import { resultSummary } from "../result.js";
import { bidSentence } from "./log.js";
import { nameOf, namer } from "./people.js";
import { play, soundOn, toggleSound } from "./sounds.js";

const SAID_KEEP = 6; // lines kept in the polite live region

let baseTitle = "";
let lastTurnKey = null;
let lastPhase = null;
let lastBids = null; // {round, count}: the bids of the round already said

export function mount() {
  baseTitle = document.title;
  const sound = byId("sound-btn");
  const drawSound = () => {
    sound.setAttribute("aria-pressed", String(soundOn()));
    sound.textContent = soundOn() ? t("Sounds: on") : t("Sounds: off");
  };
  drawSound();
  sound.addEventListener("click", () => {
    toggleSound();
    drawSound();
    play("turn"); // a first taste, and the tap that lets the page play sound at all
  });
  const notify = byId("notify-btn");
  notify.hidden = !("Notification" in window) || Notification.permission !== "default";
  notify.addEventListener("click", async () => {
    await Notification.requestPermission();
    notify.hidden = true;
  });
}

/** @param {{reveal: object|null}} ctx */
export function render(state) {
  const round = state.round;
  const me = state.you.seat;
  const myTurn = state.phase === "playing" && round !== null && me !== null && round.turn === me;
  const title = myTurn ? t("(●) Your turn · Perudo") : baseTitle;
  if (document.title !== title) document.title = title;
  const key = myTurn ? `${round.number}:${round.bids.length}` : null;
  if (key !== null && key !== lastTurnKey) alert(t("Your turn"));
  lastTurnKey = key;
  if (lastPhase === "playing" && state.phase === "finished" && state.winner !== null) {
    alert(state.winner === me ? t("Game over: you win!") : t("Game over: {name} wins.", { name: nameOf(state, state.winner) }));
  }
  lastPhase = state.phase;
  sayNewBids(state);
}

/** Each new bid of the round, once, for screen readers ("Eve bid 5 twos."). */
function sayNewBids(state) {
  const round = state.phase === "playing" ? state.round : null;
  if (round === null) {
    lastBids = null;
    return;
  }
  const said = lastBids !== null && lastBids.round === round.number ? lastBids.count : round.bids.length;
  const fresh = round.bids.slice(said);
  for (const bid of fresh) say(bidSentence(state, bid));
  if (fresh.length > 0) play("bid");
  lastBids = { round: round.number, count: round.bids.length };
}

/** A round's result, as the log writes it, for screen readers. */
export function roundResult(result, state) {
  if (state) say(resultSummary(result, namer(state), state.you.seat));
}

/** One line in the polite live region (added, never rewritten, so each is read once). */
function say(text) {
  const region = byId("table-live");
  region.append(h("p", {}, text));
  while (region.children.length > SAID_KEEP) region.firstElementChild.remove();
}

/** An `autoplayed` message: tell the person the bot moved for them. */
export function autoplayed(msg, state) {
  if (state && msg.seat === state.you.seat) alert(t("The bot played for you"));
}

function alert(text) {
  const live = byId("turn-live");
  live.textContent = "";
  setTimeout(() => {
    live.textContent = text; // a fresh node text, so the same words are read again
  }, 50);
  if (typeof navigator.vibrate === "function" && navigator.userActivation?.hasBeenActive !== false) {
    try {
      navigator.vibrate(200);
    } catch {
      /* not allowed before a tap */
    }
  }
  play("turn");
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    try {
      new Notification(text, { tag: "perudo", body: baseTitle });
    } catch {
      /* some browsers only notify from a service worker */
    }
  }
}
