// The chat: lines as sent (always text, never markup), an unread count while it is folded, and
// the form for seated players.
import { byId, h } from "../dom.js";

const KEEP = 100; // lines kept on the page

/** Wire the form and the fold once. @param {{say: (text: string) => boolean}} ctx */
export function mount(ctx) {
  const chat = byId("chat");
  chat.addEventListener("toggle", () => {
    if (chat.open) {
      byId("chat-unread").hidden = true;
      byId("chat-unread").textContent = "";
    }
  });
  byId("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = byId("chat-text");
    const text = input.value.trim();
    if (text && ctx.say(text)) input.value = "";
  });
}

export function render(state) {
  byId("chat").hidden = false;
  byId("chat-form").hidden = state.you.seat === null;
}

/** Add one `chat` message. */
export function append(msg) {
  const log = byId("chat-log");
  log.append(h("li", {}, h("strong", {}, msg.name), " ", msg.text));
  while (log.children.length > KEEP) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
  if (!byId("chat").open) {
    const badge = byId("chat-unread");
    badge.textContent = String(Number(badge.textContent || "0") + 1);
    badge.hidden = false;
  }
}
