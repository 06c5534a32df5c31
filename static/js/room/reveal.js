// The reveal: after a dudo or calza every cup lifts over the table, the counting dice light up
// and the page says who lost or won a die. The page decides how long it stays (ctx.revealMs).
import { byId, fill } from "../dom.js";
import { bidChip } from "../dice.js";
import { countLine, outcomeText, revealRows } from "../result.js";
import { t, tNodes } from "../i18n.js";
import { namer } from "./people.js";
import { play } from "./sounds.js";

let shown = null; // the round result on screen, or null

/** Wire "Next" and Escape once. @param {{endReveal: () => void}} ctx */
export function mount(ctx) {
  byId("reveal-next").addEventListener("click", () => ctx.endReveal());
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && shown !== null) ctx.endReveal();
  });
}

/**
 * Show `ctx.reveal` (a round_result) over the table, or hide the sheet when it is null. Names
 * come from `state`, the state the round was played in.
 * @param {{reveal: object|null, revealMs: number}} ctx
 */
export function render(state, ctx) {
  const result = ctx.reveal;
  if (result === shown) return;
  shown = result;
  const sheet = byId("reveal");
  if (result === null) {
    sheet.hidden = true;
    fill(byId("reveal-cups")); // the revealed dice leave the page with the reveal
    return;
  }
  const name = namer(state);
  byId("reveal-title").textContent = title(result, state.you.seat, name);
  const bid = bidChip(result.bid, { small: false });
  fill(
    byId("reveal-bid"),
    result.bid.seat === state.you.seat
      ? tNodes("On your bid {bid}", { bid })
      : tNodes("On the bid {bid} by {name}", { bid, name: name(result.bid.seat) }),
    result.palifico ? [" ", t("(palifico: aces not wild)")] : null,
  );
  fill(byId("reveal-cups"), revealRows(result, name));
  fill(byId("reveal-count"), countLine(result));
  byId("reveal-outcome").textContent = outcomeText(result, name, state.you.seat);
  sheet.hidden = false;
  const bar = byId("reveal-progress");
  bar.classList.remove("run");
  void bar.offsetWidth; // restart the CSS animation
  bar.style.animationDuration = `${ctx.revealMs}ms`;
  bar.classList.add("run");
  byId("reveal-next").focus({ preventScroll: true });
  play("reveal");
}

/** "Anna calls dudo!", "You call calza!", "The bot calls dudo for you!" */
function title(result, youSeat, name) {
  const params = { name: name(result.caller) };
  const dudo = result.call === "dudo";
  if (result.autoplayed && result.caller === youSeat) return dudo ? t("The bot calls dudo for you!") : t("The bot calls calza for you!");
  if (result.autoplayed) return dudo ? t("The bot calls dudo for {name}!", params) : t("The bot calls calza for {name}!", params);
  if (result.caller === youSeat) return result.call === "dudo" ? t("You call dudo!") : t("You call calza!");
  return result.call === "dudo" ? t("{name} calls dudo!", params) : t("{name} calls calza!", params);
}

/** Whether keyboard focus is inside the reveal (so it should move on when the sheet goes). */
export function hasFocus() {
  return byId("reveal").contains(document.activeElement);
}

/** After a reveal, put keyboard focus where the next decision is. */
export function focusNext() {
  for (const id of ["bid-btn", "dudo-btn", "rematch-btn"]) {
    const el = byId(id);
    if (el.offsetParent !== null && !el.disabled) {
      el.focus({ preventScroll: true });
      return;
    }
  }
  byId("main").focus({ preventScroll: true });
}
