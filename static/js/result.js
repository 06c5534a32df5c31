// How a round's end is told: shared by the live reveal and the replay.
import { h } from "./dom.js";
import { bidText, countsFor, cupSvg, dieSvg, faceName } from "./dice.js";
import { n, t, tNodes } from "./i18n.js";
import { AUTOPLAY_REASON_TEXT } from "./codes.js";

/**
 * "Anna loses a die and is out. Béla wins the game!" `nameOf(seat)` gives a display name;
 * `youSeat` (or null) makes the sentence speak to the viewer as "You lose…".
 */
export function outcomeText(r, nameOf, youSeat = null) {
  // Each sentence whole, for "you" and for a name, so every language can bend its verbs.
  const you = (seat) => seat === youSeat;
  const name = (seat) => ({ name: nameOf(seat) });
  const parts = [];
  if (r.call === "dudo") parts.push(r.loser === r.caller ? t("The bid holds.") : t("The bid fails."));
  else parts.push(r.gainer !== null ? t("Exactly right!") : t("Not exact."));
  if (r.gainer !== null) {
    parts.push(you(r.gainer) ? t("You win a die.") : t("{name} wins a die.", name(r.gainer)));
  }
  if (r.loser !== null && r.eliminated === r.loser) {
    parts.push(you(r.loser) ? t("You lose a die and are out.") : t("{name} loses a die and is out.", name(r.loser)));
  } else if (r.loser !== null) {
    parts.push(you(r.loser) ? t("You lose a die.") : t("{name} loses a die.", name(r.loser)));
  }
  if (r.winner !== null) {
    parts.push(you(r.winner) ? t("You win the game!") : t("{name} wins the game!", name(r.winner)));
  }
  return parts.join(" ");
}

/**
 * "Anna called dudo on 5 fours; there were 4. Anna loses a die.": a round in one line. A call
 * the server's bot made for a person (`r.autoplayed`) says so, with why.
 */
export function resultSummary(r, nameOf, youSeat = null) {
  const params = { name: nameOf(r.caller), bid: bidText(r.bid), reason: AUTOPLAY_REASON_TEXT[r.autoplayed] ?? t("For an absent player") };
  const you = r.caller === youSeat && youSeat !== null;
  return `${callSentence(r, you, params)} ${outcomeText(r, nameOf, youSeat)}`;
}

function callSentence(r, you, params) {
  const dudo = r.call === "dudo";
  if (r.autoplayed && you) {
    return dudo
      ? n("{reason}: the bot called dudo on {bid} for you; there was {count}.", "{reason}: the bot called dudo on {bid} for you; there were {count}.", r.count, params)
      : n("{reason}: the bot called calza on {bid} for you; there was {count}.", "{reason}: the bot called calza on {bid} for you; there were {count}.", r.count, params);
  }
  if (r.autoplayed) {
    return dudo
      ? n("{reason}: the bot called dudo on {bid} for {name}; there was {count}.", "{reason}: the bot called dudo on {bid} for {name}; there were {count}.", r.count, params)
      : n("{reason}: the bot called calza on {bid} for {name}; there was {count}.", "{reason}: the bot called calza on {bid} for {name}; there were {count}.", r.count, params);
  }
  if (you) {
    return dudo
      ? n("You called dudo on {bid}; there was {count}.", "You called dudo on {bid}; there were {count}.", r.count, params)
      : n("You called calza on {bid}; there was {count}.", "You called calza on {bid}; there were {count}.", r.count, params);
  }
  return dudo
    ? n("{name} called dudo on {bid}; there was {count}.", "{name} called dudo on {bid}; there were {count}.", r.count, params)
    : n("{name} called calza on {bid}; there was {count}.", "{name} called calza on {bid}; there were {count}.", r.count, params);
}

/** "Counted 4 fives (aces included). The bid was 5.": the count next to the bid. */
export function countLine(r) {
  const wild = !r.palifico && r.bid.face !== 1;
  const params = {
    count: h("strong", { class: "count-number" }, `${r.count} ${faceName(r.bid.face, r.count)}`),
    quantity: h("strong", {}, String(r.bid.quantity)),
  };
  return wild
    ? tNodes("Counted {count} (aces included). The bid was {quantity}.", params)
    : tNodes("Counted {count}. The bid was {quantity}.", params);
}

function deltaMark(change) {
  if (change === "loser") return h("span", { class: "delta minus", role: "img", "aria-label": t("loses a die") }, "−1");
  if (change === "gainer") return h("span", { class: "delta plus", role: "img", "aria-label": t("wins a die") }, "+1");
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
      h(
        "span",
        { class: "reveal-hand" },
        cupSvg(cup.dice.length, { lifted: true }),
        h("span", { class: "reveal-dice" }, [...cup.dice].sort((a, b) => a - b).map((d) => dieSvg(d, { highlight: counts(d) }))),
        deltaMark(change),
      ),
    );
  });
}
