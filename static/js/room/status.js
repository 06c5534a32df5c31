// The connection as the player sees it: a banner while (re)connecting, the operator's notice,
// and a full stop with the reason when the server closed the socket for good (seat opened
// elsewhere, unknown room, room closed by the operator).
import { byId } from "../dom.js";
import { CLOSE_TEXT } from "../codes.js";
import { t } from "../i18n.js";

/** Wire "Use this tab" once. @param {{retry: () => void}} ctx */
export function mount(ctx) {
  byId("fatal-retry").addEventListener("click", () => {
    byId("fatal").hidden = true;
    ctx.retry();
  });
}

/**
 * @param {string} status  "connecting", "open", "reconnecting" or "closed"
 * @param {{attempt?: number, code?: number}} detail  the retry count, or the close code
 */
export function render(status, detail = {}) {
  byId("room").dataset.conn = status;
  const banner = byId("conn-banner");
  banner.classList.toggle("warn", status === "reconnecting");
  if (status === "connecting") {
    banner.textContent = t("Connecting…");
  } else if (status === "reconnecting") {
    banner.textContent =
      detail.attempt > 1
        ? t("Connection lost. Reconnecting (try {number})…", { number: detail.attempt })
        : t("Connection lost. Reconnecting…");
  } else {
    banner.textContent = "";
  }
  if (status === "closed") showFatal(detail.code);
}

/** The server operator's `notice` ("restarting in 5 minutes"), as a banner until the next. */
export function notice(text) {
  const banner = byId("notice");
  banner.textContent = text;
  banner.hidden = text === "";
}

function showFatal(code) {
  const info = CLOSE_TEXT[code];
  byId("fatal-title").textContent = info.title;
  byId("fatal-text").textContent = info.text;
  byId("fatal-retry").hidden = !info.retry;
  byId("fatal").hidden = false;
  for (const id of ["lobby", "table", "chat", "log", "reactions"]) byId(id).hidden = true;
  byId("fatal").focus?.();
}
