// The lobby around the seat list: taking a seat, starting or leaving, the host's bots and
// table rules, and the invitation link.
import { byId, h, toast } from "../dom.js";
import { BOT_LEVELS, DEFAULT_BOT_LEVEL } from "../codes.js";
import { t } from "../i18n.js";
import { lockSettings, prepareSettings, readSettings, writeSettings } from "../settings.js";
import { savedName } from "../seat.js";
import { isHost, player } from "./people.js";

let shown = null; // the state last drawn, for the settings form's change handler

/**
 * Wire the lobby's controls once.
 * @param {{act: (msg: object) => void, join: (name: string) => void, leave: () => void}} ctx
 */
export function mount(ctx) {
  const level = byId("bot-level");
  level.replaceChildren(...BOT_LEVELS.map((l) => h("option", { value: l.value }, l.label)));
  level.value = DEFAULT_BOT_LEVEL;
  const form = byId("settings-form");
  prepareSettings(form);

  byId("join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = byId("join-name").value.trim();
    if (!name) {
      toast(t("Type the name the others will see."), "error");
      byId("join-name").focus();
      return;
    }
    ctx.join(name);
  });
  byId("start-btn").addEventListener("click", () => ctx.act({ type: "start" }));
  byId("leave-btn").addEventListener("click", () => ctx.leave());
  byId("bot-form").addEventListener("submit", (event) => {
    event.preventDefault();
    ctx.act({ type: "add_bot", level: level.value });
  });
  form.addEventListener("change", () => {
    if (shown && isHost(shown)) ctx.act({ type: "settings", ...readSettings(form) });
  });
  byId("copy-btn").addEventListener("click", copyLink);
  const shareButton = byId("native-share-btn");
  if (navigator.share) {
    shareButton.hidden = false;
    shareButton.addEventListener("click", () => {
      navigator.share({ title: t("Play Perudo with me"), url: byId("share-url").value }).catch(() => {});
    });
  }
}

/** @param {{online: boolean, ready: boolean}} ctx */
export function render(state, ctx) {
  byId("lobby").hidden = state.phase !== "lobby";
  if (state.phase !== "lobby") return;
  shown = state;
  const host = isHost(state);
  const seated = state.you.seat !== null;
  byId("join-card").hidden = seated;
  const nameInput = byId("join-name");
  if (!seated && !nameInput.value) nameInput.value = savedName();

  const full = state.players.length >= state.settings.max_players;
  const start = byId("start-btn");
  start.hidden = !host;
  start.disabled = state.players.length < 2 || !ctx.ready;
  byId("leave-btn").hidden = !seated;
  byId("host-card").hidden = !host;
  byId("bot-form").querySelector("button").disabled = full || !ctx.online;
  byId("lobby-wait").textContent = waitText(state, host);

  const form = byId("settings-form");
  if (!form.contains(document.activeElement)) writeSettings(form, state.settings);
  lockSettings(form, !host || !ctx.online);
  byId("settings-note").hidden = host;
}

function waitText(state, host) {
  if (host) {
    return state.players.length < 2 ? t("Invite someone or add a bot: you need at least 2 players.") : t("Start when everyone is here.");
  }
  const hostPlayer = state.host === null ? null : player(state, state.host);
  return hostPlayer ? t("Waiting for {name} to start the game.", { name: hostPlayer.name }) : "";
}

async function copyLink() {
  const input = byId("share-url");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select(); // not a secure context (plain http on a LAN): let the old way do it
    document.execCommand("copy");
  }
  toast(t("Link copied."));
}
