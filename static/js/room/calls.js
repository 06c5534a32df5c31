// Dudo and Calza, guarded against a stray tap by one deliberate gesture: press and hold the
// button (HOLD_MS, a bar fills it) and the call goes when the bar is full. A keyboard press
// (Enter or Space) is deliberate and sends at once; a short tap only says to hold. Each call
// carries the bid on screen when the gesture began, so a call that the table overtook is
// refused (`bid_changed`) rather than landing on a bid the caller never saw.
import { byId } from "../dom.js";
import { t } from "../i18n.js";

const HOLD_MS = 500;
const HINT_MS = 1800;
const CALLS = { dudo: "dudo-btn", calza: "calza-btn" };
// Each button's words, at rest and after a too-short tap (both start with the call's name).
const TEXT = {
  dudo: { label: t("Dudo!"), hint: t("Dudo! Hold to call") },
  calza: { label: t("Calza!"), hint: t("Calza! Hold to call") },
};

let holding = null; // {call, bid, timer} while a button is held down
let standing = null; // the standing bid on screen, {quantity, face}, or null
let hintTimer = null;

/** @param {{act: (msg: object) => void}} ctx */
export function mount(ctx) {
  const send = (call, bid) => ctx.act(bid ? { type: call, bid } : { type: call });
  for (const [call, id] of Object.entries(CALLS)) {
    const button = byId(id);
    button.style.setProperty("--hold-ms", `${HOLD_MS}ms`);
    button.addEventListener("pointerdown", (event) => {
      if (button.disabled || event.button !== 0) return;
      button.setPointerCapture?.(event.pointerId);
      startHold(call, () => send(call, holding.bid));
    });
    for (const type of ["pointerup", "pointercancel", "lostpointercapture"]) {
      button.addEventListener(type, () => {
        if (holding?.call === call) {
          stopHold();
          showHint(call);
        }
      });
    }
    button.addEventListener("contextmenu", (event) => event.preventDefault()); // a long press
    button.addEventListener("click", (event) => {
      if (event.detail === 0 && !button.disabled) send(call, standing); // Enter or Space
    });
  }
}

function startHold(call, done) {
  stopHold();
  clearHint();
  const bid = standing === null ? null : { ...standing };
  holding = {
    call,
    bid,
    timer: setTimeout(() => {
      done();
      stopHold();
    }, HOLD_MS),
  };
  byId(CALLS[call]).classList.add("holding");
}

function stopHold() {
  if (holding === null) return;
  clearTimeout(holding.timer);
  byId(CALLS[holding.call]).classList.remove("holding");
  holding = null;
}

function showHint(call) {
  clearHint();
  const button = byId(CALLS[call]);
  button.textContent = TEXT[call].hint;
  button.classList.add("hint");
  hintTimer = setTimeout(clearHint, HINT_MS);
}

function clearHint() {
  clearTimeout(hintTimer);
  for (const [call, id] of Object.entries(CALLS)) {
    const button = byId(id);
    button.classList.remove("hint");
    button.textContent = TEXT[call].label;
  }
}

/** @param {{ready: boolean}} ctx */
export function render(state, ctx) {
  if (state.phase === "lobby") return;
  const bid = state.phase === "playing" ? (state.round?.bid ?? null) : null;
  const next = bid === null ? null : { quantity: bid.quantity, face: bid.face };
  // A hold is bound to the bid it began on: a new bid on the table ends it unsent.
  if (holding !== null && JSON.stringify(holding.bid) !== JSON.stringify(next)) stopHold();
  standing = next;
  const legal = state.you.legal;
  const dudo = byId("dudo-btn");
  const calza = byId("calza-btn");
  dudo.disabled = !(legal.dudo && ctx.ready);
  calza.hidden = !state.settings.calza;
  calza.disabled = !(legal.calza && ctx.ready);
  if ((holding?.call === "dudo" && dudo.disabled) || (holding?.call === "calza" && calza.disabled)) stopHold();
}
