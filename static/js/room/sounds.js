// The table's sounds, synthesised with WebAudio (no audio files): the dice rolled at a round's
// start, a bid, the reveal and your turn. One toggle turns them all on or off; it is
// remembered (off until chosen), and nothing plays before it is on.
const SOUND_KEY = "perudo:sound";

let audio = null;

export function soundOn() {
  try {
    return localStorage.getItem(SOUND_KEY) === "on";
  } catch {
    return false;
  }
}

/** Flip the toggle; the new setting. */
export function toggleSound() {
  const on = !soundOn();
  try {
    localStorage.setItem(SOUND_KEY, on ? "on" : "off");
  } catch {
    /* storage refused: the choice lasts this page */
  }
  return on;
}

/** One tone: `freq` Hz from `at` seconds for `length`, fading out; `type` the wave. */
function tone(freq, at, length, { type = "sine", volume = 0.15 } = {}) {
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  osc.type = type;
  osc.frequency.value = freq;
  const start = audio.currentTime + at;
  gain.gain.setValueAtTime(volume, start);
  gain.gain.exponentialRampToValueAtTime(0.001, start + length);
  osc.connect(gain).connect(audio.destination);
  osc.start(start);
  osc.stop(start + length);
}

// Each sound as tones: [frequency, start, length, options].
const SOUNDS = {
  roll: () => [0, 0.05, 0.11, 0.16, 0.2, 0.27].map((at, i) => [700 + ((i * 397) % 500), at, 0.04, { type: "square", volume: 0.05 }]),
  bid: () => [[520, 0, 0.09, { type: "triangle" }]],
  reveal: () => [
    [392, 0, 0.16],
    [494, 0.12, 0.16],
    [587, 0.24, 0.3],
  ],
  turn: () => [
    [660, 0, 0.18],
    [880, 0.16, 0.25],
  ],
};

/** Play `kind` ("roll", "bid", "reveal" or "turn") if sounds are on. */
export function play(kind) {
  if (!soundOn()) return;
  try {
    audio ??= new AudioContext();
    if (audio.state === "suspended") audio.resume();
    for (const [freq, at, length, options] of SOUNDS[kind]()) tone(freq, at, length, options);
  } catch {
    /* no audio here */
  }
}
