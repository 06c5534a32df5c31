// The game log: every finished round of this game in a line (call, bid, count, who lost or won
// a die, eliminations, palifico), each move the server's bot made for a person, and the bids of
// the round in play. A finished round is a button that shows its reveal again. It also keeps
// the one line a returning player reads: what the bot played for them.
import { byId, fill, h } from "../dom.js";
import { bidText } from "../dice.js";
import { AUTOPLAY_REASON_TEXT } from "../codes.js";
import { resultSummary } from "../result.js";
import { byName, nameOf, namer } from "./people.js";

const KEEP = 300;
const TEXT = {
  round: (n) => `Round ${n}`,
  palifico: "Palifico.",
  bids: (name, bid) => `${name} bid ${bidText(bid)}.`,
  someReason: "For an absent player",
  auto: (reason, action, name) => `${reason}: the bot ${action} for ${name}.`,
  bid: (bid) => `bid ${bidText(bid)}`,
  called: (call) => `called ${call}`,
  played: "played",
  away: (moves) => `While you were away the bot played for you: ${moves}.`,
};

let entries = []; // {round} and {autoplayed}, oldest first
let fresh = false; // just replaced by the server's `history`
let away = []; // what the bot played for you since your own last move
let botMoveDue = false; // an `autoplayed` for you whose move the next state shows
let myBids = null; // "round:count" of your bids in the state last drawn

/** The server's `history` after a (re)connection replaces the log. */
export function reset(rounds) {
  const before = entries;
  entries = (Array.isArray(rounds) ? rounds : []).map((round) => ({ round }));
  fresh = true;
  if (seen === null) return; // the page's first connection: nothing to compare with
  catchingUp = true;
  const had = new Set(before.filter((e) => e.round).map((e) => e.round.round));
  for (const e of entries) if (e.round.caller === seen.you && !had.has(e.round.round)) away.push(TEXT.called(e.round.call));
}

let seen = null; // {you, bids: Set of "round:index"}: your bids this page saw while connected
let catchingUp = false; // reconnected: your bids in the next state that were never seen are the bot's

/** Bids of yours that appeared while this page was not connected were played by the bot. */
function catchUp(state) {
  const round = state.phase === "playing" ? state.round : null;
  if (state.you.seat === null || round === null) return false;
  const was = catchingUp;
  if (seen === null || seen.you !== state.you.seat) seen = { you: state.you.seat, bids: new Set() };
  round.bids.forEach((b, i) => {
    const key = `${round.number}:${i}`;
    if (b.seat !== state.you.seat || seen.bids.has(key)) return;
    if (catchingUp) away.push(TEXT.bid(b));
    seen.bids.add(key);
  });
  catchingUp = false;
  return was;
}

/** A new game begins (from the lobby or after a finished game), unless `history` just came. */
export function phaseChange(before, after) {
  if (after === "playing" && (before === "lobby" || before === "finished") && !fresh) entries = [];
  fresh = false;
}

/** One `round_result` or `autoplayed`; `youSeat` marks what the bot played for you. */
export function add(entry, youSeat) {
  if (entry.round && entries.some((e) => e.round?.round === entry.round.round)) return;
  entries.push(entry);
  if (entries.length > KEEP) entries.shift();
  if (entry.autoplayed && entry.autoplayed.seat === youSeat && youSeat !== null) {
    away.push(actionText(entry.autoplayed.action));
    botMoveDue = true;
  } else if (entry.round && entry.round.caller === youSeat) {
    noteMyMove();
  }
}

function noteMyMove() {
  if (botMoveDue) botMoveDue = false;
  else away = [];
}

/** Seats in the order they were knocked out of this game (as far as this page saw). */
export function eliminated() {
  return entries.filter((e) => e.round && e.round.eliminated !== null && e.round.eliminated !== undefined).map((e) => e.round.eliminated);
}

/** @param {{showReveal: (result: object) => void}} ctx */
export function render(state, ctx) {
  const caught = catchUp(state);
  const round = state.phase === "playing" ? state.round : null;
  const mine = round && state.you.seat !== null ? `${round.number}:${round.bids.filter((b) => b.seat === state.you.seat).length}` : null;
  if (!caught && mine !== null && myBids !== null && mine !== myBids && mine.split(":")[0] === myBids.split(":")[0]) noteMyMove();
  myBids = mine;
  byId("away-line").textContent = away.length > 0 && state.phase === "playing" ? TEXT.away(away.join(", ")) : "";
  const box = byId("log");
  const bids = round ? round.bids : [];
  box.hidden = state.phase === "lobby" || (entries.length === 0 && bids.length === 0);
  if (box.hidden) return;
  const list = byId("log-list");
  const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  fill(
    list,
    entries.map((entry) => (entry.round ? roundLine(state, entry.round, ctx) : autoplayedLine(state, entry.autoplayed))),
    bids.map((b) => h("li", { class: "log-bid" }, TEXT.bids(nameOf(state, b.seat), b))),
  );
  if (atEnd) list.scrollTop = list.scrollHeight; // follow the newest line unless scrolled back
}

function roundLine(state, r, ctx) {
  return h(
    "li",
    { class: "log-round", dataset: { round: r.round } },
    h(
      "button",
      { type: "button", class: "log-again", onclick: () => ctx.showReveal(r) },
      h("span", { class: "log-when" }, TEXT.round(r.round)),
      " ",
      r.palifico ? `${TEXT.palifico} ` : "",
      resultSummary(r, namer(state), state.you.seat),
    ),
  );
}

/** "Time ran out: the bot bid 5 twos for Eve." */
function autoplayedLine(state, msg) {
  const reason = AUTOPLAY_REASON_TEXT[msg.reason] ?? TEXT.someReason;
  return h("li", { class: "log-auto", dataset: { seat: msg.seat } }, TEXT.auto(reason, actionText(msg.action), byName(state, msg.seat)));
}

function actionText(action) {
  if (action?.type === "bid") return TEXT.bid(action);
  if (action?.type === "dudo" || action?.type === "calza") return TEXT.called(action.type);
  return TEXT.played;
}
