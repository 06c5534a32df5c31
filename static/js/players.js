// Who is who, for every page that lists players: the live room and the replay of a saved game.
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The entry of `players` at `seat`, or null. */
export function playerAt(players, seat) {
  return players.find((p) => p.seat === seat) ?? null;
}

/** A display name: "You" for the viewer's own seat, "Seat 3" for a seat nobody holds now. */
export function nameOf(players, seat, youSeat = null) {
  if (seat === youSeat && seat !== null) return t("You");
  return playerAt(players, seat)?.name ?? t("Seat {number}", { number: seat + 1 });
}

/** 1 -> "1st", 2 -> "2nd": a finishing place. */
export function ordinal(n) {
  const places = [t("1st"), t("2nd"), t("3rd"), t("4th"), t("5th"), t("6th")];
  return places[n - 1] ?? t("{number}th", { number: n });
}

/** A saved game's players, winner first. */
export function byPlace(players) {
  return [...players].sort((a, b) => a.place - b.place);
}

/** The finishing places of a saved game, best first, as list items (`youSeat` marks "(you)"). */
export function placeItems(players, youSeat = null) {
  return byPlace(players).map((p) =>
    h(
      "li",
      { class: `place-${p.place}` },
      h("span", { class: "place" }, ordinal(p.place)),
      p.seat === youSeat && youSeat !== null ? t("{name} (you)", { name: p.name }) : p.name,
      p.bot ? h("span", { class: "badge bot" }, t("Bot")) : null,
    ),
  );
}
