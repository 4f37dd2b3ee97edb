// The Frenetic Village table, drawn from the view alone (the view contract of docs/frenetic_village.md).
//
// Putting a card away takes one or two clicks, each on something the legal list allows: a card of
// the hand, then the pile it goes onto (your own pile discards it; another player's pile plays an
// action card at them), then, for a "Pallá pacá" card, the card you give. Declaring is its own
// button. The grab contest is the hub's (PROTOCOL.md section 4): the moment its frame arrives the
// pile's top card turns into the grab button, drawn synchronously in onContest, and G or Space grabs.
//
// Two things the frame's ctx does not offer are read from the live connection the frame exposes as
// window.hubDebug.connection: the `event` frames (the contest's result with the judged times) and
// the measured round trip. Both are only read; nothing is sent through it.

import { h, stylesheet } from "../ui.js";
import { catalogueCard, known, listText, t } from "../words.js";

// Stylesheet of this table only, next to this module.
await stylesheet(new URL("./frenetic_village.css", import.meta.url).href, "frenetic_village");

// Every race has a symbol and a word besides its colour.
// Their words come from the language files, read when drawn (a language switch redraws).
const race = (sym, key) => ({ sym, get word() { return t(`fv.race.${key}`); } });
const RACES = {
  humans: race("♔", "humans"),
  elves: race("❦", "elves"),
  dwarves: race("⚒", "dwarves"),
  orcs: race("⚔", "orcs"),
  goblins: race("✹", "goblins"),
};
const RACE_KEYS = Object.keys(RACES);
const RUN = 5;
const VALUES = [1, 2, 3, 4, 5]; // the deck's values (rules/frenetic_village/components.py)
const TOP = VALUES[VALUES.length - 1];

const kind = (sym, key) => ({ sym, get short() { return t(`fv.kind.${key}`); }, get effect() { return t(`fv.effect.${key}`); } });
const KINDS = {
  skulls: kind("☠", "skulls"),
  palla_paca_card: kind("⇄", "palla_paca_card"),
  palla_paca_hand: kind("⇋", "palla_paca_hand"),
  two_cards: kind("⤓2", "two_cards"),
  three_cards: kind("⤓3", "three_cards"),
  one_card: kind("☝", "one_card"),
  wild: kind("★", "wild"),
};

/** The game's variant in words, with its number of battles. */
const variantWords = (v, n) => (known(`fv.variant.${v}`) ? t(`fv.variant.${v}`, { n: n ?? "?" }) : String(v));
const refusalWords = (why) => (known(`fv.refusal.${why}`) ? t(`fv.refusal.${why}`) : why);

// --- state kept between renders (per room and seat) --------------------------------------------

let selection = { key: null, slot: null, target: null };
let contest = null;     // the open contest this connection was offered: {nonce, cid, pile, card, room, seat, state}
let lastResult = null;  // the last contest_result event seen in this room
let lastCtx = null;
let lastView = null;

// A card in a view is the id of its kind ("humans-3", "skulls"); the catalogue says what it shows.
// The board reads faces, so each view is read once into one with the faces in place.
const withFacesOf = new WeakMap();

function faceOf(id) {
  if (id === null || id === undefined || typeof id === "object") return id ?? null;
  return catalogueCard("frenetic_village", id) || { kind: String(id) };
}

function withFaces(view) {
  if (!view || typeof view !== "object") return view;
  let v = withFacesOf.get(view);
  if (v) return v;
  const b = view.last_battle;
  v = {
    ...view,
    hand: Array.isArray(view.hand) ? view.hand.map(faceOf) : view.hand,
    players: Array.isArray(view.players) ? view.players.map((p) => (p && "top" in p ? { ...p, top: faceOf(p.top) } : p)) : view.players,
    contest: view.contest ? { ...view.contest, card: faceOf(view.contest.card) } : view.contest,
    last_battle: b ? { ...b, hand: (b.hand || []).map(faceOf), hands: (b.hands || []).map((h) => (h || []).map(faceOf)) } : b,
  };
  withFacesOf.set(view, v);
  return v;
}
const watched = new WeakSet();

function connection() {
  return typeof window !== "undefined" && window.hubDebug ? window.hubDebug.connection : null;
}

/** Listen to the frame's connection for contest results and round trips (once per connection). */
function watchConnection() {
  const conn = connection();
  if (!conn || watched.has(conn) || typeof conn.on !== "function") return;
  watched.add(conn);
  conn.on("event", (f) => onEvent(conn, f));
  conn.on("rtt", () => { if (lastCtx && conn === connection()) lastCtx.rerender(); });
}

function rttText(rtt) {
  return typeof rtt === "number" ? `${rtt} ms` : t("fv.notMeasured");
}

function onEvent(conn, f) {
  if (!f || f.kind !== "contest_result" || !lastCtx || conn !== connection()) return;
  const mine = contest && (contest.cid === f.contest || f.contest === undefined) ? contest : null;
  lastResult = {
    room: lastCtx.room, cid: f.contest, winner: Number.isInteger(f.winner) ? f.winner : null,
    judged: f.judged && typeof f.judged === "object" ? f.judged : {},
    refused: f.refused && typeof f.refused === "object" ? f.refused : {},
    tied: Array.isArray(f.tied) ? f.tied : [], secret: typeof f.secret === "string" ? f.secret : "",
    bounded: Array.isArray(f.bounded) ? f.bounded.filter(Number.isInteger) : [],
    stats: f.stats && typeof f.stats === "object" ? f.stats : {},
    card: mine ? mine.card : lastView && lastView.contest ? lastView.contest.card : null,
    pile: mine ? mine.pile : lastView && lastView.contest ? lastView.contest.pile : null,
    commit: mine ? mine.commit : null, tried: !!(mine && mine.state !== "open"), check: null,
  };
  if (mine) contest = null;
  verify(lastResult);
  lastCtx.rerender();
}

/**
 * Check the tie-break: the secret must hash to the commit the contest frame carried, and among tied
 * seats the winner is sorted(tied)[sha256(secret + cid) mod len]. Needs WebCrypto (a secure page).
 */
async function verify(res) {
  const subtle = typeof crypto !== "undefined" ? crypto.subtle : undefined;
  if (!subtle || !res.secret || !/^[0-9a-f]*$/i.test(res.secret) || res.secret.length % 2) return;
  const bytes = new Uint8Array(res.secret.match(/../g).map((x) => parseInt(x, 16)));
  const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
  let ok = true;
  if (res.commit) ok = hex(await subtle.digest("SHA-256", bytes)) === res.commit;
  if (ok && res.tied.length > 1 && typeof res.cid === "string") {
    const cid = new TextEncoder().encode(res.cid);
    const joined = new Uint8Array(bytes.length + cid.length);
    joined.set(bytes);
    joined.set(cid, bytes.length);
    const idx = Number(BigInt(`0x${hex(await subtle.digest("SHA-256", joined))}`) % BigInt(res.tied.length));
    ok = [...res.tied].sort((a, b) => a - b)[idx] === res.winner;
  }
  if (!res.commit && res.tied.length < 2) return; // nothing this viewer can check
  res.check = ok;
  if (lastResult === res && lastCtx) lastCtx.rerender();
}

// --- the grab -----------------------------------------------------------------------------------

/** The contest this seat was offered, while it lasts (open, or tried and waiting for its result). */
function offeredTo(ctx) {
  return contest && ctx && contest.room === ctx.room && contest.seat === ctx.seat ? contest : null;
}

function grabOpen(ctx) {
  return !!offeredTo(ctx) && contest.state === "open";
}

async function grab() {
  const ctx = lastCtx;
  const c = contest;
  if (!grabOpen(ctx) || c !== contest) return;
  c.state = "sent";
  // Sent first; the table, redrawn as the frame marks itself busy, then shows the grab as sent.
  const ok = await ctx.send({ type: "grab", contest: c.nonce });
  if (contest === c) {
    c.state = ok ? "judged" : "refused";
    ctx.rerender();
  }
  // a grab that came after the result: the box that shows the result says so, and by how much
  const r = !ok && ctx.refusal ? ctx.refusal() : null;
  if (r && r.code === "too_late" && lastResult && lastResult.cid === c.cid) {
    lastResult.lateBy = typeof r.lateBy === "number" ? r.lateBy : null;
    lastResult.late = true;
    ctx.rerender();
  }
}

function onKey(e) {
  if (!contest || contest.state !== "open" || e.repeat || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key !== " " && e.key !== "g" && e.key !== "G") return;
  const t = e.target;
  if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
  if (!document.querySelector("[data-testid=grab-card]")) return; // the table is not on screen
  e.preventDefault();
  grab();
}

if (typeof document !== "undefined") document.addEventListener("keydown", onKey, true);

// --- cards --------------------------------------------------------------------------------------

function raceOf(r) {
  return RACES[r] || { sym: "?", word: String(r ?? "?") };
}

function isArmy(c) {
  return c && c.kind === "army";
}

function cardWords(c) {
  if (!c) return t("fv.noCard");
  if (isArmy(c)) return `${raceOf(c.race).word} ${c.value}`;
  const k = KINDS[c.kind];
  return k ? k.short : String(c.name || c.kind || "?");
}

/** What a card does, for its title and for the hint when chosen. */
function explain(c) {
  if (!c) return "";
  if (isArmy(c)) return t("fv.explainArmy", { race: raceOf(c.race).word, value: c.value });
  if (c.kind === "wild") return t("fv.explainWild");
  const k = KINDS[c.kind];
  if (!k) return String(c.name || c.kind || "");
  return t("fv.explainAction", { effect: k.effect });
}

function cardClass(c) {
  if (!c) return "fv-card empty";
  if (isArmy(c)) return `fv-card army race-${RACE_KEYS.includes(c.race) ? c.race : "unknown"}`;
  return `fv-card ${c.kind === "wild" ? "wild" : "action"} kind-${String(c.kind).replace(/[^a-z_]/g, "")}`;
}

/** The face of one card: value, symbol and word for army cards; symbol and name for the others. */
function face(c) {
  if (!c) return [h("span", { class: "c-none" }, t("fv.empty"))];
  if (isArmy(c)) {
    const r = raceOf(c.race);
    return [h("span", { class: "c-value" }, String(c.value)),
      h("span", { class: "c-sym", "aria-hidden": "true" }, r.sym),
      h("span", { class: "c-race" }, r.word)];
  }
  const k = KINDS[c.kind] || { sym: "?", short: String(c.name || c.kind) };
  return [h("span", { class: "c-sym", "aria-hidden": "true" }, k.sym),
    h("span", { class: "c-name" }, k.short),
    h("span", { class: "c-kind" }, c.kind === "wild" ? t("fv.anyRace") : t("fv.actionCard"))];
}

function cardAttrs(c) {
  return { "data-kind": c ? c.kind : "", "data-race": isArmy(c) ? c.race : null, "data-value": isArmy(c) ? c.value : null,
    title: explain(c) };
}

function back(label) {
  return h("span", { class: "fv-card back", "aria-hidden": "true" }, h("span", { class: "c-sym" }, "▦"), h("span", { class: "c-name" }, label));
}

// --- what the legal list allows -----------------------------------------------------------------

function readLegal(view) {
  const r = { draw: null, declare: new Map(), discard: new Map(), play: new Map() };
  for (const a of Array.isArray(view.legal) ? view.legal : []) {
    if (!a || typeof a !== "object") continue;
    if (a.type === "draw") r.draw = a;
    else if (a.type === "declare" && Number.isInteger(a.slot)) r.declare.set(a.slot, a);
    else if (a.type === "discard" && Number.isInteger(a.slot)) r.discard.set(a.slot, a);
    else if (a.type === "play" && Number.isInteger(a.slot) && Number.isInteger(a.target)) {
      if (!r.play.has(a.slot)) r.play.set(a.slot, new Map());
      const byTarget = r.play.get(a.slot);
      if (Number.isInteger(a.give)) {
        if (!byTarget.has(a.target)) byTarget.set(a.target, new Map());
        const gives = byTarget.get(a.target);
        if (gives instanceof Map) gives.set(a.give, a);
      } else {
        byTarget.set(a.target, a);
      }
    }
  }
  return r;
}

function canPutAway(legal, slot) {
  return legal.discard.has(slot) || legal.play.has(slot);
}

// --- combinations within reach ------------------------------------------------------------------

/** The largest set of cards with pairwise different races and values (the ladder's matching). */
function matching(cards) {
  const valueTo = new Map(); // value -> card
  const augment = (card, seen) => {
    for (const other of cards) {
      if (other.race !== card.race || seen.has(other.value)) continue;
      seen.add(other.value);
      const holder = valueTo.get(other.value);
      if (holder === undefined || augment(holder, seen)) {
        valueTo.set(other.value, other);
        return true;
      }
    }
    return false;
  };
  for (const race of RACE_KEYS) {
    const first = cards.find((c) => c.race === race);
    if (first) augment(first, new Set());
  }
  return [...valueTo.values()];
}

function listWords(xs, last = "and") {
  return listText(xs, last);
}

/** "missing A and B", or, when wildcards stand in for some, "1 more of A or B". */
function missingText(items, need, tail = "") {
  if (!items.length || need <= 0) return "";
  if (need >= items.length) return `${t("fv.missing", { what: listWords(items) })}${tail}`;
  return `${t("fv.moreOf", { n: need, what: listWords(items, "or") })}${tail}`;
}

/**
 * Every template the hand can aim at (a race's run, a value, a ladder window), best first: how many
 * of its five cards the hand holds (wildcards fill gaps) and what is missing. The same measure the
 * bots use (docs/frenetic_village.md), shown to the player.
 */
export function closest(hand, limit = 3) {
  const army = (hand || []).filter((c) => isArmy(c) && RACE_KEYS.includes(c.race) && Number.isInteger(c.value));
  const wilds = Math.min(2, (hand || []).filter((c) => c && c.kind === "wild").length);
  const found = [];
  const add = (t) => {
    const fill = Math.min(wilds, RUN - t.have);
    found.push({ ...t, count: Math.min(RUN, t.have + fill), wilds: fill });
  };
  for (const race of RACE_KEYS) {
    let best = null;
    for (let s = VALUES[0]; s + RUN - 1 <= TOP; s++) {
      const vals = new Set(army.filter((c) => c.race === race && c.value >= s && c.value < s + RUN).map((c) => c.value));
      if (!best || vals.size > best.have) {
        const missing = [];
        for (let v = s; v < s + RUN; v++) if (!vals.has(v)) missing.push(`${raceOf(race).word} ${v}`);
        best = { type: "race_straight", have: vals.size, label: t("fv.straight", { sym: raceOf(race).sym, race: raceOf(race).word, from: s, to: s + RUN - 1 }),
          missing: (need) => missingText(missing, need) };
      }
    }
    add(best);
  }
  for (const v of VALUES) {
    const have = Math.min(RUN, army.filter((c) => c.value === v).length); // any races, copies too
    add({ type: "five_of_a_value", have, label: t("fv.fiveOf", { v }),
      missing: (need) => (need > 0 ? t("fv.moreValue", { n: need, v }) : "") });
  }
  let ladder = null;
  for (let s = VALUES[0]; s + RUN - 1 <= TOP; s++) {
    const m = matching(army.filter((c) => c.value >= s && c.value < s + RUN));
    if (!ladder || m.length > ladder.have) {
      const vals = new Set(m.map((c) => c.value));
      const races = new Set(m.map((c) => c.race));
      const needV = [];
      for (let v = s; v < s + RUN; v++) if (!vals.has(v)) needV.push(String(v));
      const needR = RACE_KEYS.filter((r) => !races.has(r)).map((r) => raceOf(r).word);
      ladder = { type: "invincible_ladder", have: m.length, label: t("fv.ladder", { from: s, to: s + RUN - 1 }),
        missing: (need) => missingText(needV.map((v) => t("fv.aValue", { v })), need,
          t("fv.ofRaces", { races: listWords(needR, need < needV.length ? "or" : "and") })) };
    }
  }
  add(ladder);
  const order = { race_straight: 0, five_of_a_value: 1, invincible_ladder: 2 };
  return found.filter((t) => t.count > 0)
    .sort((a, b) => b.count - a.count || a.wilds - b.wilds || order[a.type] - order[b.type])
    .slice(0, limit);
}

// --- the board ----------------------------------------------------------------------------------

function player(view, seat) {
  return (Array.isArray(view.players) ? view.players : []).find((p) => p && p.seat === seat) || null;
}

function who(ctx, seat) {
  return seat === ctx.seat ? t("sym.you") : ctx.name(seat);
}

/** "your pile", "Bo’s pile": the pile of a seat as the sentence needs it. */
function whose(ctx, seat) {
  return seat === ctx.seat ? t("fv.yourPile") : t("fv.pileOf", { name: ctx.name(seat) });
}

function selectedCard(view) {
  const hand = Array.isArray(view.hand) ? view.hand : [];
  return selection.slot !== null ? hand[selection.slot] : null;
}

/** The pile of one seat: its top card, its size, and what it offers now (a target, or the grab). */
function renderPile(view, ctx, seat, legal) {
  const p = player(view, seat) || { seat };
  const mine = seat === ctx.seat;
  const open = view.contest && view.contest.pile === seat ? view.contest : null;
  const offered = offeredTo(ctx) && contest.pile === seat ? contest : null;
  const top = offered && offered.card ? offered.card : p.top;
  const queued = Array.isArray(view.grabbable) && view.grabbable.includes(seat) && !open;

  // What a click on this pile would do, with the card already chosen.
  let action = null;
  let verb = "";
  if (selection.slot !== null && !view.result) {
    const card = selectedCard(view);
    if (mine && legal.discard.has(selection.slot)) {
      action = legal.discard.get(selection.slot);
      verb = t("fv.discardHere", { card: cardWords(card) });
    } else if (!mine && legal.play.has(selection.slot) && legal.play.get(selection.slot).has(seat)) {
      const target = legal.play.get(selection.slot).get(seat);
      if (target instanceof Map) {
        action = "give";
        verb = selection.target === seat ? `✔ ${t("fv.targetGive")}` : t("fv.playOn", { card: cardWords(card), name: ctx.name(seat) });
      } else {
        action = target;
        verb = t("fv.playOn", { card: cardWords(card), name: ctx.name(seat) });
      }
    }
  }

  let topEl;
  if (offered) {
    topEl = h("button", {
      type: "button", class: `${cardClass(top)} grab-card`, "data-testid": "grab-card",
      "data-legal": offered.state === "open" ? "true" : null, "data-state": offered.state, "data-cid": offered.cid,
      disabled: offered.state !== "open",
      "aria-label": t("fv.grabLabel", { card: cardWords(top), pile: whose(ctx, seat) }), ...cardAttrs(top),
      onpointerdown: (e) => { if (e.button === 0) grab(); },
      onclick: () => grab(),
    }, ...face(top), h("span", { class: "grab-word" },
      offered.state === "open" ? `⚡ ${t("fv.grabNow")}` : offered.state === "sent" ? `☚ ${t("fv.sent")}`
        : offered.state === "judged" ? `☚ ${t("fv.inTime")}` : `✕ ${t("fv.refused")}`));
  } else if (p.face_down) {
    topEl = h("span", { class: "fv-card back declared", "data-testid": "pile-top" },
      h("span", { class: "c-sym" }, "▦"), h("span", { class: "c-name" }, t("fv.declared")));
  } else if (top) {
    topEl = h("span", { class: `${cardClass(top)}${open ? " contested" : ""}`, "data-testid": "pile-top", ...cardAttrs(top) },
      ...face(top), open ? h("span", { class: "grab-word" }, `⚡ ${t("fv.upForGrabs")}`) : null);
  } else {
    topEl = h("span", { class: "fv-card empty", "data-testid": "pile-top" }, h("span", { class: "c-none" }, t("fv.emptyPile")));
  }

  const active = Array.isArray(view.active) && view.active.includes(seat);
  const isTurn = view.turn === seat && !view.result;
  const head = h("span", { class: "pile-head" },
    h("strong", {}, isTurn ? "▶ " : "", mine ? t("fv.youName", { name: ctx.name(seat) }) : ctx.name(seat)),
    h("span", { class: "muted" }, ` · ${t("fv.inHand", { n: p.hand ?? "?" })} · ${t("fv.inPile", { n: p.pile ?? 0 })}`),
    p.wins ? h("span", { class: "wins" }, ` · ♛ ${t("fv.won", { n: p.wins })}`) : null,
    active && !isTurn ? h("span", { class: "await" }, ` · ${t("fv.toDraw")}`) : null);
  const notes = [];
  if (open) {
    const elig = Array.isArray(open.eligible) ? open.eligible : [];
    notes.push(h("span", { class: "note contest-note" }, `⚡ ${t("fv.contested", { who: listText(elig.map((s) => who(ctx, s))) || t("grab.nobody") })}`));
  }
  if (queued) notes.push(h("span", { class: "note" }, `◷ ${t("fv.contestedNext")}`));

  const cls = `pile-box${mine ? " mine" : ""}${isTurn ? " turn" : ""}${open ? " contested" : ""}${action ? " target" : ""}`;
  const attrs = { key: seat, class: cls, "data-testid": "pile", "data-seat": seat };
  const body = [head, h("span", { class: "pile-row" }, topEl, h("span", { class: "pile-size", "aria-hidden": "true" }, `×${p.pile ?? 0}`)), ...notes];
  if (!action || offered) return h("section", { ...attrs, "aria-label": mine ? t("fv.yourPileTitle") : t("fv.pileOf", { name: ctx.name(seat) }) }, ...body);
  // The whole pile is the target button (never while a grab is offered on it).
  return h("button", {
    ...attrs, type: "button", "data-legal": "true", "data-action": action === "give" ? "play" : action.type,
    "aria-pressed": selection.target === seat ? "true" : "false",
    onclick: () => {
      if (action === "give") {
        selection.target = selection.target === seat ? null : seat;
        ctx.rerender();
        return;
      }
      send(ctx, action);
    },
  }, ...body, h("span", { class: "target-word" }, `⤵ ${verb}`));
}

/** Send a legal action; the next view changes the selection key, which clears the selection. */
function send(ctx, action) {
  return ctx.send(action);
}

function renderDrawPile(view, ctx, legal) {
  const n = typeof view.draw_pile === "number" ? view.draw_pile : 0;
  const refill = view.phase === "refill";
  const inner = [back(t("sym.cards", { n })), h("span", { class: "draw-label" }, t("fv.drawPile"))];
  if (!legal.draw || view.result) {
    return h("div", { class: "draw-box", "data-testid": "draw-pile", "aria-label": `${t("fv.drawPile")}: ${t("sym.cards", { n })}` }, ...inner);
  }
  const hand = Array.isArray(view.hand) ? view.hand.length : 0;
  const label = refill ? t("fv.drawBack", { n: Math.max(0, 5 - hand) }) : t("fv.drawACard");
  return h("button", { type: "button", class: "draw-box legal", "data-testid": "draw-pile", "data-legal": "true",
    onclick: () => send(ctx, legal.draw) }, ...inner, h("span", { class: "target-word" }, `⤒ ${label}`));
}

function renderHand(view, ctx, legal) {
  const hand = Array.isArray(view.hand) ? view.hand : [];
  const giving = selection.slot !== null && selection.target !== null
    ? legal.play.get(selection.slot)?.get(selection.target) : null;
  const cards = hand.map((c, i) => {
    const tags = [];
    if (view.grabbed_slot === i) tags.push(h("span", { class: "c-tag" }, `☚ ${t("fv.justGrabbed")}`));
    if (legal.declare.has(i)) tags.push(h("span", { class: "c-tag win" }, `★ ${t("fv.faceDownToWin")}`));
    const base = { key: i, class: `${cardClass(c)}${selection.slot === i ? " selected" : ""}`, "data-testid": "hand-card", "data-slot": i, ...cardAttrs(c) };
    let onclick = null;
    let role = "";
    if (giving instanceof Map) {
      if (giving.has(i)) {
        role = "give";
        onclick = () => send(ctx, giving.get(i));
      } else if (selection.slot === i) {
        role = "cancel";
        onclick = () => { selection = { ...selection, slot: null, target: null }; ctx.rerender(); };
      }
    } else if (canPutAway(legal, i)) {
      role = selection.slot === i ? "cancel" : "choose";
      onclick = () => {
        selection = { ...selection, slot: selection.slot === i ? null : i, target: null };
        ctx.rerender();
      };
    }
    if (!onclick) return h("span", { ...base, "aria-label": `${cardWords(c)}${view.grabbed_slot === i ? ` ${t("fv.justGrabbedLabel")}` : ""}` }, ...face(c), ...tags);
    const words = role === "give" ? t("fv.giveTo", { card: cardWords(c), name: ctx.name(selection.target) })
      : role === "cancel" ? t("fv.chosenCancel") : t("fv.chooseAway");
    return h("button", {
      ...base, type: "button", class: `${base.class} legal${role === "give" ? " give" : ""}`, "data-legal": "true", "data-role": role,
      "aria-pressed": selection.slot === i ? "true" : "false",
      "aria-label": `${cardWords(c)}: ${words}`, onclick,
    }, ...face(c), ...tags, role === "give" ? h("span", { class: "c-tag" }, `⇄ ${t("fv.giveThis")}`) : selection.slot === i ? h("span", { class: "c-tag" }, `✔ ${t("fv.chosen")}`) : null);
  });
  const declares = [...legal.declare.entries()].map(([slot, a]) => h("button", {
    key: slot, type: "button", class: "primary declare", "data-testid": "declare", "data-slot": slot, "data-legal": "true",
    onclick: () => send(ctx, a),
  }, `★ ${t("fv.declare", { card: cardWords(hand[slot]) })}`));
  const combos = closest(hand);
  return h("section", { class: "hand-box", "data-testid": "my-hand", "aria-label": t("ff.yourHand") },
    h("h3", {}, t("ff.yourHand"), h("span", { class: "muted" }, ` ${t("sym.cards", { n: hand.length })}`)),
    h("div", { class: "hand" }, ...cards),
    declares.length ? h("div", { class: "declares" }, ...declares) : null,
    combos.length ? h("div", { class: "combos", "data-testid": "combos" },
      h("strong", {}, `${t("fv.closest")} `),
      h("ul", {}, ...combos.map((c) => h("li", { key: c.label, "data-type": c.type, "data-count": c.count },
        h("span", { class: "combo-label" }, c.label), t("fv.colon"),
        h("strong", {}, c.count >= RUN ? t("fv.complete") : t("fv.countOf", { n: c.count, of: RUN })),
        c.wilds ? h("span", { class: "muted" }, ` (${t("fv.wildcards", { n: c.wilds })})`) : null,
        c.count < RUN ? h("span", { class: "muted" }, ` — ${c.missing(RUN - c.count)}`) : null)))) : null);
}

function hint(view, ctx, legal) {
  if (view.result) return t("fv.hint.over");
  if (grabOpen(ctx)) return `⚡ ${t("fv.hint.grab", { card: cardWords(contest.card), pile: whose(ctx, contest.pile) })}`;
  const c = view.contest;
  if (c) {
    if (ctx.isSpectator) return t("fv.hint.landed", { card: cardWords(c.card), pile: whose(ctx, c.pile) });
    if (c.placer === ctx.seat) return t("fv.hint.youPut", { card: cardWords(c.card) });
    if (contest && contest.cid && contest.state !== "open") return t("fv.hint.grabIn");
    return t("fv.hint.upForGrabs", { card: cardWords(c.card), pile: whose(ctx, c.pile) });
  }
  if (ctx.isSpectator) return t("fv.hint.watching");
  const active = Array.isArray(view.active) ? view.active : [];
  if (!active.includes(ctx.seat)) {
    const names = listText(active.map((s) => ctx.name(s)));
    return view.phase === "refill" ? t("fv.hint.waitingRefill", { names }) : t("frame.waitingFor", { others: names || t("sym.theOthers") });
  }
  if (legal.draw) return view.phase === "refill" ? t("fv.hint.struck") : t("fv.hint.draw");
  const win = legal.declare.size ? ` ${t("fv.hint.win")}` : "";
  const card = selectedCard(view);
  if (card && selection.target !== null) return t("fv.hint.give", { name: ctx.name(selection.target) });
  if (card) {
    const k = KINDS[card.kind];
    const plays = legal.play.has(selection.slot);
    if (plays && k) return `${t("fv.hint.actionChosen", { card: k.short, effect: k.effect })}${win}`;
    return `${t("fv.hint.cardChosen", { card: cardWords(card) })}${win}`;
  }
  if (Number.isInteger(view.grabbed_slot)) return `${t("fv.hint.grabbed", { card: cardWords(view.hand[view.grabbed_slot]) })}${win}`;
  if (view.phase === "discard") return `${t("fv.hint.oneCard")}${win}`;
  return `${t("fv.hint.putAway")}${win}`;
}

/**
 * By how much the grab was won: ", 53 ms ahead of Bob.", or, within the tie window, ", in a tie with
 * Bob (within 20 ms), decided by a draw fixed before the grab.", or "." when nobody else was judged.
 */
function leadWords(res, ctx) {
  const w = res.winner;
  if (res.tied.length > 1 && res.tied.includes(w)) {
    const others = res.tied.filter((s) => s !== w).map((s) => who(ctx, s));
    return t("fv.tie", { others: listWords(others) });
  }
  const mine = res.judged[w];
  const rivals = Object.keys(res.judged).map(Number)
    .filter((s) => s !== w && !res.refused[s] && typeof res.judged[s] === "number")
    .sort((a, b) => res.judged[a] - res.judged[b]);
  if (typeof mine !== "number" || !rivals.length) return ".";
  const lead = Math.max(0, Math.round(res.judged[rivals[0]] - mine));
  return t("fv.ahead", { ms: lead, name: who(ctx, rivals[0]) });
}

function renderContestBox(view, ctx) {
  const conn = connection();
  const parts = [];
  const res = lastResult && lastResult.room === ctx.room ? lastResult : null;
  if (res) {
    const seats = [...new Set([...Object.keys(res.judged), ...Object.keys(res.refused)])].map(Number)
      .sort((a, b) => (res.judged[a] ?? 1e9) - (res.judged[b] ?? 1e9));
    const card = res.card ? cardWords(res.card) : t("fv.theCard");
    const from = res.pile !== null && res.pile !== undefined ? whose(ctx, res.pile) : null;
    parts.push(h("p", { class: "result-line", "data-testid": "result-line" },
      h("strong", {}, `⚡ ${res.winner === null ? t("fv.nobodyGrabbed") : res.winner === ctx.seat ? t("fv.youGrabbed") : t("fv.grabbed", { name: who(ctx, res.winner) })} `),
      from === null ? card : t("fv.cardFrom", { card, pile: from }),
      res.winner === null ? "." : leadWords(res, ctx)));
    if (seats.length) {
      parts.push(h("ul", { class: "judged", "data-testid": "judged" }, ...seats.map((s) => {
        const ms = res.judged[s];
        const why = res.refused[s];
        const stat = res.stats[String(s)];
        return h("li", { key: s, class: s === res.winner ? "winner" : "", "data-seat": s },
          s === res.winner ? "♛ " : "· ", `${who(ctx, s)}: `,
          typeof ms === "number" ? h("strong", {}, `${Math.round(ms)} ms`) : t("fv.noTime"),
          why ? ` ✕ ${refusalWords(why)}` : "",
          stat && stat.flagged ? ` ⚑ ${t("fv.flagged")}` : "",
          res.bounded.includes(s) ? h("span", { class: "bounded", "data-testid": "bounded", title: t("fv.boundedTitle") },
            ` ⏱ ${t("fv.bounded")}`) : "");
      })));
    } else if (!res.late) {
      parts.push(h("p", { class: "muted" }, t("fv.nobodyTried")));
    }
    if (res.late) {
      parts.push(h("p", { class: "muted", "data-testid": "late-grab" }, typeof res.lateBy === "number"
        ? t("fv.lateBy", { ms: res.lateBy }) : t("fv.late")));
    }
    // The draw's proof (its secret fixed before the grab) is the table's to check, not the players' to
    // read: said only when it fails, which would mean the draw was not the one announced.
    if (res.check === false) {
      parts.push(h("p", { class: "warn small", "data-testid": "lottery" },
        `⚠ ${t("fv.drawMismatch")}`));
    }
  }
  if (!ctx.isSpectator) {
    parts.push(h("p", { class: "muted small" }, `${t("fv.judgedTime")} `,
      h("span", { "data-testid": "rtt-mine" }, rttText(conn ? conn.rtt : null)), "."));
  }
  if (!parts.length) return null;
  return h("section", { class: "contest-box", "data-testid": "contest-result", "data-winner": res && res.winner !== null ? res.winner : "",
    "data-cid": res ? res.cid : "", "aria-live": "polite" }, h("h3", {}, res ? t("fv.lastGrab") : t("fv.grabs")), ...parts);
}

function renderLastBattle(view, ctx) {
  const b = view.last_battle;
  if (!b || typeof b !== "object") return null;
  const hands = Array.isArray(b.hands) ? b.hands : [];
  const added = Array.isArray(b.added) ? b.added : [];
  return h("section", { class: "battle-box", "data-testid": "last-battle" },
    h("h3", {}, t("fv.battleWon", { n: b.battle, name: b.winner === ctx.seat ? t("fv.you") : who(ctx, b.winner),
      combination: known(`fv.combo.${b.combination}`) ? t(`fv.combo.${b.combination}`) : b.combination_name || b.combination })),
    h("div", { class: "hand small-cards", "data-testid": "winning-hand" },
      ...(Array.isArray(b.hand) ? b.hand : []).map((c) => h("span", { class: cardClass(c), ...cardAttrs(c) }, ...face(c)))),
    ...hands.map((cards, s) => (s === b.winner || !Array.isArray(cards) ? null : h("div", { key: s, class: "other-hand" },
      h("p", {}, t("fv.held", { name: `${ctx.name(s)}${s === ctx.seat ? ` ${t("frame.youMark")}` : ""}` }),
        added[s] ? ` (+${t("sym.points", { n: added[s] })})` : "", t("fv.colon")),
      h("div", { class: "hand small-cards" }, ...cards.map((c) => h("span", { class: cardClass(c), ...cardAttrs(c) }, ...face(c))))))),
    view.variant !== "single" && added[b.winner] ? h("p", { class: "muted" }, t("fv.adds", { name: ctx.name(b.winner), n: added[b.winner] })) : null);
}

function renderLegend() {
  return h("details", { class: "legend" }, h("summary", {}, t("fv.theCards")),
    h("p", {}, `${t("fv.legendArmy")} `,
      ...RACE_KEYS.map((r) => h("span", { class: `chip race-${r}` }, `${RACES[r].sym} ${RACES[r].word}`))),
    h("ul", {}, ...Object.entries(KINDS).map(([k, v]) => h("li", {},
      h("span", { class: `chip kind-${k}` }, `${v.sym} ${v.short}`), " ",
      k === "wild" ? t("fv.legendWild") : t("fv.legendAction", { effect: v.effect })))),
    h("p", { class: "muted" }, t("fv.legendWin")));
}

export default {
  id: "frenetic_village",
  title: "Frenetic Village",
  get summary() { return t("summary.frenetic_village"); },

  phaseText(raw, ctx) {
    const view = withFaces(raw);
    const name = (s) => (s === ctx.seat ? t("fv.you") : ctx.name(s));
    // "you" and a name take different verbs: a key for each
    const by = (key) => (view.turn === ctx.seat ? t(`${key}.you`) : t(key, { who: ctx.name(view.turn) }));
    const c = view.contest;
    switch (view.phase) {
      case "draw": return by("fv.phase.draw");
      case "play": return by("fv.phase.play");
      case "grab": return c ? t("fv.phase.grab", { card: cardWords(c.card), pile: whose(ctx, c.pile) }) : t("fv.phase.contest");
      case "discard": return Number.isInteger(view.grabbed_slot) || view.turn !== ctx.seat
        ? by("fv.phase.discard") : t("fv.phase.oneCard");
      case "refill": return t("fv.phase.refill", { names: listText((view.active || []).map(name)) });
      case "over": return t("fv.phase.over");
      default: return String(view.phase || "").replace(/_/g, " ");
    }
  },

  figures(p, view) {
    const out = [t("fv.inHand", { n: p.hand }), t("fv.pileN", { n: p.pile })];
    if (p.face_down) out.push(`▦ ${t("fv.declaredShort")}`);
    out.push(`♛ ${t("fv.battlesWon", { n: p.wins })}`);
    if (view.variant === "lowest_total" || view.variant === "battle_points") out.push(t("sym.points", { n: p.score }));
    return out;
  },

  onContest(frame, ctx) {
    if (!frame || ctx.isSpectator || typeof frame.id !== "string") return;
    contest = { nonce: frame.id, cid: frame.contest, commit: typeof frame.commit === "string" ? frame.commit : null,
      pile: Number.isInteger(frame.pile) ? frame.pile : lastView && lastView.contest ? lastView.contest.pile : null,
      card: frame.card || (lastView && lastView.contest ? lastView.contest.card : null),
      room: ctx.room, seat: ctx.seat, state: "open" };
    lastCtx = ctx;
    watchConnection();
    ctx.rerender(); // synchronous: the grab button is on screen before this returns
    const btn = document.querySelector("[data-testid=grab-card]");
    if (btn) {
      btn.focus({ preventScroll: true });
      const r = btn.getBoundingClientRect();
      if (r.bottom < 0 || r.top > window.innerHeight) btn.scrollIntoView({ block: "center" });
    }
    // A result that never comes (a dropped event) must not leave the button up for ever.
    const mine = contest;
    setTimeout(() => { if (contest === mine) { contest = null; if (lastCtx) lastCtx.rerender(); } }, 15000);
  },

  render(raw, ctx) {
    const view = withFaces(raw);
    lastCtx = ctx;
    lastView = view;
    watchConnection();
    const key = `${ctx.room}:${ctx.seat}:${view.battle}:${view.log_from}:${Array.isArray(view.log) ? view.log.length : 0}:${view.phase}`;
    if (selection.key !== key) selection = { key, slot: null, target: null };
    if (contest && (contest.room !== ctx.room || contest.seat !== ctx.seat || view.result)) contest = null;
    if (lastResult && lastResult.room !== ctx.room) lastResult = null;
    const legal = readLegal(view);
    if (selection.slot !== null && !canPutAway(legal, selection.slot)) selection = { key, slot: null, target: null };
    if (selection.target !== null && !(legal.play.get(selection.slot)?.get(selection.target) instanceof Map)) selection.target = null;

    const seats = (Array.isArray(view.players) ? view.players : []).map((p) => p.seat);
    // Your own pile first, then the others in play order from you.
    const start = ctx.isSpectator ? 0 : Math.max(0, seats.indexOf(ctx.seat));
    const order = seats.slice(start).concat(seats.slice(0, start));
    const variant = variantWords(view.variant, view.battles);

    return h("div", { class: "frenetic-village", "data-phase": view.phase, onkeydown: (e) => {
      if (e.key === "Escape" && selection.slot !== null) { selection = { key, slot: null, target: null }; ctx.rerender(); }
    } },
    h("p", { class: "fv-info" },
      h("span", { "data-testid": "battle" }, view.battles ? t("fv.battleOf", { n: view.battle, of: view.battles }) : t("fv.battle", { n: view.battle })), " · ",
      h("span", {}, variant)),
    h("p", { class: "hint", "data-testid": "hint", role: "status" }, hint(view, ctx, legal)),
    h("div", { class: "table-top" },
      renderDrawPile(view, ctx, legal),
      h("div", { class: "piles", "data-testid": "piles" }, ...order.map((s) => renderPile(view, ctx, s, legal)))),
    ctx.isSpectator ? null : renderHand(view, ctx, legal),
    renderContestBox(view, ctx),
    renderLastBattle(view, ctx),
    renderLegend());
  },
};
