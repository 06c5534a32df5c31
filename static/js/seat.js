// What the browser remembers: the seat token per room (localStorage, so a refresh or a phone
// that slept resumes the seat), the token of a seat left mid-game (so it can be taken back),
// the player's name, and "join on arrival" after creating a room.

const tokenKey = (roomId) => `perudo:token:${roomId}`;
const leftKey = (roomId) => `perudo:left:${roomId}`;
const joinKey = (roomId) => `perudo:join:${roomId}`;
const NAME_KEY = "perudo:name";

function storage(kind) {
  try {
    return kind === "local" ? window.localStorage : window.sessionStorage;
  } catch {
    return null; // storage disabled (private mode on some browsers): play without memory
  }
}

export function seatToken(roomId) {
  return storage("local")?.getItem(tokenKey(roomId)) ?? null;
}

export function keepSeatToken(roomId, token) {
  storage("local")?.setItem(tokenKey(roomId), token);
}

export function forgetSeatToken(roomId) {
  storage("local")?.removeItem(tokenKey(roomId));
}

/**
 * Leave a running game but keep the way back: the seat's token moves aside (the page now
 * watches) until `takeSeatBack` or the game's end.
 */
export function setTokenAside(roomId) {
  const token = seatToken(roomId);
  if (token) storage("local")?.setItem(leftKey(roomId), token);
  forgetSeatToken(roomId);
}

/** The token of a seat left during this game, or null. */
export function tokenSetAside(roomId) {
  return storage("local")?.getItem(leftKey(roomId)) ?? null;
}

export function forgetTokenSetAside(roomId) {
  storage("local")?.removeItem(leftKey(roomId));
}

/** The seat left during the game becomes this browser's seat again (the next hello resumes it). */
export function takeSeatBack(roomId) {
  const token = tokenSetAside(roomId);
  if (token) keepSeatToken(roomId, token);
  forgetTokenSetAside(roomId);
}

export function savedName() {
  return storage("local")?.getItem(NAME_KEY) ?? "";
}

export function rememberName(name) {
  storage("local")?.setItem(NAME_KEY, name);
}

/** Ask the room page to take a seat straight away (its creator just arrived). */
export function wantJoin(roomId) {
  storage("session")?.setItem(joinKey(roomId), "1");
}

/** True once if the room page should join on arrival. */
export function takeJoinWish(roomId) {
  const store = storage("session");
  const wished = store?.getItem(joinKey(roomId)) === "1";
  store?.removeItem(joinKey(roomId));
  return wished;
}
