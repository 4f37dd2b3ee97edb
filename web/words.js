// Every word the client shows, in the reader's language. The texts live in one file per language
// (web/i18n/), all with the same keys: `ui` for the screens (t(key, vars)), `log` for log entries,
// `cards` and `scores` for what a catalogue's kinds show. An engine's log holds entries as data,
// [kind, ...args] (docs/protocol.md, "Log entries"), and the cards an entry names by id are looked up
// in the game's catalogue (GET /api/games/<id>/catalogue), fetched once per page and revalidated by
// its ETag. Plurals, lists and numbers come from the browser's own Intl, no library of our own.
//
// The language is the one the reader chose (kept in localStorage), else the first of the browser's
// languages that the client speaks, else English.

import en from "./i18n/en.js";
import fr from "./i18n/fr.js";

export const LANGUAGES = { en, fr };
/** Each language by its own name, as the switch offers it. */
export const LANGUAGE_NAMES = { en: "English", fr: "Français" };
const LANGUAGE_KEY = "hub.language";

function firstLanguage() {
  try {
    const kept = globalThis.localStorage && globalThis.localStorage.getItem(LANGUAGE_KEY);
    if (kept && kept in LANGUAGES) return kept;
  } catch { /* storage refused: ask the browser */ }
  const nav = globalThis.navigator;
  const asked = nav ? (nav.languages && nav.languages.length ? nav.languages : [nav.language]) : [];
  for (const tag of asked) {
    const base = String(tag || "").toLowerCase().split("-")[0];
    if (base in LANGUAGES) return base;
  }
  return "en";
}

let current = firstLanguage();
const listeners = new Set();
if (globalThis.document) globalThis.document.documentElement.lang = current;

export function language() { return current; }

/** Speak `lang` from now on, remember it (unless told not to), and tell every screen to draw again. */
export function setLanguage(lang, { keep = true } = {}) {
  if (!(lang in LANGUAGES)) return;
  current = lang;
  if (keep) {
    try { globalThis.localStorage && globalThis.localStorage.setItem(LANGUAGE_KEY, lang); } catch { /* not kept */ }
  }
  if (globalThis.document) globalThis.document.documentElement.lang = lang;
  for (const fn of [...listeners]) fn(lang);
}

/** Call fn whenever the language changes; returns what stops it. */
export function onLanguage(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/**
 * A word or sentence of the screens by its key, with `{name}` filled from vars. A text may be a map
 * of plural forms ({one, other}, chosen by vars.n through Intl.PluralRules) or a function of vars.
 * A key missing in the reader's language falls back to English (a test keeps the files in step).
 */
export function t(key, vars = {}) {
  let text = LANGUAGES[current].ui[key];
  if (text === undefined) text = en.ui[key];
  if (text === undefined) return key;
  if (typeof text === "function") return text(vars);
  if (typeof text === "object") {
    const rules = vars.ordinal ? intlOf(current).ordinals : intlOf(current).plurals;
    text = text[rules.select(Number(vars.n) || 0)] ?? text.other;
  }
  return String(text).replace(/\{(\w+)\}/g, (_, k) => (vars[k] === undefined ? "" : String(vars[k])));
}

/** The words of `key`, or `id` itself where no language file has any (a kind the client does not know). */
export function wordOr(key, id) {
  return known(key) ? t(key) : String(id ?? "?");
}

/** Whether a key has words (an option or a choice the client has no words for shows its own name). */
export function known(key) {
  return en.ui[key] !== undefined;
}

/** A number as the reader's language writes it. */
export function num(n) {
  return typeof n === "number" ? intlOf(current).numbers.format(n) : String(n ?? "");
}

const catalogues = new Map();

/** The game's catalogue, fetched once; resolves to null when the hub has none for it. */
export function loadCatalogue(game) {
  if (!/^[a-z0-9_]+$/.test(String(game))) return Promise.resolve(null);
  if (!catalogues.has(game)) {
    const loading = fetch(`/api/games/${game}/catalogue`, { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null)
      .then((c) => { catalogues.set(game, c); return c; });
    catalogues.set(game, loading);
  }
  const got = catalogues.get(game);
  return got instanceof Promise ? got : Promise.resolve(got);
}

/** What a card of the game shows, by the id of its kind (views and log entries name cards so). */
export function catalogueCard(game, id) {
  const cat = catalogueOf(game);
  return cat && cat.cards ? cat.cards[String(id)] || null : null;
}

/** What a Score card (or another scoring piece) of the game shows, by the id of its kind. */
export function catalogueScore(game, id) {
  const cat = catalogueOf(game);
  return cat && cat.scores ? cat.scores[String(id)] || null : null;
}

/** A catalogue already at hand (a test, or a page that had it from elsewhere). */
export function setCatalogue(game, catalogue) { catalogues.set(game, catalogue); }

function catalogueOf(game) {
  const c = catalogues.get(game);
  return c && !(c instanceof Promise) ? c : null;
}

// The language's plural rules and list format, made once each: the Moves panel words 40 entries a render.
const intl = new Map();
function intlOf(lang) {
  if (!intl.has(lang)) {
    intl.set(lang, { plurals: new Intl.PluralRules(lang), ordinals: new Intl.PluralRules(lang, { type: "ordinal" }), lists: new Intl.ListFormat(lang, { type: "conjunction" }),
      choices: new Intl.ListFormat(lang, { type: "disjunction" }),
      numbers: new Intl.NumberFormat(lang) });
  }
  return intl.get(lang);
}

/** Strings joined as the reader's language joins a list ("Ada, Bo and Cy"; with "or": "Ada, Bo or Cy"). */
export function listText(items, kind = "and") {
  if (items.length < 2) return items.join("");
  return (kind === "or" ? intlOf(current).choices : intlOf(current).lists).format(items.map(String));
}

/** Items joined as the language joins a list ("A, B and C"), each item a string or a node. */
function joinList(items, lang) {
  if (items.length < 2) return items;
  const marks = items.map((_, i) => `\u0001${i}\u0001`);
  const parts = intlOf(lang).lists.formatToParts(marks);
  return parts.map((p) => (p.type === "element" ? items[Number(p.value.slice(1, -1))] : p.value));
}

/**
 * The words of one log entry, or null when it is not an entry of this game's kinds (a line stored
 * as text before entries were data is shown as the text it was, by the caller). `seat(s)` puts a
 * seat into words: its player's name, as text or as a node with the seat's badge.
 */
export function entryWords(game, entry, seat) {
  if (!Array.isArray(entry) || typeof entry[0] !== "string") return null;
  const texts = LANGUAGES[current];
  const fn = texts.log[game] && texts.log[game][entry[0]];
  if (typeof fn !== "function") return null;
  const cat = catalogueOf(game);
  const { plurals } = intlOf(current);
  const cardText = (id, opts) => {
    const c = cat && cat.cards ? cat.cards[String(id)] : null;
    const say = texts.cards[game];
    return c && say ? say(c, opts || {}) : `‹${id}›`;
  };
  const w = {
    seat,
    plural: (n) => plurals.select(n),
    list: (items) => joinList(items, current),
    card: cardText,
    cardText,
    score: (id) => {
      const s = cat && cat.scores ? cat.scores[String(id)] : null;
      const say = texts.scores && texts.scores[game];
      return s && say ? say(s, w) : `‹${id}›`;
    },
  };
  return fn(w, ...entry.slice(1));
}

/** Words (strings, nodes and lists of them) as plain text, for a notice or a title. */
export function plain(words) {
  if (words === null || words === undefined || words === false) return "";
  if (Array.isArray(words)) return words.map(plain).join("");
  if (typeof words === "object") return plain(words.props ? words.props.children : "");
  return String(words);
}
