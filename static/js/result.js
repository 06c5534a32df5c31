// How a round's end is told: shared by the live reveal and the replay.
import { h } from "./dom.js";
import { bidText, countsFor, cupSvg, dieSvg, faceName } from "./dice.js";

/**
 * "Anna loses a die and is out. Béla wins the game!" `nameOf(seat)` gives a display name;
 * `youSeat` (or null) makes the sentence speak to the viewer as "You lose…".
 */
export function outcomeText(r, nameOf, youSeat = null) {
  const verb = (seat, you, they) => `${nameOf(seat)} ${seat === youSeat ? you : they}`;
  const parts = [];
  if (r.call === "dudo") parts.push(r.loser === r.caller ? "The bid holds." : "The bid fails.");
  else parts.push(r.gainer !== null ? "Exactly right!" : "Not exact.");
  if (r.gainer !== null) parts.push(`${verb(r.gainer, "win", "wins")} a die.`);
  if (r.loser !== null) {
    const out = r.eliminated === r.loser ? ` and ${r.loser === youSeat ? "are" : "is"} out` : "";
    parts.push(`${verb(r.loser, "lose", "loses")} a die${out}.`);
  }
  if (r.winner !== null) parts.push(`${verb(r.winner, "win", "wins")} the game!`);
  return parts.join(" ");
}

/** "Anna called dudo on 5 fours; there were 4. Anna loses a die.": a round in one line. */
export function resultSummary(r, nameOf, youSeat = null) {
  const call = `${nameOf(r.caller)} called ${r.call} on ${bidText(r.bid)}; there ${r.count === 1 ? "was" : "were"} ${r.count}.`;
  return `${call} ${outcomeText(r, nameOf, youSeat)}`;
}

/** "Counted 4 fives (aces included). The bid was 5.": the count next to the bid. */
export function countLine(r) {
  const wild = !r.palifico && r.bid.face !== 1;
  return [
    "Counted ",
    h("strong", { class: "count-number" }, `${r.count} ${faceName(r.bid.face, r.count)}`),
    wild ? " (aces included)" : "",
    ". The bid was ",
    h("strong", {}, String(r.bid.quantity)),
    ".",
  ];
}

function deltaMark(change) {
  if (change === "loser") return h("span", { class: "delta minus", role: "img", "aria-label": "loses a die" }, "−1");
  if (change === "gainer") return h("span", { class: "delta plus", role: "img", "aria-label": "wins a die" }, "+1");
  return h("span", { class: "delta" });
}

/** One row per revealed cup: the name, the lifted cup, the dice with the counting ones lit. */
export function revealRows(r, nameOf) {
  const counts = countsFor(r.bid, r.palifico);
  return r.reveal.map((cup) => {
    const change = cup.seat === r.loser ? "loser" : cup.seat === r.gainer ? "gainer" : "";
    return h(
      "li",
      { class: `reveal-row ${change}`, dataset: { seat: cup.seat } },
      h("span", { class: "reveal-name" }, nameOf(cup.seat)),
      cupSvg(cup.dice.length, { lifted: true }),
      h("span", { class: "reveal-dice" }, [...cup.dice].sort((a, b) => a - b).map((d) => dieSvg(d, { highlight: counts(d) }))),
      deltaMark(change),
    );
  });
}
