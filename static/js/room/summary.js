// The end-of-game summary: rounds played and, for each player in finishing order, the dudos
// and calzas they called and how many they won, counted from the game's rounds (`history`
// and the round results since).
import { fill, h } from "../dom.js";
import { n, t } from "../i18n.js";

/** Per seat: {dudo: {called, won}, calza: {called, won}} over `rounds`. */
export function callTally(rounds) {
  const tally = new Map();
  const of = (seat) => {
    if (!tally.has(seat)) tally.set(seat, { dudo: { called: 0, won: 0 }, calza: { called: 0, won: 0 } });
    return tally.get(seat);
  };
  for (const r of rounds) {
    const calls = of(r.caller)[r.call === "dudo" ? "dudo" : "calza"];
    calls.called += 1;
    if (r.call === "dudo" ? r.loser !== r.caller : r.gainer === r.caller) calls.won += 1;
  }
  return (seat) => of(seat);
}

/**
 * Fill `box` with the summary. `players` are the finishing places ({seat, name, place}, best
 * first); `rounds` the game's finished rounds.
 */
export function renderSummary(box, players, rounds, youSeat) {
  const tally = callTally(rounds);
  const share = (c) => t("{won} of {called}", c);
  fill(
    box,
    h("p", { class: "summary-rounds" }, n("{count} round played", "{count} rounds played", rounds.length)),
    h(
      "table",
      { class: "summary-table" },
      h("caption", {}, t("Calls made, and how many were right")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Player")), h("th", { scope: "col" }, t("Dudo")), h("th", { scope: "col" }, t("Calza")))),
      h(
        "tbody",
        {},
        players.map((p) => {
          const mine = tally(p.seat);
          const name = p.seat === youSeat && youSeat !== null ? t("{name} (you)", { name: p.name }) : p.name;
          return h("tr", { dataset: { seat: p.seat } }, h("th", { scope: "row" }, name), h("td", {}, share(mine.dudo)), h("td", {}, share(mine.calza)));
        }),
      ),
    ),
  );
}
