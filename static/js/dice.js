// Dice and cups drawn as inline SVG, each with a text alternative.
import { n } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[26, 26], [50, 50], [74, 74]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[27, 27], [73, 27], [50, 50], [27, 73], [73, 73]],
  6: [[29, 25], [71, 25], [29, 50], [71, 50], [29, 75], [71, 75]],
};

// Each face's word, in the form that follows `quantity` (a number or 2 for "any number").
const FACES = [
  null,
  (q) => n("ace", "aces", q),
  (q) => n("two", "twos", q),
  (q) => n("three", "threes", q),
  (q) => n("four", "fours", q),
  (q) => n("five", "fives", q),
  (q) => n("six", "sixes", q),
];

/** "ace"/"aces", "four"/"fours": how a face is read aloud. */
export function faceName(face, quantity = 1) {
  return FACES[face](quantity);
}

/** "7 fours", "1 ace": a bid in words. */
export function bidText(bid) {
  return `${bid.quantity} ${faceName(bid.face, bid.quantity)}`;
}

function svgEl(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  return el;
}

// The ace is drawn as a star (the "paco" of Perudo dice), because it is the wild face.
const STAR = "50,16 59,39 84,40 64,55 71,80 50,66 29,80 36,55 16,40 41,39";

/**
 * One die showing `face`. `label` false hides it from assistive tech (when the
 * surrounding control already says what it is); `real` marks an actual rolled die; `plain`
 * draws an ace as one pip, where it counts as 1 (the roll-off) rather than as the wild star.
 */
export function dieSvg(face, { highlight = false, label = true, real = false, small = false, plain = false } = {}) {
  const star = face === 1 && !plain;
  const svg = svgEl("svg", { viewBox: "0 0 100 100", class: "die" });
  if (highlight) svg.classList.add("hit");
  if (small) svg.classList.add("small");
  if (star) svg.classList.add("ace");
  if (label) {
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", star ? faceName(1) : String(face));
  } else {
    svg.setAttribute("aria-hidden", "true");
  }
  if (real) svg.dataset.die = String(face);
  svg.append(svgEl("rect", { x: 5, y: 5, width: 90, height: 90, rx: 18, class: "die-body" }));
  if (star) {
    svg.append(svgEl("polygon", { points: STAR, class: "die-star" }));
  } else {
    for (const [cx, cy] of PIPS[face]) svg.append(svgEl("circle", { cx, cy, r: 9, class: "pip" }));
  }
  return svg;
}

/** A closed cup hiding `count` dice: the only thing drawn for another player's dice. */
export function cupSvg(count, { lifted = false } = {}) {
  const svg = svgEl("svg", { viewBox: "0 0 100 90", class: "cup", role: "img" });
  if (lifted) svg.classList.add("lifted");
  svg.setAttribute("aria-label", n("cup hiding {count} die", "cup hiding {count} dice", count));
  svg.append(svgEl("path", { d: "M22 10 H78 L90 80 H10 Z", class: "cup-body" }));
  svg.append(svgEl("rect", { x: 6, y: 76, width: 88, height: 11, rx: 4, class: "cup-rim" }));
  svg.append(svgEl("path", { d: "M28 22 H72", class: "cup-band" }));
  const text = svgEl("text", { x: 50, y: 60, class: "cup-count", "text-anchor": "middle" });
  text.textContent = String(count);
  svg.append(text);
  return svg;
}

/** A short bid like "7 × [four]" for tight places; the die carries the face's name. */
export function bidChip(bid, { small = true } = {}) {
  const span = document.createElement("span");
  span.className = "bid-chip";
  const qty = document.createElement("span");
  qty.className = "bid-qty";
  qty.textContent = `${bid.quantity}×`;
  span.append(qty, dieSvg(bid.face, { small, label: false }));
  span.setAttribute("aria-label", bidText(bid));
  span.setAttribute("role", "img");
  return span;
}

/**
 * Which revealed dice to highlight for a bid: the bid's face and, when aces are wild (not
 * palifico, bid not on aces), the aces. Display only: the server's `count` is what is shown.
 */
export function countsFor(bid, palifico) {
  const wild = !palifico && bid.face !== 1;
  return (die) => die === bid.face || (wild && die === 1);
}
