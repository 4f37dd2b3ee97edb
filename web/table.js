// The frame around any game's table: header, players, move log, result, connection; the board
// itself is drawn by the game's own module.
//
// GAME MODULE INTERFACE
// ---------------------
// A game's board lives in web/games/<id>.js, where <id> is the protocol's game id (view.game):
//
//   export default {
//     id: "symbiose",               // the game id
//     title: "Symbiose",            // shown in the header
//     summary: "…",                 // short rules text for newcomers, shown under the board
//     render(el, view, ctx) { … },  // draw the board of `view` into `el`
//     // optional:
//     phaseText(view, ctx) → str,   // the phase in words (default: view.phase in words)
//     figures(player, view) → [str],// a player's public figures for the players list
//     onContest(frame, ctx),        // a `contest` frame arrived (`seen` has already been sent);
//                                   // without it the frame shows a "Grab!" button that sends
//                                   // {"type": "grab", "contest": frame.id}
//   }
//
// render(el, view, ctx) is called with an empty `el` after every change of the view (and when the
// module calls ctx.rerender()); it builds the board from the view alone. Only items of view.legal
// may be sent, verbatim, through ctx.send. Clickable things should be <button>s (Tab + Enter work
// for free) carrying a stable data-focus-key, which lets the frame give focus back to the same
// element after a re-render.
//
//   ctx = {
//     seat,            // this viewer's seat, or null for a spectator
//     isSpectator,     // seat === null
//     send(action),    // → Promise<boolean>: true once the hub acked, false if it refused (the
//                      //   frame has already told the player why)
//     rerender(),      // draw again with the same view (after a local selection changed, say)
//     name(seat),      // the player's name at a seat
//     serverNow(),     // server epoch ms, corrected by the measured clock offset
//     room,            // the room id
//   }
//
// A game without a module gets the generic renderer below: every item of view.legal as a button
// that sends it, which makes any game playable, if not pretty.

import { Connection } from "./connection.js";
import { h, api, toast, words, seatName, seatFor, saveSeat, forgetSeat, savedName, saveName, rebuild } from "./ui.js";

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

const modules = new Map();
let gamesList = null;

/** The game's own module, or the generic renderer when it has none (yet). */
function loadModule(id) {
  if (!/^[a-z0-9_]+$/.test(String(id))) return Promise.resolve(generic);
  if (!modules.has(id)) {
    modules.set(id, import(`./games/${id}.js`)
      .then((m) => (m && m.default && typeof m.default.render === "function" ? m.default : generic))
      .catch(() => generic));
  }
  return modules.get(id);
}

function gameName(id) {
  gamesList ||= api("GET", "/api/games").catch(() => []);
  return gamesList.then((list) => {
    const g = Array.isArray(list) ? list.find((x) => x.id === id) : null;
    return (g && g.name) || words(id);
  });
}

/** Show the connection state in the page header (shared by every screen). */
export function showNet(state, detail = "", rtt = null) {
  const el = document.getElementById("net");
  if (!el) return;
  const [sym, text] = NET_WORDS[state] || NET_WORDS.idle;
  el.className = `net net-${state}`;
  el.dataset.state = state;
  el.title = detail || text;
  el.querySelector(".net-dot").textContent = sym;
  el.querySelector(".net-text").textContent = text;
  el.querySelector(".net-rtt").textContent = rtt !== null && state === "connected" ? `${rtt} ms` : "";
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
    this.el = el;
    this.rid = rid;
    this.restart = restart;
    this.held = watch ? null : seatFor(rid);
    this.view = null;
    this.mod = null;
    this.rtt = null;
    this.inflight = new Set();
    this.closed = false;

    this.headEl = h("header", { class: "table-head card", "data-testid": "table-head" });
    this.bannerEl = h("div", { class: "banner", "data-testid": "banner", hidden: true });
    this.joinEl = h("div", { class: "join-panel", hidden: true });
    this.contestEl = h("div", { class: "contest", "data-testid": "contest", hidden: true, "aria-live": "assertive" });
    this.resultEl = h("section", { class: "result card", "data-testid": "result", hidden: true, "aria-live": "polite" });
    this.boardEl = h("section", { class: "board", "data-testid": "board" }, h("p", { class: "muted" }, "Connecting to the table…"));
    this.playersEl = h("ol", { class: "players-list", "data-testid": "players" });
    this.logEl = h("ol", { class: "log", "data-testid": "log" });
    this.summaryEl = h("details", { class: "summary card", hidden: true });
    el.replaceChildren(
      h("div", { class: "table" },
        this.headEl, this.bannerEl, this.joinEl, this.contestEl, this.resultEl,
        h("div", { class: "table-body" },
          this.boardEl,
          h("aside", { class: "side" },
            h("section", { class: "card" }, h("h3", {}, "Players"), this.playersEl),
            h("section", { class: "card" }, h("h3", {}, "Moves"), this.logEl))),
        this.summaryEl,
        h("p", { class: "back" }, h("a", { href: "#/" }, "← Lobby"))));

    this.conn = new Connection({ room: rid, token: this.held ? this.held.token : null });
    this.conn.on("view", (view) => this.onView(view));
    this.conn.on("status", ({ state, detail }) => { showNet(state, detail, this.rtt); this.renderHead(); });
    this.conn.on("rtt", ({ rtt }) => { this.rtt = rtt; showNet(this.conn.state, "", rtt); });
    this.conn.on("final", ({ code, reason }) => this.onFinal(code, reason));
    this.conn.on("event", (f) => this.onEvent(f));
    this.conn.on("error", (f) => toast(ERROR_WORDS[f.code] || f.message || f.code, "error"));
    this.conn.on("contest", (f) => this.onContest(f));
    window.hubDebug = { connection: this.conn, session: this };
    this.conn.open();

    this.ticker = setInterval(() => this.tick(), 250);
    if (!this.held) this.offerSeats();
  }

  close() {
    this.closed = true;
    clearInterval(this.ticker);
    this.conn.close();
  }

  get seat() {
    return this.conn.seat;
  }

  ctx() {
    const seat = this.seat;
    return {
      seat,
      isSpectator: seat === null || seat === undefined,
      send: (action) => this.send(action),
      rerender: () => this.renderBoard(),
      name: (s) => seatName(this.view, s),
      serverNow: () => this.conn.serverNow(),
      room: this.rid,
    };
  }

  async send(action) {
    const key = JSON.stringify(action);
    if (this.inflight.has(key)) return false; // a double click: the first one is on its way
    this.inflight.add(key);
    this.boardEl.classList.add("busy");
    try {
      await this.conn.act(action);
      return true;
    } catch (e) {
      toast(ERROR_WORDS[e.code] || e.message || "The hub refused that move.", "error");
      return false;
    } finally {
      this.inflight.delete(key);
      if (!this.inflight.size) this.boardEl.classList.remove("busy");
    }
  }

  async onView(view) {
    if (this.closed) return;
    this.view = view;
    if (view.phase !== "waiting" && !this.joinEl.hidden) this.joinEl.hidden = true; // the seats filled up
    if (!this.mod || this.modGame !== view.game) {
      this.mod = null;
      const mod = await loadModule(view.game);
      if (this.closed) return;
      this.mod = mod;
      this.modGame = view.game;
      this.title = mod.title || (await gameName(view.game));
      this.renderSummary();
    }
    if (this.view !== view) return; // a newer view arrived while the module loaded; it renders
    this.renderAll();
  }

  renderAll() {
    if (!this.view || !this.mod) return;
    this.renderHead();
    this.renderBoard();
    this.renderPlayers();
    this.renderLog();
    this.renderResult();
  }

  renderBoard() {
    if (!this.view || !this.mod) return;
    // Once closed for good nothing can be sent, so nothing may look clickable.
    const view = this.final ? { ...this.view, legal: [] } : this.view;
    this.boardEl.dataset.game = view.game;
    this.boardEl.dataset.seq = String(this.conn.seq);
    rebuild(this.boardEl, (el) => {
      try {
        this.mod.render(el, view, this.ctx());
      } catch (e) {
        console.error("the game module failed; falling back to the generic table", e);
        el.replaceChildren();
        generic.render(el, view, this.ctx());
      }
    });
  }

  renderHead() {
    const view = this.view;
    const seat = this.seat;
    const spectator = seat === null || seat === undefined;
    const parts = [h("h2", { class: "title", "data-testid": "game-title" }, this.title || (view ? words(view.game) : "Table"),
      h("span", { class: "room-id" }, ` #${this.rid}`))];
    if (view) {
      const phase = view.phase === "waiting" ? "Waiting for players to take their seats"
        : this.mod && this.mod.phaseText ? this.mod.phaseText(view, this.ctx()) : words(view.phase);
      parts.push(h("p", { class: "phase", "data-testid": "phase", "data-phase": view.phase }, phase));
      parts.push(h("p", { class: "turn", "data-testid": "turn" }, this.turnText(view, seat)));
    }
    parts.push(h("p", { class: "who" },
      spectator
        ? h("span", { class: "badge spectator", "data-testid": "spectator-badge" }, "◉ Spectator: you are watching")
        : h("span", { class: "badge seat", "data-testid": "seat-badge", "data-seat": seat },
          `You are seat ${seat}${view ? ` (${seatName(view, seat)})` : ""}`),
      " ", h("span", { class: "deadline", "data-testid": "deadline" })));
    this.headEl.replaceChildren(...parts);
    this.tick();
  }

  turnText(view, seat) {
    if (view.result) return "■ The game is over.";
    const active = Array.isArray(view.active) ? view.active : [];
    if (!active.length) return "… Waiting for the table to start.";
    const mine = seat !== null && seat !== undefined && active.includes(seat);
    const others = active.filter((s) => s !== seat).map((s) => seatName(view, s));
    if (mine && !others.length) return "▶ Your turn.";
    if (mine) return `▶ Your move, and ${others.join(", ")}’s.`;
    return `◷ Waiting for ${others.join(", ")}.`;
  }

  tick() {
    const el = this.headEl.querySelector(".deadline");
    if (!el) return;
    const deadline = this.view && typeof this.view.deadline === "number" && !this.view.result ? this.view.deadline : null;
    if (deadline === null) { el.textContent = ""; return; }
    const left = Math.max(0, Math.ceil((deadline - this.conn.serverNow()) / 1000));
    el.textContent = `◷ ${left} s left`;
    el.classList.toggle("urgent", left <= 5);
  }

  renderPlayers() {
    const view = this.view;
    const active = new Set(Array.isArray(view.active) ? view.active : []);
    const winners = new Set(view.result && Array.isArray(view.result.winners) ? view.result.winners : []);
    const players = Array.isArray(view.players) ? view.players : [];
    this.playersEl.replaceChildren(...players.map((p) => {
      const figures = this.mod && this.mod.figures ? this.mod.figures(p, view) : genericFigures(p);
      return h("li", { class: `player${active.has(p.seat) ? " active" : ""}${p.seat === this.seat ? " me" : ""}`, "data-seat": p.seat },
        h("span", { class: "marker", "aria-hidden": "true" }, winners.has(p.seat) ? "♛" : active.has(p.seat) ? "▶" : "·"),
        h("strong", {}, seatName(view, p.seat)),
        p.bot ? h("span", { class: "bot-tag" }, " ⚙ bot") : null,
        h("span", { class: "muted" }, ` seat ${p.seat}${p.seat === this.seat ? " (you)" : ""}${active.has(p.seat) ? " — to play" : ""}`),
        figures.length ? h("span", { class: "figures" }, figures.join(" · ")) : null);
    }));
  }

  renderLog() {
    const log = Array.isArray(this.view.log) ? this.view.log.slice(-40) : [];
    const atBottom = this.logEl.scrollHeight - this.logEl.scrollTop - this.logEl.clientHeight < 30;
    this.logEl.replaceChildren(...log.map((line) =>
      h("li", {}, typeof line === "string" ? line : (line && line.text) || JSON.stringify(line))));
    if (!log.length) this.logEl.appendChild(h("li", { class: "muted" }, "Nothing has happened yet."));
    if (atBottom) this.logEl.scrollTop = this.logEl.scrollHeight;
  }

  renderResult() {
    const result = this.view.result;
    if (!result) { this.resultEl.hidden = true; return; }
    const view = this.view;
    const winners = Array.isArray(result.winners) ? result.winners : [];
    const scores = Array.isArray(result.scores) ? result.scores : [];
    const mine = this.seat !== null && this.seat !== undefined;
    const names = winners.map((s) => seatName(view, s));
    let headline = winners.length === 0 ? "No winner."
      : winners.length === 1 ? `♛ ${names[0]} wins!` : `♛ Shared victory: ${names.join(" and ")}.`;
    if (mine) headline += winners.includes(this.seat) ? " You won." : " You did not win this time.";
    const extras = Object.entries(result).filter(([k]) => k !== "winners" && k !== "scores");
    this.resultEl.hidden = false;
    this.resultEl.replaceChildren(
      h("h3", {}, "Result"),
      h("p", { class: "headline", "data-testid": "result-headline" }, headline),
      scores.length ? h("table", { class: "scores", "data-testid": "result-scores" },
        h("thead", {}, h("tr", {}, h("th", {}, "Player"), h("th", {}, "Points"))),
        h("tbody", {}, ...scores.map((pts, s) => h("tr", { class: winners.includes(s) ? "winner" : "" },
          h("td", {}, `${winners.includes(s) ? "♛ " : ""}${seatName(view, s)}`), h("td", {}, String(pts)))))) : null,
      ...extras.map(([k, v]) => h("p", { class: "extra" }, `${words(k)}: ${Array.isArray(v) ? v.join(" / ") : JSON.stringify(v)}`)),
      h("p", {}, h("a", { href: "#/" }, "Back to the lobby for another game")));
  }

  renderSummary() {
    if (!this.mod || !this.mod.summary) { this.summaryEl.hidden = true; return; }
    this.summaryEl.hidden = false;
    this.summaryEl.replaceChildren(h("summary", {}, `How to play ${this.title || ""}`),
      ...String(this.mod.summary).split(/\n\s*\n/).map((p) => h("p", {}, p.trim())));
  }

  /** A timed contest: the game's module handles it, or the frame offers one big button. */
  onContest(f) {
    if (this.mod && this.mod.onContest) {
      this.mod.onContest(f, this.ctx());
      return;
    }
    if (this.seat === null || this.seat === undefined || this.final) return;
    const open = { nonce: f.id, cid: f.contest };
    this.openContest = open;
    const button = h("button", { type: "button", class: "primary grab", "data-testid": "grab",
      onclick: async () => {
        button.disabled = true;
        button.textContent = "Sent: waiting for the judgement…";
        await this.send({ type: "grab", contest: f.id });
      } }, `⚡ ${words(f.kind || "grab")}! (fastest hand wins)`);
    this.contestEl.hidden = false;
    this.contestEl.replaceChildren(button);
    button.focus({ preventScroll: true });
    // A result that never comes (a dropped event) must not leave the button up for ever.
    setTimeout(() => { if (this.openContest === open) this.closeContest(); }, 15000);
  }

  closeContest() {
    this.openContest = null;
    this.contestEl.hidden = true;
    this.contestEl.replaceChildren();
  }

  onEvent(f) {
    if (f.kind === "contest_result") {
      if (this.openContest && (this.openContest.cid === f.contest || f.contest === undefined)) this.closeContest();
      const who = f.winner === null || f.winner === undefined ? "nobody" : seatName(this.view, f.winner);
      const ms = f.judged && f.winner !== null && f.winner !== undefined ? f.judged[String(f.winner)] : undefined;
      toast(`Fastest hand: ${who}${typeof ms === "number" ? ` (${Math.round(ms)} ms)` : ""}.`);
    } else if (f.kind === "chat" && f.text) {
      toast(`${f.name || "?"}: ${f.text}`);
    }
  }

  onFinal(code, reason) {
    this.final = code;
    this.renderBoard();
    const actions = [];
    if (code === 4009) {
      actions.push(h("button", { type: "button", onclick: () => this.restart() }, "Take the seat back here"));
    } else if (code === 4001) {
      forgetSeat(this.rid);
      actions.push(h("a", { class: "button", href: `#/room/${encodeURIComponent(this.rid)}/watch` }, "◉ Watch instead"));
    }
    actions.push(h("a", { class: "button", href: "#/" }, "Lobby"));
    this.bannerEl.hidden = false;
    this.bannerEl.dataset.code = String(code);
    this.bannerEl.replaceChildren(h("p", {}, `✕ ${reason}`), h("div", { class: "actions" }, ...actions));
  }

  /** Someone who opens a shared link holds no seat: offer the free ones while they watch. */
  async offerSeats() {
    let room;
    try { room = await api("GET", `/api/rooms/${encodeURIComponent(this.rid)}`); } catch { return; }
    if (this.closed || !room || room.status !== "waiting") return;
    const free = (room.seats || []).filter((s) => !s.name && !s.bot);
    if (!free.length) return;
    const name = h("input", { value: savedName(), placeholder: "Your name", maxlength: 24, "aria-label": "Your name" });
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
    this.joinEl.hidden = false;
    this.joinEl.className = "join-panel card";
    this.joinEl.replaceChildren(h("p", {}, "This table has free seats. "), name,
      ...free.map((s) => h("button", { type: "button", class: "primary", onclick: () => join(s.seat) }, `Sit at seat ${s.seat}`)));
  }
}

function genericFigures(p) {
  return Object.entries(p || {})
    .filter(([k, v]) => k !== "seat" && k !== "name" && k !== "bot" && v !== null && v !== undefined && typeof v !== "object")
    .map(([k, v]) => `${words(k)}: ${v}`);
}

/** "type: swap · river 2 · slot 5": a readable label for any action map. */
export function actionLabel(action) {
  if (!action || typeof action !== "object") return JSON.stringify(action);
  const parts = [];
  if ("type" in action) parts.push(words(action.type));
  for (const [k, v] of Object.entries(action)) {
    if (k === "type") continue;
    parts.push(`${words(k).toLowerCase()} ${typeof v === "object" ? JSON.stringify(v) : v}`);
  }
  return parts.join(" · ");
}

let rawOpen = false;

/** The fallback board: every legal action as a button, plus the raw view for the curious. */
export const generic = {
  id: "generic",
  title: null,
  summary: "",
  render(el, view, ctx) {
    const legal = Array.isArray(view.legal) ? view.legal : [];
    el.appendChild(h("p", { class: "muted" },
      "This game has no table of its own yet: each move you may make now is a button."));
    if (ctx.isSpectator) {
      el.appendChild(h("p", {}, "You are watching; the players’ moves appear in the log."));
    } else if (!legal.length) {
      el.appendChild(h("p", {}, view.result ? "The game is over." : "Nothing to do right now: wait for the others."));
    } else {
      el.appendChild(h("div", { class: "legal-list", "data-testid": "legal-list" },
        ...legal.map((action, i) => h("button", {
          type: "button", class: "legal", "data-testid": "legal", "data-focus-key": `legal-${i}`,
          onclick: () => ctx.send(action),
        }, actionLabel(action)))));
      const text = h("textarea", { rows: 3, "aria-label": "An action as JSON", placeholder: '{"type": "…"}' });
      el.appendChild(h("details", { class: "raw-action" },
        h("summary", {}, "Send another action (JSON)"), text,
        h("button", { type: "button", onclick: () => {
          let action;
          try { action = JSON.parse(text.value); } catch { toast("That is not JSON.", "error"); return; }
          ctx.send(action);
        } }, "Send")));
    }
    const raw = h("details", { class: "raw-view", open: rawOpen }, h("summary", {}, "The whole view"),
      h("pre", {}, JSON.stringify(view, null, 2)));
    raw.addEventListener("toggle", () => { rawOpen = raw.open; });
    el.appendChild(raw);
  },
};
