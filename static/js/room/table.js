// The table in play: the round and the dice in play, whose turn, the standing bid (or the
// opener and roll-off), this round's bids, who is being waited for, your own dice, and the turn
// timer. Other players' dice are never drawn here; the players' list is playerlist.js.
import { byId, fill, h } from "../dom.js";
import { bidChip, dieSvg } from "../dice.js";
import { n, percent, t } from "../i18n.js";
import { nameOf, player } from "./people.js";
import { play } from "./sounds.js";

const awaySince = new Map(); // seat -> local time (ms) it was first seen disconnected
const SHAKE_MS = 700;
let shownRound; // the round number on screen (null: none; undefined: nothing drawn yet)

export function render(state) {
  byId("table").hidden = state.phase === "lobby";
  if (state.phase === "lobby") return;
  const round = state.round;
  const playing = state.phase === "playing" && round !== null;
  byId("round-label").textContent = playing ? t("Round {number}", { number: round.number }) : t("Game over");
  byId("dice-total").textContent = playing ? n("{count} die in play", "{count} dice in play", round.total_dice) : "";
  renderPalifico(state, playing);
  renderCenter(state, playing);
  renderMe(state);
  rollIn(state, playing);
  for (const p of state.players) {
    const away = !p.connected && !p.bot && !p.out && playing;
    if (!away) awaySince.delete(p.seat);
    else if (!awaySince.has(p.seat)) awaySince.set(p.seat, Date.now());
  }
}

function renderPalifico(state, playing) {
  const round = state.round;
  const banner = byId("palifico-banner");
  banner.hidden = !(playing && round.palifico);
  if (playing && round.palifico) {
    banner.textContent =
      round.palifico_seat === state.you.seat
        ? t("Palifico round (yours): aces are not wild, and the first bid's face is locked.")
        : t("Palifico round ({name}): aces are not wild, and the first bid's face is locked.", { name: nameOf(state, round.palifico_seat) });
  }
}

/** Whose turn, the standing bid (or the opener and roll-off), and this round's bids. */
function renderCenter(state, playing) {
  const round = state.round;
  const turnText = byId("turn-text");
  const myTurn = playing && round.turn === state.you.seat;
  let turn = "";
  if (myTurn) turn = t("Your turn");
  else if (playing) turn = t("{name} to play", { name: nameOf(state, round.turn) });
  turnText.textContent = turn;
  turnText.classList.toggle("mine", myTurn);
  byId("center").hidden = !playing;
  const standing = byId("standing");
  if (playing && round.bid) {
    fill(
      standing,
      h("span", { class: "standing-label" }, t("Standing bid")),
      h("span", { class: "standing-bid" }, bidChip(round.bid, { small: false })),
      h("span", { class: "standing-by" }, bidder(state, round.bid)),
      myTurn && state.you.odds?.bid != null ? h("span", { class: "standing-odds" }, t("{percent} chance it holds", { percent: percent(state.you.odds.bid) })) : null,
    );
  } else if (playing) {
    const opener = round.opener === state.you.seat ? t("No bid yet. You open the round.") : t("No bid yet. {name} opens the round.", { name: nameOf(state, round.opener) });
    fill(standing, h("span", { class: "standing-label" }, opener), rollOff(state));
  } else {
    fill(standing);
  }
  fill(
    byId("history"),
    playing ? round.bids.map((b) => h("li", {}, h("span", { class: "hist-name" }, shortBidder(state, b)), bidChip(b))) : [],
  );
}

/** "by Anna", "by you", "by the bot for you": who made the standing bid. */
function bidder(state, bid) {
  const you = bid.seat === state.you.seat;
  const name = { name: nameOf(state, bid.seat) };
  if (bid.autoplayed) return you ? t("by the bot for you") : t("by the bot for {name}", name);
  return you ? t("by you") : t("by {name}", name);
}

/** Who made a bid of this round, short: "Eve", "You", "Bot for Eve". */
function shortBidder(state, bid) {
  if (!bid.autoplayed) return nameOf(state, bid.seat);
  return bid.seat === state.you.seat ? t("Bot for you") : t("Bot for {name}", { name: nameOf(state, bid.seat) });
}

/** Round 1 only: who rolled what to decide the opener (highest opens, so an ace shows as the
 * 1 it counts as); each throw wraps as a whole. */
function rollOff(state) {
  const throws = state.round.roll_off;
  if (!throws || state.round.number !== 1) return null;
  return h(
    "span",
    { class: "roll-off" },
    h("span", {}, t("Roll-off:")),
    throws.flatMap((rolls, i) => [
      i > 0 ? h("span", {}, t("re-roll")) : null,
      ...rolls.map((r) => h("span", { class: "roll-one" }, h("span", { class: "roll-name" }, nameOf(state, r.seat)), dieSvg(r.die, { small: true, plain: true }))),
    ]),
  );
}

/** Your dice (hidden for spectators, and once the game is over: no dice are in play then). */
function renderMe(state) {
  const you = state.you.seat === null ? null : player(state, state.you.seat);
  byId("me").hidden = you === null || state.phase !== "playing";
  if (byId("me").hidden) return;
  const dice = [...state.you.dice].sort((a, b) => a - b);
  fill(
    byId("my-dice"),
    dice.length > 0 ? dice.map((d) => dieSvg(d, { real: true })) : h("span", { class: "muted" }, you.out ? t("No dice left") : ""),
  );
}

/**
 * A new round: the dice shake in their cups (CSS, none under prefers-reduced-motion) and the
 * roll sounds. Not for the round a page opens on.
 */
function rollIn(state, playing) {
  const number = playing ? state.round.number : null;
  const fresh = number !== null && shownRound !== undefined && number !== shownRound;
  shownRound = number;
  if (!fresh) return;
  const board = byId("table");
  board.classList.remove("rolling");
  void board.offsetWidth; // restart the animation
  board.classList.add("rolling");
  setTimeout(() => board.classList.remove("rolling"), SHAKE_MS);
  play("roll");
}

function clock(seconds) {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/**
 * Redraw the countdown of the turn in play and the time waited for absent players; the page
 * runs it a few times a second.
 * @param {{clockOffset: number}} ctx  server clock minus local clock, in seconds
 */
export function renderTimer(state, ctx) {
  renderWaiting(state);
  const timer = byId("timer");
  const deadline = state?.phase === "playing" ? state.round?.turn_deadline : null;
  if (deadline === null || deadline === undefined) {
    timer.hidden = true;
    return;
  }
  const remaining = Math.max(0, deadline - (Date.now() / 1000 + ctx.clockOffset));
  const left = Math.ceil(remaining);
  renderTurnBar(remaining / (state.settings.turn_seconds || 1));
  timer.hidden = false;
  timer.textContent = clock(left);
  timer.classList.toggle("low", left <= 5);
  timer.setAttribute("aria-label", n("{count} second left", "{count} seconds left", left));
}

/** The acting seat's bar: the share of its turn's time still left (0..1). */
function renderTurnBar(share) {
  const fill = document.querySelector("#players .turn-bar-fill");
  if (!fill) return;
  const clamped = Math.min(1, Math.max(0, share));
  fill.style.transform = `scaleX(${clamped.toFixed(3)})`;
  fill.classList.toggle("low", clamped < 0.25);
}

/** "Waiting for Eve to reconnect · 0:07": elapsed, since the grace's length is not sent. */
function renderWaiting(state) {
  const line = byId("wait-line");
  const now = Date.now();
  const parts = [];
  for (const [seat, since] of awaySince) {
    const p = state ? player(state, seat) : null;
    if (p && !p.autoplay) parts.push(t("Waiting for {name} to reconnect · {time}", { name: p.name, time: clock(Math.floor((now - since) / 1000)) }));
  }
  const text = parts.join(" · ");
  if (line.textContent !== text) line.textContent = text;
}
