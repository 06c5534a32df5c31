// Who is who, for every page that lists players: the live room and the replay of a saved game.
import { h } from "./dom.js";

/** The entry of `players` at `seat`, or null. */
export function playerAt(players, seat) {
  return players.find((p) => p.seat === seat) ?? null;
}

/** A display name: "You" for the viewer's own seat, "Seat 3" for a seat nobody holds now. */
export function nameOf(players, seat, youSeat = null) {
  if (seat === youSeat && seat !== null) return "You";
  return playerAt(players, seat)?.name ?? `Seat ${seat + 1}`;
}

/** 1 -> "1st", 2 -> "2nd": a finishing place. */
export function ordinal(n) {
  return ["1st", "2nd", "3rd", "4th", "5th", "6th"][n - 1] ?? `${n}th`;
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
      p.seat === youSeat && youSeat !== null ? `${p.name} (you)` : p.name,
      p.bot ? h("span", { class: "badge bot" }, "Bot") : null,
    ),
  );
}
