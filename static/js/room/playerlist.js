// The players at the table in turn order, starting with you (or with the first seat for a
// spectator): a name that wraps rather than being cut, a cup with the dice count, their last
// bid this round, and who is to play (with the turn timer as a bar that shrinks on their tile).
// Other players' dice are never drawn here.
import { byId, fill, h } from "../dom.js";
import { bidChip, cupSvg } from "../dice.js";
import { n, t } from "../i18n.js";
import { presenceDot, tableBadges } from "./people.js";

/** A bot's level matters in the lobby; at the table "Bot" says enough. */
function shortBadge(badge) {
  if (badge.classList.contains("bot")) badge.textContent = t("Bot");
  return badge;
}

/** Seats in turn order (increasing, wrapping), starting from `first`. */
export function turnOrder(players, first) {
  const seats = players.map((p) => p.seat).sort((a, b) => a - b);
  const start = Math.max(0, seats.indexOf(first));
  return [...seats.slice(start), ...seats.slice(0, start)].map((seat) => players.find((p) => p.seat === seat));
}

export function render(state) {
  if (state.phase === "lobby") return;
  const round = state.round;
  const playing = state.phase === "playing" && round !== null;
  const lastBid = new Map();
  if (playing) for (const b of round.bids) lastBid.set(b.seat, b);
  const ordered = turnOrder(state.players, state.you.seat ?? state.players[0]?.seat);
  fill(
    byId("players"),
    ordered.map((p) => {
      const turn = playing && round.turn === p.seat;
      const you = p.seat === state.you.seat;
      const online = p.connected || p.bot;
      const classes = ["opp", turn ? "turn" : "", p.out ? "out" : "", online ? "" : "offline", you ? "you" : ""];
      const said = [p.name, p.out ? t("out") : n("{count} die", "{count} dice", p.dice)];
      if (you) said.push(t("you"));
      if (turn) said.push(t("to play"));
      if (!online) said.push(t("offline"));
      if (p.autoplay) said.push(t("a bot is playing"));
      const bid = lastBid.get(p.seat);
      return h(
        "li",
        {
          class: classes.filter(Boolean).join(" "),
          dataset: { seat: p.seat },
          "aria-current": turn ? "true" : null,
          "aria-label": said.join(", "),
        },
        h("span", { class: "opp-name" }, presenceDot(p), h("span", { class: "name-text" }, p.name)),
        h(
          "span",
          { class: "opp-top", "aria-hidden": "true" },
          p.out ? h("span", { class: "opp-out" }, t("out")) : cupSvg(p.dice),
          bid ? h("span", { class: "opp-bid" }, bidChip(bid)) : null,
          tableBadges(state, p).map(shortBadge),
        ),
        turn && round.turn_deadline != null ? h("span", { class: "turn-bar", "aria-hidden": "true" }, h("span", { class: "turn-bar-fill" })) : null,
      );
    }),
  );
}
