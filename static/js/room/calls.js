// Dudo and Calza, guarded against a stray tap: the first tap arms the button ("tap again"),
// a second within ARM_MS sends it. A keyboard press (Enter or Space) is deliberate and sends at
// once. Calza stays on screen, disabled when you may not call it.
import { byId } from "../dom.js";
import { t } from "../i18n.js";

const ARM_MS = 3000;
const CALLS = { dudo: "dudo-btn", calza: "calza-btn" };
// Each button's words, at rest and armed (the armed text still starts with the call's name).
const TEXT = {
  dudo: { label: t("Dudo!"), armed: t("Dudo! Tap again") },
  calza: { label: t("Calza!"), armed: t("Calza! Tap again") },
};

let armed = null; // the call armed, or null
let armTimer = null;

/** @param {{act: (msg: object) => void}} ctx */
export function mount(ctx) {
  for (const [call, id] of Object.entries(CALLS)) {
    byId(id).addEventListener("click", (event) => {
      if (event.detail === 0 || armed === call) {
        disarm();
        ctx.act({ type: call });
      } else {
        arm(call);
      }
    });
  }
}

function arm(call) {
  disarm();
  armed = call;
  const button = byId(CALLS[call]);
  button.classList.add("armed");
  button.textContent = TEXT[call].armed;
  armTimer = setTimeout(disarm, ARM_MS);
}

function disarm() {
  clearTimeout(armTimer);
  armed = null;
  for (const [call, id] of Object.entries(CALLS)) {
    const button = byId(id);
    button.classList.remove("armed");
    button.textContent = TEXT[call].label;
  }
}

/** @param {{ready: boolean}} ctx */
export function render(state, ctx) {
  if (state.phase === "lobby") return;
  const legal = state.you.legal;
  const dudo = byId("dudo-btn");
  const calza = byId("calza-btn");
  dudo.disabled = !(legal.dudo && ctx.ready);
  calza.hidden = !state.settings.calza;
  calza.disabled = !(legal.calza && ctx.ready);
  if ((armed === "dudo" && dudo.disabled) || (armed === "calza" && calza.disabled)) disarm();
}
