// Telling a player it is their turn when they are not looking: the document title (visible or
// not), a short vibration, an optional sound (off by default, remembered), a Notification while
// the page is hidden (if allowed), and a line for screen readers. The same for "the bot played
// for you" and the game's end.
import { byId } from "../dom.js";
import { t } from "../i18n.js";
import { nameOf } from "./people.js";

const SOUND_KEY = "perudo:sound";

let baseTitle = "";
let lastTurnKey = null;
let lastPhase = null;

function soundOn() {
  try {
    return localStorage.getItem(SOUND_KEY) === "on";
  } catch {
    return false;
  }
}

export function mount() {
  baseTitle = document.title;
  const sound = byId("sound-btn");
  const drawSound = () => {
    sound.setAttribute("aria-pressed", String(soundOn()));
    sound.textContent = soundOn() ? t("Turn sound: on") : t("Turn sound: off");
  };
  drawSound();
  sound.addEventListener("click", () => {
    try {
      localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
    } catch {
      /* storage refused: the choice lasts this page */
    }
    drawSound();
    if (soundOn()) beep();
  });
  const notify = byId("notify-btn");
  notify.hidden = !("Notification" in window) || Notification.permission !== "default";
  notify.addEventListener("click", async () => {
    await Notification.requestPermission();
    notify.hidden = true;
  });
}

/** @param {{reveal: object|null}} ctx */
export function render(state) {
  const round = state.round;
  const me = state.you.seat;
  const myTurn = state.phase === "playing" && round !== null && me !== null && round.turn === me;
  const title = myTurn ? t("(●) Your turn · Perudo") : baseTitle;
  if (document.title !== title) document.title = title;
  const key = myTurn ? `${round.number}:${round.bids.length}` : null;
  if (key !== null && key !== lastTurnKey) alert(t("Your turn"));
  lastTurnKey = key;
  if (lastPhase === "playing" && state.phase === "finished" && state.winner !== null) {
    alert(state.winner === me ? t("Game over: you win!") : t("Game over: {name} wins.", { name: nameOf(state, state.winner) }));
  }
  lastPhase = state.phase;
}

/** An `autoplayed` message: tell the person the bot moved for them. */
export function autoplayed(msg, state) {
  if (state && msg.seat === state.you.seat) alert(t("The bot played for you"));
}

function alert(text) {
  const live = byId("turn-live");
  live.textContent = "";
  setTimeout(() => {
    live.textContent = text; // a fresh node text, so the same words are read again
  }, 50);
  if (typeof navigator.vibrate === "function" && navigator.userActivation?.hasBeenActive !== false) {
    try {
      navigator.vibrate(200);
    } catch {
      /* not allowed before a tap */
    }
  }
  if (soundOn()) beep();
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    try {
      new Notification(text, { tag: "perudo", body: baseTitle });
    } catch {
      /* some browsers only notify from a service worker */
    }
  }
}

let audio = null;
function beep() {
  try {
    audio ??= new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.25);
  } catch {
    /* no audio here */
  }
}
