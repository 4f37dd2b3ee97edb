// Drawing a view inside the table frame: header, board (the game's module), players, moves, result.
//
// The frame knows nothing of sockets: table.js feeds it the live views of a connection, replay.js
// the views rebuilt from a finished game's log. Both get the same table, drawn by the same module.
// The game module interface is documented at the top of table.js.

import { h, api, toast, words, seatName, rebuild, announce, shareBox, roomLink, copyText } from "./ui.js";

// --- seat colours and symbols ------------------------------------------------------------------

// Chosen here: one colour per seat, each with a symbol so that no one needs to tell colours apart.
// The first five are Waterfall Park's base colours with the symbols its engine gives them (Pink
// heart, Yellow star, Blue circle, Green triangle, Red square), so that a seat looks the same in
// every game; then three more for larger tables. A view whose players carry `colour` (a name),
// `symbol` (a word, or the character itself) and `glyph` (the character) is drawn with those.
export const SEAT_COLOURS = [
  { name: "Pink", symbol: "♥", word: "heart", css: "#d6409f" },
  { name: "Yellow", symbol: "★", word: "star", css: "#e3b300", ink: "#1f2328" }, // dark on light
  { name: "Blue", symbol: "●", word: "circle", css: "#2f6fde" },
  { name: "Green", symbol: "▲", word: "triangle", css: "#1f8a3b" },
  { name: "Red", symbol: "■", word: "square", css: "#cf222e" },
  { name: "Purple", symbol: "◆", word: "diamond", css: "#8250df" },
  { name: "Orange", symbol: "✚", word: "cross", css: "#c45508" },
  { name: "Grey", symbol: "⬟", word: "pentagon", css: "#57606a" },
];
const BY_NAME = new Map(SEAT_COLOURS.map((c) => [c.name.toLowerCase(), c]));

/**
 * {name, symbol, word, css} of a seat: the view's own colour and symbol when its players name
 * them, else the seat's by number.
 */
export function seatColour(view, seat) {
  const p = view && Array.isArray(view.players) ? view.players.find((x) => x && x.seat === seat) : null;
  const n = SEAT_COLOURS.length;
  const fallback = SEAT_COLOURS[((Number(seat) % n) + n) % n] || SEAT_COLOURS[0];
  const colour = p && typeof p.colour === "string" && p.colour ? p.colour : null;
  const base = (colour && BY_NAME.get(colour.toLowerCase())) || (colour ? { ...fallback, word: "" } : fallback);
  const given = p && typeof p.symbol === "string" && p.symbol ? p.symbol : null;
  const glyph = p && typeof p.glyph === "string" && p.glyph ? p.glyph
    : given && [...given].length <= 2 ? given : base.symbol;
  return {
    name: colour ? words(colour) : base.name,
    symbol: glyph,
    word: given && [...given].length > 2 ? given : base.word,
    css: base.css,
    ink: base.ink || "#fff",
  };
}

/** A seat's symbol in its colour, named for screen readers ("Pink heart") and as a tooltip. */
export function seatMark(view, seat, colour = null) {
  const c = colour || seatColour(view, seat);
  const label = c.word ? `${c.name} ${c.word}` : c.name;
  return h("span", { class: "seat-mark", style: { "--seat": c.css, "--ink": c.ink }, title: label, role: "img",
    "aria-label": label, "data-testid": "seat-mark", "data-colour": c.name }, c.symbol);
}

// --- game modules ----------------------------------------------------------------------------------

const modules = new Map();
let gamesList = null;

/** The game's own module, or the generic renderer when it has none (yet). */
export function loadModule(id) {
  if (!/^[a-z0-9_]+$/.test(String(id))) return Promise.resolve(generic);
  if (!modules.has(id)) {
    modules.set(id, import(`./games/${id}.js`)
      .then((m) => (m && m.default && typeof m.default.render === "function" ? m.default : generic))
      .catch(() => generic));
  }
  return modules.get(id);
}

/** The hub's name for a game (GET /api/games), else its id in words. */
export function gameName(id) {
  gamesList ||= api("GET", "/api/games").catch(() => []);
  return gamesList.then((list) => {
    const g = Array.isArray(list) ? list.find((x) => x.id === id) : null;
    return (g && g.name) || words(id);
  });
}

// --- the frame -------------------------------------------------------------------------------------

const ORDINALS = ["1st", "2nd", "3rd"];

/**
 * The table's layout and everything drawn from a view around the board. mode is "live" or
 * "replay"; ctx() gives the module context of the moment (see table.js).
 */
export class Frame {
  constructor(el, { rid, mode = "live", ctx }) {
    this.rid = rid;
    this.mode = mode;
    this.ctxOf = ctx;
    this.view = null;
    this.mod = null;
    this.title = null;
    this.final = null;          // a close code once nothing more can be sent
    this.reveal = { key: null, shown: 0, fresh: -1 };
    this.wasMyTurn = false;
    this.deadlineOf = () => null;

    this.headEl = h("header", { class: "table-head card", "data-testid": "table-head" });
    this.bannerEl = h("div", { class: "banner", "data-testid": "banner", hidden: true });
    this.joinEl = h("div", { class: "join-panel", hidden: true });
    this.contestEl = h("div", { class: "contest", "data-testid": "contest", hidden: true, "aria-live": "assertive" });
    this.controlsEl = h("div", { class: "replay-controls card", "data-testid": "replay-controls", hidden: true });
    this.resultEl = h("section", { class: "result card", "data-testid": "result", hidden: true, tabindex: -1,
      "aria-label": "Result" });
    this.boardEl = h("section", { class: "board", "data-testid": "board", "aria-label": "The table" },
      h("p", { class: "muted" }, mode === "replay" ? "Loading the replay…" : "Connecting to the table…"));
    this.playersEl = h("ol", { class: "players-list", "data-testid": "players" });
    this.logEl = h("ol", { class: "log", "data-testid": "log", tabindex: 0, "aria-label": "Moves so far" });
    this.summaryEl = h("details", { class: "summary card", "data-testid": "summary", hidden: true });
    el.replaceChildren(
      h("div", { class: `table mode-${mode}` },
        this.headEl, this.bannerEl, this.joinEl, this.controlsEl, this.contestEl, this.resultEl,
        h("div", { class: "table-body" },
          this.boardEl,
          h("aside", { class: "side" },
            h("section", { class: "card" }, h("h3", {}, "Players"), this.playersEl),
            h("section", { class: "card" }, h("h3", {}, "Moves"), this.logEl))),
        this.summaryEl,
        h("p", { class: "back" }, h("a", { href: "#/" }, "← Lobby"))));
  }

  ctx() {
    return this.ctxOf();
  }

  /** A seat's colour: the module's own (seatColour), over the view's, over the frame's by seat. */
  colour(seat) {
    const base = seatColour(this.view, seat);
    if (this.mod && typeof this.mod.seatColour === "function") {
      try {
        const own = this.mod.seatColour(this.view, seat);
        if (own && typeof own === "object") return { ...base, word: own.symbol ? "" : base.word, ...own };
      } catch (e) { console.error("seatColour failed", e); }
    }
    return base;
  }

  mark(seat) {
    return seatMark(this.view, seat, this.colour(seat));
  }

  /** Show a view: loads the game's module on first sight of its game. Resolves once drawn. */
  async show(view, seq = null) {
    this.view = view;
    this.seq = seq;
    if (!this.mod || this.modGame !== view.game) {
      this.mod = null;
      const mod = await loadModule(view.game);
      const title = mod.title || (await gameName(view.game));
      // A newer view arrived meanwhile (it draws, with the same cached module), or the screen was left.
      if (this.view !== view || this.closed) return;
      this.mod = mod;
      this.modGame = view.game;
      this.title = title;
      this.renderSummary();
    }
    this.renderAll();
  }

  renderAll() {
    if (!this.view || !this.mod || this.closed) return;
    this.renderHead();
    this.renderBoard();
    this.renderPlayers();
    this.renderLog();
    this.renderResult();
    this.speak();
  }

  renderBoard() {
    if (!this.view || !this.mod) return;
    // Once closed for good (or in a replay) nothing can be sent, so nothing may look clickable.
    const frozen = this.final || this.mode === "replay";
    const view = frozen ? { ...this.view, legal: [] } : this.view;
    this.boardEl.dataset.game = view.game;
    this.boardEl.dataset.seq = String(this.seq ?? "");
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

  phaseText(view) {
    if (view.phase === "waiting") return "Waiting for players to take their seats";
    if (this.mod && this.mod.phaseText) {
      try { return String(this.mod.phaseText(view, this.ctx())); } catch { /* fall through */ }
    }
    return words(view.phase);
  }

  renderHead() {
    const view = this.view;
    const { seat, isSpectator } = this.ctx();
    const parts = [h("h2", { class: "title", "data-testid": "game-title" }, this.title || (view ? words(view.game) : "Table"),
      h("span", { class: "room-id" }, ` #${this.rid}`),
      this.mod && this.mod.summary
        ? h("button", { type: "button", class: "small how-to", "data-testid": "how-to", "data-focus-key": "how-to",
          onclick: () => {
            this.summaryEl.open = true;
            this.summaryEl.scrollIntoView({ block: "start" });
            this.summaryEl.querySelector("summary").focus();
          } }, "? How to play")
        : null)];
    if (view) {
      parts.push(h("p", { class: "phase", "data-testid": "phase", "data-phase": view.phase }, this.phaseText(view)));
      parts.push(h("p", { class: `turn${this.myTurn() ? " mine" : ""}`, "data-testid": "turn" }, this.turnText(view, seat)));
    }
    let badge;
    if (this.mode === "replay") {
      badge = h("span", { class: "badge spectator", "data-testid": "replay-badge" }, "▶ Replay: as a spectator saw it");
    } else if (isSpectator) {
      badge = h("span", { class: "badge spectator", "data-testid": "spectator-badge" }, "◉ Spectator: you are watching");
    } else {
      badge = h("span", { class: "badge seat", "data-testid": "seat-badge", "data-seat": seat },
        view ? this.mark(seat) : null, ` You are seat ${seat}${view ? ` (${seatName(view, seat)})` : ""}`);
    }
    const waiting = this.mode === "live" && view && view.phase === "waiting" && !this.final;
    parts.push(h("p", { class: "who" }, badge, " ",
      h("span", { class: "deadline", "data-testid": "deadline", role: "timer", "aria-live": "off" }),
      this.mode === "live" && !waiting
        ? h("button", { type: "button", class: "small", "data-testid": "share-room", "data-focus-key": "share-room",
          onclick: async () => {
            if (await copyText(roomLink(this.rid))) toast("Link copied: whoever opens it watches this table.");
            else toast(`Copy this link by hand: ${roomLink(this.rid)}`, "info", 12000);
          } }, "Copy link to watch")
        : null));
    if (waiting) {
      parts.push(h("div", { class: "invite", "data-testid": "invite" },
        h("p", {}, "Invite players with this link (a private room can be found no other way):"),
        shareBox(roomLink(this.rid), { label: "Link to this room", testid: "invite" })));
    }
    rebuild(this.headEl, (el) => el.append(...parts));
    this.tick();
  }

  myTurn() {
    const view = this.view;
    const { seat, isSpectator } = this.ctx();
    return Boolean(view && !view.result && !isSpectator && !this.final && this.mode === "live"
      && Array.isArray(view.active) && view.active.includes(seat));
  }

  turnText(view, seat) {
    if (view.result) return "■ The game is over.";
    const active = Array.isArray(view.active) ? view.active : [];
    if (!active.length) return view.phase === "waiting" ? "… The game starts once every seat is taken." : "… Nobody’s turn: the table is settling.";
    const mine = this.mode === "live" && seat !== null && seat !== undefined && active.includes(seat);
    const others = active.filter((s) => !mine || s !== seat).map((s) => seatName(view, s));
    if (mine && !others.length) return "▶ Your turn.";
    if (mine) return `▶ Your move, and ${others.join(", ")}’s.`;
    if (this.mode === "replay") return `◷ ${others.join(", ")} to play.`;
    return `◷ Waiting for ${others.join(", ")}.`;
  }

  /** Tell a screen reader when the turn becomes this player's, and when the game ends. */
  speak() {
    if (this.mode !== "live" || !this.view) return;
    const mine = this.myTurn();
    if (mine && !this.wasMyTurn) {
      announce(`Your turn: ${this.phaseText(this.view)}.`);
      document.title = `▶ Your turn · ${this.title || "Game hub"}`;
    } else if (!mine && this.wasMyTurn) {
      document.title = `${this.title || "Room"} #${this.rid} · Game hub`;
    }
    if (this.view.result && !this.spokeResult) {
      this.spokeResult = true;
      announce(`The game is over. ${this.headline(this.view)}`);
    }
    this.wasMyTurn = mine;
  }

  /** Count down to the view's deadline; now() is the server's clock. */
  tick(now = null) {
    const el = this.headEl.querySelector(".deadline");
    if (!el) return;
    const view = this.view;
    const deadline = view && typeof view.deadline === "number" && !view.result && !this.final ? view.deadline : null;
    const at = now ?? this.deadlineOf();
    if (deadline === null || at === null) { el.textContent = ""; return; }
    const left = Math.max(0, Math.ceil((deadline - at) / 1000));
    if (this.myTurn() && left > 0 && left <= 10 && this.warned !== deadline) {
      this.warned = deadline;
      announce(`${left} seconds left to play.`);
    }
    el.textContent = `◷ ${left} s left`;
    el.dataset.left = String(left);
    el.classList.toggle("urgent", left <= 5);
  }

  renderPlayers() {
    const view = this.view;
    const { seat: me } = this.ctx();
    const active = new Set(Array.isArray(view.active) && !view.result ? view.active : []);
    const winners = new Set(view.result && Array.isArray(view.result.winners) ? view.result.winners : []);
    const players = Array.isArray(view.players) ? view.players : [];
    this.playersEl.replaceChildren(...players.map((p) => {
      let figures = [];
      try { figures = this.mod && this.mod.figures ? this.mod.figures(p, view) : genericFigures(p); } catch { figures = genericFigures(p); }
      return h("li", { class: `player${active.has(p.seat) ? " active" : ""}${p.seat === me ? " me" : ""}`, "data-seat": p.seat },
        h("span", { class: "marker", "aria-hidden": "true" }, winners.has(p.seat) ? "♛" : active.has(p.seat) ? "▶" : "·"),
        this.mark(p.seat),
        h("strong", {}, seatName(view, p.seat)),
        p.bot ? h("span", { class: "bot-tag" }, " ⚙ bot") : null,
        h("span", { class: "muted" }, ` seat ${p.seat}${p.seat === me ? " (you)" : ""}${active.has(p.seat) ? " — to play" : ""}`
          + `${winners.has(p.seat) ? " — winner" : ""}`),
        figures.length ? h("span", { class: "figures" }, figures.join(" · ")) : null);
    }));
  }

  renderLog() {
    const view = this.view;
    const log = Array.isArray(view.log) ? view.log.slice(-40) : [];
    const atBottom = this.logEl.scrollHeight - this.logEl.scrollTop - this.logEl.clientHeight < 30;
    this.logEl.replaceChildren(...log.map((line, i) =>
      h("li", { class: i === log.length - 1 ? "latest" : "" }, logText(line, view))));
    if (!log.length) this.logEl.appendChild(h("li", { class: "muted" }, "Nothing has happened yet."));
    if (atBottom || this.mode === "replay") this.logEl.scrollTop = this.logEl.scrollHeight;
  }

  headline(view) {
    const result = view.result;
    const winners = Array.isArray(result.winners) ? result.winners : [];
    const names = winners.map((s) => seatName(view, s));
    const { seat, isSpectator } = this.ctx();
    let headline = winners.length === 0 ? "No winner."
      : winners.length === 1 ? `♛ ${names[0]} wins!` : `♛ Shared victory: ${names.join(" and ")}.`;
    if (!isSpectator && this.mode === "live") headline += winners.includes(seat) ? " You won." : " You did not win this time.";
    return headline;
  }

  /**
   * The scoring as rows to reveal one at a time: the module's own steps (scoreSteps) and the
   * totals, or else the ranking from the last place up to the winner.
   */
  scoreRows(view) {
    const result = view.result;
    const scores = Array.isArray(result.scores) ? result.scores : [];
    const winners = new Set(Array.isArray(result.winners) ? result.winners : []);
    const seats = scores.map((_, s) => s);
    let steps = null;
    if (this.mod && typeof this.mod.scoreSteps === "function") {
      try { steps = this.mod.scoreSteps(view, this.ctx()); } catch (e) { console.error("scoreSteps failed", e); }
    }
    const crown = (s) => (winners.has(s) ? "♛ " : "");
    if (Array.isArray(steps) && steps.length) {
      const running = seats.map(() => 0);
      const rows = steps.map((st) => {
        const points = Array.isArray(st.points) ? st.points : [];
        return {
          label: String(st.label ?? ""),
          note: st.note ? String(st.note) : "",
          cells: seats.map((s) => {
            const v = points[s];
            if (typeof v !== "number") return v === undefined || v === null ? "–" : String(v);
            running[s] += v;
            return `${v >= 0 ? "+" : ""}${v}`;
          }),
          sub: seats.map((s) => (typeof points[s] === "number" ? `= ${running[s]}` : "")),
        };
      });
      rows.push({ label: "Total", cells: seats.map((s) => `${crown(s)}${scores[s]}`), total: true,
        cls: "total" });
      return { head: ["", ...seats.map((s) => seatName(view, s))], seatCols: true, rows, winners };
    }
    // The result's other figures per seat (a tie-break such as tiles on the board) as columns.
    const perSeat = perSeatExtras(result);
    const rank = (s) => 1 + scores.filter((x) => x > scores[s]).length;
    const order = seats.slice().sort((a, b) => scores[a] - scores[b] || winners.has(a) - winners.has(b) || b - a);
    const rows = order.map((s) => ({
      label: ORDINALS[rank(s) - 1] || `${rank(s)}th`,
      cells: [`${crown(s)}${seatName(view, s)}`, String(scores[s]), ...perSeat.map(([, v]) => String(v[s]))],
      cls: winners.has(s) ? "winner" : "",
    }));
    return { head: ["Place", "Player", "Points", ...perSeat.map(([k]) => words(k))], seatCols: false, rows, winners };
  }

  renderResult() {
    const view = this.view;
    const result = view.result;
    if (!result) { this.resultEl.hidden = true; this.reveal.key = null; return; }
    const table = this.scoreRows(view);
    const key = JSON.stringify(result);
    if (this.reveal.key !== key) this.reveal = { key, shown: 1, fresh: 0 };
    const total = table.rows.length;
    const shown = Math.min(this.reveal.shown, total);
    const done = shown >= total;
    const shownAsColumns = new Set(table.seatCols ? [] : perSeatExtras(result).map(([k]) => k));
    const extras = Object.entries(result).filter(([k]) => k !== "winners" && k !== "scores" && !shownAsColumns.has(k));
    const go = (n) => {
      this.reveal.fresh = n > this.reveal.shown ? n - 1 : -1;
      this.reveal.shown = n;
      this.renderResult();
      if (n >= total) this.resultEl.focus({ preventScroll: true });
    };
    rebuild(this.resultEl, (el) => {
      el.append(
        h("h3", {}, "Result"),
        h("p", { class: "headline", "data-testid": "result-headline" }, this.headline(view)),
        h("h4", {}, "Scoring, step by step"),
        h("div", { class: "scroll" }, h("table", { class: `scores${table.seatCols ? " by-seat" : ""}`, "data-testid": "result-scores",
          "data-shown": shown, "data-steps": total },
        h("thead", {}, h("tr", {}, ...table.head.map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, ...table.rows.map((r, i) => h("tr", {
          class: `${r.cls || ""}${i === this.reveal.fresh ? " fresh" : ""}`, hidden: i >= shown, "data-step": i,
        },
        h("th", { scope: "row" }, r.label, r.note ? h("small", { class: "note" }, r.note) : null),
        ...r.cells.map((c, j) => h("td", {}, c, r.sub && r.sub[j] ? h("small", { class: "running" }, r.sub[j]) : null))))))),
        h("div", { class: "actions score-steps" },
          h("button", { type: "button", class: done ? "" : "primary", "data-testid": "score-next", "data-focus-key": "score-next",
            disabled: done, onclick: () => go(shown + 1) }, done ? "All shown" : `Next ▸ (${shown} of ${total})`),
          done ? null : h("button", { type: "button", "data-testid": "score-all", "data-focus-key": "score-all",
            onclick: () => go(total) }, "Show all")),
        ...extras.map(([k, v]) => h("p", { class: "extra" }, `${words(k)}: ${Array.isArray(v) ? v.join(" / ") : JSON.stringify(v)}`)),
        h("p", { class: "actions" },
          this.mode === "live"
            ? h("a", { class: "button", href: `#/replay/${encodeURIComponent(this.rid)}`, "data-testid": "result-replay" },
              "▶ Replay this game move by move")
            : null,
          h("a", { class: "button", href: "#/" }, "Back to the lobby for another game")));
    });
    this.reveal.fresh = -1;
    this.resultEl.hidden = false;
  }

  renderSummary() {
    if (!this.mod || !this.mod.summary) { this.summaryEl.hidden = true; return; }
    this.summaryEl.hidden = false;
    // Open the first time this browser meets the game: a newcomer should not have to look for it.
    const key = `hub.seen.${this.modGame}`;
    try {
      if (!localStorage.getItem(key)) {
        this.summaryEl.open = true;
        localStorage.setItem(key, "1");
      }
    } catch { /* storage refused: stays closed */ }
    this.summaryEl.replaceChildren(h("summary", {}, `How to play ${this.title || ""}`),
      ...String(this.mod.summary).split(/\n\s*\n/).map((p) => h("p", {}, p.trim())));
  }
}

/** The result's entries that hold one number per seat, like `scores`: [[key, values], …]. */
function perSeatExtras(result) {
  const n = Array.isArray(result.scores) ? result.scores.length : -1;
  return Object.entries(result).filter(([k, v]) => k !== "winners" && k !== "scores" && Array.isArray(v)
    && v.length === n && v.every((x) => typeof x === "number" || typeof x === "string"));
}

/** One log entry as text; "Seat 2" becomes the player's name, which reads better than a number. */
export function logText(line, view) {
  const text = typeof line === "string" ? line : (line && typeof line.text === "string" ? line.text : JSON.stringify(line));
  return text.replace(/\b([Ss])eat (\d+)\b/g, (all, _s, n) => {
    const p = Array.isArray(view.players) ? view.players.find((x) => x && x.seat === Number(n)) : null;
    return p && p.name ? String(p.name) : all;
  });
}

function genericFigures(p) {
  return Object.entries(p || {})
    .filter(([k, v]) => !["seat", "name", "bot", "colour", "symbol", "glyph"].includes(k) && v !== null && v !== undefined && typeof v !== "object")
    .map(([k, v]) => `${words(k)}: ${v}`);
}

/** "Swap · river 2 · slot 5": a readable label for any action map. */
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
          type: "button", class: "legal", "data-testid": "legal", "data-legal": "true", "data-focus-key": `legal-${i}`,
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
