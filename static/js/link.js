// /link and /link/<code>: take the player key a one-time code carries, so this browser plays
// under its owner's names (POST /api/device-links/redeem sets the HttpOnly cookie).
import { byId, getJSON } from "./dom.js";
import { t } from "./i18n.js";

const form = byId("link-form");
const status = byId("link-status");

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = form.querySelector("button");
  button.disabled = true;
  try {
    await getJSON("/api/device-links/redeem", {
      method: "POST",
      body: JSON.stringify({ code: byId("link-code").value }),
    });
    status.textContent = t("Done: this browser now plays under your names.");
  } catch (error) {
    status.textContent =
      error.status === 404 ? t("This code is unknown, used or expired.") : t("Could not use the code. Try again later.");
    button.disabled = false;
  }
});
