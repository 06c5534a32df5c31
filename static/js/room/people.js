// Who is who in a room `state`, as the views say it: names that speak to the viewer, the host,
// and the little badges and presence dots next to a name.
import { h } from "../dom.js";
import { nameOf as nameIn, playerAt } from "../players.js";

export function player(state, seat) {
  return playerAt(state.players, seat);
}

/** A name at the start of a sentence: "You", "Anna". */
export function nameOf(state, seat) {
  return nameIn(state.players, seat, state.you.seat);
}

/** A name in the middle of a sentence: "by you", "by Anna". */
export function byName(state, seat) {
  return seat === state.you.seat ? "you" : nameOf(state, seat);
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
  if (state.host !== null && p.seat === state.host) list.push(h("span", { class: "badge host" }, "Host"));
  if (p.bot) list.push(h("span", { class: "badge bot" }, p.level ? `Bot · ${p.level}` : "Bot"));
  if (p.autoplay) list.push(h("span", { class: "badge auto", title: "A bot is playing this seat until its owner returns" }, "Bot playing"));
  if (state.round?.palifico && state.round.palifico_seat === p.seat) {
    list.push(h("span", { class: "badge palifico" }, "Palifico"));
  } else if (p.palifico_used) {
    list.push(h("span", { class: "badge palifico-used", title: "Has had their palifico round" }, "had palifico"));
  }
  return list;
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
    "aria-label": online ? "online" : "offline",
  });
}
