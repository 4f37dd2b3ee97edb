// The Waterfall Park table, drawn from the view alone (docs/waterfall_park.md: "The view", "Actions",
// "The offer schema").
//
// The board is a grid of `board.width` x `board.height` cells: rectangular blocks of locations,
// paths between them and the waterfall. Each block is drawn as a grid of its own, placed on the
// park's grid where the park is wide enough for cells of at least 40 px; where it is not (a phone),
// the blocks are laid out one after another, each with its letter, at that size (adjacency never
// crosses a block, so nothing of the game is lost). Each location shows its number, its owner
// (colour tint, thick border and the owner's symbol beside the number, never over it) and the
// Attraction tile built on it (two letters; the full name on hover and for screen readers).
//
// What can be clicked follows view.legal:
// - Preparation: Location cards of the hand (in the hand panel or on the board), two of them, then
//   the one button that sends the matching `discard` item of view.legal.
// - Exchange: accept / decline / withdraw / ready / unready, each an item of view.legal. Offers are
//   the one action the engine cannot list, so they are composed here from clicks on owned
//   locations and on the tiles in front of the players, with coins fields, per the offer schema.
//   The composer (with Ready) is docked at the bottom of the screen while the park is in view, so
//   that it stays in reach beside the board on a phone.
// - Construction: one of your tile kinds, then one of the locations that the legal `build` items
//   pair with it; `done`.
// Spectators get the same board with nothing clickable.

import { h, stylesheet, toast, announce } from "../ui.js";
import { playerTag } from "../frame.js";
import { known, listText, t, wordOr } from "../words.js";

// The table's own styles live beside it, loaded once with the module.
await stylesheet(new URL("./waterfall_park.css", import.meta.url).href, "waterfall_park");

// Two letters per attraction: unique, and readable in a small cell. The full name is in title and
// aria-label everywhere the code appears.
const CODES = {
  "Gift Shop": "Gi", "Ice Cream Stand": "Ic", Bar: "Ba",
  "Ghost Train": "Gh", Carousel: "Ca", "Bowling Alley": "Bo",
  Theater: "Th", Circus: "Ci", Pool: "Po",
};
const phaseName = (phase) => wordOr(`wp.phaseName.${phase}`, phase);
/** An attraction by its name in the reader's language (the engine names kinds in English). */
const tileName = (name) => wordOr(`wp.tile.${name}`, name);
const colourName = (c) => wordOr(`colour.${String(c ?? "").toLowerCase()}`, c);
const symbolName = (s) => wordOr(`symbol.${s}`, s);
const youOr = (ctx, seat) => (seat === ctx.seat ? t("sym.you") : ctx.name(seat));

// Local choices that are not yet actions: the two cards picked for the discard, the tile kind
// picked for building, and the offer being composed. Kept per room, seat, round and phase, so a
// choice never survives into a phase where it means nothing.
let ui = fresh(null);
// Whether the docked composer is folded to its one line: the reader's choice, kept across rounds. It
// starts folded on a phone, where the open composer would cover half of the park.
let dockFolded = typeof window !== "undefined" && window.innerWidth < 700;

function fresh(key) {
  return { key, discard: [], tile: null, draft: { partners: [], locations: [], tiles: [], coins: {} },
    counterOf: null, notices: [] };
}

// Offers as last seen, by id: a decline takes the offer out of the view before its event arrives,
// and the notice still has to know whose offer it was.
const seenOffers = new Map();
const SEEN_OFFERS_MAX = 200;
let lastRound = null;

function noteOffers(view) {
  lastRound = view.round;
  for (const o of Object.values(view.offers || {})) {
    if (o && typeof o === "object" && Number.isInteger(o.id)) seenOffers.set(`${view.round}:${o.id}`, o);
  }
  while (seenOffers.size > SEEN_OFFERS_MAX) seenOffers.delete(seenOffers.keys().next().value);
}

/**
 * Answer an offer with a counter-offer: the composer opens filled with the received offer (the same
 * partners, locations, tiles and coins, each the same way round), for the player to change and send
 * back as an offer of their own. Sending it declines the received offer in the same step (the
 * action's `counters`): a "no, but" does not leave the original open beside it.
 */
function counterOffer(view, ctx, o) {
  const me = ctx.seat;
  const d = fresh(null).draft;
  d.partners = [...new Set((o.parties || []).filter((s) => s !== me))].sort((a, b) => a - b);
  for (const t of o.transfers || []) {
    for (const n of t.locations || []) d.locations.push({ n, from: t.from, to: t.to });
    for (const [name, count] of Object.entries(t.tiles || {})) {
      if (Number(count) > 0) d.tiles.push({ from: t.from, name, to: t.to, count: Number(count) });
    }
    if (Number(t.coins) > 0) d.coins[`${t.from}>${t.to}`] = Number(t.coins);
  }
  d.locations.sort((a, b) => a.n - b.n);
  ui.draft = d;
  ui.counterOf = o.id;
  dockFolded = false;
  ctx.rerender();
  const dock = document.querySelector("[data-testid=wp-draft]");
  if (dock) dock.scrollIntoView({ block: "nearest" });
  announce(t("wp.composerHolds", { id: o.id }));
}

function code(name) {
  return CODES[name] || String(name || "?").slice(0, 2);
}

function colourClass(p) {
  return p && p.colour ? `wp-own-${String(p.colour).toLowerCase().replace(/[^a-z]/g, "")}` : "wp-own-none";
}

function playerAt(view, seat) {
  return (Array.isArray(view.players) ? view.players : []).find((p) => p && p.seat === seat) || null;
}

/** "♥ Pink" — a colour always comes with its symbol and its word. */
function badge(view, seat) {
  const p = playerAt(view, seat);
  if (!p) return t("seat.name", { seat });
  return `${p.glyph || ""} ${p.colour ? colourName(p.colour) : t("seat.name", { seat })}`.trim();
}

/** "♥ Pink (you)" or "★ Yellow (Ann)": colour, symbol and who plays it. */
function who(view, ctx, seat) {
  return `${badge(view, seat)} (${youOr(ctx, seat)})`;
}

/** "Pink (you)": for a swatch, which shows the symbol itself. */
function named(view, ctx, seat) {
  const p = playerAt(view, seat);
  return `${p ? colourName(p.colour) : t("seat.name", { seat })} (${youOr(ctx, seat)})`;
}

function swatch(view, seat, text) {
  const p = playerAt(view, seat);
  return h("span", { class: `wp-swatch ${colourClass(p)}`, "data-seat": seat },
    h("span", { class: "wp-sym", "aria-hidden": "true" }, p ? p.glyph : "?"), " ", text ?? (p ? colourName(p.colour) : t("seat.name", { seat })));
}

/** A seat's colour as a badge: its symbol on its tint, the colour's name for screen readers. */
function colourBadge(view, seat) {
  const p = playerAt(view, seat);
  const word = p ? (p.symbol ? t("seat.markLabel", { colour: colourName(p.colour), symbol: symbolName(p.symbol) }) : colourName(p.colour))
    : t("seat.name", { seat });
  return h("span", { class: `wp-badge ${colourClass(p)}`, role: "img", "aria-label": word, title: word }, p ? p.glyph : "?");
}

/** A player by name with their colour as the badge: how the moves and the end name people. */
function person(view, ctx, seat) {
  const p = playerAt(view, seat);
  return playerTag(p && p.name ? String(p.name) : ctx.name(seat), colourBadge(view, seat), { you: seat === ctx.seat });
}

function sizeOf(view, name) {
  const a = (Array.isArray(view.attractions) ? view.attractions : []).find((x) => x && x.name === name);
  return a ? a.size : null;
}

function tileWords(view, name) {
  const size = sizeOf(view, name);
  return size ? t("wp.tileWords", { name: tileName(name), size }) : tileName(name);
}

function tileCount(tiles) {
  return Object.values(tiles || {}).reduce((a, b) => a + (Number(b) || 0), 0);
}

// ---- what view.legal allows ---------------------------------------------------------------------

function readLegal(view) {
  const out = { discards: new Map(), builds: new Map(), offers: new Map(), moves: new Map(), returnCard: null,
    ready: null, unready: null, done: null };
  for (const a of Array.isArray(view.legal) ? view.legal : []) {
    if (!a || typeof a !== "object") continue;
    if (a.type === "discard" && Array.isArray(a.cards)) out.discards.set([...a.cards].sort((x, y) => x - y).join(","), a);
    else if (a.type === "move_base") out.moves.set(a.from, a);
    else if (a.type === "return_card") out.returnCard = a;
    else if (a.type === "build") {
      if (!out.builds.has(a.tile)) out.builds.set(a.tile, new Map());
      out.builds.get(a.tile).set(a.location, a);
    } else if (a.type === "accept" || a.type === "decline" || a.type === "withdraw") {
      if (!out.offers.has(a.offer)) out.offers.set(a.offer, []);
      out.offers.get(a.offer).push(a);
    } else if (a.type === "ready") out.ready = a;
    else if (a.type === "unready") out.unready = a;
    else if (a.type === "done") out.done = a;
  }
  // Offers cannot be listed; a seat whose legal list holds ready or unready is in the Exchange
  // and may make them.
  out.canOffer = view.phase === "exchange" && Boolean(out.ready || out.unready);
  return out;
}

/** A button that sends one item of view.legal, verbatim. */
function actButton(ctx, action, label, attrs = {}) {
  return h("button", {
    key: attrs.key, type: "button", class: `wp-act${attrs.class ? ` ${attrs.class}` : ""}`, "data-legal": "true",
    "data-action": JSON.stringify(action),
    "data-testid": attrs.testid, title: attrs.title, "aria-label": attrs.aria,
    onclick: async () => {
      const ok = await ctx.send(action);
      if (ok && attrs.after) attrs.after();
    },
  }, label);
}

// ---- the offer being composed -------------------------------------------------------------------

function draft() {
  return ui.draft;
}

/** Drop what no longer holds: a location whose owner changed, tiles its giver no longer has. */
function pruneDraft(view, me) {
  const d = draft();
  const sites = Array.isArray(view.sites) ? view.sites : [];
  const seats = new Set((view.players || []).map((p) => p.seat));
  d.partners = d.partners.filter((s) => seats.has(s) && s !== me);
  d.locations = d.locations.filter((it) => {
    const site = sites[it.n - 1];
    return site && site.owner === it.from && (it.to === null || it.to !== it.from);
  });
  d.tiles = d.tiles.filter((it) => {
    const p = playerAt(view, it.from);
    const held = p && p.tiles ? Number(p.tiles[it.name]) || 0 : 0;
    it.count = Math.min(it.count, held);
    return it.count > 0;
  });
  for (const key of Object.keys(d.coins)) {
    const [f, t] = key.split(">").map(Number);
    if (!(d.coins[key] > 0) || (f !== me && !d.partners.includes(f)) || (t !== me && !d.partners.includes(t))) delete d.coins[key];
  }
}

/** Make a seat a partner of the offer; what had no receiver yet (yours, before any partner) goes to it. */
function involve(seat, me) {
  const d = draft();
  if (seat !== me && !d.partners.includes(seat)) {
    d.partners.push(seat);
    d.partners.sort((a, b) => a - b);
    for (const it of [...d.locations, ...d.tiles]) if (it.to === null && it.from !== seat) it.to = seat;
  }
}

/** Who receives what `from` gives, by default: from you to your first partner, from others to you. */
function defaultReceiver(from, me) {
  if (from !== me) return me;
  return draft().partners.length ? draft().partners[0] : null;
}

function toggleLocation(view, me, n) {
  const d = draft();
  const i = d.locations.findIndex((it) => it.n === n);
  if (i >= 0) { d.locations.splice(i, 1); return; }
  const owner = view.sites[n - 1].owner;
  involve(owner, me);
  d.locations.push({ n, from: owner, to: defaultReceiver(owner, me) });
  d.locations.sort((a, b) => a.n - b.n);
}

function addTile(view, me, from, name) {
  const d = draft();
  involve(from, me);
  const p = playerAt(view, from);
  const held = p && p.tiles ? Number(p.tiles[name]) || 0 : 0;
  const it = d.tiles.find((x) => x.from === from && x.name === name);
  if (it) it.count = Math.min(held, it.count + 1);
  else if (held > 0) d.tiles.push({ from, name, to: defaultReceiver(from, me), count: 1 });
}

function draftTiles(from, name) {
  const it = draft().tiles.find((x) => x.from === from && x.name === name);
  return it ? it.count : 0;
}

/** The composed offer as the schema's transfers: one per (from, to), sorted; null parts dropped. */
function draftTransfers(view) {
  const d = draft();
  const map = new Map();
  const get = (from, to) => {
    const key = `${from}>${to}`;
    if (!map.has(key)) map.set(key, { from, to, locations: [], tiles: {}, coins: 0 });
    return map.get(key);
  };
  for (const it of d.locations) if (it.to !== null && it.to !== it.from) get(it.from, it.to).locations.push(it.n);
  for (const it of d.tiles) {
    if (it.to === null || it.to === it.from || it.count <= 0) continue;
    const t = get(it.from, it.to);
    t.tiles[it.name] = (t.tiles[it.name] || 0) + it.count;
  }
  for (const [key, n] of Object.entries(d.coins)) {
    const [from, to] = key.split(">").map(Number);
    if (n > 0 && from !== to) get(from, to).coins = n;
  }
  const order = (Array.isArray(view.attractions) ? view.attractions : []).map((a) => a.name);
  return [...map.values()]
    .map((t) => ({
      ...t,
      locations: [...t.locations].sort((a, b) => a - b),
      tiles: Object.fromEntries(Object.entries(t.tiles).sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))),
    }))
    .sort((a, b) => a.from - b.from || a.to - b.to);
}

/** Why the composed offer cannot be sent yet, in words, or null. */
function draftProblem(view, me, transfers) {
  const d = draft();
  if (!d.partners.length) return t("wp.problem.partners");
  if (d.locations.some((it) => it.to === null) || d.tiles.some((it) => it.to === null)) return t("wp.problem.receiver");
  if (!transfers.length) return t("wp.problem.empty");
  const parties = new Set(transfers.flatMap((t) => [t.from, t.to]));
  if (!parties.has(me)) return t("wp.problem.notMine");
  const mine = playerAt(view, me);
  const paying = transfers.filter((t) => t.from === me).reduce((a, t) => a + t.coins, 0);
  if (mine && typeof mine.coins === "number" && paying > mine.coins) return t("wp.problem.coins", { n: mine.coins });
  const open = Object.values(view.offers || {}).filter((o) => o && o.author === me).length;
  if (typeof view.max_offers === "number" && open >= view.max_offers) {
    return t("wp.problem.tooMany", { n: open, max: view.max_offers });
  }
  return null;
}

// ---- words --------------------------------------------------------------------------------------

/** What one transfer moves, item by item: "locations 3, 7", "2× Pool [Po]", "4 coins". */
function transferItems(tr, codes = true) {
  const items = [];
  if (tr.locations && tr.locations.length) items.push(t("wp.locationsN", { n: tr.locations.length, list: tr.locations.join(", ") }));
  for (const [name, n] of Object.entries(tr.tiles || {})) {
    if (n > 0) items.push(codes ? `${n}× ${tileName(name)} [${code(name)}]` : `${n}× ${tileName(name)}`);
  }
  if (tr.coins) items.push(t("wp.coinsN", { n: tr.coins }));
  return items;
}

function transferWords(view, ctx, tr, key) {
  return h("li", { key, class: "wp-transfer" }, person(view, ctx, tr.from), ` ${t("wp.gives")} `,
    person(view, ctx, tr.to), t("fv.colon"), transferItems(tr).join(" · ") || t("wp.nothing"));
}

/** "you gave location 12 and 2 coins to Bob; you got 1× Pool from Bob": one deal, for one party. */
function tradeWords(o, ctx) {
  const me = ctx.seat;
  const items = (tr) => listText(transferItems(tr, false));
  const parts = [];
  for (const tr of o.transfers || []) {
    if (tr.from === me) parts.push(t("wp.youGave", { items: items(tr), name: ctx.name(tr.to) }));
    else if (tr.to === me) parts.push(t("wp.youGot", { items: items(tr), name: ctx.name(tr.from) }));
  }
  return parts.join("; ") || t("wp.nothingForYou");
}

function hint(view, ctx, legal) {
  if (view.result) return t("wp.hint.over");
  if (ctx.isSpectator) return t("wp.hint.watching");
  const me = ctx.seat;
  const waiting = (view.active || []).filter((s) => s !== me).map((s) => ctx.name(s));
  const others = waiting.length ? t("frame.waitingFor", { others: listText(waiting) }) : "";
  if (view.phase === "preparation" && legal.returnCard) return t("wp.hint.outOfBases", { n: legal.returnCard.card });
  if (view.phase === "preparation") {
    if (!legal.discards.size && !(view.discarded || []).length) return `${t("wp.hint.revealed")} ${others}`;
    if (!legal.discards.size) return `${t("wp.hint.youDiscard", { cards: listText(view.discarded || []) })} ${others}`;
    if (ui.discard.length < 2) return t("wp.hint.choose2", { n: 2 - ui.discard.length });
    return t("wp.hint.confirmDiscard", { cards: listText(ui.discard) });
  }
  if (view.phase === "exchange") {
    if (legal.unready) return `${t("wp.hint.ready")} ${others} ${t("wp.hint.readyMore")}`;
    return t("wp.hint.trade");
  }
  if (view.phase === "construction") {
    if (!legal.done) return `${t("wp.hint.doneBuilding")} ${others}`;
    if (!legal.builds.size) return t("wp.hint.nothingToBuild");
    if (!ui.tile) return t("wp.hint.chooseTile");
    return t("wp.hint.where", { tile: tileName(ui.tile) });
  }
  return "";
}

// ---- the board ----------------------------------------------------------------------------------

function cellAction(view, ctx, legal, n, site) {
  if (ctx.isSpectator) return null;
  const hand = Array.isArray(view.hand) ? view.hand : [];
  if (view.phase === "preparation" && legal.moves.has(n)) {
    const action = legal.moves.get(n);
    return { kind: "move", verb: t("wp.verb.move", { n: action.to }), action };
  }
  if (view.phase === "preparation" && legal.discards.size && hand.includes(n)) {
    const picked = ui.discard.includes(n);
    return { kind: "pick", verb: picked ? t("wp.verb.keep") : t("wp.verb.discard"), run: () => { toggleDiscard(n); ctx.rerender(); } };
  }
  if (legal.canOffer && site && site.owner !== null && site.owner !== undefined) {
    const inDraft = draft().locations.some((it) => it.n === n);
    return { kind: "compose", verb: inDraft ? t("wp.verb.takeOut") : site.owner === ctx.seat ? t("wp.verb.offer") : t("wp.verb.ask"),
      run: () => { toggleLocation(view, ctx.seat, n); ctx.rerender(); } };
  }
  if (view.phase === "construction" && ui.tile && legal.builds.has(ui.tile)) {
    const action = legal.builds.get(ui.tile).get(n);
    if (action) return { kind: "build", verb: t("wp.verb.build", { tile: tileName(ui.tile) }), action };
  }
  return null;
}

function toggleDiscard(n) {
  const i = ui.discard.indexOf(n);
  if (i >= 0) ui.discard.splice(i, 1);
  else {
    ui.discard.push(n);
    while (ui.discard.length > 2) ui.discard.shift();
  }
  ui.discard.sort((a, b) => a - b);
}

function renderBoard(view, ctx, legal) {
  const board = view.board || {};
  const width = board.width || 15;
  const height = board.height || 9;
  const sites = Array.isArray(view.sites) ? view.sites : [];
  const hand = new Set(Array.isArray(view.hand) ? view.hand : []);
  const discarded = new Set(Array.isArray(view.discarded) ? view.discarded : []);
  // Revealed cards that wait for their owner's base (out of bases), by location.
  const waiting = new Map();
  for (const p of Array.isArray(view.players) ? view.players : []) for (const c of (p && p.waiting) || []) waiting.set(c, p.seat);
  const inDraft = new Map(draft().locations.map((it) => [it.n, it]));
  const offered = new Set();
  for (const o of Object.values(view.offers || {})) for (const t of (o && o.transfers) || []) for (const n of t.locations || []) offered.add(n);
  const locations = Array.isArray(board.locations) ? board.locations : [];

  // The attractions as the income splits them (players[].attractions): the cells of one are drawn
  // joined, and a complete one is marked. Without that list, identical touching tiles of one owner join.
  const at = new Map(locations.map((l) => [`${l.x},${l.y}`, l.n]));
  const partOf = new Map();
  for (const p of Array.isArray(view.players) ? view.players : []) {
    for (const a of (p && Array.isArray(p.attractions)) ? p.attractions : []) for (const n of a.locations || []) partOf.set(n, a);
  }
  const same = (n, x, y) => {
    const m = at.get(`${x},${y}`);
    if (m === undefined) return false;
    if (partOf.size) return partOf.has(n) && partOf.get(n) === partOf.get(m);
    const a = sites[n - 1] || {};
    const b = sites[m - 1] || {};
    return Boolean(a.tile) && a.tile === b.tile && a.owner !== null && a.owner === b.owner;
  };

  const cell = (loc, block) => {
    const n = loc.n;
    const site = sites[n - 1] || { owner: null, tile: null };
    const owner = site.owner;
    const p = owner === null || owner === undefined ? null : playerAt(view, owner);
    const act = cellAction(view, ctx, legal, n, site);
    const draftItem = inDraft.get(n);
    const picked = ui.discard.includes(n) || discarded.has(n);
    const words = [t("wp.cell.location", { n, block: loc.block })];
    words.push(p ? t("wp.cell.owned", { who: who(view, ctx, owner) }) : t("wp.cell.unowned"));
    words.push(site.tile ? t("wp.cell.built", { tile: tileWords(view, site.tile) }) : t("fv.empty"));
    const part = partOf.get(n);
    if (part) {
      words.push(part.complete
        ? t("wp.cell.complete", { tile: tileName(part.tile), n: part.size, income: part.income })
        : t("wp.cell.incomplete", { tile: tileName(part.tile), n: part.size, income: part.income }));
    }
    if (hand.has(n)) words.push(picked ? t("wp.cell.handDiscard") : t("wp.cell.hand"));
    if (waiting.has(n)) words.push(t("wp.cell.waiting", { who: who(view, ctx, waiting.get(n)) }));
    if (draftItem) words.push(draftItem.to !== null ? t("wp.cell.inOfferTo", { who: who(view, ctx, draftItem.to) }) : t("wp.cell.inOffer"));
    if (offered.has(n)) words.push(t("wp.cell.named"));
    const label = words.join("; ");
    const classes = ["wp-cell", colourClass(p)];
    if (site.tile) {
      classes.push("built");
      if (part && part.complete) classes.push("complete");
      for (const [dx, dy, side] of [[1, 0, "r"], [-1, 0, "l"], [0, 1, "d"], [0, -1, "u"]]) {
        if (same(n, loc.x + dx, loc.y + dy)) classes.push(`join-${side}`);
      }
    }
    if (hand.has(n)) classes.push("in-hand");
    if (waiting.has(n)) classes.push("waiting");
    if (picked) classes.push("picked");
    if (draftItem) classes.push("in-draft");
    if (offered.has(n)) classes.push("offered");
    if (act) classes.push(act.kind === "compose" ? "composable" : "legal");
    const content = [
      // The number first and the owner's symbol beside it, in a row of their own: neither covers the other.
      h("span", { class: "wp-top", "aria-hidden": "true" },
        h("span", { class: "wp-num" }, String(n)),
        p ? h("span", { class: "wp-glyph" }, p.glyph) : null),
      site.tile ? h("span", { class: "wp-tile", "aria-hidden": "true" }, code(site.tile)) : null,
      h("span", { class: "wp-mark", "aria-hidden": "true" },
        draftItem ? "⇄" : picked && hand.has(n) ? "✕" : hand.has(n) ? "◇" : act && act.kind === "build" ? "+"
          : act && act.kind === "move" ? "⇡" : waiting.has(n) ? "◆" : offered.has(n) ? "·⇄" : part && part.complete ? "✓" : ""),
    ];
    const attrs = {
      key: n, class: classes.join(" "), "data-testid": "wp-cell", "data-n": n,
      "data-owner": owner === null || owner === undefined ? "" : owner, "data-tile": site.tile || "",
      style: { gridColumn: String(loc.x - block.x + 1), gridRow: String(loc.y - block.y + 1) }, title: label,
    };
    if (!act) return h("div", { ...attrs, role: "img", "aria-label": label }, ...content);
    const extra = act.kind === "compose" ? { "data-compose": "true" } : { "data-legal": "true" };
    if (act.action) extra["data-action"] = JSON.stringify(act.action);
    return h("button", {
      ...attrs, ...extra, type: "button",
      "aria-pressed": act.kind === "build" ? undefined : String(Boolean(draftItem || (act.kind === "pick" && picked))),
      "aria-label": `${label} (${act.verb})`,
      onclick: async () => {
        if (act.run) { act.run(); return; }
        const ok = await ctx.send(act.action);
        if (ok) keepTileChoice(view, act.action.tile);
      },
    }, ...content);
  };

  const blocks = (Array.isArray(board.blocks) ? board.blocks : []).map((b) => {
    const mine = locations.filter((l) => l.block === b.id);
    return h("div", { key: b.id, class: "wp-block", role: "group", "aria-label": t("wp.block", { id: b.id }), "data-block": b.id,
      style: { gridColumn: `${b.x + 1} / span ${b.w}`, gridRow: `${b.y + 1} / span ${b.h}`, "--w": String(b.w), "--h": String(b.h) } },
    h("span", { class: "wp-block-id", "aria-hidden": "true" }, b.id),
    h("div", { class: "wp-cells" }, mine.map((l) => cell(l, b))));
  });
  const fall = board.waterfall;
  return h("section", { class: "wp-board-box", "aria-label": t("wp.park"), "data-testid": "wp-park" },
    h("div", { class: "wp-board", "data-testid": "wp-board",
      style: { gridTemplateColumns: `repeat(${width}, minmax(0, 1fr))`, gridTemplateRows: rowSizes(board, height) } },
    blocks,
    fall ? h("div", { key: "falls", class: "wp-falls", title: t("wp.waterfallTitle"), "aria-label": t("wp.waterfall"),
      style: { gridColumn: `${fall.x + 1} / span ${fall.w}`, gridRow: `${fall.y + 1} / span ${fall.h}` } },
    h("span", {}, `≈ ${t("wp.falls")} ≈`)) : null));
}

/** Rows with locations get full height; path rows (no location in them) stay thin, not collapsed. */
function rowSizes(board, height) {
  const used = new Set((Array.isArray(board.locations) ? board.locations : []).map((l) => l.y));
  const rows = [];
  for (let y = 0; y < height; y++) rows.push(used.has(y) ? "auto" : "0.7rem");
  return rows.join(" ");
}

/** After a build, keep the same tile kind chosen while more of it remain. */
function keepTileChoice(view, name) {
  const p = playerAt(view, view.seat);
  const left = p && p.tiles ? (Number(p.tiles[name]) || 0) - 1 : 0;
  if (left <= 0 && ui.tile === name) ui.tile = null;
}

function renderLegend(view, ctx) {
  const players = Array.isArray(view.players) ? view.players : [];
  const attractions = Array.isArray(view.attractions) ? view.attractions : [];
  const table = view.income_table || {};
  const incomplete = Array.isArray(table.incomplete) ? table.incomplete : [];
  const complete = table.complete || {};
  return h("details", { class: "wp-legend", open: legendOpen(), "data-testid": "wp-legend",
    ontoggle: (e) => { legendChoice = e.currentTarget.open; } },
  h("summary", {}, t("wp.key")),
  h("p", { class: "wp-key" }, ...players.map((p) => [swatch(view, p.seat,
    `${p.symbol ? t("seat.markLabel", { colour: colourName(p.colour), symbol: symbolName(p.symbol) }) : colourName(p.colour)} = ${youOr(ctx, p.seat)}`), " "]),
    h("span", { class: "wp-swatch wp-own-none" }, t("wp.cell.unowned"))),
  h("p", { class: "wp-key" }, ...attractions.map((a) => [h("span", { class: "wp-code", title: tileWords(view, a.name) },
    h("b", {}, code(a.name)), ` ${tileName(a.name)} (${a.size})`), " "])),
    h("p", { class: "wp-key muted" }, t("wp.keyIncome", { incomplete: incomplete.join("/"),
      complete: ["3", "4", "5"].map((k) => complete[k]).join("/") })));
}

// The key starts open on wide screens and closed on phones; a reader's own choice then sticks.
let legendChoice = null;

function legendOpen() {
  if (legendChoice !== null) return legendChoice;
  return typeof window === "undefined" || window.innerWidth >= 700;
}

// ---- your hand (Preparation) --------------------------------------------------------------------

/** Out of bases: the revealed card waiting for a base, each own empty location that may give it
 * up (the `move_base` items of legal), and the card's return to the deck (`return_card`). */
function renderRelocation(view, ctx, legal) {
  const card = legal.returnCard.card;
  const l = ((view.board || {}).locations || []).find((x) => x.n === card);
  const me = playerAt(view, ctx.seat);
  const more = me && Array.isArray(me.waiting) ? me.waiting.length - 1 : 0;
  const moves = [...legal.moves.values()].sort((a, b) => a.from - b.from);
  return h("section", { class: "wp-panel wp-hand wp-relocate", "data-testid": "wp-relocate", "aria-label": t("wp.outOfBases") },
    h("h3", {}, t("wp.outOfBasesAt", { n: card }), l ? h("span", { class: "muted" }, ` — ${t("wp.blockLower", { id: l.block })}`) : null,
      more > 0 ? h("span", { class: "muted" }, ` ${t("wp.thenMore", { n: more })}`) : null),
    h("p", { class: "muted" }, t("wp.relocateNote")),
    h("p", { class: "wp-row wp-moves" }, h("span", {}, t("wp.moveFrom")),
      ...moves.map((a) => actButton(ctx, a, `⇡ ${a.from}`, { key: `m${a.from}`, class: "wp-move", testid: "wp-move-base",
        aria: t("wp.moveBase", { from: a.from, to: card }), title: t("wp.moveBase", { from: a.from, to: card }) }))),
    h("p", { class: "wp-row" }, actButton(ctx, legal.returnCard, `↩ ${t("wp.returnCard", { n: card })}`,
      { key: "return", class: "primary", testid: "wp-return-card" })));
}

function renderHand(view, ctx, legal) {
  if (ctx.isSpectator || view.phase !== "preparation") return null;
  if (legal.returnCard) return renderRelocation(view, ctx, legal);
  const hand = Array.isArray(view.hand) ? view.hand : [];
  if (!hand.length) return null;
  const locs = new Map(((view.board || {}).locations || []).map((l) => [l.n, l]));
  const chosen = Array.isArray(view.discarded) ? view.discarded : null;
  const can = legal.discards.size > 0;
  const cards = hand.map((n) => {
    const l = locs.get(n);
    const where = l ? t("wp.blockLower", { id: l.block }) : "";
    const picked = can ? ui.discard.includes(n) : Boolean(chosen && chosen.includes(n));
    const body = [h("span", { class: "wp-card-n" }, String(n)), h("span", { class: "wp-card-where" }, where),
      h("span", { class: "wp-card-tag" }, picked ? `✕ ${t("wp.discardTag")}` : `✔ ${t("wp.keepTag")}`)];
    const attrs = { key: n, class: `wp-card${picked ? " picked" : ""}${can ? " legal" : ""}`, "data-testid": "wp-hand-card", "data-n": n };
    if (!can) return h("div", { ...attrs, "aria-label": `${t("wp.locationCard", { n, where })}: ${picked ? t("wp.discarded") : t("wp.kept")}` }, ...body);
    return h("button", { ...attrs, type: "button", "data-legal": "true",
      "aria-pressed": String(picked), "aria-label": `${t("wp.locationCard", { n, where })} (${picked ? t("wp.pickedToDiscard") : t("wp.pressToDiscard")})`,
      onclick: () => { toggleDiscard(n); ctx.rerender(); } }, ...body);
  });
  const key = [...ui.discard].sort((a, b) => a - b).join(",");
  const action = ui.discard.length === 2 ? legal.discards.get(key) : null;
  const sched = (view.schedule || []).find((s) => s.round === view.round);
  return h("section", { class: "wp-panel wp-hand", "data-testid": "wp-hand", "aria-label": t("wp.yourCards") },
    h("h3", {}, t("wp.yourCards"), sched ? h("span", { class: "muted" }, ` — ${t("wp.keepDiscard", { keep: sched.cards - sched.discard, discard: sched.discard })}`) : null),
    h("div", { class: "wp-cards" }, ...cards),
    can ? h("p", { class: "wp-row" }, action
      ? actButton(ctx, action, `✕ ${t("wp.discardCards", { cards: listText(action.cards) })}`, { class: "primary", testid: "wp-discard", key: "discard",
        after: () => { ui.discard = []; } })
      : h("button", { type: "button", class: "wp-act", disabled: true, "data-testid": "wp-discard" }, `✕ ${t("wp.pick2")}`))
      : h("p", { class: "muted" }, chosen ? t("wp.youDiscardKept", { cards: listText(chosen) }) : ""));
}

// ---- tiles in front of each player ---------------------------------------------------------------

function renderPlayers(view, ctx, legal) {
  const players = Array.isArray(view.players) ? view.players : [];
  const me = ctx.seat;
  const order = ctx.isSpectator ? players : [...players.filter((p) => p.seat === me), ...players.filter((p) => p.seat !== me)];
  const attractions = (view.attractions || []).map((a) => a.name);
  const rows = order.map((p) => {
    const tiles = p.tiles || {};
    const chips = attractions.filter((name) => (Number(tiles[name]) || 0) > 0).map((name) => {
      const n = Number(tiles[name]);
      const inDraft = draftTiles(p.seat, name);
      const words = `${n}× ${tileWords(view, name)}`;
      const body = [h("b", {}, code(name)), ` ${tileName(name)} ×${n}`, inDraft ? h("span", { class: "wp-chip-tag" }, ` ⇄${inDraft}`) : null];
      const attrs = { key: name, class: "wp-chip", "data-testid": "wp-tile-chip", "data-seat": p.seat, "data-tile": name, title: words,
        "data-in-draft": inDraft };
      if (legal.canOffer && inDraft < n) {
        return h("button", { ...attrs, class: "wp-chip composable", type: "button", "data-compose": "true",
          "aria-label": `${who(view, ctx, p.seat)}: ${words} (${p.seat === me ? t("wp.addYours") : t("wp.addTheirs")})`,
          onclick: () => { addTile(view, me, p.seat, name); ctx.rerender(); } }, ...body, " +");
      }
      return h("span", { ...attrs, "aria-label": `${who(view, ctx, p.seat)}: ${words}${inDraft ? `, ${t("wp.inYourOffer", { n: inDraft })}` : ""}` }, ...body);
    });
    const status = view.result ? "" : p.ready ? `✔ ${t("wp.finishedPhase")}` : `◷ ${t("wp.deciding")}`;
    const coins = typeof p.coins === "number" ? t("wp.coinsN", { n: p.coins }) : t("wp.coinsSecret");
    return h("li", { key: p.seat, class: `wp-player ${colourClass(p)}${p.seat === me ? " me" : ""}`, "data-testid": "wp-player", "data-seat": p.seat },
      h("div", { class: "wp-player-head" },
        swatch(view, p.seat, named(view, ctx, p.seat)),
        h("span", { class: "muted" }, ` ${status}`)),
      h("div", { class: "wp-figures" },
        t("wp.figuresLine", { locations: p.locations, built: p.built, bases: p.bases, coins, earning: p.earning })),
      builtParts(view, p),
      h("div", { class: "wp-chips", "data-testid": "wp-tiles", "data-seat": p.seat },
        chips.length ? chips : h("span", { class: "muted" }, t("wp.noTiles"))));
  });
  return h("section", { class: "wp-panel wp-players-box", "aria-label": t("wp.playersTiles") },
    h("h3", {}, t("wp.playersTilesTitle")),
    h("ul", { class: "wp-players" }, ...rows));
}

/** A player's attractions as the income splits them: complete ones first, each with what it pays. */
function builtParts(view, p) {
  const parts = Array.isArray(p.attractions) ? [...p.attractions] : [];
  if (!parts.length) return null;
  parts.sort((a, b) => Number(b.complete) - Number(a.complete) || b.income - a.income);
  return h("div", { class: "wp-parts", "data-testid": "wp-attractions", "data-seat": p.seat },
    ...parts.map((a) => h("span", {
      key: (a.locations || []).join(","), class: `wp-part${a.complete ? " complete" : ""}`, "data-complete": String(Boolean(a.complete)),
      title: t(a.complete ? "wp.partComplete" : "wp.partIncomplete", { tile: tileName(a.tile),
        where: t("wp.locationsN", { n: a.locations.length, list: a.locations.join(", ") }), size: sizeOf(view, a.tile) ?? "?", income: a.income }),
    }, h("b", {}, code(a.tile)), ` ${a.size}${a.complete ? " ✓" : ""} +${a.income}`)));
}

// ---- Construction --------------------------------------------------------------------------------

/** Your unbuilt tiles as buttons: the kinds that legal `build` items name. */
function buildChips(view, ctx, legal) {
  const me = playerAt(view, ctx.seat) || {};
  const tiles = me.tiles || {};
  return (view.attractions || []).map((a) => a.name).filter((name) => (Number(tiles[name]) || 0) > 0).map((name) => {
    const n = Number(tiles[name]);
    const words = `${n}× ${tileWords(view, name)}`;
    const body = [h("b", {}, code(name)), ` ${tileName(name)} ×${n}`];
    const attrs = { key: name, "data-testid": "wp-tile-chip", "data-seat": ctx.seat, "data-tile": name, title: words };
    if (!legal.builds.has(name)) return h("span", { ...attrs, class: "wp-chip", "aria-label": words }, ...body);
    const sel = ui.tile === name;
    return h("button", { ...attrs, class: `wp-chip legal${sel ? " selected" : ""}`, type: "button", "data-legal": "true",
      "aria-pressed": String(sel),
      "aria-label": `${words} (${sel ? t("wp.chosenPick") : t("wp.chooseBuild")})`,
      onclick: () => { ui.tile = sel ? null : name; ctx.rerender(); } }, ...body, sel ? " ✔" : null);
  });
}

function renderConstruction(view, ctx, legal) {
  if (ctx.isSpectator || view.phase !== "construction") return null;
  const me = playerAt(view, ctx.seat) || {};
  return h("section", { class: "wp-panel wp-build", "data-testid": "wp-build", "aria-label": phaseName("construction") },
    h("h3", {}, phaseName("construction")),
    h("p", {}, legal.done
      ? (ui.tile ? t("wp.building", { tile: tileWords(view, ui.tile) })
        : legal.builds.size ? t("wp.pickTile") : t("wp.nothingBuild"))
      : t("wp.youAreDone", { n: me.built ?? 0 })),
    legal.done && tileCount(me.tiles) ? h("div", { class: "wp-chips", "data-testid": "wp-my-tiles" }, ...buildChips(view, ctx, legal)) : null,
    legal.done ? h("p", { class: "wp-row" }, actButton(ctx, legal.done, `■ ${t("wp.doneBuilding")}`, { class: "primary", testid: "wp-done", key: "done" })) : null);
}

// ---- Exchange: the docked composer, the open offers ---------------------------------------------

/**
 * The Exchange's controls, docked at the bottom of the screen while the park is in view: Ready (or
 * Not ready), how many offers wait for an answer, and the new offer being composed, which can be
 * folded to its one line. Clicks on the board and on tiles fill it; it is never out of reach.
 */
function renderDock(view, ctx, legal) {
  if (ctx.isSpectator || view.phase !== "exchange" || !(legal.ready || legal.unready)) return null;
  const waiting = [...legal.offers.values()].filter((acts) => acts.some((a) => a.type === "decline" || a.type === "accept")).length;
  const ready = legal.ready
    ? actButton(ctx, legal.ready, `✔ ${t("wp.ready")}`, { class: "primary", testid: "wp-ready", key: "ready",
      title: t("wp.readyTitle") })
    : actButton(ctx, legal.unready, `↺ ${t("wp.notReady")}`, { testid: "wp-unready", key: "unready", title: t("wp.notReadyTitle") });
  const d = draft();
  const transfers = draftTransfers(view);
  const problem = draftProblem(view, ctx.seat, transfers);
  const items = d.locations.length + d.tiles.length + Object.keys(d.coins).length;
  // a counter-offer names the offer it answers, while that is still open (the engine declines it)
  const answering = ui.counterOf !== null && view.offers && view.offers[String(ui.counterOf)] ? ui.counterOf : null;
  const action = answering !== null ? { type: "offer", transfers, counters: answering } : { type: "offer", transfers };
  const send = h("button", { key: "send", type: "button", class: "primary", "data-compose": "true", "data-testid": "wp-send-offer",
    disabled: Boolean(problem), "data-action": problem ? undefined : JSON.stringify(action), title: problem || t("wp.sendTitle"),
    onclick: async () => {
      if (draftProblem(view, ctx.seat, transfers)) return;
      const ok = await ctx.send(action);
      if (ok) { ui.draft = fresh(null).draft; ui.counterOf = null; ctx.rerender(); }
    } }, `⇄ ${answering !== null ? t("wp.sendCounter", { id: answering }) : t("wp.send")}`);
  const summary = !d.partners.length ? t("wp.newOfferEmpty")
    : `${t("wp.newOfferWith", { names: listText(d.partners.map((s) => ctx.name(s))), n: items })}${problem && dockFolded ? ` ${problem}` : ""}`;
  return h("section", { class: `wp-panel wp-dock${dockFolded ? " folded" : ""}`, "data-testid": "wp-dock", "aria-label": phaseName("exchange") },
    h("div", { class: "wp-dock-head", "data-testid": "wp-exchange" },
      ready,
      h("span", { class: "wp-dock-words" },
        waiting ? h("b", { class: "wp-waiting" }, `${t("wp.offersForYou", { n: waiting })} `) : null,
        legal.unready && !d.partners.length ? t("wp.hint.ready") : h("span", { "data-testid": "wp-draft-summary" }, summary)),
      send,
      h("button", { key: "fold", type: "button", class: "wp-fold", "data-compose": "true", "data-testid": "wp-dock-fold",
        "aria-expanded": String(!dockFolded), onclick: () => { dockFolded = !dockFolded; ctx.rerender(); } },
      dockFolded ? `▴ ${t("wp.compose")}` : `▾ ${t("wp.fold")}`)),
    legal.canOffer && !dockFolded ? renderDraft(view, ctx, transfers, problem) : null);
}

function renderOffers(view, ctx, legal) {
  const offers = Object.values(view.offers || {}).filter((o) => o && typeof o === "object").sort((a, b) => a.id - b.id);
  if (view.phase !== "exchange" && !offers.length) return null;
  const me = ctx.seat;
  const items = offers.map((o) => {
    const parties = Array.isArray(o.parties) ? o.parties : [];
    const accepted = new Set(Array.isArray(o.accepted) ? o.accepted : []);
    const mine = legal.offers.get(o.id) || [];
    const counter = legal.canOffer && !ctx.isSpectator && o.author !== me && parties.includes(me);
    const labels = { accept: `✔ ${t("wp.accept")}`, decline: `✕ ${t("wp.decline")}`, withdraw: `↶ ${t("wp.withdraw")}` };
    return h("li", { key: o.id, class: `wp-offer${parties.includes(me) ? " for-me" : ""}`, "data-testid": "wp-offer", "data-id": o.id },
      h("p", { class: "wp-offer-head" }, h("b", {}, t("wp.offerN", { id: o.id })), ` ${t("wp.by")} `, person(view, ctx, o.author)),
      h("ul", { class: "wp-transfers" }, (o.transfers || []).map((tr, i) => transferWords(view, ctx, tr, i))),
      h("p", { class: "wp-offer-parties muted" }, `${t("wp.parties")} `, ...parties.map((s, i) => [i ? ", " : "",
        person(view, ctx, s), ` ${accepted.has(s) ? `✔ ${t("wp.accepted")}` : `◷ ${t("wp.toAnswer")}`}`])),
      mine.length || counter ? h("p", { class: "wp-row" }, mine.map((a) => actButton(ctx, a, labels[a.type] || a.type,
        { testid: `wp-${a.type}`, key: a.type, class: a.type === "accept" ? "primary" : "" })),
      counter ? h("button", { key: "counter", type: "button", class: "wp-counter", "data-compose": "true", "data-testid": "wp-counter",
        title: t("wp.counterTitle"), onclick: () => counterOffer(view, ctx, o) },
      `⇄ ${t("wp.counter")}`) : null) : null);
  });
  const notices = ui.notices.map((n) => h("p", { key: `${n.kind}-${n.id}`, class: `wp-notice ${n.kind}`,
    "data-testid": n.kind === "traded" ? "wp-traded" : "wp-declined", role: "status" },
    `${n.kind === "traded" ? "✔" : "✕"} ${n.say()} `,
    h("button", { type: "button", class: "small", "data-compose": "true", "aria-label": t("wp.dismiss"),
      onclick: () => { ui.notices = ui.notices.filter((x) => x !== n); ctx.rerender(); } }, "OK")));
  return h("section", { class: "wp-panel wp-offers", "data-testid": "wp-offers", "aria-label": t("wp.offers") },
    h("h3", {}, t("wp.offers"), h("span", { class: "muted" }, ` — ${t("wp.tradesSoFar", { n: view.trades || 0 })}`)),
    notices,
    items.length ? h("ol", { class: "wp-offer-list" }, items) : h("p", { class: "muted" }, t("wp.noOffers")));
}

function coinsInput(view, ctx, from, to, max) {
  const key = `${from}>${to}`;
  const d = draft();
  const value = d.coins[key] || 0;
  const set = (n) => {
    const v = Math.max(0, Math.min(max, Math.trunc(Number(n) || 0)));
    if (v) d.coins[key] = v; else delete d.coins[key];
  };
  const step = (delta, sym) => h("button", { type: "button", class: "wp-step", "data-compose": "true",
    disabled: delta < 0 ? value <= 0 : value >= max,
    "aria-label": t(delta < 0 ? "wp.coinLess" : "wp.coinMore", { from: who(view, ctx, from), to: who(view, ctx, to) }),
    onclick: () => { set(value + delta); ctx.rerender(); } }, sym);
  return h("span", { class: "wp-coin-field" }, step(-1, "−"),
    h("input", { type: "text", inputmode: "numeric", pattern: "[0-9]*", size: 3, value: String(value),
      class: "wp-coins", "data-testid": from === ctx.seat ? "wp-coins-give" : "wp-coins-take", "data-seat": from === ctx.seat ? to : from,
      "aria-label": t("wp.coinsGiven", { from: who(view, ctx, from), to: who(view, ctx, to) }),
      oninput: (e) => { set(e.currentTarget.value.replace(/[^0-9]/g, "")); ctx.rerender(); } }),
    step(1, "+"));
}

function receiverSelect(view, ctx, item, from) {
  const d = draft();
  const choices = [ctx.seat, ...d.partners].filter((s) => s !== from);
  return h("select", { class: "wp-to", "aria-label": t("wp.whoReceives"), value: item.to === null ? "" : String(item.to),
    onchange: (e) => { item.to = e.currentTarget.value === "" ? null : Number(e.currentTarget.value); ctx.rerender(); } },
  item.to === null ? h("option", { key: "none", value: "" }, `— ${t("wp.choose")} —`) : null,
  choices.map((s) => h("option", { key: s, value: String(s) }, who(view, ctx, s))));
}

function renderDraft(view, ctx, transfers, problem) {
  const me = ctx.seat;
  const d = draft();
  const players = (view.players || []).filter((p) => p.seat !== me);
  const mine = playerAt(view, me) || {};
  const myCoins = typeof mine.coins === "number" ? mine.coins : 0;
  const open = Object.values(view.offers || {}).filter((o) => o && o.author === me).length;

  const partnerButtons = players.map((p) => {
    const on = d.partners.includes(p.seat);
    return h("button", { key: p.seat, type: "button", class: `wp-partner ${colourClass(p)}${on ? " on" : ""}`, "data-compose": "true",
      "data-testid": "wp-partner", "data-seat": p.seat, "aria-pressed": String(on),
      onclick: () => {
        if (on) {
          d.partners = d.partners.filter((s) => s !== p.seat);
          d.locations = d.locations.filter((it) => it.from !== p.seat && it.to !== p.seat);
          d.tiles = d.tiles.filter((it) => it.from !== p.seat && it.to !== p.seat);
          for (const it of [...d.locations, ...d.tiles]) if (it.to === null) it.to = defaultReceiver(it.from, me);
        } else {
          involve(p.seat, me);
        }
        pruneDraft(view, me);
        ctx.rerender();
      } }, on ? "✔ " : "", h("span", { "aria-hidden": "true" }, p.glyph), ` ${ctx.name(p.seat)}`);
  });

  const itemRows = [
    ...d.locations.map((it) => h("li", { key: `loc-${it.n}` },
      `${t("wp.locationFrom", { n: it.n, who: who(view, ctx, it.from) })} `, receiverSelect(view, ctx, it, it.from), " ",
      h("button", { type: "button", class: "wp-step", "data-compose": "true",
        "aria-label": t("wp.takeOutLocation", { n: it.n }),
        onclick: () => { d.locations = d.locations.filter((x) => x !== it); ctx.rerender(); } }, "✕"))),
    ...d.tiles.map((it) => h("li", { key: `tile-${it.from}-${it.name}` },
      `${t("wp.tilesFrom", { n: it.count, tile: tileName(it.name), code: code(it.name), who: who(view, ctx, it.from) })} `,
      receiverSelect(view, ctx, it, it.from), " ",
      h("button", { type: "button", class: "wp-step", "data-compose": "true",
        "aria-label": t("wp.oneLess", { tile: tileName(it.name) }),
        onclick: () => { it.count -= 1; if (it.count <= 0) d.tiles = d.tiles.filter((x) => x !== it); ctx.rerender(); } }, "−1"))),
  ];
  const coinRows = d.partners.map((s) => h("li", { key: s },
    h("span", {}, `${t("wp.youGive", { name: ctx.name(s) })} `), coinsInput(view, ctx, me, s, myCoins), ` ${t("wp.coins")} · `,
    h("span", {}, `${t("wp.givesYou", { name: ctx.name(s) })} `), coinsInput(view, ctx, s, me, 10000), ` ${t("wp.coins")}`));

  return h("div", { class: "wp-draft", "data-testid": "wp-draft", "aria-label": t("wp.aNewOffer") },
    h("p", { class: "muted" }, t("wp.draftNote", { n: open, max: view.max_offers ?? "?" })),
    h("p", { class: "wp-row" }, h("span", {}, `${t("wp.tradeWith")} `), partnerButtons),
    itemRows.length ? h("ul", { class: "wp-items" }, itemRows) : null,
    coinRows.length ? h("ul", { class: "wp-items" }, coinRows) : null,
    transfers.length ? h("div", { class: "wp-preview" }, h("b", {}, `${t("wp.yourOffer")} `),
      h("ul", { class: "wp-transfers" }, transfers.map((tr, i) => transferWords(view, ctx, tr, i)))) : null,
    problem ? h("p", { class: "wp-problem", "data-testid": "wp-draft-problem" }, problem) : null,
    h("p", { class: "wp-row" },
      h("button", { type: "button", "data-compose": "true", "data-testid": "wp-clear-offer",
        disabled: !d.partners.length && !itemRows.length,
        onclick: () => { ui.draft = fresh(null).draft; ctx.rerender(); } }, t("wp.clear"))));
}

// ---- incomes, and the final table ------------------------------------------------------------------

/** The incomes announced each round and the coins: during the game under the park, at the end as
 * the end screen's final table (with the final coins and the tie-break). */
function incomeTable(view, ctx) {
  const players = Array.isArray(view.players) ? view.players : [];
  const rounds = view.rounds || 4;
  const result = view.result;
  const winners = new Set(result && Array.isArray(result.winners) ? result.winners : []);
  const onBoard = result && Array.isArray(result.tiles_on_board) ? result.tiles_on_board : null;
  const scores = result && Array.isArray(result.scores) ? result.scores : null;
  const head = [h("th", { key: "p" }, t("end.player"))];
  for (let r = 1; r <= rounds; r++) head.push(h("th", { key: `r${r}`, title: t("ff.round", { n: r }) }, t("wp.roundShort", { n: r })));
  head.push(h("th", { key: "coins" }, result ? t("wp.finalCoins") : t("wp.coinsHead")));
  if (!result) head.push(h("th", { key: "now", title: t("wp.nowTitle") }, t("wp.now")));
  if (onBoard) head.push(h("th", { key: "board", title: t("wp.tieBreak") }, t("wp.tilesOnBoard")));
  const order = scores ? players.slice().sort((a, b) => scores[b.seat] - scores[a.seat]
    || (onBoard ? onBoard[b.seat] - onBoard[a.seat] : 0) || a.seat - b.seat) : players;
  const rows = order.map((p) => {
    const inc = Array.isArray(p.income) ? p.income : [];
    const cells = [h("th", { key: "p", scope: "row" }, winners.has(p.seat) ? "♛ " : "", person(view, ctx, p.seat))];
    for (let r = 0; r < rounds; r++) cells.push(h("td", { key: `r${r}` }, r < inc.length ? `+${inc[r]}` : "—"));
    const coins = scores ? scores[p.seat] : p.coins;
    cells.push(h("td", { key: "coins", class: "wp-coins-cell" }, typeof coins === "number" ? String(coins) : t("wp.secret")));
    if (!result) cells.push(h("td", { key: "now" }, String(p.earning ?? 0)));
    if (onBoard) cells.push(h("td", { key: "board" }, String(onBoard[p.seat] ?? "")));
    return h("tr", { key: p.seat, class: winners.has(p.seat) ? "winner" : undefined, "data-seat": p.seat }, cells);
  });
  return h("div", { class: "scroll" }, h("table", {}, h("thead", {}, h("tr", {}, head)), h("tbody", {}, rows)));
}

function renderIncome(view, ctx) {
  if (view.result) return null; // the end screen shows it, with the final coins
  return h("section", { class: "wp-panel wp-income", "data-testid": "wp-income" },
    h("h3", {}, t("wp.incomeTitle")),
    incomeTable(view, ctx),
    h("p", { class: "muted" }, t("wp.incomeNote")));
}

function finalTable(view, ctx) {
  const winners = view.result && Array.isArray(view.result.winners) ? view.result.winners : [];
  // Under .wpark, so that the table's own styles (the colour badges, the coins) apply on the end screen.
  return h("div", { class: "wpark wp-final", "data-testid": "wp-final" },
    incomeTable(view, ctx),
    h("p", { class: "muted" }, winners.length > 1 ? t("wp.sharedVictory") : t("wp.winRule")));
}

// ---- the log in words ----------------------------------------------------------------------------

const COLOUR_RE = /\b(Pink|Yellow|Blue|Green|Red)\b/g;

/**
 * One log entry in words: each colour that names a seat ("Pink gives Yellow…") becomes that
 * player's name with their colour as its badge. The one place where this game's log is put into
 * words (the Moves panel and the replay's captions).
 */
function logWords(line, view, ctx) {
  const text = typeof line === "string" ? line : String((line && line.text) || "");
  const seats = new Map((Array.isArray(view.players) ? view.players : []).map((p) => [p.colour, p.seat]));
  const parts = [];
  let last = 0;
  for (const m of text.matchAll(COLOUR_RE)) {
    if (!seats.has(m[1])) continue;
    parts.push(text.slice(last, m.index), person(view, ctx, seats.get(m[1])));
    last = m.index + m[1].length;
  }
  parts.push(text.slice(last));
  return parts;
}

function info(view) {
  const sched = (view.schedule || []).find((s) => s.round === view.round);
  return h("p", { class: "wp-info" },
    h("span", { "data-testid": "wp-round" }, t("wp.round", { round: Math.min(view.round ?? 1, view.rounds ?? 4), rounds: view.rounds ?? 4 })),
    ` · ${phaseName(view.phase)}`,
    sched && !view.result ? ` · ${t("wp.thisRound", { cards: sched.cards, discard: sched.discard, tiles: sched.tiles })}` : "",
    ` · ${t("wp.decks", { deck: view.deck ?? "?", tiles: view.tile_deck ?? "?" })}`);
}

export default {
  id: "waterfall_park",
  title: "Waterfall Park",
  get summary() { return t("summary.waterfall_park"); },

  phaseText(view) {
    const vars = { round: view.round ?? "?", rounds: view.rounds ?? 4 };
    const waiting = (view.players || []).some((p) => p && Array.isArray(p.waiting) && p.waiting.length);
    const key = view.phase === "preparation" && waiting ? "wp.phase.relocate" : `wp.phase.${view.phase}`;
    return known(key) ? t(key, vars) : String(view.phase || "").replace(/_/g, " ");
  },

  figures(player) {
    const out = [`${player.glyph || ""} ${player.colour ? colourName(player.colour) : ""}`.trim()];
    if (typeof player.coins === "number") out.push(t("wp.coinsN", { n: player.coins }));
    out.push(t("wp.locationsCount", { n: player.locations ?? 0 }), t("wp.builtCount", { n: player.built ?? 0 }));
    const income = Array.isArray(player.income) ? player.income : [];
    if (income.length) out.push(t("wp.incomeList", { list: income.map((n) => `+${n}`).join(" ") }));
    const tiles = tileCount(player.tiles);
    if (tiles) out.push(t("wp.tilesInHand", { n: tiles }));
    return out;
  },

  logWords,
  logSeat: person,
  finalTable,

  /**
   * The hub relays the engine's public events (docs/protocol.md): a decline of one of this player's
   * offers is said at once, as a notice and above the offers, not only as a line of the log.
   */
  onEvent(f, ctx) {
    if (!f || ctx.isSpectator) return;
    const o = seenOffers.get(`${lastRound}:${f.offer}`);
    // a notice says itself when drawn, so that it follows a change of language
    let say = null;
    let kind = null;
    if (f.kind === "declined" && o && o.author === ctx.seat) {
      kind = "declined";
      say = () => (Number.isInteger(f.countered)
        ? t("wp.declinedCounter", { name: ctx.name(f.seat), id: f.offer, counter: f.countered })
        : t("wp.declined", { name: ctx.name(f.seat), id: f.offer }));
    } else if (f.kind === "trade" && o && Array.isArray(o.parties) && o.parties.includes(ctx.seat)) {
      // the deal is done: the offer leaves the list, so say so, with what changed hands for this player
      kind = "traded";
      say = () => t("wp.traded", { id: f.offer, what: tradeWords(o, ctx) });
    }
    if (!say) return;
    ui.notices = [...ui.notices.filter((n) => n.id !== f.offer), { id: f.offer, kind, say }];
    toast(say());
    ctx.rerender();
  },

  render(view, ctx) {
    const key = `${ctx.room}:${ctx.seat}:${view.round}:${view.phase}`;
    if (ui.key !== key) ui = fresh(key);
    const legal = readLegal(view);
    if (!legal.discards.size) ui.discard = [];
    if (ui.tile && !legal.builds.has(ui.tile)) ui.tile = null;
    if (!ui.tile && legal.builds.size === 1) ui.tile = [...legal.builds.keys()][0];
    if (!ctx.isSpectator) pruneDraft(view, ctx.seat);
    noteOffers(view);

    return h("div", { class: `wpark phase-${view.phase}${ctx.isSpectator ? " spectating" : ""}`, "data-testid": "wpark",
      onkeydown: (e) => {
        if (e.key === "Escape" && (ui.tile || ui.discard.length)) { ui.tile = null; ui.discard = []; ctx.rerender(); }
      } },
    info(view),
    h("p", { class: "wp-hint", "data-testid": "hint", role: "status" }, hint(view, ctx, legal)),
    renderHand(view, ctx, legal),
    renderConstruction(view, ctx, legal),
    // The park, then what is composed on it: docked to the bottom of the screen while the park shows.
    h("div", { class: "wp-stage" }, renderBoard(view, ctx, legal), renderDock(view, ctx, legal)),
    renderLegend(view, ctx),
    renderOffers(view, ctx, legal),
    renderPlayers(view, ctx, legal),
    renderIncome(view, ctx));
  },
};
