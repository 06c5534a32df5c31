// Human wording for every error code and close code of PROTOCOL.md; no raw code is shown.

const ERRORS = {
  bad_message: "The server did not understand that. Reloading the page may help.",
  not_joined: "You are not seated in this room yet.",
  name_taken: "Someone at this table already has that name. Pick another one.",
  room_full: "This table is full.",
  unknown_token: "Your seat in this room no longer exists. You can join again.",
  game_in_progress: "A game is being played. Wait for it to end.",
  not_host: "Only the host can do that.",
  not_enough_players: "At least two players are needed to start.",
  game_not_running: "There is no game running right now.",
  not_your_turn: "It is not your turn.",
  illegal_bid: "That bid is not allowed right now.",
  no_bid: "Too late: the round is already over.",
  calza_not_allowed: "You cannot call calza right now.",
  rate_limited: "Easy there: too many clicks at once.",
};

/** A short sentence for an `error` message from the server. */
export function errorText(code) {
  return ERRORS[code] ?? "Something went wrong. Please try again.";
}

/** Why the socket closed, for codes that stop the page from reconnecting. */
export const CLOSE_TEXT = {
  4000: {
    title: "Seat opened elsewhere",
    text: "Your seat is now played from another tab or device. This tab stopped so the two don't fight over it.",
  },
  4404: {
    title: "Room not found",
    text: "There is no room with this code. It may have ended, or the link is mistyped.",
  },
};
