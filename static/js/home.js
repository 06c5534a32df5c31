// The start page: create a room with settings, or go to one by its code.
import { byId, getJSON } from "./dom.js";
import { keepingLang, t } from "./i18n.js";
import { prepareSettings, readSettings } from "./settings.js";
import { rememberName, savedName, wantJoin } from "./seat.js";

const createForm = byId("create-form");
const joinForm = byId("join-form");
const nameInput = byId("create-name");
nameInput.value = savedName();
prepareSettings(createForm);

function showError(id, text) {
  const el = byId(id);
  el.textContent = text;
  el.hidden = !text;
}

/** A typed code or a pasted link, reduced to the room id. */
function roomCode(text) {
  const trimmed = text.trim().replace(/\/+$/, "");
  const fromLink = trimmed.match(/\/r\/([^/?#\s]+)/);
  return fromLink ? decodeURIComponent(fromLink[1]) : trimmed.replace(/\s+/g, "");
}

createForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = nameInput.value.trim();
  if (!name) {
    showError("create-error", t("Type the name the others will see."));
    nameInput.focus();
    return;
  }
  showError("create-error", "");
  const button = createForm.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const room = await getJSON("/api/rooms", {
      method: "POST",
      body: JSON.stringify(readSettings(createForm)),
    });
    rememberName(name);
    wantJoin(room.room_id);
    location.assign(keepingLang(room.url));
  } catch (error) {
    showError(
      "create-error",
      error.status === 422 ? t("Those table rules are not valid.") : t("Could not create a room. Try again."),
    );
    button.disabled = false;
  }
});

joinForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const code = roomCode(byId("join-code").value);
  if (!code) {
    showError("join-error", t("Type the room code your friend gave you."));
    return;
  }
  try {
    await getJSON(`/api/rooms/${encodeURIComponent(code)}`);
    location.assign(keepingLang(`/r/${encodeURIComponent(code)}`));
  } catch (error) {
    showError(
      "join-error",
      error.status === 404 ? t("No room has that code. Check it and try again.") : t("Could not reach the server."),
    );
  }
});
