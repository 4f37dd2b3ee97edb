// Chat at the table (docs/protocol.md, "Chat at the table"): the lines of a room, kept by id, and
// the panel that shows them beside the board; on a phone it is a drawer with an unread count.
//
// Lines come as `chat` events and, after every welcome, as one `chat_history` event; merging them
// by id means a line sent again after a reconnect never shows twice. Every text from the network is
// a child of a Preact node, which puts it in as text: a line can never inject markup.
//
// Muting is this browser's own choice (localStorage): a muted speaker's lines are hidden here and
// nowhere else. A speaker is known by kind (player or spectator) and name, so a muted name stays
// muted at the next table too.

import { h } from "./ui.js";
import { known, t } from "./words.js";

/** One tap says one of these. */
export const REACTIONS = ["👍", "😂", "😮", "🎉", "😢"];
const KEEP = 200;
const MUTED_KEY = "hub.chat.muted";
const PHONE = "(max-width: 760px)";

/** The words of a chat refusal by its code, or undefined. */
export function chatError(code) {
  return code && known(`chat.error.${code}`) ? t(`chat.error.${code}`) : undefined;
}

/** The key a speaker is muted by: kind and name. */
export function speakerKey(line) {
  return `${line.seat === null || line.seat === undefined ? "w" : "p"}:${line.name}`;
}

function loadMuted() {
  try {
    const got = JSON.parse(localStorage.getItem(MUTED_KEY) || "[]");
    return new Set(Array.isArray(got) ? got.filter((x) => typeof x === "string") : []);
  } catch { return new Set(); }
}

function phone() {
  return typeof window.matchMedia === "function" && window.matchMedia(PHONE).matches;
}

function clock(ms) {
  const d = new Date(ms);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

/**
 * The chat of one table. `say(text)` sends a line and resolves true once acked (false when refused:
 * the caller shows why); `draw()` draws the table again; `me()` is {seat, name} of this viewer.
 * `readOnly` (a replay) shows the lines and offers nothing to send.
 */
export class Chat {
  constructor({ say = null, draw, me = () => ({ seat: null, name: "" }), readOnly = false }) {
    this.sayFn = say;
    this.drawFn = draw;
    this.me = me;
    this.readOnly = readOnly;
    this.lines = new Map();   // id -> line
    this.muted = loadMuted();
    this.draft = "";
    this.sending = 0;  // lines on their way (each is sent at once: a tap and a typed line may overlap)
    this.open = false;        // the drawer, on a phone
    this.unread = 0;
    this.listRef = null;
  }

  /** Take a `chat` or `chat_history` event; true when it was one. */
  take(f) {
    if (f.kind === "chat") {
      this.add([f]);
      return true;
    }
    if (f.kind === "chat_history" && Array.isArray(f.lines)) {
      this.add(f.lines);
      return true;
    }
    return false;
  }

  add(lines) {
    let fresh = 0;
    const { seat } = this.me();
    for (const ln of lines) {
      if (!ln || !Number.isInteger(ln.id) || typeof ln.text !== "string" || this.lines.has(ln.id)) continue;
      this.lines.set(ln.id, { id: ln.id, seat: ln.seat ?? null, name: String(ln.name ?? "?"), text: ln.text,
        time: ln.time, to: ln.to, step: ln.step });
      if (!this.muted.has(speakerKey(ln)) && (seat === null || ln.seat !== seat)) fresh += 1;
    }
    if (this.lines.size > KEEP) {
      const ids = [...this.lines.keys()].sort((a, b) => a - b);
      for (const id of ids.slice(0, ids.length - KEEP)) this.lines.delete(id);
    }
    if (fresh && !this.open && phone()) this.unread += fresh;
    this.drawFn();
    this.scrollDown();
  }

  /** The lines to show, oldest first; `upTo` (a replay) keeps those said by that step. */
  shown(upTo = null) {
    return [...this.lines.values()]
      .filter((ln) => upTo === null || typeof ln.step !== "number" || ln.step <= upTo)
      .sort((a, b) => a.id - b.id);
  }

  mute(key, on) {
    if (on) this.muted.add(key);
    else this.muted.delete(key);
    try { localStorage.setItem(MUTED_KEY, JSON.stringify([...this.muted])); } catch { /* not remembered */ }
    this.drawFn();
  }

  async send(text) {
    if (this.readOnly || !this.sayFn) return;
    this.sending += 1;
    this.drawFn();
    try {
      if (await this.sayFn(text) && text === this.draft) this.draft = "";
    } finally {
      this.sending -= 1;
      this.drawFn();
    }
  }

  toggle() {
    this.open = !this.open;
    if (this.open) this.unread = 0;
    this.drawFn();
    if (this.open) this.scrollDown();
  }

  scrollDown() {
    // after the drawing: the newest line in sight, unless the reader scrolled up to older ones
    setTimeout(() => {
      const el = this.listRef && this.listRef.current;
      if (el && !el.dataset.reading) el.scrollTop = el.scrollHeight;
    }, 0);
  }

  /** The drawer's handle (shown on a phone only, by style.css), with the unread count. */
  handle() {
    return h("button", { type: "button", class: `chat-handle${this.open ? " open" : ""}`, "data-testid": "chat-toggle",
      "aria-expanded": this.open ? "true" : "false", "aria-controls": "chat-panel", onclick: () => this.toggle() },
    this.open ? `✕ ${t("chat.close")}` : `💬 ${t("chat.title")}`,
    !this.open && this.unread ? h("span", { class: "unread", "data-testid": "chat-unread",
      "aria-label": t("chat.unread", { n: this.unread }) }, String(this.unread)) : null);
  }

  /** The panel: the lines (muted speakers hidden), the muted list, reactions and the line to send. */
  panel({ view = null, mark = null, upTo = null, listRef }) {
    this.listRef = listRef;
    const { seat: mySeat, name: myName } = this.me();
    const lines = this.shown(upTo);
    const visible = lines.filter((ln) => !this.muted.has(speakerKey(ln)));
    const reading = (e) => {
      const el = e.currentTarget;
      if (el.scrollHeight - el.scrollTop - el.clientHeight > 8) el.dataset.reading = "";
      else delete el.dataset.reading;
    };
    const mine = (ln) => (mySeat !== null && mySeat !== undefined ? ln.seat === mySeat
      : ln.seat === null && Boolean(myName) && ln.name === myName);
    const items = visible.map((ln) => h("li", { key: ln.id, class: `chat-line${mine(ln) ? " mine" : ""}`, "data-testid": "chat-line",
      "data-id": ln.id, "data-seat": ln.seat === null ? "" : String(ln.seat) },
    h("span", { class: "chat-who" },
      ln.seat !== null && view && mark ? mark(ln.seat) : h("span", { class: "chat-watcher", title: t("chat.spectator"), "aria-label": t("chat.spectator") }, "◉"),
      h("strong", { class: "chat-name", "data-testid": "chat-name" }, ln.name),
      ln.to === "spectators" ? h("small", { class: "muted" }, ` ${t("chat.toSpectators")}`) : null),
    typeof ln.time === "number" ? h("time", { class: "chat-time muted", dateTime: new Date(ln.time).toISOString() }, clock(ln.time)) : null,
    h("span", { class: "chat-text", "data-testid": "chat-text" }, ln.text),
    !this.readOnly && !mine(ln) ? h("button", { type: "button", class: "link chat-mute", "data-testid": "chat-mute",
      title: t("chat.hideTitle", { name: ln.name }), "aria-label": t("chat.muteLabel", { name: ln.name }),
      onclick: () => this.mute(speakerKey(ln), true) }, t("chat.mute")) : null));
    const mutedHere = [...new Set(lines.map(speakerKey))].filter((k) => this.muted.has(k));
    return h("section", { key: "chat", class: `card chat${this.open ? " open" : ""}`, id: "chat-panel", "data-testid": "chat",
      "aria-label": t("chat.title") },
    h("h3", {}, t("chat.title")),
    h("ol", { class: "chat-lines", "data-testid": "chat-lines", ref: listRef, tabindex: 0, "aria-live": "polite",
      "aria-label": t("chat.linesLabel"), onscroll: reading },
    items.length ? items : h("li", { class: "muted" }, this.readOnly ? t("chat.nobodySaid") : t("chat.sayHello"))),
    mutedHere.length ? h("p", { class: "chat-muted muted", "data-testid": "chat-muted" }, `${t("chat.muted")} `,
      mutedHere.map((k) => h("button", { key: k, type: "button", class: "link", "data-testid": "chat-unmute",
        title: t("chat.showAgain"), onclick: () => this.mute(k, false) }, `${k.slice(2)} ✕`))) : null,
    this.readOnly ? null : [
      h("div", { key: "reactions", class: "chat-reactions", role: "group", "aria-label": t("chat.reactions") },
        REACTIONS.map((r) => h("button", { key: r, type: "button", class: "small reaction", "data-testid": "chat-reaction",
          "aria-label": t("chat.say", { r }), onclick: () => this.send(r) }, r))),
      h("form", { key: "form", class: "chat-form", onsubmit: (e) => { e.preventDefault(); this.send(this.draft); } },
        h("input", { value: this.draft, maxlength: 280, placeholder: t("chat.placeholder"), "aria-label": t("chat.line"),
          "data-testid": "chat-input", autocomplete: "off",
          oninput: (e) => { this.draft = e.currentTarget.value; } }),
        h("button", { type: "submit", class: "primary", "data-testid": "chat-send" }, t("chat.send"))),
    ]);
  }
}
