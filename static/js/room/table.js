// The table in play: the round, the other players' cups, the standing bid and this round's
// bids, your own dice, and the turn timer. Other players' dice are never drawn here.
import { byId, fill, h } from "../dom.js";
import { bidChip, cupSvg, dieSvg } from "../dice.js";
import { resultSummary } from "../result.js";
import { byName, nameOf, namer, player, presenceDot, tableBadges } from "./people.js";

export function render(state) {
  byId("table").hidden = state.phase === "lobby";
  if (state.phase === "lobby") return;
  const round = state.round;
  const playing = state.phase === "playing" && round !== null;
  byId("round-label").textContent = playing ? `Round ${round.number}` : "Game over";
  renderPalifico(state, playing);
  renderOpponents(state, playing);
  renderCenter(state, playing);
  renderMe(state);
}

function renderPalifico(state, playing) {
  const round = state.round;
  const banner = byId("palifico-banner");
  banner.hidden = !(playing && round.palifico);
  if (playing && round.palifico) {
    const who = round.palifico_seat === state.you.seat ? "your" : `${nameOf(state, round.palifico_seat)}'s`;
    banner.textContent = `Palifico round, ${who}: aces are not wild and the face of the first bid is locked.`;
  }
}

/** Other players: a cup each, never their dice. */
function renderOpponents(state, playing) {
  const round = state.round;
  const lastBid = new Map();
  if (playing) for (const b of round.bids) lastBid.set(b.seat, b);
  const others = state.players.filter((p) => p.seat !== state.you.seat);
  fill(
    byId("opponents"),
    others.map((p) => {
      const turn = playing && round.turn === p.seat;
      const classes = ["opp", turn ? "turn" : "", p.out ? "out" : "", p.connected || p.bot ? "" : "offline"];
      const bid = lastBid.get(p.seat);
      return h(
        "li",
        { class: classes.filter(Boolean).join(" "), dataset: { seat: p.seat }, "aria-current": turn ? "true" : null },
        h(
          "span",
          { class: "opp-top" },
          p.out ? h("span", { class: "opp-out" }, "out") : cupSvg(p.dice),
          bid ? h("span", { class: "opp-bid", title: "Their last bid" }, bidChip(bid)) : null,
        ),
        h("span", { class: "opp-name" }, presenceDot(p), h("span", { class: "name-text" }, p.name)),
        h("span", { class: "opp-status" }, tableBadges(state, p)),
      );
    }),
  );
}

/** Whose turn, the standing bid (or the opener and roll-off), and this round's bids. */
function renderCenter(state, playing) {
  const round = state.round;
  const turnText = byId("turn-text");
  const myTurn = playing && round.turn === state.you.seat;
  turnText.textContent = playing ? (myTurn ? "Your turn" : `${nameOf(state, round.turn)} to play`) : "";
  turnText.classList.toggle("mine", myTurn);
  byId("center").hidden = !playing;
  const standing = byId("standing");
  if (playing && round.bid) {
    fill(
      standing,
      h("span", { class: "standing-label" }, "Standing bid"),
      h("span", { class: "standing-bid" }, bidChip(round.bid, { small: false })),
      h("span", { class: "standing-by" }, `by ${byName(state, round.bid.seat)}`),
    );
  } else if (playing) {
    const opener = round.opener === state.you.seat ? "You open" : `${nameOf(state, round.opener)} opens`;
    fill(standing, h("span", { class: "standing-label" }, `No bid yet. ${opener} the round.`), rollOff(state));
  } else {
    fill(standing);
  }
  fill(
    byId("history"),
    playing ? round.bids.map((b) => h("li", {}, h("span", { class: "hist-name" }, nameOf(state, b.seat)), bidChip(b))) : [],
  );
  const last = playing && round.bids.length === 0 ? state.last_result : null;
  byId("last-line").textContent = last ? `Last round: ${resultSummary(last, namer(state), state.you.seat)}` : "";
}

/** Round 1 only: who rolled what to decide the opener. */
function rollOff(state) {
  const throws = state.round.roll_off;
  if (!throws || state.round.number !== 1) return null;
  return h(
    "span",
    { class: "roll-off" },
    "Roll-off: ",
    throws.map((t, i) =>
      h(
        "span",
        { class: "roll" },
        i > 0 ? "re-roll " : "",
        t.map((r) => h("span", { class: "roll-one" }, `${nameOf(state, r.seat)} `, dieSvg(r.die, { small: true }))),
      ),
    ),
  );
}

/** Your name, badges and dice (hidden for spectators). */
function renderMe(state) {
  const you = state.you.seat === null ? null : player(state, state.you.seat);
  byId("me").hidden = you === null;
  if (you === null) return;
  byId("me-name").textContent = you.out ? `${you.name} (you) · out` : `${you.name} (you)`;
  fill(byId("me-badges"), tableBadges(state, you));
  const dice = [...state.you.dice].sort((a, b) => a - b);
  fill(
    byId("my-dice"),
    dice.length > 0 ? dice.map((d) => dieSvg(d, { real: true })) : h("span", { class: "muted" }, you.out ? "No dice left" : ""),
  );
}

/**
 * Redraw the countdown of the turn in play; the page runs it a few times a second.
 * @param {{clockOffset: number}} ctx  server clock minus local clock, in seconds
 */
export function renderTimer(state, ctx) {
  const timer = byId("timer");
  const deadline = state?.phase === "playing" ? state.round?.turn_deadline : null;
  if (deadline === null || deadline === undefined) {
    timer.hidden = true;
    return;
  }
  const left = Math.max(0, Math.ceil(deadline - (Date.now() / 1000 + ctx.clockOffset)));
  timer.hidden = false;
  timer.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  timer.classList.toggle("low", left <= 5);
  timer.setAttribute("aria-label", `${left} seconds left`);
}
