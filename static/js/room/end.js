// The end of a game: the winner, the finishing places from the saved game, the host's rematch
// and the link to the replay.
import { byId, fill, h } from "../dom.js";
import { ordinal, placeItems } from "../players.js";
import { isHost, nameOf } from "./people.js";

/** Wire the rematch button once. @param {{act: (msg: object) => void}} ctx */
export function mount(ctx) {
  byId("rematch-btn").addEventListener("click", () => ctx.act({ type: "rematch" }));
}

/**
 * @param {{ready: boolean, placesFor: (gameId: string) => object[]|null}} ctx
 *   placesFor: the saved game's players, or null while they are being fetched (the page
 *   draws again when they arrive)
 */
export function render(state, ctx) {
  const end = byId("end");
  end.hidden = state.phase !== "finished";
  if (end.hidden) return;
  const winner = state.winner;
  byId("end-title").textContent = winner === state.you.seat ? "You win!" : `${nameOf(state, winner)} wins!`;
  const host = isHost(state);
  const rematch = byId("rematch-btn");
  rematch.hidden = !host;
  rematch.disabled = !ctx.ready;
  const replay = byId("replay-link");
  replay.hidden = !state.game_id;
  if (state.game_id) replay.href = `/games/${encodeURIComponent(state.game_id)}`;
  byId("end-wait").textContent = host || state.host === null ? "" : `${nameOf(state, state.host)} can start a rematch.`;
  renderPlaces(state, ctx);
}

function renderPlaces(state, ctx) {
  const list = byId("places");
  if (!state.game_id) {
    fill(list, h("li", { class: "place-1" }, h("span", { class: "place" }, ordinal(1)), nameOf(state, state.winner)));
    return;
  }
  const players = ctx.placesFor(state.game_id);
  if (players) fill(list, placeItems(players, state.you.seat));
}
