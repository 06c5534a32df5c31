// The room page: lobby, table, reveal and game end, all drawn from the server's `state`
// messages (PROTOCOL.md). The page keeps no game rules of its own: what may be bid or called
// comes from `you.legal`, and other players' dice only ever arrive in a `round_result`.
import { byId, fill, getJSON, h, toast } from "./dom.js";
import { bidChip, bidText, cupSvg, dieSvg } from "./dice.js";
import { countLine, outcomeText, revealRows } from "./result.js";
import { Connection } from "./connection.js";
import { CLOSE_TEXT, errorText } from "./messages.js";
import { BidPicker } from "./picker.js";
import { lockSettings, readSettings, writeSettings } from "./settings.js";
import {
  forgetSeatToken,
  keepSeatToken,
  rememberName,
  savedName,
  seatToken,
  takeJoinWish,
} from "./seat.js";

const REVEAL_MS = 3800;
// Join answers after which this connection is no use: go back to watching.
const JOIN_FAILURES = new Set(["name_taken", "room_full", "game_in_progress", "bad_message"]);

const roomId = document.body.dataset.room;
const root = byId("room");

const page = {
  state: null, // the state on screen
  seq: -1, // newest state seq seen on this connection
  queue: [], // round results and states waiting for a reveal to finish
  revealing: false,
  revealTimer: null,
  joining: null, // the name of a join in flight
  online: false,
  pending: false, // an action was sent; its state has not come back yet
  pendingTimer: null,
  clockOffset: 0, // server clock minus local clock, seconds
  places: new Map(), // game_id -> saved game's players, for the finishing places
  lastTurnKey: null, // the last turn of ours the view was scrolled to
};

const conn = new Connection(roomId, { hello, onMessage, onStatus });
const picker = new BidPicker((bid) => act({ type: "bid", ...bid }));

function hello() {
  const token = seatToken(roomId);
  if (token) return { type: "resume", token };
  if (page.joining) return { type: "join", name: page.joining };
  return { type: "watch" };
}

// --- Messages --------------------------------------------------------------------------------

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      page.seq = -1; // a new connection: its first state is always taken
      if (msg.token) keepSeatToken(roomId, msg.token);
      if (msg.seat !== null) page.joining = null;
      break;
    case "state":
      receiveState(msg);
      break;
    case "round_result":
      page.queue.push({ result: msg });
      pump();
      break;
    case "chat":
      addChat(msg);
      break;
    case "error":
      receiveError(msg.code);
      break;
    default:
      break;
  }
}

function receiveState(state) {
  if (state.seq <= page.seq) return; // older than what we hold
  page.seq = state.seq;
  const serverNow = state.server_time;
  if (typeof serverNow === "number") page.clockOffset = serverNow - Date.now() / 1000;
  settle();
  const last = page.queue.at(-1);
  if (last && last.state) last.state = state;
  else page.queue.push({ state });
  pump();
}

function receiveError(code) {
  settle();
  if (code === "unknown_token") {
    forgetSeatToken(roomId);
    toast(errorText(code), "error");
    conn.connect();
    return;
  }
  if (page.joining !== null && JOIN_FAILURES.has(code)) {
    page.joining = null;
    byId("join-name").focus();
    toast(errorText(code), "error");
    conn.connect(); // this connection's hello was spent: come back as a spectator
    return;
  }
  toast(errorText(code), "error");
  if (page.state) render(page.state);
}

/** Show queued states at once; a round result holds everything after it until it was seen. */
function pump() {
  while (!page.revealing && page.queue.length > 0) {
    const item = page.queue.shift();
    if (item.state) render(item.state);
    else startReveal(item.result);
  }
}

function onStatus(status, detail = {}) {
  page.online = status === "open";
  root.dataset.conn = status;
  const banner = byId("conn-banner");
  banner.classList.toggle("warn", status === "reconnecting");
  if (status === "open") {
    banner.textContent = "";
  } else if (status === "connecting") {
    banner.textContent = "Connecting…";
  } else if (status === "reconnecting") {
    banner.textContent =
      detail.attempt > 1 ? `Connection lost. Reconnecting (try ${detail.attempt})…` : "Connection lost. Reconnecting…";
  } else if (status === "closed") {
    showFatal(detail.code);
  }
  if (page.state) render(page.state);
}

function showFatal(code) {
  const info = CLOSE_TEXT[code];
  byId("conn-banner").textContent = "";
  byId("fatal-title").textContent = info.title;
  byId("fatal-text").textContent = info.text;
  byId("fatal-retry").hidden = code !== 4000;
  byId("fatal").hidden = false;
  for (const id of ["lobby", "table", "chat"]) byId(id).hidden = true;
  byId("fatal").focus?.();
}

byId("fatal-retry").addEventListener("click", () => {
  byId("fatal").hidden = true;
  conn.connect();
});

// --- Sending ---------------------------------------------------------------------------------

/** Send a game or room action; buttons stay disabled until the answering state arrives. */
function act(msg) {
  if (!conn.send(msg)) {
    toast("Not connected right now. Reconnecting…", "error");
    return;
  }
  page.pending = true;
  clearTimeout(page.pendingTimer);
  page.pendingTimer = setTimeout(() => {
    settle();
    if (page.state) render(page.state);
  }, 3000);
  if (page.state) render(page.state);
}

function settle() {
  page.pending = false;
  clearTimeout(page.pendingTimer);
}

// --- Helpers over a state --------------------------------------------------------------------

function player(state, seat) {
  return state.players.find((p) => p.seat === seat) ?? null;
}

function nameOf(state, seat) {
  if (seat === state.you.seat) return "You";
  return player(state, seat)?.name ?? `Seat ${seat + 1}`;
}

/** A name in the middle of a sentence: "by you", "by Anna". */
function byName(state, seat) {
  return seat === state.you.seat ? "you" : nameOf(state, seat);
}

function isHost(state) {
  return state.you.seat !== null && state.host === state.you.seat;
}

function badges(state, p) {
  const list = [];
  if (p.seat === state.host) list.push(h("span", { class: "badge host" }, "Host"));
  if (p.bot) list.push(h("span", { class: "badge bot" }, p.level ? `Bot · ${p.level}` : "Bot"));
  if (p.autoplay) list.push(h("span", { class: "badge auto", title: "A bot is playing this seat until its owner returns" }, "Bot playing"));
  if (state.round?.palifico && state.round.palifico_seat === p.seat) {
    list.push(h("span", { class: "badge palifico" }, "Palifico"));
  } else if (p.palifico_used) {
    list.push(h("span", { class: "badge palifico-used", title: "Has had their palifico round" }, "had palifico"));
  }
  return list;
}

function presenceDot(p) {
  const online = p.connected || p.bot;
  return h("span", {
    class: `dot ${online ? "on" : "off"}`,
    role: "img",
    "aria-label": online ? "online" : "offline",
  });
}

// --- Rendering -------------------------------------------------------------------------------

function render(state) {
  if (page.state && page.state.phase !== state.phase) window.scrollTo(0, 0);
  page.state = state;
  root.dataset.phase = state.phase;
  root.dataset.seq = String(state.seq);
  root.dataset.seat = state.you.seat === null ? "" : String(state.you.seat);
  if (!byId("fatal").hidden) return;
  byId("lobby").hidden = state.phase !== "lobby";
  byId("table").hidden = state.phase === "lobby";
  byId("chat").hidden = false;
  byId("chat-form").hidden = state.you.seat === null;
  if (state.phase === "lobby") renderLobby(state);
  else renderTable(state);
  tick();
}

function renderLobby(state) {
  const host = isHost(state);
  const seated = state.you.seat !== null;
  byId("join-card").hidden = seated;
  const nameInput = byId("join-name");
  if (!seated && !nameInput.value) nameInput.value = savedName();

  const max = Math.max(state.settings.max_players, ...state.players.map((p) => p.seat + 1));
  const seats = [];
  for (let seat = 0; seat < max; seat += 1) {
    const p = player(state, seat);
    if (!p) {
      seats.push(h("li", { class: "seat empty", dataset: { seat } }, h("span", { class: "seat-name" }, "Empty seat")));
      continue;
    }
    const you = seat === state.you.seat;
    seats.push(
      h(
        "li",
        { class: `seat${you ? " you" : ""}`, dataset: { seat } },
        presenceDot(p),
        h("span", { class: "seat-name" }, p.name, you ? " (you)" : ""),
        h("span", { class: "badges" }, badges(state, p)),
        host && !you
          ? h(
              "button",
              {
                type: "button",
                class: "btn subtle small kick",
                "aria-label": `Remove ${p.name}`,
                onclick: () => act({ type: "kick", seat }),
              },
              "Remove",
            )
          : null,
      ),
    );
  }
  fill(byId("seats"), seats);

  const full = state.players.length >= state.settings.max_players;
  const start = byId("start-btn");
  start.hidden = !host;
  start.disabled = state.players.length < 2 || !page.online || page.pending;
  byId("leave-btn").hidden = !seated;
  byId("host-card").hidden = !host;
  byId("bot-form").querySelector("button").disabled = full || !page.online;

  const hostPlayer = player(state, state.host);
  let wait = "";
  if (host) wait = state.players.length < 2 ? "Invite someone or add a bot: you need at least 2 players." : "Start when everyone is here.";
  else if (hostPlayer) wait = `Waiting for ${hostPlayer.name} to start the game.`;
  byId("lobby-wait").textContent = wait;

  const form = byId("settings-form");
  if (!form.contains(document.activeElement)) writeSettings(form, state.settings);
  lockSettings(form, !host || !page.online);
  byId("settings-note").hidden = host;
}

function renderTable(state) {
  const round = state.round;
  const you = state.you.seat === null ? null : player(state, state.you.seat);
  const playing = state.phase === "playing" && round !== null;

  byId("round-label").textContent = playing ? `Round ${round.number}` : "Game over";
  const banner = byId("palifico-banner");
  banner.hidden = !(playing && round.palifico);
  if (playing && round.palifico) {
    const who = round.palifico_seat === state.you.seat ? "your" : `${nameOf(state, round.palifico_seat)}'s`;
    banner.textContent = `Palifico round, ${who}: aces are not wild and the face of the first bid is locked.`;
  }

  // Other players: a cup each, never their dice.
  const lastBid = new Map();
  if (playing) for (const b of round.bids) lastBid.set(b.seat, b);
  fill(
    byId("opponents"),
    state.players
      .filter((p) => p.seat !== state.you.seat)
      .map((p) => {
        const turn = playing && round.turn === p.seat;
        const classes = ["opp", turn ? "turn" : "", p.out ? "out" : "", p.connected || p.bot ? "" : "offline"];
        const bid = lastBid.get(p.seat);
        return h(
          "li",
          { class: classes.filter(Boolean).join(" "), dataset: { seat: p.seat }, "aria-current": turn ? "true" : null },
          h(
            "span",
            { class: "opp-top" },
            p.out ? h("span", { class: "opp-out" }, "out") : cupSvg(p.dice),
            bid ? h("span", { class: "opp-bid", title: "Their last bid" }, bidChip(bid)) : null,
          ),
          h("span", { class: "opp-name" }, presenceDot(p), h("span", { class: "name-text" }, p.name)),
          h("span", { class: "opp-status" }, badges(state, p).filter((b) => !b.classList.contains("host"))),
        );
      }),
  );

  // The standing bid and the round's history.
  const turnText = byId("turn-text");
  if (playing) {
    const myTurn = round.turn === state.you.seat;
    turnText.textContent = myTurn ? "Your turn" : `${nameOf(state, round.turn)} to play`;
    turnText.classList.toggle("mine", myTurn);
  } else {
    turnText.textContent = "";
  }
  byId("center").hidden = !playing;
  const standing = byId("standing");
  if (playing && round.bid) {
    fill(
      standing,
      h("span", { class: "standing-label" }, "Standing bid"),
      h("span", { class: "standing-bid" }, bidChip(round.bid, { small: false })),
      h("span", { class: "standing-by" }, `by ${byName(state, round.bid.seat)}`),
    );
  } else if (playing) {
    const opener = round.opener === state.you.seat ? "You open" : `${nameOf(state, round.opener)} opens`;
    fill(standing, h("span", { class: "standing-label" }, `No bid yet. ${opener} the round.`), rollOff(state));
  } else {
    fill(standing);
  }
  fill(
    byId("history"),
    playing
      ? round.bids.map((b) => h("li", {}, h("span", { class: "hist-name" }, nameOf(state, b.seat)), bidChip(b)))
      : [],
  );
  byId("last-line").textContent = playing && round.bids.length === 0 && state.last_result ? `Last round: ${resultSummary(state, state.last_result)}` : "";

  // Your dice and your controls.
  const me = byId("me");
  me.hidden = you === null;
  if (you !== null) {
    byId("me-name").textContent = you.out ? `${you.name} (you) · out` : `${you.name} (you)`;
    fill(byId("me-badges"), badges(state, you).filter((b) => !b.classList.contains("host")));
    const dice = [...state.you.dice].sort((a, b) => a - b);
    fill(
      byId("my-dice"),
      dice.length > 0 ? dice.map((d) => dieSvg(d, { real: true })) : h("span", { class: "muted" }, you.out ? "No dice left" : ""),
    );
  }
  const actions = byId("actions");
  const seatedIn = you !== null && !you.out && playing;
  actions.hidden = !seatedIn;
  const myTurn = seatedIn && round.turn === state.you.seat;
  actions.dataset.myTurn = String(myTurn);
  const ready = page.online && !page.pending;
  const legal = state.you.legal;
  picker.update(legal, round, myTurn && ready);
  byId("dudo-btn").disabled = !(legal.dudo && ready);
  const calza = byId("calza-btn");
  calza.hidden = !state.settings.calza;
  calza.disabled = !(legal.calza && ready);

  renderEnd(state);
  if (myTurn) bringIntoView(`${round.number}:${round.bids.length}`);
}

/** Once per turn of yours: scroll so the standing bid and your controls are both on screen. */
function bringIntoView(turnKey) {
  if (page.lastTurnKey === turnKey) return;
  page.lastTurnKey = turnKey;
  const bottom = byId("actions").getBoundingClientRect().bottom;
  if (bottom > window.innerHeight || byId("center").getBoundingClientRect().top < 0) {
    const smooth = !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    byId("center").scrollIntoView({ block: "start", behavior: smooth ? "smooth" : "auto" });
  }
}

/** Round 1 only: who rolled what to decide the opener. */
function rollOff(state) {
  const throws = state.round.roll_off;
  if (!throws || state.round.number !== 1) return null;
  return h(
    "span",
    { class: "roll-off" },
    "Roll-off: ",
    throws.map((t, i) =>
      h(
        "span",
        { class: "roll" },
        i > 0 ? "re-roll " : "",
        t.map((r) => h("span", { class: "roll-one" }, `${nameOf(state, r.seat)} `, dieSvg(r.die, { small: true }))),
      ),
    ),
  );
}

function resultSummary(state, r) {
  const call = `${nameOf(state, r.caller)} called ${r.call} on ${bidText(r.bid)}; there ${r.count === 1 ? "was" : "were"} ${r.count}.`;
  return `${call} ${outcomeText(r, (seat) => nameOf(state, seat), state.you.seat)}`;
}

// --- Reveal ----------------------------------------------------------------------------------

function startReveal(result) {
  page.revealing = true;
  const state = page.state;
  const name = (seat) => nameOf(state, seat);
  const you = result.caller === state.you.seat;
  byId("reveal-title").textContent = `${name(result.caller)} ${you ? "call" : "calls"} ${result.call}!`;
  fill(
    byId("reveal-bid"),
    "On the bid ",
    bidChip(result.bid, { small: false }),
    ` by ${byName(state, result.bid.seat)}`,
    result.palifico ? " (palifico: aces not wild)" : "",
  );
  fill(byId("reveal-cups"), revealRows(result, name));
  fill(byId("reveal-count"), countLine(result));
  byId("reveal-outcome").textContent = outcomeText(result, name, state.you.seat);
  const sheet = byId("reveal");
  sheet.hidden = false;
  const bar = byId("reveal-progress");
  bar.classList.remove("run");
  void bar.offsetWidth; // restart the CSS animation
  bar.style.animationDuration = `${REVEAL_MS}ms`;
  bar.classList.add("run");
  byId("reveal-next").focus({ preventScroll: true });
  page.revealTimer = setTimeout(endReveal, REVEAL_MS);
}

function endReveal() {
  if (!page.revealing) return;
  clearTimeout(page.revealTimer);
  const hadFocus = byId("reveal").contains(document.activeElement);
  byId("reveal").hidden = true;
  fill(byId("reveal-cups")); // the revealed dice leave the page with the reveal
  page.revealing = false;
  pump();
  if (hadFocus && !page.revealing) focusNext();
}

/** After a reveal, put keyboard focus where the next decision is. */
function focusNext() {
  for (const id of ["bid-btn", "dudo-btn", "rematch-btn"]) {
    const el = byId(id);
    if (el.offsetParent !== null && !el.disabled) {
      el.focus({ preventScroll: true });
      return;
    }
  }
  byId("main").focus({ preventScroll: true });
}

byId("reveal-next").addEventListener("click", endReveal);
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && page.revealing) endReveal();
});

// --- Game end --------------------------------------------------------------------------------

function renderEnd(state) {
  const end = byId("end");
  end.hidden = state.phase !== "finished";
  if (end.hidden) return;
  const winner = state.winner;
  byId("end-title").textContent = winner === state.you.seat ? "You win!" : `${nameOf(state, winner)} wins!`;
  const host = isHost(state);
  const rematch = byId("rematch-btn");
  rematch.hidden = !host;
  rematch.disabled = !page.online || page.pending;
  const replay = byId("replay-link");
  replay.hidden = !state.game_id;
  if (state.game_id) replay.href = `/games/${encodeURIComponent(state.game_id)}`;
  byId("end-wait").textContent = host ? "" : `${nameOf(state, state.host)} can start a rematch.`;
  renderPlaces(state);
}

async function renderPlaces(state) {
  const list = byId("places");
  const id = state.game_id;
  if (!id) {
    fill(list, h("li", { class: "place-1" }, h("span", { class: "place" }, "1st"), nameOf(state, state.winner)));
    return;
  }
  if (!page.places.has(id)) {
    page.places.set(id, null);
    try {
      const game = await getJSON(`/api/games/${encodeURIComponent(id)}`);
      page.places.set(id, game.players);
    } catch {
      page.places.delete(id);
      return;
    }
    if (page.state === state) renderPlaces(state);
    return;
  }
  const players = page.places.get(id);
  if (!players) return;
  const ordinal = (n) => ["1st", "2nd", "3rd", "4th", "5th", "6th"][n - 1] ?? `${n}th`;
  fill(
    list,
    [...players]
      .sort((a, b) => a.place - b.place)
      .map((p) =>
        h(
          "li",
          { class: `place-${p.place}` },
          h("span", { class: "place" }, ordinal(p.place)),
          p.seat === state.you.seat ? `${p.name} (you)` : p.name,
          p.bot ? h("span", { class: "badge bot" }, "Bot") : null,
        ),
      ),
  );
}

byId("rematch-btn").addEventListener("click", () => act({ type: "rematch" }));

// --- Turn timer ------------------------------------------------------------------------------

/** Redraw the countdown of the turn in play; runs a few times a second. */
function tick() {
  const timer = byId("timer");
  const round = page.state?.round;
  const deadline = page.state?.phase === "playing" ? round?.turn_deadline : null;
  if (deadline === null || deadline === undefined) {
    timer.hidden = true;
    return;
  }
  const left = Math.max(0, Math.ceil(deadline - (Date.now() / 1000 + page.clockOffset)));
  timer.hidden = false;
  timer.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  timer.classList.toggle("low", left <= 5);
  timer.setAttribute("aria-label", `${left} seconds left`);
}
setInterval(tick, 250);

// --- Lobby controls --------------------------------------------------------------------------

byId("join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = byId("join-name").value.trim();
  if (!name) {
    toast("Type the name the others will see.", "error");
    byId("join-name").focus();
    return;
  }
  rememberName(name);
  page.joining = name;
  conn.connect(); // a new connection, so the hello can be a join
});

byId("start-btn").addEventListener("click", () => act({ type: "start" }));

byId("leave-btn").addEventListener("click", () => {
  act({ type: "leave" });
  forgetSeatToken(roomId);
  conn.connect();
});

byId("bot-form").addEventListener("submit", (event) => {
  event.preventDefault();
  act({ type: "add_bot", level: byId("bot-level").value });
});

byId("settings-form").addEventListener("change", () => {
  if (page.state && isHost(page.state)) act({ type: "settings", ...readSettings(byId("settings-form")) });
});

async function copyLink() {
  const input = byId("share-url");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select(); // not a secure context (plain http on a LAN): let the old way do it
    document.execCommand("copy");
  }
  toast("Link copied.");
}
byId("copy-btn").addEventListener("click", copyLink);

const shareButton = byId("native-share-btn");
if (navigator.share) {
  shareButton.hidden = false;
  shareButton.addEventListener("click", () => {
    navigator.share({ title: "Play Perudo with me", url: byId("share-url").value }).catch(() => {});
  });
}

// --- Table controls --------------------------------------------------------------------------

byId("dudo-btn").addEventListener("click", () => act({ type: "dudo" }));
byId("calza-btn").addEventListener("click", () => act({ type: "calza" }));

// --- Chat ------------------------------------------------------------------------------------

const chat = byId("chat");
function addChat(msg) {
  const log = byId("chat-log");
  log.append(h("li", {}, h("strong", {}, msg.name), " ", msg.text));
  while (log.children.length > 100) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
  if (!chat.open) {
    const badge = byId("chat-unread");
    badge.textContent = String(Number(badge.textContent || "0") + 1);
    badge.hidden = false;
  }
}
chat.addEventListener("toggle", () => {
  if (chat.open) {
    byId("chat-unread").hidden = true;
    byId("chat-unread").textContent = "";
  }
});
byId("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = byId("chat-text");
  const text = input.value.trim();
  if (!text) return;
  if (conn.send({ type: "chat", text })) input.value = "";
  else toast("Not connected right now. Reconnecting…", "error");
});

// --- Start -----------------------------------------------------------------------------------

if (!seatToken(roomId) && takeJoinWish(roomId) && savedName()) page.joining = savedName();
conn.connect();
