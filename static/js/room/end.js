// The end of a game: the winner, the finishing places from the saved game (each person's name a
// link to their stats) with each rated seat's rating change, the summary of the game's calls,
// the host's rematch and the link to the replay.
import { byId, fill, h } from "../dom.js";
import { lang, t } from "../i18n.js";
import { byPlace, ordinal } from "../players.js";
import { isHost, nameOf } from "./people.js";
import { renderSummary } from "./summary.js";

// The saved game's rating changes by seat: only the state that first carries its id has them.
let rated = { gameId: null, bySeat: new Map() };
const changeFormat = new Intl.NumberFormat(lang, { signDisplay: "exceptZero", maximumFractionDigits: 1, minimumFractionDigits: 1 });

/** Keep a state's `rating_changes` for the end screen of its game. */
export function noteRatings(state) {
  if (!state.rating_changes || !state.game_id) return;
  rated = { gameId: state.game_id, bySeat: new Map(state.rating_changes.map((c) => [c.seat, c])) };
}

/** Wire the rematch button once. @param {{act: (msg: object) => void}} ctx */
export function mount(ctx) {
  byId("rematch-btn").addEventListener("click", () => ctx.act({ type: "rematch" }));
}

/**
 * @param {{ready: boolean, placesFor: (gameId: string) => object[]|null, eliminated: () => number[],
 *          rounds: () => object[]}} ctx
 *   placesFor: the saved game's players, or null while they are being fetched (the page
 *   draws again when they arrive)
 */
export function render(state, ctx) {
  const end = byId("end");
  end.hidden = state.phase !== "finished";
  if (end.hidden) return;
  const winner = state.winner;
  byId("end-title").textContent = winner === state.you.seat ? t("You win!") : t("{name} wins!", { name: nameOf(state, winner) });
  const host = isHost(state);
  const rematch = byId("rematch-btn");
  rematch.hidden = !host;
  rematch.disabled = !ctx.ready;
  const replay = byId("replay-link");
  replay.hidden = !state.game_id;
  if (state.game_id) replay.href = `/games/${encodeURIComponent(state.game_id)}`;
  byId("end-wait").textContent = host || state.host === null ? "" : t("{name} can start a rematch.", { name: nameOf(state, state.host) });
  renderPlaces(state, ctx);
}

/** The saved game's places once they are fetched (until then, what the page itself knows), and
 * the summary of the game's calls in the same order. */
function renderPlaces(state, ctx) {
  const saved = state.game_id ? ctx.placesFor(state.game_id) : null;
  const players = byPlace(saved ?? placesFromState(state, ctx.eliminated()));
  const changes = rated.gameId === state.game_id ? rated.bySeat : new Map();
  fill(byId("places"), standings(players, state.you.seat, changes));
  renderSummary(byId("summary"), players, ctx.rounds(), state.you.seat);
}

/** The final standings, best first; each person's name leads to their stats (bots keep none);
 * a rated seat shows how its rating moved ("+1.8"). */
function standings(players, youSeat, changes) {
  return players.map((p) => {
    const name = p.seat === youSeat && youSeat !== null ? t("{name} (you)", { name: p.name }) : p.name;
    return h(
      "li",
      { class: `place-${p.place}` },
      h("span", { class: "place" }, ordinal(p.place)),
      p.bot ? name : h("a", { href: `/players?name=${encodeURIComponent(p.name)}` }, name),
      p.bot ? h("span", { class: "badge bot" }, t("Bot")) : null,
      ratingChange(changes.get(p.seat)),
    );
  });
}

function ratingChange(change) {
  if (!change) return null;
  const delta = change.after - change.before;
  return h(
    "span",
    { class: `rating-change ${delta >= 0 ? "up" : "down"}`, title: t("Rating {before} → {after}", { before: change.before.toFixed(1), after: change.after.toFixed(1) }) },
    changeFormat.format(delta),
  );
}

/** Winner first, then the last knocked out before the first; anyone unaccounted for last. */
function placesFromState(state, eliminated) {
  const order = [state.winner, ...[...eliminated].reverse()];
  for (const p of state.players) if (!order.includes(p.seat)) order.push(p.seat);
  return order
    .map((seat) => state.players.find((p) => p.seat === seat))
    .filter(Boolean)
    .map((p, i) => ({ seat: p.seat, name: p.name, bot: p.bot, place: i + 1 }));
}
