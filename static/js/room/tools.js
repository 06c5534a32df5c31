// The table's top bar: Leave (the chat button beside it is chat.js); links out of a running
// game ask first.
import { byId } from "../dom.js";
import { t } from "../i18n.js";
import { player } from "./people.js";

let seatedInGame = false;

/** @param {{leave: () => void}} ctx */
export function mount(ctx) {
  byId("game-leave").addEventListener("click", () => {
    if (window.confirm(t("Leave this game? A bot will play your seat from now on."))) ctx.leave();
  });
  document.addEventListener(
    "click",
    (event) => {
      const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
      if (!link || !seatedInGame || link.getAttribute("href").startsWith("#")) return;
      if (!window.confirm(t("Leave the game in progress? A bot will play your seat until you come back."))) event.preventDefault();
    },
    true,
  );
}

export function render(state) {
  const you = state.you.seat === null ? null : player(state, state.you.seat);
  seatedInGame = state.phase === "playing" && you !== null && !you.out;
  byId("game-leave").hidden = !seatedInGame;
}
