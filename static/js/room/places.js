// The finishing places of saved games, fetched once per game for the end card.
import { getJSON } from "../dom.js";

/**
 * A lookup `(gameId) => players | null`: null until the saved game's players have arrived;
 * the first ask fetches them and `onLoad(gameId)` is called when they are in.
 */
export function savedPlaces(onLoad) {
  const cache = new Map();
  return (gameId) => {
    if (!cache.has(gameId)) {
      cache.set(gameId, null);
      getJSON(`/api/games/${encodeURIComponent(gameId)}`)
        .then((game) => {
          cache.set(gameId, game.players);
          onLoad(gameId);
        })
        .catch(() => cache.delete(gameId)); // asked again on the next state
    }
    return cache.get(gameId) ?? null;
  };
}
