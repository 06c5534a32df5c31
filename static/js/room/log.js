// The game log: every finished round of this game in a line (call, bid, count, who lost or won
// a die, eliminations, palifico) and the bids of the round in play; a bid or call the server's
// bot made for a person (its `autoplayed` field) reads as the bot's, for that person, never as
// theirs. A finished round is a button that shows its reveal again. It also keeps the one line
// a returning player reads: what the bot played for them, and why.
import { byId, fill, h } from "../dom.js";
import { bidText } from "../dice.js";
import { AUTOPLAY_REASON_TEXT } from "../codes.js";
import { listText, t } from "../i18n.js";
import { resultSummary } from "../result.js";
import { nameOf, namer } from "./people.js";

const KEEP = 300;

let entries = []; // {round}, oldest first
let fresh = false; // just replaced by the server's `history`
let away = []; // the `autoplayed` messages for you since your own last move
let myBids = null; // "round:count" of your bids in the state last drawn

/** Fade the list's top edge while lines are scrolled above it. */
export function mount() {
  const list = byId("log-list");
  list.addEventListener("scroll", () => markMoreAbove(list), { passive: true });
}

/** A `welcome`: the moves the bot made for your seat while you had no connection. */
export function welcome(msg) {
  myBids = null; // the bids that appeared while away are not yours
  if (msg.seat === null) return;
  for (const played of msg.autoplayed ?? []) if (played.seat === msg.seat) away.push(played);
}

/** The server's `history` after a (re)connection replaces the log. */
export function reset(rounds) {
  entries = (Array.isArray(rounds) ? rounds : []).map((round) => ({ round }));
  fresh = true;
}

/** The state's marks of the finished rounds' calls, by round (1 first): the bot's call says so. */
export function markCalls(calls) {
  for (const entry of entries) {
    const why = calls[entry.round.round - 1];
    if (why) entry.round.autoplayed = why;
  }
}

/** A new game begins (from the lobby or after a finished game), unless `history` just came. */
export function phaseChange(before, after) {
  if (after === "playing" && (before === "lobby" || before === "finished") && !fresh) entries = [];
  fresh = false;
}

/**
 * One `round_result` or `autoplayed`; `youSeat` marks what the bot played for you. The bot's
 * move itself is drawn from the bid or round that carries it, so `autoplayed` adds no line.
 */
export function add(entry, youSeat) {
  if (entry.autoplayed) {
    if (entry.autoplayed.seat === youSeat && youSeat !== null) {
      away.push(entry.autoplayed);
    }
    return;
  }
  if (entries.some((e) => e.round.round === entry.round.round)) return;
  entries.push(entry);
  if (entries.length > KEEP) entries.shift();
  if (entry.round.caller === youSeat && !entry.round.autoplayed) noteMyMove();
}

/** You moved yourself: what the bot played for you before is old news. */
function noteMyMove() {
  away = [];
}

/** Seats in the order they were knocked out of this game (as far as this page saw). */
export function eliminated() {
  return entries.filter((e) => e.round.eliminated !== null && e.round.eliminated !== undefined).map((e) => e.round.eliminated);
}

/** The finished rounds of this game the page holds, oldest first (the end card sums them). */
export function rounds() {
  return entries.map((e) => e.round);
}

/** @param {{showReveal: (result: object) => void}} ctx */
export function render(state, ctx) {
  const list = byId("log-list");
  const round = state.phase === "playing" ? state.round : null;
  const mine = round && state.you.seat !== null ? `${round.number}:${round.bids.filter((b) => b.seat === state.you.seat && !b.autoplayed).length}` : null;
  if (mine !== null && myBids !== null && mine !== myBids && mine.split(":")[0] === myBids.split(":")[0]) noteMyMove();
  myBids = mine;
  byId("away-line").textContent = away.length > 0 && state.phase === "playing" ? awayText(away) : "";
  const box = byId("log");
  const bids = round ? round.bids : [];
  box.hidden = state.phase === "lobby"; // also while empty: the sound and notice toggles live here
  if (box.hidden) return;
  const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  fill(
    list,
    entries.map((entry) => roundLine(state, entry.round, ctx)),
    bids.map((b) => bidLine(state, b)),
  );
  if (atEnd) list.scrollTop = list.scrollHeight; // follow the newest line unless scrolled back
  markMoreAbove(list);
}

function markMoreAbove(list) {
  list.classList.toggle("more-above", list.scrollTop > 0);
}

function roundLine(state, r, ctx) {
  return h(
    "li",
    { class: "log-round", dataset: { round: r.round } },
    h(
      "button",
      { type: "button", class: "log-again", onclick: () => ctx.showReveal(r) },
      h("span", { class: "log-when" }, t("Round {number}", { number: r.round })),
      " ",
      r.palifico ? [t("Palifico."), " "] : null,
      resultSummary(r, namer(state), state.you.seat),
    ),
  );
}

/** A bid of the round in play as a log line (the bot's, for a person, in its own style). */
function bidLine(state, b) {
  return h("li", { class: b.autoplayed ? "log-auto" : "log-bid", dataset: b.autoplayed ? { seat: b.seat } : {} }, bidSentence(state, b));
}

/** "Eve bid 5 twos.", or "Time ran out: the bot bid 5 twos for Eve." when the bot did. */
export function bidSentence(state, b) {
  if (b.autoplayed) return autoplayedText(state, { seat: b.seat, reason: b.autoplayed, action: { type: "bid", ...b } });
  const bid = bidText(b);
  return b.seat === state.you.seat ? t("You bid {bid}.", { bid }) : t("{name} bid {bid}.", { name: nameOf(state, b.seat), bid });
}

/** "Time ran out: the bot bid 5 twos for Eve." */
function autoplayedText(state, msg) {
  const params = { reason: AUTOPLAY_REASON_TEXT[msg.reason] ?? t("For an absent player"), move: moveText(msg.action) };
  return msg.seat === state.you.seat
    ? t("{reason}: the bot {move} for you.", params)
    : t("{reason}: the bot {move} for {name}.", { ...params, name: nameOf(state, msg.seat) });
}

/**
 * "While you were away, the bot bid 5 twos and called dudo for you.", or "Time ran out: the bot
 * bid 5 twos for you." when the timer played for a person who was here.
 */
function awayText(played) {
  const moves = (list) => listText(list.map((p) => moveText(p.action)));
  const timed = played.filter((p) => p.reason === "timer");
  const absent = played.filter((p) => p.reason !== "timer");
  const lines = [];
  if (timed.length > 0) lines.push(t("Time ran out: the bot {moves} for you.", { moves: moves(timed) }));
  if (absent.length > 0) lines.push(t("While you were away, the bot {moves} for you.", { moves: moves(absent) }));
  return lines.join(" ");
}

/** What the bot did, to fit "the bot … for Eve": "bid 5 twos", "called dudo". */
function moveText(action) {
  if (action?.type === "bid") return t("bid {bid}", { bid: bidText(action) });
  if (action?.type === "dudo") return t("called dudo");
  if (action?.type === "calza") return t("called calza");
  return t("played");
}
