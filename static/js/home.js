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

// An invite-only server (PERUDO_CREATE_CODE) answers 403 until its code comes along: the field
// shows then, and the code typed is kept, so it is asked for once.
const CODE_KEY = "perudo:create-code";
const codeField = byId("create-code-field");
const codeInput = byId("create-code");
function savedCode() {
  try {
    return localStorage.getItem(CODE_KEY) ?? "";
  } catch {
    return ""; // storage disabled: the code is asked for again next time
  }
}
function rememberCode(code) {
  try {
    localStorage.setItem(CODE_KEY, code);
  } catch {
    // storage disabled
  }
}
codeInput.value = savedCode();

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
    const code = codeInput.value.trim();
    const room = await getJSON("/api/rooms", {
      method: "POST",
      body: JSON.stringify({ ...readSettings(createForm), ...(code ? { create_code: code } : {}) }),
    });
    if (code) rememberCode(code);
    rememberName(name);
    wantJoin(room.room_id);
    location.assign(keepingLang(room.url));
  } catch (error) {
    if (error.status === 403) {
      codeField.hidden = false;
      codeInput.focus();
    }
    showError(
      "create-error",
      error.status === 403
        ? codeInput.value.trim()
          ? t("That invite code is not right.")
          : t("Type the invite code this server's host gave you.")
        : error.status === 422
          ? t("Those table rules are not valid.")
          : t("Could not create a room. Try again."),
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
