// Bid events (PROTOCOL.md, opt in): after a bid the server sends this page a small `bid` event
// instead of a whole `state`. This is the one place an event becomes the page's next state;
// every view then renders that state exactly as it renders one the server sent.

/**
 * The state after `event`, applied to `state` (the newest one held), or null when the event
 * does not follow it (a `seq` gap: the page asks for a full `state` with `sync`).
 * @param {object} state @param {object} event
 */
export function applyBid(state, event) {
  if (!state || !state.round || event.seq !== state.seq + 1) return null;
  const next = structuredClone(state);
  const placed = { quantity: event.quantity, face: event.face, seat: event.seat };
  next.seq = event.seq;
  next.round.bid = { ...placed };
  next.round.bids = [...next.round.bids.map(({ quantity, face, seat }) => ({ quantity, face, seat })), placed];
  next.round.turn = event.turn;
  next.round.turn_deadline = event.turn_deadline;
  if (event.you) next.you = event.you;
  if (next.autoplayed || event.autoplayed) {
    const marks = next.autoplayed ?? { bids: [], calls: [] };
    const bids = marks.bids.length === state.round.bids.length ? marks.bids : state.round.bids.map(() => null);
    next.autoplayed = { ...marks, bids: [...bids, event.autoplayed ?? null] };
  }
  return next;
}
