// A player's page, for the browser that owns the name: make the one-time code that carries
// its player key to another device (POST /api/device-links; the cookie goes with it).
import { byId, getJSON } from "./dom.js";
import { t } from "./i18n.js";

const button = byId("link-btn");

/** "ABCDE-FGHIJ": a code in two halves, easier to read aloud. */
const grouped = (code) => `${code.slice(0, 5)}-${code.slice(5)}`;

button.addEventListener("click", async () => {
  button.disabled = true;
  try {
    const link = await getJSON("/api/device-links", { method: "POST" });
    byId("link-code").textContent = grouped(link.code);
    const url = byId("link-url");
    url.href = link.url;
    url.textContent = link.url;
    byId("link-out").hidden = false;
    button.textContent = t("Make another code");
  } catch {
    byId("link-out").hidden = false;
    byId("link-code").textContent = t("Could not make a code. Try again later.");
  } finally {
    button.disabled = false;
  }
});
