// The chat: lines as sent (always text, never markup), an unread count on the chat buttons at
// the top of the lobby and of the table, a short toast while the panel is closed or off
// screen, and the form for seated players. Either button opens the panel in one tap.
import { byId, h, toast } from "../dom.js";
import { t } from "../i18n.js";

const KEEP = 100; // lines kept on the page

let unread = 0;

/** Wire the form, the fold and the chat buttons once. @param {{say: (text: string) => boolean}} ctx */
export function mount(ctx) {
  const title = byId("lobby-title");
  const lobbyButton = h("button", { id: "lobby-chat-open", class: "btn tool", type: "button" }, t("Chat"), " ", unreadBadge("lobby-chat-unread"));
  const top = h("div", { class: "lobby-top" });
  title.before(top);
  top.append(title, lobbyButton);
  for (const button of [byId("chat-open"), lobbyButton]) button.addEventListener("click", open);
  const chat = byId("chat");
  chat.addEventListener("toggle", () => {
    if (chat.open) setUnread(0);
  });
  byId("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = byId("chat-text");
    const text = input.value.trim();
    if (text && ctx.say(text)) input.value = "";
  });
}

function unreadBadge(id) {
  return h("span", { id, class: "badge unread", hidden: true });
}

/** Open the panel, bring it on screen and put the cursor in its field. */
function open() {
  const chat = byId("chat");
  chat.open = true;
  chat.scrollIntoView({ block: "end" });
  if (!byId("chat-form").hidden) byId("chat-text").focus({ preventScroll: true });
}

function setUnread(count) {
  unread = count;
  for (const id of ["chat-unread", "lobby-chat-unread"]) {
    const badge = byId(id);
    badge.hidden = count === 0;
    badge.textContent = count === 0 ? "" : String(count);
  }
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
  if (!chat.open) setUnread(unread + 1);
  if (!chat.open || !onScreen(log)) toast(t("{name}: {text}", { name: msg.name, text: msg.text.slice(0, 80) }));
}
