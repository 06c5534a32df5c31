// The room page: one connection, the page's state, and the actions it sends. Everything on
// screen is drawn by the view modules beside this one from the server's `state` (PROTOCOL.md)
// and a small context; the page keeps no game rules, and other players' dice only ever arrive
// in a `round_result`.
import { byId, toast } from "../dom.js";
import { JOIN_FAILURES, errorText } from "../codes.js";
import { t } from "../i18n.js";
import {
  forgetSeatToken,
  forgetTokenSetAside,
  keepSeatToken,
  rememberName,
  savedName,
  seatToken,
  setTokenAside,
  takeJoinWish,
  takeSeatBack,
  tokenSetAside,
} from "../seat.js";
import { Connection } from "./connection.js";
import { savedPlaces } from "./places.js";
import * as alerts from "./alerts.js";
import * as calls from "./calls.js";
import * as chat from "./chat.js";
import * as end from "./end.js";
import * as log from "./log.js";
import * as lobby from "./lobby.js";
import * as picker from "./picker.js";
import * as playerlist from "./playerlist.js";
import * as reactions from "./reactions.js";
import { applyBid } from "./events.js";
import * as reveal from "./reveal.js";
import * as seats from "./seats.js";
import * as status from "./status.js";
import * as table from "./table.js";
import * as tools from "./tools.js";

const REVEAL_MS = 3800;
const PENDING_MS = 3000; // give up waiting for an action's answer after this

const roomId = document.body.dataset.room;
const root = byId("room");

const page = {
  state: null, // the state on screen
  seq: -1, // newest state seq seen on this connection
  queue: [], // round results, autoplayed moves and states waiting for a reveal to finish
  reveal: null, // the round result being revealed
  revealTimer: null,
  joining: null, // the name of a join in flight
  online: false,
  closed: false, // the server closed the socket for good
  pending: false, // an action was sent; its state has not come back yet
  pendingTimer: null,
  clockOffset: 0, // server clock minus local clock, seconds
  leftSeat: false, // this browser left its seat in the running game and may take it back
  botCall: null, // an `autoplayed` dudo or calza, whose round_result comes next
};

/** What the views get: page-level facts as they are now, and the actions they may take. */
function context() {
  return {
    roomId,
    revealMs: REVEAL_MS,
    online: page.online,
    ready: page.online && !page.pending, // connected, and no action of ours awaits its answer
    clockOffset: page.clockOffset,
    reveal: page.reveal,
    act,
    say: (text) => send({ type: "chat", text }),
    send,
    join,
    leave,
    comeBack,
    leftSeat: page.leftSeat,
    retry,
    endReveal,
    showReveal: (result) => page.reveal === null && startReveal(result),
    placesFor,
    eliminated: log.eliminated,
    rounds: log.rounds,
  };
}

// Drawn on every state, in this order (the end card before the picker measures the page).
const VIEWS = [lobby, seats, table, playerlist, end, picker, calls, log, chat, reactions, tools, alerts];

const conn = new Connection(roomId, { hello, onMessage, onStatus });
const placesFor = savedPlaces((gameId) => {
  if (page.state?.game_id === gameId && !page.closed) end.render(page.state, context());
});

function hello() {
  const token = seatToken(roomId);
  if (token) return { type: "resume", token, events: true };
  if (page.joining) return { type: "join", name: page.joining, events: true };
  return { type: "watch", events: true };
}

// --- Messages --------------------------------------------------------------------------------

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      page.seq = -1; // a new connection: its first state is always taken
      if (msg.token) keepSeatToken(roomId, msg.token);
      if (msg.seat !== null) page.joining = null;
      // A browser always holds a key (its cookie): a guest's name is someone else's here.
      if (msg.guest && msg.seat !== null) toast(t("This name belongs to another player on this server: you play as a guest, and your games here do not count for it."));
      log.welcome(msg);
      break;
    case "history":
      log.reset(msg.rounds);
      break;
    case "state":
      receiveState(msg);
      break;
    case "bid":
      receiveBid(msg);
      break;
    case "autoplayed":
      if (msg.action?.type !== "bid") page.botCall = msg;
      page.queue.push({ autoplayed: msg });
      pump();
      break;
    case "round_result":
      page.queue.push({ round_result: markBotCall(msg) });
      pump();
      break;
    case "chat":
      chat.append(msg, page.state?.you.seat ?? null);
      break;
    case "error":
      receiveError(msg.code);
      break;
    case "reaction":
      reactions.show(msg);
      break;
    case "notice":
      status.notice(String(msg.text ?? ""));
      break;
    default:
      break; // a message this page does not know yet: ignore it
  }
}

/** A round_result whose call the server's bot made for a person says so (`autoplayed`). */
function markBotCall(result) {
  const call = page.botCall;
  page.botCall = null;
  return call !== null && call.seat === result.caller ? { ...result, autoplayed: call.reason } : result;
}

/**
 * Copy the state's `autoplayed` marks (PROTOCOL.md: why the bot made each bid of the round and
 * each finished round's call, null for a player's own) onto the moves they describe, so every
 * view reads a bot's move from the move itself.
 */
function markBotMoves(state) {
  const marks = state.autoplayed;
  if (!marks) return;
  const round = state.round;
  if (round) {
    round.bids.forEach((bid, i) => {
      if (marks.bids?.[i]) bid.autoplayed = marks.bids[i];
    });
    const last = round.bids.at(-1);
    if (round.bid && last?.autoplayed) round.bid.autoplayed = last.autoplayed;
  }
  log.markCalls(marks.calls ?? []);
}

function receiveState(state) {
  if (state.seq <= page.seq) return; // older than what we hold
  page.seq = state.seq;
  end.noteRatings(state); // only the saved game's first state carries them; it may not be drawn
  markBotMoves(state);
  if (typeof state.server_time === "number") page.clockOffset = state.server_time - Date.now() / 1000;
  settle();
  const last = page.queue.at(-1);
  if (last && last.state) last.state = state;
  else page.queue.push({ state });
  pump();
}

/** A bid event: the newest state held, with the bid applied; on a gap, ask for a full state. */
function receiveBid(event) {
  const newest = page.queue.findLast((item) => item.state)?.state ?? page.state;
  if (event.seq <= page.seq) return; // older than what we hold
  const next = applyBid(newest?.seq === page.seq ? newest : null, event);
  if (next === null) conn.send({ type: "sync" });
  else receiveState(next);
}

function receiveError(code) {
  settle();
  toast(errorText(code), "error");
  if (code === "unknown_token") {
    forgetSeatToken(roomId);
    conn.connect();
  } else if (page.joining !== null && JOIN_FAILURES.has(code)) {
    page.joining = null;
    byId("join-name").focus();
    conn.connect(); // this connection's hello was spent: come back as a spectator
  } else if (page.state) {
    render(page.state);
  }
}

/** Show queued states at once; a round result holds everything after it until it was seen. */
function pump() {
  while (page.reveal === null && page.queue.length > 0) {
    const item = page.queue.shift();
    if (item.state) {
      render(item.state);
    } else if (item.autoplayed) {
      addToLog({ autoplayed: item.autoplayed });
      alerts.autoplayed(item.autoplayed, page.state);
    } else {
      addToLog({ round: item.round_result });
      alerts.roundResult(item.round_result, page.state);
      startReveal(item.round_result);
    }
  }
}

function onStatus(kind, detail = {}) {
  page.online = kind === "open";
  if (kind === "closed") page.closed = true;
  status.render(kind, detail);
  if (page.state) render(page.state);
}

function retry() {
  page.closed = false;
  conn.connect();
}

// --- Drawing ---------------------------------------------------------------------------------

function render(state) {
  const before = page.state?.phase;
  if (state.phase !== "playing" && page.leftSeat) {
    forgetTokenSetAside(roomId); // the game is over: the way back ends with it
    page.leftSeat = false;
  }
  if (before && before !== state.phase) window.scrollTo(0, 0);
  log.phaseChange(before, state.phase);
  page.state = state;
  root.dataset.phase = state.phase;
  root.dataset.seq = String(state.seq);
  root.dataset.seat = state.you.seat === null ? "" : String(state.you.seat);
  if (page.closed) return;
  const ctx = context();
  for (const view of VIEWS) view.render(state, ctx);
  table.renderTimer(state, ctx);
}

function addToLog(entry) {
  log.add(entry, page.state?.you.seat ?? null);
  if (page.state && !page.closed) log.render(page.state, context());
}

function startReveal(result) {
  page.reveal = result;
  reveal.render(page.state, context());
  page.revealTimer = setTimeout(endReveal, REVEAL_MS);
}

function endReveal() {
  if (page.reveal === null) return;
  clearTimeout(page.revealTimer);
  const hadFocus = reveal.hasFocus();
  page.reveal = null;
  reveal.render(page.state, context());
  pump();
  if (hadFocus && page.reveal === null) reveal.focusNext();
}

// --- Sending ---------------------------------------------------------------------------------

/** Send a message; false (and the player is told why) when it could not go. */
function send(msg) {
  const outcome = conn.send(msg);
  if (outcome === "sent") return true;
  toast(outcome === "too_big" ? t("That is too long to send.") : t("Not connected right now. Reconnecting…"), "error");
  return false;
}

/** Send a game or room action; buttons stay disabled until the answering state arrives. */
function act(msg) {
  if (!send(msg)) return;
  page.pending = true;
  clearTimeout(page.pendingTimer);
  page.pendingTimer = setTimeout(() => {
    settle();
    if (page.state) render(page.state);
  }, PENDING_MS);
  if (page.state) render(page.state);
}

function settle() {
  page.pending = false;
  clearTimeout(page.pendingTimer);
}

function join(name) {
  rememberName(name);
  page.joining = name;
  conn.connect(); // a new connection, so the hello can be a join
}

/** Leave the seat: in the lobby it is freed; in a game a bot plays it and the page keeps the
 * way back (`comeBack`) until the game ends. */
function leave() {
  act({ type: "leave" });
  if (page.state?.phase === "playing") {
    setTokenAside(roomId);
    page.leftSeat = true;
  } else {
    forgetSeatToken(roomId);
  }
  conn.connect();
}

/** Take the seat left during this game back: the next hello resumes it. */
function comeBack() {
  takeSeatBack(roomId);
  page.leftSeat = false;
  conn.connect();
}

// --- Start -----------------------------------------------------------------------------------

for (const view of [status, lobby, picker, calls, reveal, end, chat, reactions, log, tools, alerts]) view.mount(context());
setInterval(() => table.renderTimer(page.state, context()), 250);
if (!seatToken(roomId) && takeJoinWish(roomId) && savedName()) page.joining = savedName();
page.leftSeat = !seatToken(roomId) && tokenSetAside(roomId) !== null;
conn.connect();
