// The chat: lines as sent (always text, never markup), an unread count in the table's top bar
// and a short toast while the panel is closed or off screen, and the form for seated players.
import { byId, h, toast } from "../dom.js";

const KEEP = 100; // lines kept on the page

/** Wire the form and the fold once. @param {{say: (text: string) => boolean}} ctx */
export function mount(ctx) {
  const chat = byId("chat");
  chat.addEventListener("toggle", () => {
    if (chat.open) clearUnread();
  });
  byId("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = byId("chat-text");
    const text = input.value.trim();
    if (text && ctx.say(text)) input.value = "";
  });
}

function clearUnread() {
  byId("chat-unread").hidden = true;
  byId("chat-unread").textContent = "";
}

export function render(state) {
  byId("chat").hidden = false;
  byId("chat-form").hidden = state.you.seat === null;
}

function onScreen(el) {
  const box = el.getBoundingClientRect();
  return box.bottom > 0 && box.top < window.innerHeight;
}

/** Add one `chat` message. @param {number|null} youSeat */
export function append(msg, youSeat = null) {
  const log = byId("chat-log");
  log.append(h("li", {}, h("strong", {}, msg.name), " ", msg.text));
  while (log.children.length > KEEP) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
  const chat = byId("chat");
  if (msg.seat === youSeat) return;
  if (!chat.open) {
    const badge = byId("chat-unread");
    badge.textContent = String(Number(badge.textContent || "0") + 1);
    badge.hidden = false;
  }
  if (!chat.open || !onScreen(log)) toast(`${msg.name}: ${msg.text.slice(0, 80)}`);
}
