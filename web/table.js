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
//     render(el, view, ctx) { … },  // draw the board of `view` into `el`
//     // optional:
//     phaseText(view, ctx) → str,   // what the game waits for, in words (default: view.phase in words)
//     figures(player, view) → [str],// a player's public figures for the players list
//     seatColour(view, seat) → {name, symbol, css, ink?, word?},
//                                   // a seat's colour where the game gives seats its own (a deck's
//                                   // type, a faction); the frame's players list and ctx.colour
//                                   // then use it (default: SEAT_COLOURS, or the view's own)
//     scoreSteps(view, ctx) → [{label, points: [n per seat], note?}] | null,
//                                   // the final scoring as steps (a category, a column, a bonus…);
//                                   // the frame reveals them one at a time, then the totals
//                                   // (view.result.scores). Without it the ranking is revealed from
//                                   // the last place up.
//     onContest(frame, ctx),        // a `contest` frame arrived (`seen` has already been sent);
//                                   // without it the frame shows a "Grab!" button that sends
//                                   // {"type": "grab", "contest": frame.id}
//     onEvent(frame, ctx),          // an `event` frame arrived (contest_result, …). A module with
//                                   // onContest or onEvent shows contest results itself; the
//                                   // frame's own notice of them is for modules with neither
//   }
//
// render(el, view, ctx) is called with an empty `el` after every change of the view (and when the
// module calls ctx.rerender()); it builds the board from the view alone. Only items of view.legal
// may be sent, verbatim, through ctx.send, and only they may look clickable: in a replay, for a
// spectator and once the connection is closed for good, view.legal is []. Clickable things should
// be <button>s (Tab + Enter/Space work for free; anything else needs tabindex=0 and a keydown
// handler) carrying a stable data-focus-key, which lets the frame give focus back to the same
// element after a re-render, and data-legal="true", which the browser tests look for.
//
//   ctx = {
//     seat,            // this viewer's seat, or null for a spectator (and in a replay)
//     isSpectator,     // seat === null
//     replay,          // true in a replay: send() refuses, nothing is clickable
//     send(action),    // → Promise<boolean>: true once the hub acked, false if it refused (the
//                      //   frame has already told the player why)
//     rerender(),      // draw again with the same view (after a local selection changed, say)
//     name(seat),      // the player's name at a seat
//     colour(seat),    // {name, symbol, word, css, ink}: the seat's colour, its colour-blind
//                      //   symbol (a character) and its name ("heart"), the text colour on it
//     mark(seat),      // that symbol as an element, coloured, named for screen readers
//     serverNow(),     // server epoch ms, corrected by the measured clock offset
//     rtt(),           // the last measured round trip to the hub in ms, or null
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

import { Connection } from "./connection.js";
import { Frame, generic, actionLabel, SEAT_COLOURS, seatColour, seatMark, logText } from "./frame.js";
import { h, api, toast, words, seatName, seatFor, saveSeat, forgetSeat, savedName, saveName } from "./ui.js";

export { generic, actionLabel, SEAT_COLOURS, seatColour, seatMark, logText };

const NET_WORDS = {
  idle: ["○", "not connected"],
  connecting: ["◌", "connecting…"],
  connected: ["●", "connected"],
  reconnecting: ["◐", "reconnecting…"],
  closed: ["✕", "closed"],
};

const ERROR_WORDS = {
  not_your_turn: "It is not your turn.",
  stale: "The table moved on before your move arrived: look again and choose anew.",
  unauthorized: "Only a seated player can act.",
  rate_limited: "Too many moves at once: slow down a little.",
  game_over: "The game is over.",
  disconnected: "The connection dropped before the hub answered; the table shows what happened.",
};

/** Show the connection state in the page header (shared by every screen). */
export function showNet(state, detail = "", rtt = null) {
  const el = document.getElementById("net");
  if (!el) return;
  const [sym, text] = NET_WORDS[state] || NET_WORDS.idle;
  el.className = `net net-${state}`;
  el.dataset.state = state;
  el.title = detail || text;
  el.querySelector(".net-dot").textContent = sym;
  const textEl = el.querySelector(".net-text");
  if (textEl.textContent !== text) textEl.textContent = text; // a live region: speak changes only
  el.querySelector(".net-rtt").textContent = rtt !== null && state === "connected" ? `${rtt} ms` : "";
}

/** The module context for a viewer: shared by live tables and replays. */
export function makeCtx({ seat, view, room, send, rerender, serverNow, frame, rtt = () => null, replay = false }) {
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
    this.rtt = null;
    this.inflight = new Set();
    this.closed = false;

    this.conn = new Connection({ room: rid, token: this.held ? this.held.token : null });
    this.frame = new Frame(el, { rid, mode: "live", ctx: () => this.ctx() });
    this.frame.deadlineOf = () => this.conn.serverNow();
    this.conn.on("view", (view) => this.onView(view));
    this.conn.on("status", ({ state, detail }) => showNet(state, detail, this.rtt));
    this.conn.on("rtt", ({ rtt }) => { this.rtt = rtt; showNet(this.conn.state, "", rtt); });
    this.conn.on("final", ({ code, reason }) => this.onFinal(code, reason));
    this.conn.on("event", (f) => this.onEvent(f));
    this.conn.on("error", (f) => toast(ERROR_WORDS[f.code] || f.message || f.code, "error"));
    this.conn.on("contest", (f) => this.onContest(f));
    window.hubDebug = { connection: this.conn, session: this, frame: this.frame };
    this.conn.open();

    this.ticker = setInterval(() => this.frame.tick(), 250);
    if (!this.held) this.offerSeats();
  }

  close() {
    this.closed = true;
    this.frame.closed = true;
    clearInterval(this.ticker);
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
      rerender: () => this.frame.renderBoard(),
      serverNow: () => this.conn.serverNow(),
      rtt: () => this.conn.rtt,
      frame: this.frame,
    });
  }

  async send(action) {
    const key = JSON.stringify(action);
    if (this.inflight.has(key)) return false; // a double click: the first one is on its way
    this.inflight.add(key);
    this.frame.boardEl.classList.add("busy");
    try {
      await this.conn.act(action);
      return true;
    } catch (e) {
      toast(ERROR_WORDS[e.code] || e.message || "The hub refused that move.", "error");
      return false;
    } finally {
      this.inflight.delete(key);
      if (!this.inflight.size) this.frame.boardEl.classList.remove("busy");
    }
  }

  async onView(view) {
    if (this.closed) return;
    if (view.phase !== "waiting" && !this.frame.joinEl.hidden) this.frame.joinEl.hidden = true; // the seats filled up
    await this.frame.show(view, this.conn.seq);
  }

  /** A timed contest: the game's module handles it, or the frame offers one big button. */
  onContest(f) {
    const mod = this.frame.mod;
    if (mod && mod.onContest) {
      mod.onContest(f, this.ctx());
      return;
    }
    if (this.seat === null || this.seat === undefined || this.frame.final) return;
    const open = { nonce: f.id, cid: f.contest };
    this.openContest = open;
    const el = this.frame.contestEl;
    const button = h("button", { type: "button", class: "primary grab", "data-testid": "grab",
      onclick: async () => {
        button.disabled = true;
        button.textContent = "Sent: waiting for the judgement…";
        await this.send({ type: "grab", contest: f.id });
      } }, `⚡ ${words(f.kind || "grab")}! (fastest hand wins)`);
    el.hidden = false;
    el.replaceChildren(button);
    button.focus({ preventScroll: true });
    // A result that never comes (a dropped event) must not leave the button up for ever.
    setTimeout(() => { if (this.openContest === open) this.closeContest(); }, 15000);
  }

  closeContest() {
    this.openContest = null;
    this.frame.contestEl.hidden = true;
    this.frame.contestEl.replaceChildren();
  }

  onEvent(f) {
    const mod = this.frame.mod;
    if (mod && typeof mod.onEvent === "function") {
      try { mod.onEvent(f, this.ctx()); } catch (e) { console.error("the module's onEvent failed", e); }
    }
    const shownByModule = Boolean(mod && (mod.onContest || mod.onEvent));
    if (f.kind === "contest_result") {
      if (this.openContest && (this.openContest.cid === f.contest || f.contest === undefined)) this.closeContest();
      if (shownByModule) return;
      const who = f.winner === null || f.winner === undefined ? "nobody" : seatName(this.view, f.winner);
      const ms = f.judged && f.winner !== null && f.winner !== undefined ? f.judged[String(f.winner)] : undefined;
      const mine = this.seat !== null && this.seat !== undefined && f.refused ? f.refused[String(this.seat)] : undefined;
      const why = mine ? ` Your grab was not counted: ${words(String(mine)).toLowerCase()}.` : "";
      toast(`Fastest hand: ${who}${typeof ms === "number" ? ` (${Math.round(ms)} ms)` : ""}.${why}`);
    } else if (f.kind === "chat" && f.text) {
      toast(`${f.name || "?"}: ${f.text}`);
    }
  }

  onFinal(code, reason) {
    this.frame.final = code;
    this.frame.renderAll();
    const actions = [];
    if (code === 4009) {
      actions.push(h("button", { type: "button", onclick: () => this.restart() }, "Take the seat back here"));
    } else if (code === 4001) {
      forgetSeat(this.rid);
      actions.push(h("a", { class: "button", href: `#/room/${encodeURIComponent(this.rid)}/watch` }, "◉ Watch instead"));
    }
    actions.push(h("a", { class: "button", href: "#/" }, "Lobby"));
    const banner = this.frame.bannerEl;
    banner.hidden = false;
    banner.dataset.code = String(code);
    banner.setAttribute("role", "alert");
    banner.replaceChildren(h("p", {}, `✕ ${reason}`), h("div", { class: "actions" }, ...actions));
  }

  /** Someone who opens a shared link holds no seat: offer the free ones while they watch. */
  async offerSeats() {
    let room;
    try { room = await api("GET", `/api/rooms/${encodeURIComponent(this.rid)}`); } catch { return; }
    if (this.closed || !room || room.status !== "waiting") return;
    const free = (room.seats || []).filter((s) => !s.name && !s.bot);
    if (!free.length) return;
    const name = h("input", { value: savedName(), placeholder: "Your name", maxlength: 24, "aria-label": "Your name",
      "data-testid": "join-name" });
    const join = async (seat) => {
      const n = name.value.trim() || "Player";
      saveName(n);
      try {
        const got = await api("POST", `/api/rooms/${encodeURIComponent(this.rid)}/join`, { name: n, seat });
        saveSeat(this.rid, got.seat, got.token);
        this.restart();
      } catch (e) {
        toast(e.status === 409 ? "That seat was just taken." : `Could not join: ${e.message}`, "error");
      }
    };
    const el = this.frame.joinEl;
    el.hidden = false;
    el.className = "join-panel card";
    el.replaceChildren(h("p", {}, "This table has free seats. "), name,
      ...free.map((s) => h("button", { type: "button", class: "primary", "data-testid": `sit-${s.seat}`,
        onclick: () => join(s.seat) }, `Sit at seat ${s.seat}`)));
  }
}
