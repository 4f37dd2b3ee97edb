// One WebSocket to the hub, speaking the contract in PROTOCOL.md section 2.
//
// The connection owns the view: it takes the welcome snapshot, applies each delta's RFC 6902 ops
// to a copy (so a patch that fails halfway leaves the last good view intact), and checks that each
// delta's seq is exactly one more than the last. A gap or a failed patch means the view can no
// longer be trusted, so it reconnects with `resume` and lets the hub bring it back to the exact
// view. The UI only ever sees whole, consistent views.
//
// Listeners (conn.on(type, fn)):
//   "view"    (view, {seq, seat})          after the welcome and after every delta
//   "status"  ({state, detail})            state: connecting | connected | reconnecting | closed
//   "rtt"     ({rtt, offset})              after each pong: round trip in ms, server clock offset
//   "contest" (frame)                      after `seen` has already been sent
//   "event"   (frame)                      contest_result, chat and chat_history, other notifications
//   "error"   (frame)                      an error frame that answers no action of ours
//   "final"   ({code, reason})             closed for good (4001, 4004, 4009): no reconnect
//
// A lost network is noticed within STALL_MS: the browser's `offline` event drops the socket at once,
// and a socket that brings no frame at all for twice the ping interval (our pings draw pongs, the
// hub's pings arrive too) is taken for dead and replaced. While the browser says it is offline no
// socket is tried; its `online` event tries at once. An action made meanwhile waits in a queue and is
// sent, with the seq of the view it was chosen in, as soon as the table is back (docs/protocol.md).

import { encode, decode } from "@msgpack/msgpack";
import { applyPatch } from "fast-json-patch";

// The app-level heartbeat: a ping a second, each answered by a pong, so that a silent socket is known
// to be dead after STALL_MS rather than after the hub's idle timeout.
const PING_EVERY_MS = 1000;
const STALL_MS = 2 * PING_EVERY_MS;
const WATCH_EVERY_MS = 250;
const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];
// Close codes after which trying again cannot help.
const FINAL_CLOSES = {
  4001: "This seat's token is not known to the hub.",
  4004: "There is no such room (it never existed, or it finished and was cleared away).",
  4009: "This seat was taken over by another connection (another tab or device).",
};

export class Connection {
  /**
   * @param {{room: string, token?: string|null, url?: string}} opts
   * url defaults to ws(s)://<this host>/ws.
   */
  constructor({ room, token = null, url = null }) {
    this.room = room;
    this.token = token;
    this.url = url || `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    this.view = null;
    this.seq = null;
    this.seat = null;
    this.game = null;
    this.state = "idle";
    this.rtt = null;          // the last measured round trip, ms
    this.offset = 0;          // server clock minus ours, ms, from the fastest recent ping
    this.ws = null;
    this._listeners = {};
    this._nextId = 1;
    this._pending = new Map(); // action id -> {resolve, reject}
    this.lastChat = 0;         // the last chat line held: a reconnect asks only for those after it
    this._pings = new Map();   // ping id -> performance.now() at sending
    this._samples = [];        // recent {rtt, offset}
    this._attempt = 0;
    this._stopped = false;
    this._patchFailures = 0;   // consecutive; a repeat means resume cannot fix it: take a fresh snapshot
    this._freshNext = false;
    this._resyncs = 0;         // consecutive resyncs without a delta applied in between
    this._pingTimer = null;
    this._retryTimer = null;
    this._watchTimer = null;
    this._lastFrame = 0;       // performance.now() of the last frame from the hub
    this._queued = [];         // actions made while the table was away: {action, seq, resolve, reject}
    // The browser knows it lost the network: say so and drop the socket now, not after a timeout.
    this._offline = () => {
      if (!this._stopped && this.ws) this._drop("the browser is offline");
    };
    // Back online, or back in front after the tab slept: try at once rather than after the backoff.
    this._wake = () => {
      if (!this._stopped && !this.ws && this.state === "reconnecting" && document.visibilityState !== "hidden") {
        this._attempt = 0;
        this._connect();
      }
    };
    // How this connection came by its views, for the curious and for tests.
    this.stats = { welcomes: 0, snapshots: 0, resumed: 0, gaps: 0, patchFailures: 0 };
  }

  on(type, fn) {
    (this._listeners[type] ||= []).push(fn);
    return this;
  }

  _emit(type, ...args) {
    for (const fn of this._listeners[type] || []) {
      try { fn(...args); } catch (e) { console.error(`listener of ${type} failed`, e); }
    }
  }

  _setState(state, detail = "") {
    this.state = state;
    this._emit("status", { state, detail });
  }

  /** Server epoch ms now, by our clock corrected with the measured offset. */
  serverNow() {
    return Date.now() + this.offset;
  }

  open() {
    this._stopped = false;
    window.addEventListener("online", this._wake);
    window.addEventListener("offline", this._offline);
    document.addEventListener("visibilitychange", this._wake);
    clearInterval(this._watchTimer);
    this._watchTimer = setInterval(() => this._watch(), WATCH_EVERY_MS);
    this._connect();
    return this;
  }

  /** Close for good (leaving the page); no reconnect. */
  close() {
    this._stopped = true;
    window.removeEventListener("online", this._wake);
    window.removeEventListener("offline", this._offline);
    document.removeEventListener("visibilitychange", this._wake);
    clearTimeout(this._retryTimer);
    clearInterval(this._pingTimer);
    clearInterval(this._watchTimer);
    if (this.ws) {
      try { this.ws.close(1000, "bye"); } catch { /* already closed */ }
    }
    this._failPending("closed", "The connection was closed.");
    this._failQueued("closed", "The connection was closed.");
    this._setState("closed", "left the table");
  }

  /**
   * Send an action; resolves with the ack, rejects with an Error carrying .code and .message from the
   * hub's error frame (or "disconnected" when the socket drops first: the action may or may not have
   * been applied, and the next view will tell).
   */
  act(action) {
    if (this.live()) return this._act(action, this.seq);
    if (this._stopped || this.seq === null) {
      const err = new Error("Not connected to the hub.");
      err.code = "disconnected";
      return Promise.reject(err);
    }
    // Away for now: sent once the table is back, as chosen in the view of this moment.
    return new Promise((resolve, reject) => { this._queued.push({ action, seq: this.seq, resolve, reject }); });
  }

  /** Whether an action sent now goes out at once (false: it waits in the queue). */
  live() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN && this.seq !== null && this.state === "connected");
  }

  /** How many actions wait for the table to come back. */
  get queued() {
    return this._queued.length;
  }

  _act(action, seq) {
    const id = this._nextId++;
    const frame = { t: "act", id, action, seq };
    return new Promise((resolve, reject) => {
      this._pending.set(id, { resolve, reject });
      this._send(frame);
    });
  }

  /**
   * Say a chat line (docs/protocol.md); resolves with the ack, rejects like act(). `name` is sent
   * by a spectator only: a seat speaks under its seat's name.
   */
  say(text, name = null) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || this.seq === null) {
      const err = new Error("Not connected to the hub.");
      err.code = "disconnected";
      return Promise.reject(err);
    }
    const id = this._nextId++;
    const frame = { t: "say", id, text };
    if (name && this.seat === null) frame.name = name;
    return new Promise((resolve, reject) => {
      this._pending.set(id, { resolve, reject });
      this._send(frame);
    });
  }

  _flushQueued() {
    const queued = this._queued;
    this._queued = [];
    for (const q of queued) this._act(q.action, q.seq).then(q.resolve, q.reject);
  }

  _failQueued(code, message) {
    const queued = this._queued;
    this._queued = [];
    for (const q of queued) {
      const err = new Error(message);
      err.code = code;
      q.reject(err);
    }
  }

  /** The heartbeat's other half: a socket with no frame for STALL_MS is dead, whatever it says. */
  _watch() {
    if (this._stopped || !this.ws || this.state !== "connected") return;
    // A hidden tab's timers are throttled (its pings go out late): judge only a tab in front.
    if (document.visibilityState === "hidden") { this._lastFrame = performance.now(); return; }
    if (performance.now() - this._lastFrame > STALL_MS) this._drop(`no frame from the hub for ${STALL_MS / 1000} s`);
  }

  /** Give up this socket (the network is gone) and try again as the network allows. */
  _drop(why) {
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onclose = null;
      ws.onmessage = null;
      try { ws.close(1000, "gone"); } catch { /* ignore */ }
    }
    clearInterval(this._pingTimer);
    this._failPending("disconnected", "The connection dropped before the hub answered; the table shows what happened.");
    this._retry(why, 0);
  }

  // --- the socket -------------------------------------------------------------------------

  _connect() {
    clearTimeout(this._retryTimer);
    this._setState(this._attempt === 0 && this.view === null ? "connecting" : "reconnecting",
      navigator.onLine === false ? "the browser is offline" : "");
    if (navigator.onLine === false && this.view !== null) return; // the `online` event tries again
    let ws;
    try {
      ws = new WebSocket(this.url, ["msgpack"]);
    } catch (e) {
      this._retry(`cannot open a socket: ${e.message}`);
      return;
    }
    // An ArrayBuffer arrives synchronously with the message event, unlike a Blob: that is what lets
    // `seen` go out from inside the handler, before anything is rendered.
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    this._lastFrame = performance.now();
    ws.onopen = () => {
      const hello = { t: "hello", room: this.room };
      if (this.token) hello.token = this.token;
      if (this.seq !== null && this.view !== null && !this._freshNext) hello.resume = this.seq;
      if (this.lastChat > 0) hello.chat = this.lastChat;
      this._freshNext = false;
      this._send(hello);
    };
    ws.onmessage = (ev) => this._onFrame(ev.data);
    ws.onclose = (ev) => this._onClose(ws, ev);
    ws.onerror = () => { /* onclose follows with the code */ };
  }

  _send(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(encode(frame));
  }

  _onFrame(data) {
    let f;
    try {
      f = typeof data === "string" ? JSON.parse(data) : decode(new Uint8Array(data));
    } catch (e) {
      console.warn("undecodable frame from the hub", e);
      return;
    }
    if (!f || typeof f !== "object" || typeof f.t !== "string") return;
    this._lastFrame = performance.now();
    switch (f.t) {
      case "contest":
        // Answer first, synchronously, before any listener renders anything: the hub measures
        // reaction time from this moment.
        this._send({ t: "seen", id: f.id });
        this._emit("contest", f);
        break;
      case "ping":
        this._send({ t: "pong", id: f.id });
        break;
      case "welcome":
        this._onWelcome(f);
        break;
      case "delta":
        this._onDelta(f);
        break;
      case "ack": {
        const p = this._pending.get(f.id);
        if (p) { this._pending.delete(f.id); p.resolve(f); }
        break;
      }
      case "error": {
        const p = f.id !== null && f.id !== undefined ? this._pending.get(f.id) : null;
        if (p) {
          this._pending.delete(f.id);
          const err = new Error(f.message || f.code || "refused");
          err.code = f.code;
          if (typeof f.late_by_ms === "number") err.lateBy = f.late_by_ms; // too_late: by how much
          p.reject(err);
        } else {
          this._emit("error", f);
        }
        break;
      }
      case "pong":
        this._onPong(f);
        break;
      case "event":
        if (f.kind === "chat" && Number.isInteger(f.id)) this.lastChat = Math.max(this.lastChat, f.id);
        if (f.kind === "chat_history" && Array.isArray(f.lines)) {
          for (const ln of f.lines) if (ln && Number.isInteger(ln.id)) this.lastChat = Math.max(this.lastChat, ln.id);
        }
        this._emit("event", f);
        break;
      default:
        break; // frame types added later by the hub: ignore
    }
  }

  _onWelcome(f) {
    this.seat = f.seat ?? null;
    this.game = f.game ?? this.game;
    this.stats.welcomes += 1;
    if (f.view !== null && f.view !== undefined) {
      this.view = f.view;
      this.seq = f.seq;
      this.stats.snapshots += 1;
    } else if (this.view !== null && f.seq === this.seq) {
      // Resumed: our view stands, the missed deltas follow.
      this.stats.resumed += 1;
    } else {
      // A resume the hub cannot have meant for us: start again from a snapshot.
      console.warn("welcome without a view that matches ours; asking for a snapshot");
      this._reconnect(true);
      return;
    }
    this._attempt = 0;
    this._setState("connected");
    this._startPings();
    this._emit("view", this.view, { seq: this.seq, seat: this.seat });
    this._flushQueued();
  }

  _onDelta(f) {
    if (this.seq === null || this.view === null) return;
    if (f.seq !== this.seq + 1) {
      console.warn(`seq gap: had ${this.seq}, got ${f.seq}; resuming`);
      this.stats.gaps += 1;
      this._reconnect(false);
      return;
    }
    let next;
    try {
      next = applyPatch(this.view, f.ops, true, false).newDocument;
    } catch (e) {
      this._patchFailures += 1;
      this.stats.patchFailures += 1;
      console.warn(`patch at seq ${f.seq} failed (${e.message}); resuming`);
      this._reconnect(this._patchFailures > 1);
      return;
    }
    this._patchFailures = 0;
    this._resyncs = 0;
    this.view = next;
    this.seq = f.seq;
    this._emit("view", this.view, { seq: this.seq, seat: this.seat });
  }

  _startPings() {
    clearInterval(this._pingTimer);
    this._ping();
    this._pingTimer = setInterval(() => this._ping(), PING_EVERY_MS);
  }

  _ping() {
    const id = this._nextId++;
    this._pings.set(id, performance.now());
    if (this._pings.size > 20) this._pings.delete(this._pings.keys().next().value);
    this._send({ t: "ping", id });
  }

  _onPong(f) {
    const sent = this._pings.get(f.id);
    if (sent === undefined) return;
    this._pings.delete(f.id);
    const rtt = performance.now() - sent;
    // The server stamped `s` about half a round trip before we got it.
    const offset = typeof f.s === "number" ? f.s + rtt / 2 - Date.now() : this.offset;
    this._samples.push({ rtt, offset });
    if (this._samples.length > 8) this._samples.shift();
    // The sample with the shortest round trip has the least room for error in its offset.
    const best = this._samples.reduce((a, b) => (b.rtt < a.rtt ? b : a));
    this.rtt = Math.round(rtt);
    this.offset = Math.round(best.offset);
    this._emit("rtt", { rtt: this.rtt, offset: this.offset });
  }

  /** Drop this socket and open another; fresh=true asks for a full snapshot instead of a resume. */
  _reconnect(fresh) {
    this._freshNext = fresh;
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onclose = null;
      ws.onmessage = null;
      try { ws.close(1000, "resync"); } catch { /* ignore */ }
    }
    clearInterval(this._pingTimer);
    this._failPending("disconnected", "The connection dropped; the table was reloaded.");
    // The first resync is immediate; a hub that keeps sending what we cannot apply gets backoff.
    this._resyncs += 1;
    this._retry("resynchronising", this._resyncs > 1 ? undefined : 0);
  }

  _onClose(ws, ev) {
    if (ws !== this.ws) return;
    this.ws = null;
    clearInterval(this._pingTimer);
    this._failPending("disconnected", "The connection dropped before the hub answered.");
    if (this._stopped) return;
    const final = FINAL_CLOSES[ev.code];
    if (final) {
      this._stopped = true;
      this._failQueued("closed", final);
      this._setState("closed", final);
      this._emit("final", { code: ev.code, reason: final });
      return;
    }
    this._retry(`closed (${ev.code}${ev.reason ? ": " + ev.reason : ""})`);
  }

  _retry(why, delay) {
    if (this._stopped) return;
    const wait = delay ?? BACKOFF_MS[Math.min(this._attempt, BACKOFF_MS.length - 1)];
    this._attempt += 1;
    this._setState("reconnecting", why);
    this._retryTimer = setTimeout(() => this._connect(), wait);
  }

  _failPending(code, message) {
    for (const p of this._pending.values()) {
      const err = new Error(message);
      err.code = code;
      p.reject(err);
    }
    this._pending.clear();
  }
}
