// One WebSocket to a room that comes back by itself: exponential backoff with jitter, and an
// immediate retry when the tab becomes visible, the page is shown again, or the network
// returns (iOS Safari drops sockets in the background without telling anyone).
import { FINAL_CLOSES, MAX_FRAME_BYTES } from "../codes.js";

const PING_EVERY_MS = 25000;
const PONG_WITHIN_MS = 5000;
const MAX_BACKOFF_MS = 10000;

export class Connection {
  /**
   * @param {string} roomId
   * @param {{hello: () => object, onMessage: (msg: object) => void,
   *          onStatus: (status: string, detail?: object) => void}} handlers
   *   status is "connecting", "open", "reconnecting" (detail.attempt, detail.delay) or
   *   "closed" (detail.code: a FINAL_CLOSES code).
   */
  constructor(roomId, handlers) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    this.url = `${scheme}//${location.host}/ws/${encodeURIComponent(roomId)}`;
    this.handlers = handlers;
    this.ws = null;
    this.attempt = 0;
    this.retryTimer = null;
    this.pingTimer = null;
    this.pongTimer = null;
    this.stopped = false;
    const nudge = () => this.nudge();
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") nudge();
    });
    window.addEventListener("pageshow", nudge);
    window.addEventListener("online", nudge);
    window.addEventListener("focus", nudge);
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Open the socket (again), saying hello with whatever `hello()` returns now. */
  connect() {
    this.stopped = false;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.drop();
    const ws = new WebSocket(this.url);
    this.ws = ws;
    this.handlers.onStatus(this.attempt === 0 ? "connecting" : "reconnecting", {
      attempt: this.attempt,
    });
    ws.onopen = () => {
      if (this.ws !== ws) return;
      ws.send(JSON.stringify(this.handlers.hello()));
      this.schedulePing();
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      this.alive();
      if (msg.type === "welcome") {
        this.attempt = 0;
        this.handlers.onStatus("open");
      }
      if (msg.type !== "pong") this.handlers.onMessage(msg);
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.clearPing();
      if (FINAL_CLOSES.has(event.code)) {
        this.stopped = true;
        this.handlers.onStatus("closed", { code: event.code });
      } else {
        this.retry();
      }
    };
  }

  /**
   * Send one message: "sent", "offline" (the socket is not open) or "too_big" (the server
   * would close the socket over it); the caller tells the user.
   */
  send(msg) {
    const text = JSON.stringify(msg);
    if (new TextEncoder().encode(text).length > MAX_FRAME_BYTES) return "too_big";
    if (!this.open) return "offline";
    this.ws.send(text);
    return "sent";
  }

  /** Come back now if the socket is gone, and check a socket that looks open really is. */
  nudge() {
    if (this.stopped) return;
    if (this.ws === null) {
      this.connect();
    } else if (this.open) {
      this.ping();
    }
  }

  retry() {
    if (this.stopped || this.retryTimer !== null) return;
    const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.attempt) * (0.6 + Math.random() * 0.4);
    this.attempt += 1;
    this.handlers.onStatus("reconnecting", { attempt: this.attempt, delay });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
  }

  /** Forget the current socket without triggering a reconnect from its close event. */
  drop() {
    this.clearPing();
    if (this.ws !== null) {
      const old = this.ws;
      this.ws = null;
      old.onopen = old.onmessage = old.onclose = null;
      old.close();
    }
  }

  ping() {
    if (!this.open || this.pongTimer !== null) return;
    this.ws.send(JSON.stringify({ type: "ping" }));
    const ws = this.ws;
    this.pongTimer = setTimeout(() => {
      // Nothing came back: the socket is a zombie. Throw it away and dial again.
      this.pongTimer = null;
      if (this.ws === ws) {
        this.drop();
        this.retry();
      }
    }, PONG_WITHIN_MS);
  }

  alive() {
    clearTimeout(this.pongTimer);
    this.pongTimer = null;
    this.schedulePing();
  }

  schedulePing() {
    clearTimeout(this.pingTimer);
    this.pingTimer = setTimeout(() => this.ping(), PING_EVERY_MS);
  }

  clearPing() {
    clearTimeout(this.pingTimer);
    clearTimeout(this.pongTimer);
    this.pingTimer = null;
    this.pongTimer = null;
  }
}
