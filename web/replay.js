// A finished game, move by move: GET /api/rooms/{rid}/replay gives the first spectator view and one
// RFC 6902 patch per move; every view is computed once, up front, and kept, so going back is just
// showing the previous one. The table is the game's own module, drawn as a spectator sees it, with
// nothing to click on the board.
//
// Controls: first / back / play-pause / forward / last, a slider, and the keyboard (← →, Home, End).
// The step is kept in the address (#/replay/<rid>/<step>) without reloading, so a moment of a game
// can be linked. The table's chat comes with the replay: beside the table, the lines said by the
// step shown (each line's `step`).

import { applyPatch } from "fast-json-patch";
import { Frame, newLogLines } from "./frame.js";
import { Chat } from "./chat.js";
import { makeCtx, showNet } from "./table.js";
import { h, api, toast, seatName } from "./ui.js";
import { t } from "./words.js";

const PLAY_EVERY_MS = 900;

/** Open the replay of room rid in el, at step (default 0); returns a function that closes it. */
export function openReplay(el, rid, { step = null } = {}) {
  const replay = new Replay(el, rid, step);
  return () => replay.close();
}

/** JSON with sorted keys: two views are the same view whatever order their keys came in. */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

class Replay {
  constructor(el, rid, step) {
    this.rid = rid;
    this.views = [];
    this.steps = [];
    this.index = 0;
    this.timer = null;
    this.closed = false;
    showNet("idle");
    this.frame = new Frame(el, { rid, mode: "replay", ctx: () => this.ctx() });
    this.onKey = (e) => this.key(e);
    document.addEventListener("keydown", this.onKey);
    window.hubDebug = { replay: this, frame: this.frame };
    this.load(step);
  }

  close() {
    this.closed = true;
    this.pause();
    this.frame.close();
    document.removeEventListener("keydown", this.onKey);
  }

  ctx() {
    return makeCtx({
      seat: null,
      view: () => this.frame.view,
      room: this.rid,
      replay: true,
      send: () => {
        toast(t("replay.nothing"));
        return Promise.resolve(false);
      },
      rerender: () => this.frame.draw(),
      serverNow: () => Date.now(),
      frame: this.frame,
    });
  }

  async load(step) {
    let data;
    try {
      data = await api("GET", `/api/rooms/${encodeURIComponent(this.rid)}/replay`);
    } catch (e) {
      if (!this.closed) this.fail(e);
      return;
    }
    if (this.closed) return;
    this.data = data;
    this.steps = Array.isArray(data.steps) ? data.steps : [];
    this.views = [data.view];
    for (let i = 0; i < this.steps.length; i++) {
      try {
        this.views.push(applyPatch(this.views[i], this.steps[i].ops, false, false).newDocument);
      } catch (e) {
        console.error(`replay step ${i + 1} does not apply`, e);
        toast(t("replay.breaks", { n: i + 1 }), "error");
        this.steps = this.steps.slice(0, i);
        break;
      }
    }
    // The last computed view must be the hub's final view; a replay that disagrees says so.
    this.matchesFinal = data.final !== undefined && canonical(this.views[this.views.length - 1]) === canonical(data.final);
    if (!this.matchesFinal) console.warn("the replayed views do not end at the hub's final view");
    document.title = `${t("replay.title")} ${this.rid} · ${t("site.name")}`;
    if (Array.isArray(data.chat) && data.chat.length) {
      this.frame.chat = new Chat({ draw: () => this.frame.draw(), readOnly: true });
      this.frame.chat.add(data.chat);
    }
    this.frame.controls = () => this.controls();
    const at = Number.isInteger(step) ? step : 0;
    this.go(Math.max(0, Math.min(at, this.last)));
  }

  get last() {
    return this.views.length - 1;
  }

  fail(e) {
    const watch = h("a", { class: "button", href: `#/room/${encodeURIComponent(this.rid)}/watch` }, `◉ ${t("replay.watchLive")}`);
    const lobby = h("a", { class: "button", href: "#/" }, t("frame.lobby"));
    let text;
    let actions = [lobby];
    if (e.status === 409) {
      text = t("replay.stillPlaying");
      actions = [watch, lobby];
    } else if (e.status === 404) {
      text = t("replay.noRoom");
    } else {
      text = t("replay.failed", { why: e.message });
    }
    this.frame.message = h("div", { class: "card", "data-testid": "replay-error", "data-status": e.status ?? "" },
      h("p", {}, text), h("div", { class: "actions" }, ...actions));
    this.frame.draw();
  }

  controls() {
    const n = this.last;
    const i = this.index;
    const btn = (testid, label, text, fn, disabled = false) => h("button", { type: "button", "data-testid": testid,
      "aria-label": label, title: label, disabled, onclick: fn }, text);
    const step = (to) => () => { this.pause(); this.go(to); };
    return [
      h("p", { class: "replay-title" }, h("strong", {}, t("replay.title")), ` ${t("replay.of", { rid: this.rid, n: this.steps.length })}`,
        this.matchesFinal ? null : h("span", { class: "error" }, ` ${t("replay.mismatch")}`)),
      h("div", { class: "replay-bar" },
        btn("replay-first", t("replay.firstLabel"), `« ${t("replay.first")}`, step(0), i === 0),
        btn("replay-back", t("replay.backLabel"), `◀ ${t("replay.back")}`, step(i - 1), i === 0),
        btn("replay-play", this.timer ? t("replay.pause") : t("replay.play"), this.timer ? `❚❚ ${t("replay.pause")}` : `▶ ${t("replay.play")}`,
          () => (this.timer ? this.pause() : this.play())),
        btn("replay-next", t("replay.nextLabel"), `${t("replay.next")} ▶`, step(i + 1), i === n),
        btn("replay-last", t("replay.lastLabel"), `${t("replay.last")} »`, step(n), i === n),
        h("span", { class: "replay-count", "data-testid": "replay-step", "aria-live": "polite", "data-index": String(i) },
          t("replay.moveOf", { i, n }))),
      h("input", { type: "range", min: 0, max: n, step: 1, value: i, class: "replay-slider", "data-testid": "replay-slider",
        "aria-label": t("replay.move"), "aria-valuetext": t("replay.moveOf", { i, n }),
        oninput: (e) => { this.pause(); this.go(Number(e.currentTarget.value)); } }),
      this.caption(i),
      h("p", { class: "muted keys" }, t("replay.keys")),
    ];
  }

  /** Show the view after `i` moves. */
  go(i) {
    if (!this.views.length) return;
    const index = Math.max(0, Math.min(i, this.last));
    this.index = index;
    this.frame.chatUpTo = index;
    if (index === this.last) this.stopTimer();
    this.frame.show(this.views[index], index);
    try { history.replaceState(null, "", `#/replay/${encodeURIComponent(this.rid)}/${index}`); } catch { /* ignore */ }
  }

  /**
   * What move i did: who moved, and every log line the move added, each put into words by the
   * game's module (so a move that also revealed cards and spilled a Pool says so).
   */
  caption(i) {
    const attrs = { class: "replay-caption", "data-testid": "replay-caption" };
    if (i === 0) return h("div", attrs, h("p", {}, t("replay.start")));
    const view = this.views[i];
    const step = this.steps[i - 1] || {};
    const seat = step.seat ?? null;
    const who = seat === null ? t("replay.theHub")
      : step.by === "stand_in" ? t("replay.botFor", { name: seatName(view, seat) }) : seatName(view, seat);
    const lines = newLogLines(this.views[i - 1], view);
    return h("div", attrs,
      h("p", {}, t(lines.length ? "replay.stepLines" : "replay.step", { i, who })),
      lines.length ? h("ul", { class: "caption-lines" }, lines.map((line, j) => h("li", { key: j }, this.frame.logWords(line, view)))) : null);
  }

  play() {
    if (this.index >= this.last) this.go(0);
    this.timer = setInterval(() => this.go(this.index + 1), PLAY_EVERY_MS);
    this.frame.draw();
  }

  stopTimer() {
    clearInterval(this.timer);
    this.timer = null;
  }

  pause() {
    if (!this.timer) return;
    this.stopTimer();
    if (!this.closed) this.frame.draw();
  }

  key(e) {
    if (!this.views.length || e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.target;
    // The slider steps itself with the arrows; fields and menus keep their own keys.
    if ((t && t.dataset && t.dataset.testid === "replay-slider") || (t && /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    const to = { ArrowLeft: this.index - 1, ArrowRight: this.index + 1, Home: 0, End: this.last }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.pause();
    this.go(to);
  }
}
