// Drawing a view inside the table frame: header, board (the game's module), players, moves, the end.
//
// The frame knows nothing of sockets: table.js feeds it the live views of a connection, replay.js
// the views rebuilt from a finished game's log. Both get the same table, drawn by the same module.
// The game module interface is documented at the top of table.js.
//
// Every change (a view, a local choice, a notice) draws the whole table again as virtual nodes, and
// Preact changes only what differs in the page (docs/web.md): a button that is still there after a
// delta is the very same element, so a click whose press and release straddle the delta still lands,
// and focus, scroll positions and half-typed fields stay where they were.

import { createRef } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { h, render, api, toast, words, seatName, announce, ShareBox, roomLink, copyText } from "./ui.js";
import { playAgain } from "./play_again.js";
import { alertMe, AlertSwitches } from "./alerts.js";
import { entryWords, known, listText, loadCatalogue, onLanguage, plain, t } from "./words.js";

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
  const name = known(`colour.${c.name.toLowerCase()}`) ? t(`colour.${c.name.toLowerCase()}`) : c.name;
  const word = c.word && known(`symbol.${c.word}`) ? t(`symbol.${c.word}`) : c.word;
  const label = word ? t("seat.markLabel", { colour: name, symbol: word }) : name;
  return h("span", { class: "seat-mark", style: { "--seat": c.css, "--ink": c.ink }, title: label, role: "img",
    "aria-label": label, "data-testid": "seat-mark", "data-colour": c.name }, c.symbol);
}

/**
 * A player as the moves and the tables name them: their name, with their colour (or deck) as a
 * small badge before it; the badge's words are for screen readers and the tooltip.
 */
export function playerTag(name, badge, { you = false } = {}) {
  return h("span", { class: "player-tag" }, badge, h("span", { class: "player-name" }, name),
    you ? h("span", { class: "muted" }, ` ${t("frame.youMark")}`) : null);
}

// --- game modules ----------------------------------------------------------------------------------

const modules = new Map();
let gamesList = null;

/** The game's own module, or the generic renderer when it has none (yet). */
export function loadModule(id) {
  if (!/^[a-z0-9_]+$/.test(String(id))) return Promise.resolve(generic);
  if (!modules.has(id)) {
    // the catalogue with the module: the log names cards by their kind's id (web/words.js)
    modules.set(id, Promise.all([import(`./games/${id}.js`), loadCatalogue(id)])
      .then(([m]) => (m && m.default && typeof m.default.render === "function" ? m.default : generic))
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

// --- the log in words ------------------------------------------------------------------------------

/** One log entry as text; "Seat 2" becomes the player's name, which reads better than a number. */
export function logText(line, view) {
  const said = entryWords(view && view.game, line, (s) => seatName(view, s));
  if (said !== null) return plain(said);
  const text = typeof line === "string" ? line : (line && typeof line.text === "string" ? line.text : JSON.stringify(line));
  return text.replace(/\b([Ss])eat (\d+)\b/g, (all, _s, n) => {
    const p = Array.isArray(view.players) ? view.players.find((x) => x && x.seat === Number(n)) : null;
    return p && p.name ? String(p.name) : all;
  });
}

/** The entries of `view.log` that `before.log` did not have yet: what one step added. */
export function newLogLines(before, view) {
  const now = Array.isArray(view.log) ? view.log : [];
  const old = before && Array.isArray(before.log) ? before.log : [];
  if (Number.isInteger(view.log_from) && Number.isInteger(before && before.log_from)) {
    const added = view.log_from + now.length - (before.log_from + old.length);
    return added > 0 ? now.slice(Math.max(0, now.length - added)) : [];
  }
  // A window of the last entries: the longest end of the old window that starts the new one.
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  for (let drop = 0; drop <= old.length; drop++) {
    const tail = old.slice(drop);
    if (tail.length <= now.length && tail.every((x, i) => same(x, now[i]))) return now.slice(tail.length);
  }
  return now;
}

// --- who is here ---------------------------------------------------------------------------------------

/**
 * A seat's presence from the view (`players[i].presence`, an extension): here, away with the grace
 * left before a bot stands in (counted down by the server's clock), or played by a bot.
 */
function Presence({ p, now }) {
  const [, tick] = useState(0);
  const until = p.presence === "away" && typeof p.grace_until === "number" ? p.grace_until : null;
  useEffect(() => {
    if (until === null) return undefined;
    const timer = setInterval(() => tick((n) => n + 1), 500);
    return () => clearInterval(timer);
  }, [until]);
  if (p.presence === "here") return h("span", { class: "presence here", "data-testid": `presence-${p.seat}`, "data-presence": "here" }, ` ● ${t("table.here")}`);
  if (p.presence !== "away") return null;
  const left = until === null ? null : Math.max(0, Math.ceil((until - now()) / 1000));
  return h("span", { class: "presence away", "data-testid": `presence-${p.seat}`, "data-presence": "away" },
    left === null ? ` ○ ${t("table.away")}` : ` ○ ${t("presence.awayFor", { n: left })}`);
}

/**
 * How many watch: the room's info (`watchers`), asked every few seconds while the table is open.
 * Spectators coming and going change no view, which would cost a delta to every connection.
 */
function Watchers({ rid }) {
  const [count, setCount] = useState(null);
  useEffect(() => {
    let stopped = false;
    const ask = () => api("GET", `/api/rooms/${encodeURIComponent(rid)}`)
      .then((info) => { if (!stopped && info && typeof info.watchers === "number") setCount(info.watchers); })
      .catch(() => {});
    ask();
    const timer = setInterval(ask, WATCHERS_EVERY_MS);
    return () => { stopped = true; clearInterval(timer); };
  }, [rid]);
  if (count === null) return null;
  return h("p", { class: "muted watchers", "data-testid": "watchers" }, `◉ ${t("frame.watching", { n: count })}`);
}

const WATCHERS_EVERY_MS = 3000;

// --- the deadline ------------------------------------------------------------------------------------

/** Counts down to the view's deadline by the server's clock; redraws itself, not the table. */
function Countdown({ deadline, now, mine }) {
  const [, tick] = useState(0);
  const warned = useRef(null);
  useEffect(() => {
    if (deadline === null) return undefined;
    const timer = setInterval(() => tick((n) => n + 1), 250);
    return () => clearInterval(timer);
  }, [deadline]);
  const at = deadline === null ? null : now();
  const left = at === null ? null : Math.max(0, Math.ceil((deadline - at) / 1000));
  useEffect(() => {
    if (mine && left !== null && left > 0 && left <= 10 && warned.current !== deadline) {
      warned.current = deadline;
      announce(t("frame.secondsLeft", { n: left }));
    }
  });
  return h("span", { class: `deadline${left !== null && left <= 5 ? " urgent" : ""}`, "data-testid": "deadline",
    role: "timer", "aria-live": "off", "data-left": left === null ? undefined : String(left) },
  left === null ? "" : `◷ ${t("frame.sLeft", { n: left })}`);
}

// --- the frame -------------------------------------------------------------------------------------


/**
 * The table's layout and everything drawn from a view around the board. mode is "live" or
 * "replay"; ctx() gives the module context of the moment (see table.js).
 *
 * What the live table or the replay add is set on the frame and drawn with it: `banner` (closed
 * for good), `join` (free seats on offer), `reclaim` (a seat this browser holds, offered back to a
 * spectator page), `contest` (the generic grab button), `controls` (the
 * replay's), `message` (in place of the board before there is a view), `room` (the room's info),
 * `chat` (chat.js: the table's chat beside the board; a replay's shows the lines said by `chatUpTo`).
 */
export class Frame {
  constructor(el, { rid, mode = "live", ctx }) {
    this.el = el;
    this.rid = rid;
    this.mode = mode;
    this.ctxOf = ctx;
    this.view = null;
    this.seq = null;
    this.mod = null;
    this.title = null;
    this.final = null;          // a close code once nothing more can be sent
    this.closed = false;
    this.busy = false;
    this.sending = null;        // {state: "sending" | "failed", text}: how the last move is doing
    this.banner = null;
    this.join = null;
    this.reclaim = null; // {seat, onTake}: a spectator page of a room where this browser holds a seat
    this.contest = null;
    this.controls = null;
    this.message = null;
    this.room = null;
    this.chat = null;
    this.chatUpTo = null;
    this.chatRef = createRef();
    this.reveal = { key: null, shown: 0, fresh: -1 };
    this.summaryOpen = false;
    this.wasMyTurn = false;
    this.spokeResult = false;
    this.seenFirst = false;        // the first view tells nothing new: what it shows was there before
    this.offersFor = new Set();    // ids of the offers waiting for this player's answer
    this.newOffers = [];           // of them, those that came since the player last touched the page
    this.grabbing = null;          // {cid, what}: a grab this seat may try is open (the tab's title says so)
    // Touching the page means the new offers have been seen: the tab's title goes back.
    this.onTouch = () => {
      if (this.newOffers.length) { this.newOffers = []; this.retitle(); }
    };
    if (mode === "live" && typeof document !== "undefined") {
      document.addEventListener("pointerdown", this.onTouch, true);
      document.addEventListener("keydown", this.onTouch, true);
    }
    this.serverNow = () => Date.now();
    // {at}: the connection is down since the server's `at` (table.js). The table says so over the
    // board, its clocks stand still at `at` (the hub's own run on, or stop with it: the welcome on
    // return brings them), others' presence is unknown, and moves made meanwhile are held.
    this.outage = null;
    this.resultRef = createRef();
    this.summaryRef = createRef();
    // A language switch draws the table again in the new words (the log's entries are data).
    this.offLanguage = onLanguage(() => this.draw());
    this.draw();
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
      this.firstMeeting();
    }
    this.draw();
    this.speak();
  }

  /** Draw everything again; only what changed reaches the page. */
  draw() {
    if (this.closed) return;
    render(this.tree(), this.el);
  }

  /** Leave the screen: its elements go, and with them their timers. */
  close() {
    this.closed = true;
    this.offLanguage();
    document.removeEventListener("pointerdown", this.onTouch, true);
    document.removeEventListener("keydown", this.onTouch, true);
    render(null, this.el);
  }

  tree() {
    const view = this.view && this.mod ? this.view : null;
    return h("div", { class: `table mode-${this.mode}` },
      this.head(view),
      this.banner ? h("div", { class: "banner", "data-testid": "banner", "data-code": String(this.banner.code), role: "alert" },
        h("p", {}, `✕ ${this.banner.reason}`), h("div", { class: "actions" }, ...this.banner.actions)) : null,
      this.reclaim ? h("div", { class: "reclaim card", "data-testid": "reclaim", role: "status" },
        h("p", {}, `${t("frame.reclaim", { seat: this.reclaim.seat })} `),
        h("button", { type: "button", class: "primary", "data-testid": "take-seat-back", onclick: this.reclaim.onTake },
          t("frame.takeBack"))) : null,
      this.join && !(view && view.phase !== "waiting") ? this.joinPanel() : null,
      this.controls ? h("div", { class: "replay-controls card", "data-testid": "replay-controls" }, this.controls()) : null,
      this.contest ? this.contestBox() : null,
      view && view.result ? this.endScreen(view)
        : h("section", { class: "result card", "data-testid": "result", hidden: true, "aria-label": t("end.result") }),
      h("div", { class: "table-body" },
        h("section", { class: `board${this.busy ? " busy" : ""}`, "data-testid": "board", "aria-label": t("frame.board"),
          "data-game": view ? view.game : undefined, "data-seq": view ? String(this.seq ?? "") : undefined },
        this.outage && view ? h("div", { class: "outage", "data-testid": "outage", role: "alert" },
          h("strong", {}, `⚠ ${t("frame.lost")}`),
          h("span", {}, ` ${t("frame.lostMore")}`)) : null,
        view ? this.board(view) : this.message || h("p", { class: "muted" },
          this.mode === "replay" ? t("frame.loadingReplay") : t("frame.connecting"))),
        h("aside", { class: "side" },
          h("section", { class: "card" }, h("h3", {}, t("frame.players")), view ? this.players(view) : null,
            view && this.mode !== "replay" && this.rid ? h(Watchers, { rid: this.rid }) : null),
          // a spectator reads the moves more than the chat: theirs come first, within the first screen
          this.watching() ? this.movesCard(view) : null,
          this.chat ? this.chat.panel({ view, mark: (s) => this.mark(s), upTo: this.chatUpTo, listRef: this.chatRef }) : null,
          this.watching() ? null : this.movesCard(view))),
      view ? this.summary() : null,
      this.chat ? this.chat.handle() : null,
      h("p", { class: "back" }, h("a", { href: "#/" }, `← ${t("frame.lobby")}`)));
  }

  board(view) {
    // Once closed for good (or in a replay) nothing can be sent, so nothing may look clickable.
    const frozen = this.final || this.mode === "replay";
    const shown = frozen ? { ...view, legal: [] } : view;
    try {
      return this.mod.render(shown, this.ctx());
    } catch (e) {
      console.error("the game module failed; falling back to the generic table", e);
      return generic.render(shown, this.ctx());
    }
  }

  phaseText(view) {
    if (view.phase === "waiting") return t("frame.waitingSeats");
    if (this.mod && this.mod.phaseText) {
      try { return String(this.mod.phaseText(view, this.ctx())); } catch { /* fall through */ }
    }
    return words(view.phase);
  }

  head(view) {
    const { seat, isSpectator } = this.ctx();
    let badge;
    if (this.mode === "replay") {
      badge = h("span", { class: "badge spectator", "data-testid": "replay-badge" }, `▶ ${t("frame.replayBadge")}`);
    } else if (isSpectator) {
      badge = h("span", { class: "badge spectator", "data-testid": "spectator-badge" }, `◉ ${t("frame.spectatorBadge")}`);
    } else {
      badge = h("span", { class: "badge seat", "data-testid": "seat-badge", "data-seat": seat },
        view ? this.mark(seat) : null, ` ${t("frame.youAreSeat", { seat })}${view ? ` (${seatName(view, seat)})` : ""}`);
    }
    const waiting = this.mode === "live" && view && view.phase === "waiting" && !this.final;
    const deadline = view && typeof view.deadline === "number" && !view.result && !this.final ? view.deadline : null;
    const priv = this.room && this.room.private;
    return h("header", { class: "table-head card", "data-testid": "table-head" },
      h("h2", { class: "title", "data-testid": "game-title" }, this.title || (view ? words(view.game) : t("frame.table")),
        h("span", { class: "room-id" }, ` #${this.rid}`),
        view && this.mod.summary
          ? h("button", { type: "button", class: "small how-to", "data-testid": "how-to", onclick: () => this.openSummary() },
            `? ${t("frame.howTo")}`)
          : null),
      view ? h("p", { class: "phase", "data-testid": "phase", "data-phase": view.phase }, this.phaseText(view)) : null,
      view ? h("p", { class: `turn${this.myTurn() ? " mine" : ""}`, "data-testid": "turn" }, this.turnText(view, seat)) : null,
      h("p", { class: "who" }, badge, " ",
        h(Countdown, { deadline, now: () => this.clock(), mine: this.myTurn() && !this.outage }),
        this.sending ? h("span", { class: `move-status ${this.sending.state}`, "data-testid": "move-status",
          "data-state": this.sending.state, role: "status" }, ` ${this.sending.text} `) : null,
        this.mode === "live" && view && !waiting
          ? h("button", { type: "button", class: "small", "data-testid": "share-room",
            onclick: async () => {
              if (await copyText(roomLink(this.rid))) toast(t("frame.watchCopied"));
              else toast(t("frame.copyByHand", { link: roomLink(this.rid) }), "info", 12000);
            } }, t("frame.copyWatch"))
          : null,
        this.mode === "live" && !isSpectator && !this.final && !(view && view.result) ? h(AlertSwitches, {}) : null),
      waiting ? h("div", { class: "invite", "data-testid": "invite" },
        h("p", {}, priv ? t("frame.invitePrivate") : t("frame.invite")),
        h(ShareBox, { link: roomLink(this.rid), label: t("frame.roomLink"), testid: "invite" })) : null);
  }

  joinPanel() {
    const { free, name, onName, onSit } = this.join;
    return h("div", { class: "join-panel card" },
      h("p", {}, `${t("frame.freeSeats")} `),
      h("input", { value: name, placeholder: t("lobby.yourName"), maxlength: 24, "aria-label": t("lobby.yourName"), "data-testid": "join-name",
        oninput: (e) => onName(e.currentTarget.value) }),
      ...free.map((s) => h("button", { key: s, type: "button", class: "primary", "data-testid": `sit-${s}`,
        onclick: () => onSit(s) }, t("frame.sitAt", { seat: s }))));
  }

  contestBox() {
    const c = this.contest;
    return h("div", { class: "contest", "data-testid": "contest", "aria-live": "assertive" },
      h("button", { type: "button", class: "primary grab", "data-testid": "grab", disabled: c.sent, ref: c.ref,
        onclick: c.onGrab }, c.sent ? t("frame.grabSent") : `⚡ ${t("frame.grab", { what: words(c.kind || "grab") })}`));
  }

  myTurn() {
    const view = this.view;
    if (!view || !this.mod) return false;
    const { seat, isSpectator } = this.ctx();
    return Boolean(!view.result && !isSpectator && !this.final && this.mode === "live"
      && Array.isArray(view.active) && view.active.includes(seat));
  }

  movesCard(view) {
    return h("section", { key: "moves", class: "card moves", "data-testid": "moves-card" },
      h("h3", {}, `${t("frame.moves")} `, h("small", { class: "muted" }, t("frame.newestFirst"))), view ? this.moves(view) : null);
  }

  /** A live table seen by a spectator. */
  watching() {
    return this.mode === "live" && this.ctx().isSpectator;
  }

  /** Server ms now, or where the clocks stopped while the connection is down. */
  clock() {
    return this.outage ? this.outage.at : this.serverNow();
  }

  turnText(view, seat) {
    if (view.result) return `■ ${t("frame.over")}`;
    if (this.outage && this.mode === "live") return `⏸ ${this.myTurn() ? t("frame.droppedMine") : t("frame.dropped")}`;
    const active = Array.isArray(view.active) ? view.active : [];
    if (!active.length) return `… ${view.phase === "waiting" ? t("frame.startsWhenFull") : t("frame.nobody")}`;
    const mine = this.mode === "live" && seat !== null && seat !== undefined && active.includes(seat);
    const others = listText(active.filter((s) => !mine || s !== seat).map((s) => seatName(view, s)));
    if (mine && !others) return `▶ ${t("frame.yourTurn")}`;
    if (mine) return `▶ ${t("frame.yourMoveAnd", { others })}`;
    if (this.mode === "replay") return `◷ ${t("frame.toPlay", { others })}`;
    return `◷ ${t("frame.waitingFor", { others })}`;
  }

  /** Tell a screen reader when the turn becomes this player's, and when the game ends. */
  speak() {
    if (this.mode !== "live" || !this.view || !this.mod) return;
    const mine = this.myTurn();
    const first = !this.seenFirst;
    this.seenFirst = true;
    if (mine && !this.wasMyTurn) {
      announce(t("frame.yourTurnSaid", { phase: this.phaseText(this.view) }));
      if (!first) alertMe("turn", t("frame.yourTurnAt", { table: this.title || t("frame.theTable"), phase: this.phaseText(this.view) }));
    }
    this.lookAtOffers(first);
    if (mine !== this.wasMyTurn) this.wasMyTurn = mine;
    this.retitle();
    if (this.view.result && !this.spokeResult) {
      this.spokeResult = true;
      announce(`${t("frame.over")} ${this.headline(this.view)}`);
    }
  }

  /**
   * Offers that name this player and wait for their answer (a view's `offers`, as Waterfall Park has
   * them: {id, author, parties, accepted}): a new one is told (alerts.js) and changes the tab's title
   * until the player touches the page or the offer no longer waits.
   */
  lookAtOffers(first) {
    const { seat, isSpectator } = this.ctx();
    const offers = this.view && this.view.offers && typeof this.view.offers === "object" && !this.view.result
      ? Object.values(this.view.offers) : [];
    const waiting = isSpectator ? [] : offers.filter((o) => o && typeof o === "object" && o.author !== seat
      && Array.isArray(o.parties) && o.parties.includes(seat) && !(Array.isArray(o.accepted) && o.accepted.includes(seat)));
    const ids = new Set(waiting.map((o) => o.id));
    const fresh = first ? [] : waiting.filter((o) => !this.offersFor.has(o.id));
    this.offersFor = ids;
    this.newOffers = this.newOffers.filter((o) => ids.has(o.id));
    for (const o of fresh) {
      this.newOffers.push(o);
      alertMe("offer", t("frame.offerAlert", { name: seatName(this.view, o.author), id: o.id }));
    }
  }

  /**
   * A grab this seat may try opened (table.js, on the hub's contest frame): the tab's title says so
   * until its result comes, for a player looking at another tab. cid null: it closed.
   */
  grabOpen(cid, what = null) {
    this.grabbing = cid === null ? null : { cid, what };
    this.retitle();
  }

  /** The tab's title: an open grab first (it lasts a second or two), new offers, then whose turn it is. */
  retitle() {
    if (this.mode !== "live" || this.closed) return;
    const name = this.title || t("site.name");
    const n = this.newOffers.length;
    if (this.grabbing && !this.final && !(this.view && this.view.result)) {
      document.title = `⚡ ${t("frame.grabTitle", { what: this.grabbing.what || "" }).trim()} · ${name}`;
    } else if (n) {
      const last = this.newOffers[n - 1];
      document.title = `✉ ${n > 1 ? t("frame.newOffers", { n }) : t("frame.newOfferFrom", { name: seatName(this.view, last.author) })} · ${name}`;
    } else if (this.wasMyTurn) {
      document.title = `▶ ${t("frame.yourTurn")} · ${name}`;
    } else {
      document.title = `${this.title || t("frame.room")} #${this.rid} · ${t("site.name")}`;
    }
  }

  players(view) {
    const { seat: me } = this.ctx();
    const active = new Set(Array.isArray(view.active) && !view.result ? view.active : []);
    const winners = new Set(view.result && Array.isArray(view.result.winners) ? view.result.winners : []);
    const players = Array.isArray(view.players) ? view.players : [];
    return h("ol", { class: "players-list", "data-testid": "players" }, players.map((p) => {
      let figures = [];
      try { figures = this.mod && this.mod.figures ? this.mod.figures(p, view) : genericFigures(p); } catch { figures = genericFigures(p); }
      return h("li", { key: p.seat, class: `player${active.has(p.seat) ? " active" : ""}${p.seat === me ? " me" : ""}`, "data-seat": p.seat },
        h("span", { class: "marker", "aria-hidden": "true" }, winners.has(p.seat) ? "♛" : active.has(p.seat) ? "▶" : "·"),
        this.mark(p.seat),
        h("strong", {}, seatName(view, p.seat)),
        this.outage && p.presence && !p.bot && p.seat !== me
          ? h("span", { class: "presence unknown", "data-testid": `presence-${p.seat}`, "data-presence": "unknown",
            title: t("presence.unknownWhy") }, ` ? ${t("presence.unknown")}`)
          : [
            p.bot || p.presence === "bot" ? h("span", { key: "bot", class: "bot-tag", "data-testid": `presence-${p.seat}`, "data-presence": "bot" },
              ` ⚙ ${p.bot ? botWords(p) : t("presence.botUntil")}`) : null,
            !p.bot && stoodIn(view, p.seat) ? h("span", { key: "stood", class: "stood-in", "data-testid": `stood-in-${p.seat}` },
              ` ⚙ ${t("presence.stoodIn", { n: stoodIn(view, p.seat) })}`) : null,
            p.presence && p.presence !== "bot" ? h(Presence, { key: "p", p, now: () => this.clock() }) : null,
          ],
        h("span", { class: "muted" }, ` ${t("frame.seatN", { seat: p.seat })}${p.seat === me ? ` ${t("frame.youMark")}` : ""}`
          + `${active.has(p.seat) ? ` — ${t("frame.toPlayTag")}` : ""}${winners.has(p.seat) ? ` — ${t("frame.winnerTag")}` : ""}`),
        figures.length ? h("span", { class: "figures" }, figures.join(" · ")) : null);
    }));
  }

  /**
   * One log entry in words: an entry of data in the reader's language (web/words.js), with the
   * module's mark for its kind (logMark); a line stored as text before entries were data in the
   * module's words for it (logWords), else with each "Seat n" turned into that player's name.
   */
  logWords(line, view) {
    // a player by name, with the badge the game gives their seat (its module's logSeat) or the seat's mark
    const seat = this.mod && typeof this.mod.logSeat === "function"
      ? (s) => this.mod.logSeat(view, this.ctx(), s) : (s) => playerTag(seatName(view, s), this.mark(s));
    const said = entryWords(view.game, line, seat);
    if (said !== null) {
      const mark = this.mod && typeof this.mod.logMark === "function" ? this.mod.logMark(line) : null;
      return mark ? [mark, " ", said] : said;
    }
    // a line a room stored as text, before entries were data: the module's words for it, as it was
    if (this.mod && typeof this.mod.logWords === "function") {
      try { return this.mod.logWords(line, view, this.ctx()); } catch (e) { console.error("logWords failed", e); }
    }
    const text = typeof line === "string" ? line : (line && typeof line.text === "string" ? line.text : JSON.stringify(line));
    const parts = [];
    let last = 0;
    for (const m of text.matchAll(/\b[Ss]eat (\d+)\b/g)) {
      const seat = Number(m[1]);
      const p = Array.isArray(view.players) ? view.players.find((x) => x && x.seat === seat) : null;
      if (!p) continue;
      parts.push(text.slice(last, m.index), playerTag(seatName(view, seat), this.mark(seat)));
      last = m.index + m[0].length;
    }
    parts.push(text.slice(last));
    return parts;
  }

  /**
   * The moves, newest first: the box opens on the latest move with its first line whole, and a
   * reader scrolled down to older moves keeps their place as new ones arrive above.
   */
  moves(view) {
    const log = Array.isArray(view.log) ? view.log.slice(-40) : [];
    const first = (Number.isInteger(view.log_from) ? view.log_from : 0) + (Array.isArray(view.log) ? view.log.length : 0) - log.length;
    // Keyed by the entry itself (and which of its equals, counted from the newest): when the window of
    // the last entries slides, the entries still in it keep their elements, and only the new one is drawn.
    const seen = new Map();
    const items = [];
    // the entries a bot wrote while playing for an absent player (log_stood_in, by their numbers)
    const byBot = new Set(Array.isArray(view.log_stood_in) ? view.log_stood_in : []);
    for (let i = log.length - 1; i >= 0; i--) {
      const text = typeof log[i] === "string" ? log[i] : JSON.stringify(log[i]);
      const nth = seen.get(text) || 0;
      seen.set(text, nth + 1);
      const bot = byBot.has(first + i);
      const cls = [i === log.length - 1 ? "latest" : "", bot ? "stood-in-line" : ""].join(" ").trim();
      items.push(h("li", { key: `${nth}:${text}`, class: cls || undefined, "data-n": first + i + 1,
        "data-stood-in": bot ? "true" : undefined,
        title: bot ? t("frame.botMoveTitle") : undefined },
      bot ? h("span", { class: "stood-in-mark", "aria-label": t("frame.botMoveLabel") }, "⚙ ") : null,
      this.logWords(log[i], view)));
    }
    // At the top, new moves push the older ones down; scrolled down, the browser keeps what is read in
    // place (overflow-anchor, style.css). data-reading is the page's own, not Preact's: set here only.
    const reading = (e) => {
      const el = e.currentTarget;
      if (el.scrollTop > 0) el.dataset.reading = "";
      else delete el.dataset.reading;
    };
    return h("ol", { class: "log", "data-testid": "log", tabindex: 0, "aria-label": t("frame.movesLabel"),
      onscroll: reading },
    items.length ? items : h("li", { class: "muted" }, t("frame.nothingYet")));
  }

  headline(view) {
    const result = view.result;
    if (result.abandoned) return t("end.abandoned");
    const winners = Array.isArray(result.winners) ? result.winners : [];
    const names = winners.map((s) => seatName(view, s));
    const { seat, isSpectator } = this.ctx();
    let headline = winners.length === 0 ? t("end.noWinner")
      : winners.length === 1 ? `♛ ${t("end.wins", { name: names[0] })}` : `♛ ${t("end.shared", { names: listText(names) })}`;
    if (!isSpectator && this.mode === "live") headline += ` ${winners.includes(seat) ? t("end.youWon") : t("end.youLost")}`;
    // a win partly played by a bot for an absent player is not credited silently
    const helped = winners.map((s) => [s, stoodIn(view, s)]).filter(([, n]) => n > 0);
    for (const [s, n] of helped) headline += ` ${t("end.helped", { n, name: seatName(view, s) })}`;
    return headline;
  }

  /** Everyone's total at once, under the headline: the steps below are for watching it add up. */
  totals(view) {
    const result = view.result;
    const scores = Array.isArray(result.scores) ? result.scores : null;
    if (!scores || !scores.length || !scores.every((v) => typeof v === "number")) return null;
    const order = scores.map((_, s) => s).sort((a, b) => scores[b] - scores[a] || a - b);
    const teams = Array.isArray(result.teams) && result.teams.every((v) => typeof v === "number") ? result.teams : null;
    return h("p", { class: "totals", "data-testid": "result-totals" },
      `${result.abandoned ? t("end.asItStood") : t("end.totals")} `,
      order.map((s, i) => h("span", { key: s, class: "total", "data-seat": s },
        i ? " · " : "", this.mark(s), ` ${seatName(view, s)} ${scores[s]}`)),
      teams ? ` (${t("end.teams")} ${teams.join(" – ")})` : null);
  }

  /** The module's scoring steps as rows to reveal one at a time, ending with the totals; or null. */
  scoreTable(view) {
    if (!this.mod || typeof this.mod.scoreSteps !== "function") return null;
    let steps = null;
    try { steps = this.mod.scoreSteps(view, this.ctx()); } catch (e) { console.error("scoreSteps failed", e); }
    if (!Array.isArray(steps) || !steps.length) return null;
    const result = view.result;
    const scores = Array.isArray(result.scores) ? result.scores : [];
    const winners = new Set(Array.isArray(result.winners) ? result.winners : []);
    const seats = scores.map((_, s) => s);
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
    rows.push({ label: t("end.total"), cells: seats.map((s) => `${winners.has(s) ? "♛ " : ""}${scores[s]}`), cls: "total" });
    return { head: ["", ...seats.map((s) => seatName(view, s))], rows };
  }

  /** The frame's own final table: the ranking, with the result's other per-seat figures as columns. */
  ranking(view) {
    const result = view.result;
    const scores = Array.isArray(result.scores) ? result.scores : [];
    const winners = new Set(Array.isArray(result.winners) ? result.winners : []);
    const perSeat = perSeatExtras(result);
    const rank = (s) => 1 + scores.filter((x) => x > scores[s]).length;
    const order = scores.map((_, s) => s).sort((a, b) => scores[b] - scores[a] || winners.has(b) - winners.has(a) || a - b);
    const extras = Object.entries(result).filter(([k]) => k !== "winners" && k !== "scores" && !perSeat.some(([p]) => p === k));
    return [
      h("div", { class: "scroll" }, h("table", { class: "final-table", "data-testid": "result-final" },
        h("thead", {}, h("tr", {}, [t("end.place"), t("end.player"), t("end.points"), ...perSeat.map(([k]) => words(k))].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, order.map((s) => h("tr", { key: s, class: winners.has(s) ? "winner" : undefined, "data-seat": s },
          h("th", { scope: "row" }, t("end.ordinal", { n: rank(s), ordinal: true })),
          h("td", {}, winners.has(s) ? "♛ " : "", seatName(view, s)),
          h("td", { class: "num" }, String(scores[s])),
          perSeat.map(([k, v]) => h("td", { key: k, class: "num" }, String(v[s])))))))),
      extras.map(([k, v]) => h("p", { key: k, class: "extra" }, `${words(k)}: ${Array.isArray(v) ? v.join(" / ") : JSON.stringify(v)}`)),
    ];
  }

  /**
   * The end of the game, once: the headline; the scoring step by step where the game's module
   * gives steps worth watching (scoreSteps); the final table (the module's finalTable, else the
   * ranking when there were no steps); the replay; the play-again place (play_again.js); the lobby.
   */
  endScreen(view) {
    const ctx = this.ctx();
    const table = this.scoreTable(view);
    let final = null;
    if (this.mod && typeof this.mod.finalTable === "function") {
      try { final = this.mod.finalTable(view, ctx); } catch (e) { console.error("finalTable failed", e); }
    }
    if (!final && !table) final = this.ranking(view);
    const key = JSON.stringify(view.result);
    if (this.reveal.key !== key) this.reveal = { key, shown: 1, fresh: -1 };
    const total = table ? table.rows.length : 0;
    const shown = Math.min(this.reveal.shown, total);
    const done = shown >= total;
    const fresh = this.reveal.fresh;
    this.reveal.fresh = -1;
    const go = (n) => {
      this.reveal.fresh = n > this.reveal.shown ? n - 1 : -1;
      this.reveal.shown = n;
      this.draw();
      if (n >= total && this.resultRef.current) this.resultRef.current.focus({ preventScroll: true });
    };
    return h("section", { class: "result card", "data-testid": "result", tabindex: -1, "aria-label": t("end.result"), ref: this.resultRef },
      h("h3", {}, t("end.title")),
      h("p", { class: "headline", "data-testid": "result-headline" }, this.headline(view)),
      this.totals(view),
      table ? [
        h("h4", { key: "steps-title" }, t("end.steps")),
        h("div", { key: "steps", class: "scroll" }, h("table", { class: "scores by-seat", "data-testid": "result-scores",
          "data-shown": shown, "data-steps": total },
        h("thead", {}, h("tr", {}, table.head.map((c, i) => h("th", { key: i, scope: "col" }, c)))),
        h("tbody", {}, table.rows.map((r, i) => h("tr", { key: i, class: `${r.cls || ""}${i === fresh ? " fresh" : ""}` || undefined,
          hidden: i >= shown, "data-step": i },
        h("th", { scope: "row" }, r.label, r.note ? h("small", { class: "note" }, r.note) : null),
        r.cells.map((c, j) => h("td", { key: j }, c, r.sub && r.sub[j] ? h("small", { class: "running" }, r.sub[j]) : null))))))),
        h("div", { key: "steps-go", class: "actions score-steps" },
          h("button", { type: "button", class: done ? undefined : "primary", "data-testid": "score-next",
            disabled: done, onclick: () => go(shown + 1) }, done ? t("end.allShown") : t("end.next", { shown, total })),
          done ? null : h("button", { type: "button", "data-testid": "score-all", onclick: () => go(total) }, t("end.showAll"))),
      ] : null,
      final ? [h("h4", { key: "final-title" }, t("end.finalTable")), h("div", { key: "final", class: "final" }, final)] : null,
      h("p", { class: "actions end-actions" },
        this.mode === "live"
          ? h("a", { class: "button", href: `#/replay/${encodeURIComponent(this.rid)}`, "data-testid": "result-replay" },
            `▶ ${t("end.replay")}`)
          : null,
        playAgain({ rid: this.rid, view, mode: this.mode, ctx }),
        h("a", { class: "button", href: "#/" }, t("end.backToLobby"))));
  }

  /** The rules summary is open the first time this browser meets the game. */
  firstMeeting() {
    if (!this.mod || !this.mod.summary) return;
    const key = `hub.seen.${this.modGame}`;
    try {
      if (!localStorage.getItem(key)) {
        this.summaryOpen = true;
        localStorage.setItem(key, "1");
      }
    } catch { /* storage refused: stays closed */ }
  }

  openSummary() {
    this.summaryOpen = true;
    this.draw();
    const el = this.summaryRef.current;
    if (el) {
      el.scrollIntoView({ block: "start" });
      el.querySelector("summary").focus();
    }
  }

  summary() {
    if (!this.mod.summary) return null;
    return h("details", { class: "summary card", "data-testid": "summary", open: this.summaryOpen, ref: this.summaryRef,
      ontoggle: (e) => { this.summaryOpen = e.currentTarget.open; } },
    h("summary", {}, t("frame.howToPlay", { game: this.title || "" })),
    String(this.mod.summary).split(/\n\s*\n/).map((p, i) => h("p", { key: i }, p.trim())));
  }
}

/** The result's entries that hold one number per seat, like `scores`: [[key, values], …]. */
function perSeatExtras(result) {
  const n = Array.isArray(result.scores) ? result.scores.length : -1;
  return Object.entries(result).filter(([k, v]) => k !== "winners" && k !== "scores" && Array.isArray(v)
    && v.length === n && v.every((x) => typeof x === "number" || typeof x === "string"));
}

/**
 * A bot seat in the players list: "bot", or "bot (easy)" when its level (`players[i].bot_level`) is
 * not the normal one, which most bots play at (the list stays one line a seat in a narrow column).
 */
function botWords(p) {
  return p.bot_level && p.bot_level !== "normal" && known(`level.${p.bot_level}`)
    ? t("presence.botLevel", { level: t(`level.${p.bot_level}`) }) : t("presence.bot");
}

/** How many of a seat's moves a bot made while its player was away (`players[i].stood_in`). */
function stoodIn(view, seat) {
  const p = view && Array.isArray(view.players) ? view.players.find((x) => x && x.seat === seat) : null;
  return p && Number.isInteger(p.stood_in) ? p.stood_in : 0;
}

function genericFigures(p) {
  return Object.entries(p || {})
    .filter(([k, v]) => !["seat", "name", "bot", "colour", "symbol", "glyph", "presence", "grace_until", "stood_in"].includes(k) && v !== null && v !== undefined && typeof v !== "object")
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
let rawAction = "";

/** The fallback board: every legal action as a button, plus the raw view for the curious. */
export const generic = {
  id: "generic",
  title: null,
  summary: "",
  render(view, ctx) {
    const legal = Array.isArray(view.legal) ? view.legal : [];
    let body;
    if (ctx.isSpectator) {
      body = h("p", {}, "You are watching; the players’ moves appear in the log.");
    } else if (!legal.length) {
      body = h("p", {}, view.result ? "The game is over." : "Nothing to do right now: wait for the others.");
    } else {
      body = [
        h("div", { key: "list", class: "legal-list", "data-testid": "legal-list" },
          legal.map((action, i) => h("button", { key: i, type: "button", class: "legal", "data-testid": "legal", "data-legal": "true",
            onclick: () => ctx.send(action) }, actionLabel(action)))),
        h("details", { key: "raw", class: "raw-action" },
          h("summary", {}, "Send another action (JSON)"),
          h("textarea", { rows: 3, "aria-label": "An action as JSON", placeholder: '{"type": "…"}', value: rawAction,
            oninput: (e) => { rawAction = e.currentTarget.value; } }),
          h("button", { type: "button", onclick: () => {
            let action;
            try { action = JSON.parse(rawAction); } catch { toast("That is not JSON.", "error"); return; }
            ctx.send(action);
          } }, "Send")),
      ];
    }
    return h("div", { class: "generic" },
      h("p", { class: "muted" }, "This game has no table of its own yet: each move you may make now is a button."),
      body,
      h("details", { class: "raw-view", open: rawOpen, ontoggle: (e) => { rawOpen = e.currentTarget.open; } },
        h("summary", {}, "The whole view"), h("pre", {}, JSON.stringify(view, null, 2))));
  },
};
