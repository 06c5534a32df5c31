// The table's top bar: Leave (the chat button beside it is chat.js) and how many watch; the
// line that tells a spectator they are watching (and one who left their seat that they may
// take it back); links out of a running game ask first.
import { byId, fill } from "../dom.js";
import { n, t } from "../i18n.js";
import { player } from "./people.js";

let seatedInGame = false;

/** @param {{leave: () => void, comeBack: () => void}} ctx */
export function mount(ctx) {
  byId("come-back").addEventListener("click", () => ctx.comeBack());
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

/** @param {{leftSeat: boolean, online: boolean}} ctx */
export function render(state, ctx) {
  const you = state.you.seat === null ? null : player(state, state.you.seat);
  seatedInGame = state.phase === "playing" && you !== null && !you.out;
  byId("game-leave").hidden = !seatedInGame;
  renderWatchers(state.spectators ?? 0);
  const watching = state.phase === "playing" && you === null;
  byId("watch-line").hidden = !watching;
  byId("watch-text").textContent = ctx.leftSeat ? t("You left this game: a bot plays your seat.") : t("You are watching this game.");
  const back = byId("come-back");
  back.hidden = !(watching && ctx.leftSeat);
  back.disabled = !ctx.online;
}

/** An eye and how many watch, said in full to screen readers; nothing while nobody watches. */
function renderWatchers(count) {
  const box = byId("watchers");
  box.hidden = count === 0;
  box.setAttribute("aria-label", n("{count} watching", "{count} watching", count));
  if (box.dataset.count === String(count)) return;
  box.dataset.count = String(count);
  fill(box, eyeSvg(), String(count));
}

const SVG = "http://www.w3.org/2000/svg";

function eyeSvg() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 16");
  svg.setAttribute("class", "eye");
  svg.setAttribute("aria-hidden", "true");
  const lid = document.createElementNS(SVG, "path");
  lid.setAttribute("d", "M1 8 C5 1 19 1 23 8 C19 15 5 15 1 8 Z");
  const pupil = document.createElementNS(SVG, "circle");
  pupil.setAttribute("cx", "12");
  pupil.setAttribute("cy", "8");
  pupil.setAttribute("r", "3.5");
  svg.append(lid, pupil);
  return svg;
}
