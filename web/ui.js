// Small helpers shared by every screen: the rendering library, notices, and what the tab remembers.
//
// Screens are drawn with Preact (docs/web.md says why): h(tag, props, ...children) builds a virtual
// node, render(vnode, el) makes el's content match it, changing only what differs, so an element
// under the player's pointer stays the same element while deltas arrive. Texts from the network are
// children, which Preact puts in as text: a player's name can never inject markup.
//
// make() builds real elements at once, for the few things outside the drawn screens (notices, the
// stylesheet links of a game's table, the field that copying falls back on).

import { h, render, Fragment } from "preact";
import { useState } from "preact/hooks";
import { known, t } from "./words.js";

export { h, render, Fragment };

/** A real element at once: make("div", {class: "x", onclick: f}, "text", child, ...). */
export function make(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const sheets = new Map();

/**
 * A stylesheet next to a module, added to the page once (a game's table loads its own). It resolves
 * once the sheet is in (or failed): a game module awaits it at its top, so its table is never drawn
 * unstyled (a park drawn before its grid was a column of page-wide rows until the sheet came).
 */
export function stylesheet(href, mark) {
  if (typeof document === "undefined") return Promise.resolve();
  if (!sheets.has(mark)) {
    sheets.set(mark, new Promise((done) => {
      const link = make("link", { rel: "stylesheet", href, "data-css": mark });
      link.addEventListener("load", () => done(), { once: true });
      link.addEventListener("error", () => done(), { once: true });
      document.head.appendChild(link);
    }));
  }
  return sheets.get(mark);
}

/** Text with `code` in backticks, as text and <code> elements: the hub's option help is written so. */
export function withCode(text) {
  return String(text ?? "").split("`").map((part, i) => (i % 2 ? h("code", { key: i }, part) : part));
}

/**
 * Say something to screen readers without showing it: the polite live region in index.html. The
 * text is cleared first so that the same words said twice ("Your turn.") are announced twice.
 */
export function announce(text) {
  const box = document.getElementById("announce");
  if (!box) return;
  box.textContent = "";
  box.dataset.count = String(Number(box.dataset.count || 0) + 1); // how many so far, for the tests
  setTimeout(() => { box.textContent = text; }, 50);
}

/** Copy text to the clipboard; false when the page may not (then the caller shows it to copy by hand). */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // The asynchronous clipboard needs a secure page and permission; the old way needs neither.
    const area = make("textarea", { readonly: true, style: { position: "fixed", opacity: "0" } });
    area.value = text;
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch { ok = false; }
    area.remove();
    return ok;
  }
}

/**
 * A link to send to others: the link itself in a read-only field (selectable by hand, readable by
 * screen readers) and a Copy button. testid names the pair for the browser tests.
 */
export function ShareBox({ link, label = t("share.link"), testid = "share" }) {
  const [copied, setCopied] = useState(false);
  const copy = async (e) => {
    const field = e.currentTarget.parentElement.querySelector("input");
    if (await copyText(link)) {
      setCopied(true);
      toast(t("share.copiedOthers"));
      setTimeout(() => setCopied(false), 2500);
    } else {
      field.focus();
      field.select();
      toast(t("share.refused"), "error");
    }
  };
  return h("span", { class: "share" },
    h("input", { class: "share-link", readonly: true, value: link, "aria-label": label, "data-testid": `${testid}-link`,
      onfocus: (e) => e.currentTarget.select() }),
    h("button", { type: "button", class: "copy", "data-testid": `${testid}-copy`, onclick: copy },
      copied ? `✔ ${t("share.copiedShort")}` : t("share.copy")));
}

/** The link that opens a room: seated (join a free seat) or watching. */
export function roomLink(rid, suffix = "") {
  return `${location.origin}${location.pathname}#/room/${encodeURIComponent(rid)}${suffix}`;
}

/** A short notice in the corner; kind is "info" or "error". */
export function toast(text, kind = "info", ms = 4000) {
  const box = document.getElementById("toasts");
  if (!box) return;
  const el = make("div", { class: `toast toast-${kind}`, role: kind === "error" ? "alert" : "status" },
    kind === "error" ? "⚠ " : "ℹ ", text);
  box.appendChild(el);
  setTimeout(() => el.remove(), ms);
}

/** JSON over HTTP against the lobby API; rejects with {status, error, message} on a non-2xx answer. */
export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.message) || `HTTP ${res.status}`);
    err.status = res.status;
    err.code = (data && data.error) || String(res.status);
    throw err;
  }
  return data;
}

// The player's name is remembered across visits (localStorage). A seat follows the browser, not the
// tab: the games this browser sat at are remembered with their tokens ("My games" in the lobby), so
// opening a room's link again, in a new tab or after the browser was closed, resumes the seat. The
// tab's own copy (sessionStorage) says which seat this tab plays where it differs (a seat taken back
// from My games). Two tabs on one seat cannot both play it: the newer takes it over, as a reconnect
// does, and the hub closes the older one (4009), which offers to take it back.
const NAME_KEY = "hub.name";
const SEAT_KEY = (rid) => `hub.seat.${rid}`;
const GAMES_KEY = "hub.games";
const GAMES_KEPT = 50;

/** [{rid, seat, token, name, at}] of the games this browser sat at, newest first. */
export function myGames() {
  try {
    const got = JSON.parse(localStorage.getItem(GAMES_KEY) || "[]");
    return Array.isArray(got) ? got.filter((g) => g && typeof g.rid === "string" && Number.isInteger(g.seat)) : [];
  } catch { return []; }
}

function rememberGame(rid, seat, token) {
  const rest = myGames().filter((g) => g.rid !== rid);
  const entry = { rid, seat, token, name: savedName(), at: Date.now() };
  try { localStorage.setItem(GAMES_KEY, JSON.stringify([entry, ...rest].slice(0, GAMES_KEPT))); } catch { /* ignore */ }
}

export function forgetGame(rid) {
  try { localStorage.setItem(GAMES_KEY, JSON.stringify(myGames().filter((g) => g.rid !== rid))); } catch { /* ignore */ }
}

/**
 * The name typed in `field` (an input), or null after asking for one: everyone at the table sees it,
 * so it is never made up ("Player" for everyone who typed nothing).
 */
export function nameOrAsk(field) {
  const n = String((field && field.value) || "").trim();
  if (n) return n;
  toast(t("name.first"), "error");
  if (field) { field.scrollIntoView({ block: "center" }); field.focus(); }
  return null;
}

export function savedName() {
  try { return localStorage.getItem(NAME_KEY) || ""; } catch { return ""; }
}

export function saveName(name) {
  try { localStorage.setItem(NAME_KEY, name); } catch { /* private mode: not remembered */ }
}

/** {seat, token} this browser holds in a room: this tab's, else the one it remembers, or null. */
export function seatFor(rid) {
  return tabSeat(rid) || rememberedSeat(rid);
}

/** The seat this tab plays in a room, or null. */
export function tabSeat(rid) {
  try {
    const raw = sessionStorage.getItem(SEAT_KEY(rid));
    const got = raw ? JSON.parse(raw) : null;
    return got && typeof got.token === "string" && Number.isInteger(got.seat) ? got : null;
  } catch { return null; }
}

/** The seat this browser sat at in a room, whichever tab took it (My games), or null. */
export function rememberedSeat(rid) {
  const g = myGames().find((x) => x.rid === rid);
  return g && typeof g.token === "string" ? { seat: g.seat, token: g.token } : null;
}

export function saveSeat(rid, seat, token) {
  try { sessionStorage.setItem(SEAT_KEY(rid), JSON.stringify({ seat, token })); } catch { /* ignore */ }
  rememberGame(rid, seat, token);
}

/** Take a remembered seat back in this tab (from "My games"). */
export function reclaimSeat(rid, seat, token) {
  try { sessionStorage.setItem(SEAT_KEY(rid), JSON.stringify({ seat, token })); } catch { /* ignore */ }
}

/** The hub knows the token no more (4001): forgotten by the tab and by the browser. */
export function forgetSeat(rid) {
  try { sessionStorage.removeItem(SEAT_KEY(rid)); } catch { /* ignore */ }
  forgetGame(rid);
}

/** "frenzy_falls" -> "Frenzy falls": the fallback for any id without a nicer name. */
export function words(id) {
  if (known(`word.${id}`)) return t(`word.${id}`);
  const s = String(id ?? "").replace(/_/g, " ").trim();
  return s ? s[0].toUpperCase() + s.slice(1) : "";
}

/** A name for a seat: the name the hub gives the player, else "Seat n". */
export function seatName(view, seat) {
  const p = view && Array.isArray(view.players) ? view.players.find((x) => x && x.seat === seat) : null;
  return (p && p.name) ? String(p.name) : t("seat.name", { seat });
}
