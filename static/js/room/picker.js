// Your controls at the table: the bid picker (a quantity stepper and six face buttons); Dudo and
// Calza are calls.js. What they offer comes only from the state's `you.legal` (the engine's answer); no rule
// is re-implemented here.
import { byId, fill, h } from "../dom.js";
import { percent, t } from "../i18n.js";
import { bidText, dieSvg, faceName } from "../dice.js";
import { player } from "./people.js";

const ACE = 1;

/**
 * The least legal raise: the smallest min_quantity, preferring the standing bid's face, then
 * the lowest face. Aces are only preselected when the standing bid is on aces or nothing
 * else is open, so a switch to aces is always the player's own choice.
 */
export function leastRaise(minQuantity, standing) {
  const open = [];
  for (let face = 1; face <= 6; face += 1) {
    const min = minQuantity[face - 1];
    if (min !== null) open.push({ face, quantity: min });
  }
  const standingOnAces = standing !== null && standing.face === ACE;
  const pool = standingOnAces ? open : open.filter((o) => o.face !== ACE);
  const candidates = pool.length > 0 ? pool : open;
  if (candidates.length === 0) return null;
  const least = Math.min(...candidates.map((o) => o.quantity));
  const ties = candidates.filter((o) => o.quantity === least);
  return ties.find((o) => standing !== null && o.face === standing.face) ?? ties[0];
}

/**
 * Where the picker starts on an opening bid: about a sixth of the dice on the table (never
 * below the least legal quantity), on the face other than aces you hold most of.
 */
export function openingBid(minQuantity, total, dice) {
  const open = [2, 3, 4, 5, 6].filter((face) => minQuantity[face - 1] !== null);
  if (open.length === 0) return leastRaise(minQuantity, null);
  const held = (face) => dice.filter((d) => d === face).length;
  const face = open.reduce((best, f) => (held(f) > held(best) ? f : best), open[0]);
  const min = minQuantity[face - 1];
  return { face, quantity: Math.min(total, Math.max(min, Math.round(total / 6))) };
}

let picker = null;
let lastTurnKey = null; // the last turn of yours the page was scrolled to
let turnKey = null; // your turn on screen now, or null
let focusedTurnKey = null; // the last turn of yours that took the keyboard focus

/** Build the picker once. @param {{act: (msg: object) => void}} ctx */
export function mount(ctx) {
  picker = new BidPicker((bid) => ctx.act({ type: "bid", ...bid }));
  // A phone turned on its side mid-turn: bring the controls on screen again in the new shape.
  window.addEventListener("resize", () => {
    lastTurnKey = null;
    if (turnKey !== null) bringIntoView(turnKey);
  });
}

/** @param {{ready: boolean}} ctx  ready: connected, and no action of ours awaits its answer */
export function render(state, ctx) {
  const round = state.round;
  const playing = state.phase === "playing" && round !== null;
  if (!playing) lastTurnKey = null;
  if (state.phase === "lobby") return;
  const you = state.you.seat === null ? null : player(state, state.you.seat);
  const actions = byId("actions");
  const seatedIn = you !== null && !you.out && playing;
  actions.hidden = !seatedIn;
  const myTurn = seatedIn && round.turn === state.you.seat;
  actions.dataset.myTurn = String(myTurn);
  const legal = state.you.legal;
  picker.update(legal, round, myTurn && ctx.ready, myTurn ? state.you.odds : null, state.you.dice);
  turnKey = myTurn ? `${round.number}:${round.bids.length}` : null;
  if (turnKey !== null) bringIntoView(turnKey);
  if (turnKey !== null && turnKey !== focusedTurnKey && ctx.ready) {
    focusedTurnKey = turnKey;
    focusPicker();
  }
}

/** Once per turn of yours: scroll the least that brings your controls on screen, with their margin. */
function bringIntoView(turnKey) {
  if (lastTurnKey === turnKey) return;
  lastTurnKey = turnKey;
  const actions = byId("actions");
  const margin = parseFloat(getComputedStyle(actions).scrollMarginBottom) || 0;
  if (actions.getBoundingClientRect().bottom > window.innerHeight - margin) {
    const smooth = !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    actions.scrollIntoView({ block: "end", behavior: smooth ? "smooth" : "auto" });
  }
}

/** Your turn began: the keyboard focus goes to the chosen face, unless you are typing (the chat). */
function focusPicker() {
  const active = document.activeElement;
  if (active instanceof HTMLElement && active.matches("input, textarea, select, [contenteditable]")) return;
  const chosen = document.querySelector('#faces .face-btn[aria-checked="true"]:not(:disabled)');
  (chosen ?? byId("bid-btn")).focus({ preventScroll: true });
}

class BidPicker {
  /** @param {(bid: {quantity: number, face: number}) => void} onBid */
  constructor(onBid) {
    this.onBid = onBid;
    this.legal = null;
    this.total = 0;
    this.standing = null;
    this.palifico = false;
    this.face = null;
    this.quantity = null;
    this.key = null;
    this.odds = null;
    this.faceButtons = [];
    const faces = byId("faces");
    for (let face = 1; face <= 6; face += 1) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "face-btn";
      button.dataset.face = String(face);
      button.setAttribute("role", "radio");
      button.append(dieSvg(face, { label: false }), h("span", { class: "face-odds", "aria-hidden": "true" }));
      button.addEventListener("click", () => this.choose(face));
      button.addEventListener("keydown", (event) => this.arrowKeys(event, face));
      faces.append(button);
      this.faceButtons.push(button);
    }
    byId("qty-down").addEventListener("click", () => this.step(-1));
    byId("qty-up").addEventListener("click", () => this.step(1));
    byId("bid-btn").addEventListener("click", () => {
      if (this.face !== null) this.onBid({ quantity: this.quantity, face: this.face });
    });
  }

  /**
   * Show what `legal` allows. A new decision (another round, bid or legal set) starts from the
   * least raise (an opening bid from `openingBid`, given your `dice`); an unchanged one keeps
   * the player's current choice. `odds` (the state's
   * `you.odds`, or null) puts beside each face the chance that its least bid holds.
   */
  update(legal, round, enabled, odds, dice) {
    this.legal = legal;
    this.odds = odds;
    this.total = round ? round.total_dice : 0;
    this.standing = round ? round.bid : null;
    this.palifico = Boolean(round?.palifico);
    const key = JSON.stringify([round?.number, round?.bids.length, legal.min_quantity, enabled]);
    if (key !== this.key) {
      this.key = key;
      let least = null;
      if (enabled) least = this.standing === null ? openingBid(legal.min_quantity, this.total, dice) : leastRaise(legal.min_quantity, this.standing);
      this.face = least ? least.face : null;
      this.quantity = least ? least.quantity : null;
    }
    this.render(enabled);
  }

  min(face) {
    return this.legal.min_quantity[face - 1];
  }

  choose(face) {
    const min = this.min(face);
    if (min === null) return;
    // Crossing between aces and other faces changes the scale entirely: restart at the least.
    const crossing = this.face === null || (this.face === ACE) !== (face === ACE);
    this.face = face;
    this.quantity = crossing ? min : Math.min(this.total, Math.max(min, this.quantity));
    this.render(true);
  }

  step(delta) {
    if (this.face === null) return;
    const next = this.quantity + delta;
    if (next < this.min(this.face) || next > this.total) return;
    this.quantity = next;
    this.render(true);
  }

  arrowKeys(event, face) {
    const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    for (let i = 1; i <= 6; i += 1) {
      const next = ((face - 1 + moves[event.key] * i + 60) % 6) + 1;
      if (this.min(next) !== null) {
        this.choose(next);
        this.faceButtons[next - 1].focus();
        return;
      }
    }
  }

  render(enabled) {
    const active = enabled && this.face !== null;
    for (const button of this.faceButtons) {
      const face = Number(button.dataset.face);
      const min = this.legal ? this.min(face) : null;
      const selected = active && face === this.face;
      button.disabled = !enabled || min === null;
      button.setAttribute("aria-checked", String(selected));
      button.tabIndex = selected || (!active && face === 2) ? 0 : -1;
      const chance = min === null ? null : (this.odds?.min_raise[face - 1] ?? null);
      const name = { face: faceName(face, 2), min };
      let label = t("{face}: not open", name);
      if (chance !== null) label = t("{face}, from {min}: {percent} chance it holds", { ...name, percent: percent(chance) });
      else if (min !== null) label = t("{face}, from {min}", name);
      button.setAttribute("aria-label", label);
      button.dataset.min = min === null ? "" : String(min);
      button.querySelector(".face-odds").textContent = chance === null ? "" : percent(chance);
    }
    const qty = byId("qty");
    qty.textContent = active ? String(this.quantity) : "–";
    qty.dataset.min = active ? String(this.min(this.face)) : "";
    qty.dataset.max = active ? String(this.total) : "";
    byId("qty-down").disabled = !active || this.quantity <= this.min(this.face);
    byId("qty-up").disabled = !active || this.quantity >= this.total;
    const bidButton = byId("bid-btn");
    bidButton.disabled = !active;
    bidButton.dataset.quantity = active ? String(this.quantity) : "";
    bidButton.dataset.face = active ? String(this.face) : "";
    fill(bidButton, active ? t("Bid {bid}", { bid: bidText({ quantity: this.quantity, face: this.face }) }) : t("Bid"));
    this.renderAceNote(active);
  }

  /** Say plainly when the chosen face switches to or from aces, with the quantity it takes. */
  renderAceNote(active) {
    const note = byId("ace-note");
    const standing = this.standing;
    let text = "";
    if (active && standing !== null && (standing.face === ACE) !== (this.face === ACE)) {
      const least = { bid: bidText({ quantity: this.min(this.face), face: this.face }) };
      if (this.face !== ACE) text = t("Leaving aces: at least {bid}.", least);
      else if (this.palifico) text = t("Switching to aces: from {bid}.", least);
      else text = t("Switching to aces: from {bid} (wild, so fewer).", least);
    }
    note.textContent = text;
    // With a bid standing the note's room stays, so nothing moves when it appears; an opening
    // bid never crosses to or from aces and needs no room (round 1's roll-off uses it).
    note.hidden = standing === null;
    note.classList.toggle("blank", text === "");
  }
}
