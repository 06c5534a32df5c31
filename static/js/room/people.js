// Who is who in a room `state`, as the views say it: names that speak to the viewer, the host,
// and the little badges and presence dots next to a name.
import { h } from "../dom.js";
import { BOT_LEVELS } from "../codes.js";
import { t } from "../i18n.js";
import { nameOf as nameIn, playerAt } from "../players.js";

export function player(state, seat) {
  return playerAt(state.players, seat);
}

/** A name at the start of a sentence: "You", "Anna". */
export function nameOf(state, seat) {
  return nameIn(state.players, seat, state.you.seat);
}

/** `(seat) => name`, for the shared wording of round results. */
export function namer(state) {
  return (seat) => nameOf(state, seat);
}

export function isHost(state) {
  return state.you.seat !== null && state.host === state.you.seat;
}

/** Host, bot, "a bot is playing" and palifico badges of player `p`. */
export function badges(state, p) {
  const list = [];
  if (state.host !== null && p.seat === state.host) list.push(h("span", { class: "badge host" }, t("Host")));
  if (p.bot) list.push(h("span", { class: "badge bot" }, botLabel(p.level)));
  if (p.autoplay) {
    list.push(h("span", { class: "badge auto", title: t("A bot is playing this seat until its owner returns") }, t("Bot playing")));
  }
  if (state.round?.palifico && state.round.palifico_seat === p.seat) {
    list.push(h("span", { class: "badge palifico" }, t("Palifico")));
  } else if (p.palifico_used) {
    list.push(h("span", { class: "badge palifico-used", title: t("Has had their palifico round") }, t("had palifico")));
  }
  return list;
}

/** "Bot · Hard": a bot and its level, in the words the host picked it by. */
function botLabel(level) {
  const label = BOT_LEVELS.find((l) => l.value === level)?.label;
  return label ? t("Bot · {level}", { level: label }) : t("Bot");
}

/** The same badges without "Host", for the table (the host matters in the lobby). */
export function tableBadges(state, p) {
  return badges(state, p).filter((b) => !b.classList.contains("host"));
}

export function presenceDot(p) {
  const online = p.connected || p.bot;
  return h("span", {
    class: `dot ${online ? "on" : "off"}`,
    role: "img",
    "aria-label": online ? t("online") : t("offline"),
  });
}
