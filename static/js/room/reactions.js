// Quick reactions: a few emoji beside the chat that anyone in the room (seated or watching)
// sends with one tap (`react`), shown for a moment over the sender's seat (`reaction`; a
// spectator's over the watcher count).
import { byId, h } from "../dom.js";
import { t } from "../i18n.js";

/** The emoji PROTOCOL.md allows in `react`, in the order the buttons show them. */
export const EMOJI = Object.freeze(["👍", "👏", "😂", "😮", "😱", "🤔", "😎", "🙈", "🎲", "🔥"]);
const SHOWN_MS = 2500;

/** Build the buttons once. @param {{send: (msg: object) => boolean}} ctx */
export function mount(ctx) {
  byId("reactions").append(
    ...EMOJI.map((emoji) =>
      h("button", { type: "button", class: "btn react", "aria-label": t("React with {emoji}", { emoji }), onclick: () => ctx.send({ type: "react", emoji }) }, emoji),
    ),
  );
}

/** @param {{online: boolean}} ctx */
export function render(state, ctx) {
  for (const button of byId("reactions").children) button.disabled = !ctx.online;
}

/** A `reaction`: the emoji floats over where the sender sits, then goes. */
export function show(msg) {
  if (!EMOJI.includes(msg.emoji)) return;
  const anchor = anchorFor(msg.seat);
  if (anchor === null) return;
  const box = anchor.getBoundingClientRect();
  const pop = h("span", { class: "reaction-pop", "aria-hidden": "true", dataset: { seat: msg.seat ?? "" } }, msg.emoji);
  pop.style.left = `${box.left + window.scrollX + box.width / 2}px`;
  pop.style.top = `${box.top + window.scrollY + box.height / 2}px`;
  document.body.append(pop);
  setTimeout(() => pop.remove(), SHOWN_MS);
}

/** The sender's tile at the table or seat in the lobby; the watcher count for a spectator. */
function anchorFor(seat) {
  const candidates = seat === null ? ["#watchers", ".table-top", "#lobby-title"] : [`#players li[data-seat="${seat}"]`, `#seats li[data-seat="${seat}"]`];
  for (const selector of candidates) {
    const el = document.querySelector(selector);
    if (el && el.getClientRects().length > 0) return el;
  }
  return null;
}
