// The wire's vocabulary (PROTOCOL.md) in one place: error codes and what each tells a person,
// WebSocket close codes, bot levels, calza rules, autoplay reasons and the frame limit.
// Every other module names these values through this file, never by their raw spelling.
import { t } from "./i18n.js";

/** A text frame larger than this is closed by the server with MESSAGE_TOO_BIG. */
export const MAX_FRAME_BYTES = 4096;

/** Every code the server closes a game socket with (PROTOCOL.md). */
export const CLOSE = Object.freeze({
  GOING_AWAY: 1001, // the server stops, or the room was dropped
  UNSUPPORTED_DATA: 1003, // a binary frame
  INVALID_PAYLOAD: 1007, // a frame that is not UTF-8
  POLICY_VIOLATION: 1008, // flooding: too many rate_limited answers
  MESSAGE_TOO_BIG: 1009, // a frame over MAX_FRAME_BYTES
  SERVICE_RESTART: 1012, // the server restarts; come back
  TRY_AGAIN_LATER: 1013, // the room holds too many sockets
  SUPERSEDED: 4000, // this seat was resumed by a newer connection
  UNKNOWN_ROOM: 4404, // no room has this id
  HELLO_TIMEOUT: 4408, // no hello in time
  ROOM_CLOSED: 4410, // the server's operator closed the room
});

/** Closes after which reconnecting would be wrong: the page stops and says why. */
export const FINAL_CLOSES = new Set([CLOSE.SUPERSEDED, CLOSE.UNKNOWN_ROOM, CLOSE.ROOM_CLOSED]);

/** Why the socket closed, for the closes that stop the page (FINAL_CLOSES). */
export const CLOSE_TEXT = Object.freeze({
  [CLOSE.SUPERSEDED]: {
    title: t("Seat opened elsewhere"),
    text: t("Your seat is now played from another tab or device. This tab stopped so the two don't fight over it."),
    retry: true, // "Use this tab" takes the seat back
  },
  [CLOSE.UNKNOWN_ROOM]: {
    title: t("Room not found"),
    text: t("There is no room with this code. It may have ended, or the link is mistyped."),
    retry: false,
  },
  [CLOSE.ROOM_CLOSED]: {
    title: t("Room closed"),
    text: t("The server's operator closed this room. Start a new one to play on."),
    retry: false,
  },
});

/** The `error` codes of PROTOCOL.md, each as a short sentence; no raw code is ever shown. */
const ERROR_TEXT = Object.freeze({
  bad_message: t("The server did not understand that. Reloading the page may help."),
  not_joined: t("You are not seated in this room yet."),
  name_taken: t("Someone at this table already has that name. Pick another one."),
  room_full: t("This table is full."),
  unknown_token: t("Your seat in this room no longer exists. You can join again."),
  game_in_progress: t("A game is being played. Wait for it to end."),
  not_host: t("Only the host can do that."),
  not_enough_players: t("At least two players are needed to start."),
  game_not_running: t("There is no game running right now."),
  not_your_turn: t("It is not your turn."),
  illegal_bid: t("That bid is not allowed right now."),
  no_bid: t("Too late: the round is already over."),
  calza_not_allowed: t("You cannot call calza right now."),
  bid_changed: t("Too late: the bid changed before your call arrived."),
  rate_limited: t("Easy there: too many clicks at once."),
});

export const ERROR_CODES = Object.freeze(Object.keys(ERROR_TEXT));

/** A short sentence for an `error` message from the server. */
export function errorText(code) {
  return ERROR_TEXT[code] ?? t("Something went wrong. Please try again.");
}

/** Join answers after which a join's connection is no use: the page goes back to watching. */
export const JOIN_FAILURES = new Set(["name_taken", "room_full", "game_in_progress", "bad_message"]);

/** `add_bot` levels, weakest first, with the label a host picks from. */
export const BOT_LEVELS = Object.freeze([
  { value: "easy", label: t("Easy") },
  { value: "normal", label: t("Normal") },
  { value: "hard", label: t("Hard") },
  { value: "expert", label: t("Expert") },
]);
export const DEFAULT_BOT_LEVEL = "normal";

/** `calza_rule` values: who may not call calza. */
export const CALZA_RULES = Object.freeze([
  { value: "pressman", label: t("Not the next bidder (classic)") },
  { value: "asmodee", label: t("Not the last bidder") },
]);
export const DEFAULT_CALZA_RULE = "pressman";

/** Why the server's bot made a move for a person (`autoplayed.reason`), as a line opener. */
export const AUTOPLAY_REASON_TEXT = Object.freeze({
  timer: t("Time ran out"),
  away: t("Player away"),
  left: t("Player left"),
});
