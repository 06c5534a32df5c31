// The table in play: the round and the dice in play, whose turn, the standing bid (or the
// opener and roll-off), this round's bids, who is being waited for, your own dice, and the turn
// timer. Other players' dice are never drawn here; the players' list is playerlist.js.
import { byId, fill, h } from "../dom.js";
import { bidChip, dieSvg } from "../dice.js";
import { percent, t } from "../i18n.js";
import { byName, nameOf, player } from "./people.js";

const TEXT = {
  round: (n) => `Round ${n}`,
  gameOver: "Game over",
  diceInPlay: (n) => `${n} dice in play`,
  yourTurn: "Your turn",
  toPlay: (name) => `${name} to play`,
  palifico: (who) => `Palifico round (${who}): aces are not wild, and the first bid's face is locked.`,
  palificoYours: "yours",
  standing: "Standing bid",
  by: (name) => `by ${name}`,
  youOpen: "You open the round.",
  opens: (name) => `${name} opens the round.`,
  noBid: "No bid yet.",
  rollOff: "Roll-off:",
  reRoll: "re-roll",
  noDice: "No dice left",
  waiting: (name, time) => `Waiting for ${name} to reconnect · ${time}`,
  secondsLeft: (n) => `${n} seconds left`,
};

const awaySince = new Map(); // seat -> local time (ms) it was first seen disconnected

export function render(state) {
  byId("table").hidden = state.phase === "lobby";
  if (state.phase === "lobby") return;
  const round = state.round;
  const playing = state.phase === "playing" && round !== null;
  byId("round-label").textContent = playing ? TEXT.round(round.number) : TEXT.gameOver;
  byId("dice-total").textContent = playing ? TEXT.diceInPlay(round.total_dice) : "";
  renderPalifico(state, playing);
  renderCenter(state, playing);
  renderMe(state);
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
    const who = round.palifico_seat === state.you.seat ? TEXT.palificoYours : nameOf(state, round.palifico_seat);
    banner.textContent = TEXT.palifico(who);
  }
}

/** Whose turn, the standing bid (or the opener and roll-off), and this round's bids. */
function renderCenter(state, playing) {
  const round = state.round;
  const turnText = byId("turn-text");
  const myTurn = playing && round.turn === state.you.seat;
  turnText.textContent = playing ? (myTurn ? TEXT.yourTurn : TEXT.toPlay(nameOf(state, round.turn))) : "";
  turnText.classList.toggle("mine", myTurn);
  byId("center").hidden = !playing;
  const standing = byId("standing");
  if (playing && round.bid) {
    fill(
      standing,
      h("span", { class: "standing-label" }, TEXT.standing),
      h("span", { class: "standing-bid" }, bidChip(round.bid, { small: false })),
      h("span", { class: "standing-by" }, TEXT.by(byName(state, round.bid.seat))),
      myTurn && state.you.odds?.bid != null ? h("span", { class: "standing-odds" }, t("{percent} chance it holds", { percent: percent(state.you.odds.bid) })) : null,
    );
  } else if (playing) {
    const opener = round.opener === state.you.seat ? TEXT.youOpen : TEXT.opens(nameOf(state, round.opener));
    fill(standing, h("span", { class: "standing-label" }, `${TEXT.noBid} ${opener}`), rollOff(state));
  } else {
    fill(standing);
  }
  fill(
    byId("history"),
    playing ? round.bids.map((b) => h("li", {}, h("span", { class: "hist-name" }, nameOf(state, b.seat)), bidChip(b))) : [],
  );
}

/** Round 1 only: who rolled what to decide the opener; each throw wraps as a whole. */
function rollOff(state) {
  const throws = state.round.roll_off;
  if (!throws || state.round.number !== 1) return null;
  return h(
    "span",
    { class: "roll-off" },
    h("span", {}, TEXT.rollOff),
    throws.flatMap((t, i) => [
      i > 0 ? h("span", {}, TEXT.reRoll) : null,
      ...t.map((r) => h("span", { class: "roll-one" }, h("span", { class: "roll-name" }, nameOf(state, r.seat)), dieSvg(r.die, { small: true }))),
    ]),
  );
}

/** Your dice (hidden for spectators). */
function renderMe(state) {
  const you = state.you.seat === null ? null : player(state, state.you.seat);
  byId("me").hidden = you === null;
  if (you === null) return;
  const dice = [...state.you.dice].sort((a, b) => a - b);
  fill(
    byId("my-dice"),
    dice.length > 0 ? dice.map((d) => dieSvg(d, { real: true })) : h("span", { class: "muted" }, you.out ? TEXT.noDice : ""),
  );
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
  const left = Math.max(0, Math.ceil(deadline - (Date.now() / 1000 + ctx.clockOffset)));
  timer.hidden = false;
  timer.textContent = clock(left);
  timer.classList.toggle("low", left <= 5);
  timer.setAttribute("aria-label", TEXT.secondsLeft(left));
}

/** "Waiting for Eve to reconnect · 0:07": elapsed, since the grace's length is not sent. */
function renderWaiting(state) {
  const line = byId("wait-line");
  const now = Date.now();
  const parts = [];
  for (const [seat, since] of awaySince) {
    const p = state ? player(state, seat) : null;
    if (p && !p.autoplay) parts.push(TEXT.waiting(p.name, clock(Math.floor((now - since) / 1000))));
  }
  const text = parts.join(" · ");
  if (line.textContent !== text) line.textContent = text;
}
