// The game log: every finished round of this game in a line (call, bid, count, who lost or won
// a die), and each move the server's bot made for a person whose time ran out or who is away.
import { byId, fill, h } from "../dom.js";
import { bidText } from "../dice.js";
import { AUTOPLAY_REASON_TEXT } from "../codes.js";
import { resultSummary } from "../result.js";
import { byName, namer } from "./people.js";

/**
 * @param {{log: Array<{round?: object, autoplayed?: object}>}} ctx
 *   the page's log, oldest first: round results (from `history` and `round_result`) and
 *   `autoplayed` messages, in the order they happened
 */
export function render(state, ctx) {
  const box = byId("log");
  box.hidden = state.phase === "lobby" || ctx.log.length === 0;
  if (box.hidden) return;
  const list = byId("log-list");
  const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  fill(list, ctx.log.map((entry) => (entry.round ? roundLine(state, entry.round) : autoplayedLine(state, entry.autoplayed))));
  if (atEnd) list.scrollTop = list.scrollHeight; // follow the newest line unless scrolled back
}

function roundLine(state, r) {
  return h(
    "li",
    { class: "log-round", dataset: { round: r.round } },
    h("span", { class: "log-when" }, `Round ${r.round}`),
    " ",
    resultSummary(r, namer(state), state.you.seat),
  );
}

/** "Time ran out: the bot bid 5 twos for Eve." */
function autoplayedLine(state, msg) {
  const reason = AUTOPLAY_REASON_TEXT[msg.reason] ?? "For an absent player";
  return h("li", { class: "log-auto", dataset: { seat: msg.seat } }, `${reason}: the bot ${actionText(msg.action)} for ${byName(state, msg.seat)}.`);
}

function actionText(action) {
  if (action?.type === "bid") return `bid ${bidText(action)}`;
  if (action?.type === "dudo" || action?.type === "calza") return `called ${action.type}`;
  return "played";
}
