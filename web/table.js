// A live table: one room's connection feeding the frame (frame.js), which draws the header, players,
// moves and result around the board that the game's own module draws.
//
// GAME MODULE INTERFACE
// ---------------------
// A game's board lives in web/games/<id>.js, where <id> is the protocol's game id (view.game):
//
//   export default {
//     id: "symbiose",               // the game id
//     title: "Symbiose",            // shown in the header
//     summary: "…",                 // short rules text for newcomers, shown under the board
//                                   // (paragraphs separated by a blank line)
//     render(view, ctx) { … },      // the board of `view`, as a Preact node (see below)
//     // optional:
//     phaseText(view, ctx) → str,   // what the game waits for, in words (default: view.phase in words)
//     figures(player, view) → [str],// a player's public figures for the players list
//     seatColour(view, seat) → {name, symbol, css, ink?, word?},
//                                   // a seat's colour where the game gives seats its own (a deck's
//                                   // type, a faction); the frame's players list and ctx.colour
//                                   // then use it (default: SEAT_COLOURS, or the view's own)
//     scoreSteps(view, ctx) → [{label, points: [n per seat], note?}] | null,
//                                   // the final scoring as steps (a category, a column, a bonus…)
//                                   // where watching it add up is worth it; the end screen reveals
//                                   // them one at a time, then the totals (view.result.scores)
//     onContest(frame, ctx),        // a `contest` frame arrived (`seen` has already been sent);
//                                   // without it the frame shows a "Grab!" button that sends
//                                   // {"type": "grab", "contest": frame.id}
//     onEvent(frame, ctx),          // an `event` frame arrived (contest_result, …). A module with
//                                   // onContest or onEvent shows contest results itself; the
//                                   // frame's own notice of them is for modules with neither
//     logMark(entry) → node,        // a mark before a log entry of data ([kind, ...args]), whose
//                                   // words come from web/i18n/<language>.js (web/words.js)
//     logSeat(view, ctx, seat) → node,
//                                   // a player named in the log, with the badge the game gives
//                                   // their seat (default: the seat's mark and the name)
//     logWords(line, view, ctx) → children,
//                                   // a log line a room stored as text, before entries were data,
//                                   // in words (default: the text with "Seat n" replaced by the
//                                   // player's name)
//     finalTable(view, ctx) → node | null,
//                                   // the final table of the end screen (default: the ranking,
//                                   // when there are no scoreSteps either)
//   }
//
// render(view, ctx) → a Preact node (ui.js re-exports h) for the board of `view`, built from the
// view alone; it is called after every change of the view (and when the module calls
// ctx.rerender()), and Preact changes in the page only what differs from the last drawing. So the
// same element must come out of the same thing: give the items of lists that grow, shrink or move
// a `key` (a card's slot, an offer's id), keep a choice's element type (a <button> stays one while
// it is clickable), and keep local choices (a selected card) in the module, not in the page. Form
// fields are controlled: their `value` comes from the module's own state, updated in `oninput`.
// Only items of view.legal may be sent, verbatim, through ctx.send, and only they may look
// clickable: in a replay, for a spectator and once the connection is closed for good, view.legal
// is []. Clickable things are <button>s (Tab + Enter/Space work for free; anything else needs
// tabindex=0 and a keydown handler) carrying data-legal="true", which the browser tests look for.
//
//   ctx = {
//     seat,            // this viewer's seat, or null for a spectator (and in a replay)
//     isSpectator,     // seat === null
//     replay,          // true in a replay: send() refuses, nothing is clickable
//     send(action),    // → Promise<boolean>: true once the hub acked, false if it refused (the
//                      //   frame has already told the player why)
//     rerender(),      // draw again with the same view (after a local selection changed, say);
//                      //   synchronous: the page shows the change when it returns
//     name(seat),      // the player's name at a seat
//     colour(seat),    // {name, symbol, word, css, ink}: the seat's colour, its colour-blind
//                      //   symbol (a character) and its name ("heart"), the text colour on it
//     mark(seat),      // that symbol as a node, coloured, named for screen readers
//     serverNow(),     // server epoch ms, corrected by the measured clock offset
//     rtt(),           // the last measured round trip to the hub in ms, or null
//     refusal(),       // the last action the hub refused: {code, lateBy (too_late: ms), action}, or null
//     room,            // the room id
//   }
//
// Seat colours: SEAT_COLOURS in frame.js (Pink ♥, Yellow ★, Blue ●, Green ▲, Red ■, then Purple ◆,
// Orange ✚, Grey ⬟) by seat; a view whose players carry `colour` (a name), `symbol` and `glyph`
// overrides them. Every player list shows them, so a game that colours its pieces by seat should use
// ctx.colour(seat) for the same colours and symbols.
//
// A game without a module gets the generic renderer (frame.js): every item of view.legal as a
// button that sends it, which makes any game playable, if not pretty.

import { createRef } from "preact";
import { Connection } from "./connection.js";
import { Chat, chatError } from "./chat.js";
import { known, onLanguage, t } from "./words.js";
import { Frame, generic, actionLabel, SEAT_COLOURS, seatColour, seatMark, logText } from "./frame.js";
import { alertMe } from "./alerts.js";
import { h, api, toast, words, seatName, seatFor, saveSeat, forgetSeat, reclaimSeat, savedName, saveName, nameOrAsk } from "./ui.js";

export { generic, actionLabel, SEAT_COLOURS, seatColour, seatMark, logText };

const NET_WORDS = { connecting: "◌", connected: "●", reconnecting: "◐", closed: "✕" };

/** How long "not sent" stays beside the header once a move failed. */
const FAILED_SHOWN_MS = 6000;

/** The words of an error code the hub or the connection gives, or undefined (then its message shows). */
function errorWords(code) {
  return code && known(`error.${code}`) ? t(`error.${code}`) : undefined;
}

/** A refusal in words: a late grab says by how much it missed. */
export function refusalWords(e) {
  if (e && e.code === "too_late") {
    return typeof e.lateBy === "number" ? t("error.tooLateBy", { ms: e.lateBy }) : t("error.tooLate");
  }
  return errorWords(e && e.code) || (e && e.message) || t("error.refused");
}

/**
 * Show the connection state in the page header (shared by every screen). "idle" (the lobby, a
 * replay: nothing to connect) hides it, where "not connected" would only read as an error.
 */
export function showNet(state, detail = "", rtt = null) {
  lastNet = [state, detail, rtt];
  const el = document.getElementById("net");
  if (!el) return;
  el.dataset.state = state;
  el.hidden = !NET_WORDS[state];
  if (!NET_WORDS[state]) return;
  const sym = NET_WORDS[state];
  const text = t(`net.${state}`);
  el.className = `net net-${state}`;
  el.title = detail || text;
  el.querySelector(".net-dot").textContent = sym;
  const textEl = el.querySelector(".net-text");
  if (textEl.textContent !== text) textEl.textContent = text; // a live region: speak changes only
  el.querySelector(".net-rtt").textContent = rtt !== null && state === "connected" ? `${rtt} ms` : "";
}

// The state stays shown in the reader's language when it changes.
let lastNet = null;
onLanguage(() => { if (lastNet) showNet(...lastNet); });

/** The module context for a viewer: shared by live tables and replays. */
export function makeCtx({ seat, view, room, send, rerender, serverNow, frame, rtt = () => null, replay = false,
  refusal = () => null }) {
  const v = () => view();
  return {
    seat,
    isSpectator: seat === null || seat === undefined,
    replay,
    send,
    rerender,
    name: (s) => seatName(v(), s),
    colour: (s) => (frame ? frame.colour(s) : seatColour(v(), s)),
    mark: (s) => (frame ? frame.mark(s) : seatMark(v(), s)),
    serverNow,
    rtt,
    refusal,
    room,
  };
}

/**
 * Open a room's table in el. watch=true always spectates; otherwise the seat this tab holds a token
 * for is used, if any. Returns a function that closes everything.
 */
export function openTable(el, rid, { watch = false } = {}) {
  let session = null;
  const start = () => {
    if (session) session.close();
    session = new TableSession(el, rid, watch, start);
  };
  start();
  return () => { if (session) session.close(); showNet("idle"); };
}

class TableSession {
  constructor(el, rid, watch, restart) {
    this.rid = rid;
    this.restart = restart;
    this.held = watch ? null : seatFor(rid);
    // watching a room where this browser holds a seat: offered back at once, not found by chance
    const mine = watch ? seatFor(rid) : null;
    this.rtt = null;
    this.inflight = new Set();
    this.closed = false;
    this.openContest = null;

    this.conn = new Connection({ room: rid, token: this.held ? this.held.token : null });
    this.frame = new Frame(el, { rid, mode: "live", ctx: () => this.ctx() });
    this.frame.serverNow = () => this.conn.serverNow();
    if (mine) {
      this.frame.reclaim = {
        seat: mine.seat,
        onTake: () => {
          reclaimSeat(rid, mine.seat, mine.token);
          location.hash = `#/room/${encodeURIComponent(rid)}`;
        },
      };
    }
    this.chat = new Chat({
      say: (text) => this.say(text),
      draw: () => this.frame.draw(),
      me: () => ({ seat: this.conn.seat, name: this.conn.seat === null ? savedName() : "" }),
    });
    this.frame.chat = this.chat;
    this.conn.on("view", (view) => this.onView(view));
    this.conn.on("status", ({ state, detail }) => { showNet(state, detail, this.rtt); this.onStatus(state); });
    this.conn.on("rtt", ({ rtt }) => { this.rtt = rtt; showNet(this.conn.state, "", rtt); });
    this.conn.on("final", ({ code, reason }) => this.onFinal(code, reason));
    this.conn.on("event", (f) => this.onEvent(f));
    this.conn.on("error", (f) => toast(errorWords(f.code) || f.message || f.code, "error"));
    this.conn.on("contest", (f) => this.onContest(f));
    window.hubDebug = { connection: this.conn, session: this, frame: this.frame };
    this.conn.open();
    this.lookAtRoom();
  }

  close() {
    this.closed = true;
    this.frame.close();
    this.conn.close();
  }

  get seat() {
    return this.conn.seat;
  }

  get view() {
    return this.frame.view;
  }

  ctx() {
    return makeCtx({
      seat: this.seat,
      view: () => this.frame.view,
      room: this.rid,
      send: (action) => this.send(action),
      rerender: () => this.frame.draw(),
      serverNow: () => this.frame.clock(),
      rtt: () => this.conn.rtt,
      refusal: () => this.lastRefusal,
      frame: this.frame,
    });
  }

  async send(action) {
    const key = JSON.stringify(action);
    if (this.inflight.has(key)) return false; // a double click: the first one is on its way
    this.inflight.add(key);
    // On its way before anything is drawn: a grab's reaction time runs until it reaches the hub.
    const waits = !this.conn.live();
    const acting = this.conn.act(action);
    this.frame.busy = true;
    this.showSending(waits);
    clearTimeout(this.failedTimer);
    let failed = null;
    try {
      await acting;
      return true;
    } catch (e) {
      this.lastRefusal = { code: e && e.code, lateBy: e && e.lateBy, action };
      failed = refusalWords(e);
      toast(failed, "error");
      return false;
    } finally {
      this.inflight.delete(key);
      if (!this.inflight.size) {
        this.frame.busy = false;
        this.frame.sending = failed ? { state: "failed", text: `✕ ${t("move.notSent", { why: failed })}` } : null;
        if (failed) {
          this.failedTimer = setTimeout(() => {
            if (this.frame.sending && this.frame.sending.state === "failed") { this.frame.sending = null; this.frame.draw(); }
          }, FAILED_SHOWN_MS);
        }
        this.frame.draw();
      }
    }
  }

  /** A chat line: true once the hub acked it (its event has come by then), false if refused. */
  async say(text) {
    try {
      await this.conn.say(text, this.conn.seat === null ? savedName() || null : null);
      return true;
    } catch (e) {
      toast(chatError(e.code) || errorWords(e.code) || e.message || t("error.lineRefused"), "error");
      return false;
    }
  }

  /** The connection dropped (reconnecting) or came back (connected): the frame shows an outage. */
  onStatus(state) {
    if (state === "reconnecting" && !this.frame.outage && this.frame.view) {
      this.frame.outage = { at: this.conn.serverNow() };
    } else if (state === "connected" || state === "closed") {
      this.frame.outage = null;
    }
    if (!this.showSending()) this.frame.draw();
  }

  /** "sending…" until the ack; "held" while the move waits for the connection to come back. */
  showSending(waits = !this.conn.live()) {
    if (!this.inflight.size) return false;
    const n = this.inflight.size;
    this.frame.sending = waits
      ? { state: "held", text: `⏸ ${t("move.held", { n })}` }
      : { state: "sending", text: `⧗ ${t("move.sending")}` };
    this.frame.draw();
    return true;
  }

  async onView(view) {
    if (this.closed) return;
    await this.frame.show(view, this.conn.seq);
  }

  /** A timed contest: the game's module handles it, or the frame offers one big button. */
  onContest(f) {
    // The hub offers a contest only to the seats that may try it: each offer is worth telling.
    if (this.seat !== null && this.seat !== undefined && !this.frame.final) {
      const what = f.card && typeof f.card.name === "string" ? f.card.name : null;
      alertMe("grab", what ? t("grab.now", { what }) : t("grab.open"));
      const grabbing = f.contest;
      this.frame.grabOpen(grabbing, what);
      // A result that never comes (a dropped event) must not leave the title saying so for ever.
      setTimeout(() => { if (this.frame.grabbing && this.frame.grabbing.cid === grabbing) this.frame.grabOpen(null); }, 15000);
    }
    const mod = this.frame.mod;
    if (mod && mod.onContest) {
      mod.onContest(f, this.ctx());
      return;
    }
    if (this.seat === null || this.seat === undefined || this.frame.final) return;
    const open = { nonce: f.id, cid: f.contest };
    this.openContest = open;
    const contest = { kind: f.kind, sent: false, ref: createRef(),
      onGrab: async () => {
        contest.sent = true;
        this.frame.draw();
        await this.send({ type: "grab", contest: f.id });
      } };
    this.frame.contest = contest;
    this.frame.draw();
    if (contest.ref.current) contest.ref.current.focus({ preventScroll: true });
    // A result that never comes (a dropped event) must not leave the button up for ever.
    setTimeout(() => { if (this.openContest === open) this.closeContest(); }, 15000);
  }

  closeContest() {
    this.openContest = null;
    this.frame.contest = null;
    this.frame.draw();
  }

  onEvent(f) {
    if (this.chat.take(f)) return;
    const mod = this.frame.mod;
    if (mod && typeof mod.onEvent === "function") {
      try { mod.onEvent(f, this.ctx()); } catch (e) { console.error("the module's onEvent failed", e); }
    }
    const shownByModule = Boolean(mod && (mod.onContest || mod.onEvent));
    if (f.kind === "contest_result") {
      const g = this.frame.grabbing;
      if (g && (g.cid === f.contest || f.contest === undefined)) this.frame.grabOpen(null);
      if (this.openContest && (this.openContest.cid === f.contest || f.contest === undefined)) this.closeContest();
      if (shownByModule) return;
      const who = f.winner === null || f.winner === undefined ? t("grab.nobody") : seatName(this.view, f.winner);
      const ms = f.judged && f.winner !== null && f.winner !== undefined ? f.judged[String(f.winner)] : undefined;
      const mine = this.seat !== null && this.seat !== undefined && f.refused ? f.refused[String(this.seat)] : undefined;
      const why = mine ? ` ${t("grab.notCounted", { why: words(String(mine)).toLowerCase() })}` : "";
      toast(`${t("grab.fastest", { who })}${typeof ms === "number" ? ` (${Math.round(ms)} ms)` : ""}.${why}`);
    }
  }

  onFinal(code, reason) {
    const actions = [];
    if (code === 4009) {
      actions.push(h("button", { type: "button", onclick: () => this.restart() }, t("close.takeBack")));
    } else if (code === 4001) {
      forgetSeat(this.rid);
      actions.push(h("a", { class: "button", href: `#/room/${encodeURIComponent(this.rid)}/watch` }, `◉ ${t("close.watch")}`));
    }
    actions.push(h("a", { class: "button", href: "#/" }, t("frame.lobby")));
    this.frame.final = code;
    this.frame.banner = { code, reason: known(`close.${code}`) ? t(`close.${code}`) : reason, actions };
    this.frame.draw();
  }

  /**
   * What the room says of itself: whether it is private (the invite's words), and, for someone who
   * opened a shared link without a seat, the free seats to sit at while watching.
   */
  async lookAtRoom() {
    let room;
    try { room = await api("GET", `/api/rooms/${encodeURIComponent(this.rid)}`); } catch { return; }
    if (this.closed || !room) return;
    this.frame.room = room;
    const free = this.held || this.frame.reclaim || room.status !== "waiting" ? [] : (room.seats || []).filter((s) => !s.name && !s.bot).map((s) => s.seat);
    if (free.length) {
      const join = {
        free,
        name: savedName(),
        onName: (name) => { join.name = name; this.frame.draw(); },
        onSit: (seat) => this.sit(seat, join.name),
      };
      this.frame.join = join;
    }
    this.frame.draw();
  }

  async sit(seat, name) {
    const n = String(name || "").trim() || nameOrAsk(document.querySelector("[data-testid=join-name]"));
    if (!n) return;
    saveName(n);
    try {
      const got = await api("POST", `/api/rooms/${encodeURIComponent(this.rid)}/join`, { name: n, seat });
      saveSeat(this.rid, got.seat, got.token);
      this.restart();
    } catch (e) {
      toast(e.status === 409 ? t("join.taken") : t("lobby.couldNotJoin", { why: e.message }), "error");
    }
  }
}
