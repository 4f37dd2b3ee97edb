// The Frenzy Falls table, drawn from the view alone (the view contract of docs/frenzy_falls.md).
//
// The Pools are rows, Pool 1 at the top: the Score card first, then the Waterfall cards left to
// right. Every choice the game asks for is made on the board where it applies: a hand card then a
// Pool to play it to; a hand card to replace a PROXY; the card left or right of a BUMP; any card of
// another Pool for a PULL; one's own card of a spilled Pool; the hand cards to discard at round end.
// Only items of view.legal are ever sent, and only elements that lead to one are buttons.
//
// The Waterfall type of a card is its card back, so it is public: each type has a colour, a
// symbol and a letter, and no colour is ever shown without the other two.

import { h, stylesheet } from "../ui.js";
import { playerTag } from "../frame.js";
import { catalogueCard, catalogueScore, listText, t, t as tr } from "../words.js";

// Loaded once, by this module, so the shared stylesheet needs no Frenzy Falls rules.
await stylesheet(new URL("./frenzy_falls.css", import.meta.url).href, "frenzy_falls");

const FALLS = {
  Mountain: { sym: "▲", letter: "M", key: "mountain", back: "rocks", css: "#8a6a55" },
  Glacier: { sym: "❄", letter: "G", key: "glacier", back: "ice wall", css: "#2b8fbf" },
  Desert: { sym: "Ψ", letter: "D", key: "desert", back: "cactus", css: "#c27c0e" },
  Forest: { sym: "♣", letter: "F", key: "forest", back: "tree", css: "#2f7d32" },
  Coastal: { sym: "≈", letter: "C", key: "coastal", back: "palm tree", css: "#3d4fb8" },
  Tropical: { sym: "✿", letter: "T", key: "tropical", back: "hibiscus", css: "#c2185b" },
};
const FALLS_RE = /\b(Mountain|Glacier|Desert|Forest|Coastal|Tropical)\b/g;
const SPILL_AT = 10;

// What the player has picked on the way to a complete action: a hand card to play, or the hand
// cards to discard. Kept per room, seat, round and phase (and hand size), so a selection never
// survives into a moment where it means something else.
let selection = { key: null, card: null, discard: new Set() };

// --- reading the view -------------------------------------------------------------------------

function playerAt(view, seat) {
  return (Array.isArray(view.players) ? view.players : []).find((p) => p && p.seat === seat) || null;
}

function fallsOf(view, seat) {
  const p = playerAt(view, seat);
  const name = p && FALLS[p.falls] ? p.falls : null;
  return name ? { ...FALLS[name], name: t(`ff.falls.${FALLS[name].key}`) }
    : { name: t("seat.name", { seat }), sym: "■", letter: String(seat), key: "unknown", back: "card" };
}

function nameOf(view, ctx, seat) {
  if (seat === ctx.seat) return t("sym.you");
  const p = playerAt(view, seat);
  return (p && p.name) ? String(p.name) : fallsOf(view, seat).name;
}

function pools(view) {
  return Array.isArray(view.pools) ? view.pools : [];
}

/** The Pool a card moves down to: the next one with a Score card, looping; null if none. */
function below(view, pool) {
  const list = pools(view);
  for (let step = 1; step < list.length; step++) {
    const target = (pool + step) % list.length;
    if (list[target] && list[target].score) return target;
  }
  return null;
}

/** Each kind of legal action, indexed the way the board asks for it. */
function readLegal(view) {
  const out = { play: new Map(), proxy: new Map(), bump: new Map(), pull: new Map(), spill: new Map(), discard: new Map() };
  for (const a of Array.isArray(view.legal) ? view.legal : []) {
    if (!a || typeof a !== "object") continue;
    if (a.type === "play" && Number.isInteger(a.card) && Number.isInteger(a.pool)) {
      if (!out.play.has(a.card)) out.play.set(a.card, new Map());
      out.play.get(a.card).set(a.pool, a);
    } else if (a.type === "proxy" && Number.isInteger(a.card)) out.proxy.set(a.card, a);
    else if (a.type === "bump" && (a.side === "left" || a.side === "right")) out.bump.set(a.side, a);
    else if (a.type === "pull" && Number.isInteger(a.pool) && Number.isInteger(a.pos)) out.pull.set(`${a.pool}:${a.pos}`, a);
    else if (a.type === "spill" && Number.isInteger(a.pos)) out.spill.set(a.pos, a);
    else if (a.type === "discard" && Array.isArray(a.cards)) out.discard.set(discardKey(a.cards), a);
  }
  return out;
}

function discardKey(cards) {
  return [...cards].map(Number).sort((x, y) => x - y).join(",");
}

// --- small pieces -----------------------------------------------------------------------------

/** A Waterfall type as symbol, letter and word: never a colour alone. */
function fallsChip(view, ctx, seat) {
  const f = fallsOf(view, seat);
  return h("span", { class: `ff-chip falls-${f.key}`, "data-seat": seat },
    h("span", { class: "ff-sym", "aria-hidden": "true" }, `${f.sym}${f.letter}`), ` ${f.name}`);
}

/** A player's deck as a badge: its symbol and letter, its Waterfall type for screen readers. */
function deckBadge(view, seat) {
  const f = fallsOf(view, seat);
  return h("span", { class: `ff-chip ff-badge falls-${f.key}`, "data-seat": seat, title: t("ff.deckOf", { falls: f.name }) },
    h("span", { "aria-hidden": "true" }, `${f.sym}${f.letter}`), h("span", { class: "sr-only" }, t("ff.deckOf", { falls: f.name })));
}

/** A player by name, their deck as the badge before it: how the moves and the tables name people. */
function who(view, ctx, seat) {
  const p = playerAt(view, seat);
  const name = p && p.name ? String(p.name) : fallsOf(view, seat).name;
  return playerTag(name, deckBadge(view, seat), { you: seat === ctx.seat });
}

function cardWords(card) {
  if (!card || card.water === undefined) return t("ff.aFaceDownCard");
  const act = card.action ? `${card.action}, ` : "";
  return `${act}${t("ff.cardWords", { water: card.water, influence: card.influence })}`;
}

function influenceIcons(n) {
  const k = Math.max(0, Math.min(6, Number(n) || 0));
  return "✦".repeat(k) || "–";
}

/**
 * One Waterfall card's face: owner (symbol + letter), water, influence, action. A face-down card of
 * someone else shows only its back; one's own face-down card shows its face, marked as hidden.
 */
function cardBody(view, ctx, card, { hand = false } = {}) {
  const seat = hand ? ctx.seat : card.seat;
  const f = fallsOf(view, seat);
  const known = card.water !== undefined;
  const parts = [h("span", { class: "ff-owner", "aria-hidden": "true" }, `${f.sym} ${f.letter}`)];
  if (known) {
    parts.push(
      h("span", { class: "ff-water" }, String(card.water), h("small", {}, ` ${t("ff.water")}`)),
      h("span", { class: "ff-infl", title: t("ff.influenceN", { n: card.influence }) },
        h("span", { class: "ff-icons", "aria-hidden": "true" }, influenceIcons(card.influence)),
        h("small", {}, ` ${card.influence} ${t("ff.infl")}`)),
      card.action ? h("span", { class: `ff-act act-${String(card.action).toLowerCase()}` }, String(card.action)) : null);
  } else {
    parts.push(h("span", { class: "ff-back", "aria-hidden": "true" }, f.sym), h("span", { class: "ff-down" }, t("sym.faceDown")));
  }
  if (!hand && card.up === false && known) parts.push(h("span", { class: "ff-hidden-tag" }, `◌ ${t("ff.onlyYou")}`));
  return parts;
}

function cardClass(view, ctx, card, { hand = false } = {}) {
  const seat = hand ? ctx.seat : card.seat;
  const cls = ["ff-card", `falls-${fallsOf(view, seat).key}`];
  if (!hand && card.up === false) cls.push(card.water !== undefined ? "down mine-down" : "down");
  if (seat === ctx.seat) cls.push("mine");
  return cls;
}

function cardLabel(view, ctx, card, where, { hand = false } = {}) {
  const seat = hand ? ctx.seat : card.seat;
  const owner = seat === ctx.seat ? t("ff.yours") : `${fallsOf(view, seat).name} (${nameOf(view, ctx, seat)})`;
  if (hand) return `${where}: ${cardWords(card)}`;
  if (card.up === false && card.water === undefined) return `${where}: ${t("ff.labelDown", { owner })}`;
  if (card.up === false) return `${where}: ${t("ff.labelMineDown", { owner })}: ${cardWords(card)}`;
  return `${where}: ${t("ff.labelUp", { owner })}, ${cardWords(card)}`;
}

/**
 * A card that is a button when `action` (or `onclick`) is given, a plain box otherwise. Buttons
 * carry data-legal="true" and a word saying what pressing them does.
 */
function cardEl(view, ctx, card, { where, hand = false, tag = null, onclick = null, key, extraClass = [], pressed, testid, data = {} }) {
  const cls = [...cardClass(view, ctx, card, { hand }), ...extraClass];
  const body = cardBody(view, ctx, card, { hand });
  const label = cardLabel(view, ctx, card, where, { hand });
  const attrs = { key, "data-testid": testid };
  for (const [k, v] of Object.entries(data)) attrs[`data-${k}`] = v;
  if (!onclick) return h("div", { ...attrs, class: cls.join(" "), role: "img", "aria-label": label }, ...body);
  return h("button", {
    ...attrs, type: "button", class: [...cls, "legal"].join(" "), "data-legal": "true",
    "aria-pressed": pressed === undefined ? undefined : String(Boolean(pressed)),
    "aria-label": `${label}${tag ? ` (${tag})` : ""}`, onclick,
  }, ...body, tag ? h("span", { class: "ff-tag" }, tag) : null);
}

// --- the board --------------------------------------------------------------------------------

function scoreCardEl(pool, index) {
  const s = pool.score;
  if (!s) {
    return h("div", { class: "ff-score none", role: "img", "aria-label": t("ff.noScoreLeft", { n: index + 1 }) },
      h("span", { class: "ff-s-pts" }, "✕"), h("small", {}, t("ff.noScore")));
  }
  return h("div", { class: "ff-score", role: "img", "data-testid": "score-card",
    "aria-label": t("ff.scoreLabel", { n: index + 1, points: s.points, water: s.water }) },
  h("span", { class: "ff-s-pts" }, `★ ${s.points}`), h("small", {}, t("ff.pointsWord", { n: s.points })),
  h("span", { class: "ff-s-water" }, t("ff.waterN", { n: s.water })));
}

/** Visible influence of each seat in a Pool, and how many face-down cards each still has there. */
function influenceLine(view, ctx, pool) {
  const by = new Map();
  for (const c of Array.isArray(pool.cards) ? pool.cards : []) {
    if (!by.has(c.seat)) by.set(c.seat, { shown: 0, down: 0 });
    const e = by.get(c.seat);
    if (c.up) e.shown += Number(c.influence) || 0;
    else e.down += 1;
  }
  if (!by.size) return null;
  return h("p", { class: "ff-influence" }, h("span", { class: "muted" }, `${t("ff.influence")} `),
    ...[...by.entries()].map(([seat, e], i) => [i ? " · " : "",
      deckBadge(view, seat), ` ${e.shown}`, e.down ? h("span", { class: "muted" }, ` +${e.down} ${t("sym.faceDown")}`) : null]));
}

function waterMeter(pool) {
  if (!pool.score) return h("span", { class: "ff-meter closed", "data-testid": "pool-water" }, `✕ ${t("ff.neverSpills")}`);
  const water = Number(pool.water) || 0;
  const down = (Array.isArray(pool.cards) ? pool.cards : []).filter((c) => !c.up).length;
  const pct = Math.min(100, Math.round((water / SPILL_AT) * 100));
  const full = water >= SPILL_AT;
  return h("span", { class: `ff-meter${full ? " full" : ""}`, "data-testid": "pool-water" },
    h("span", { class: "ff-bar", "aria-hidden": "true" }, h("span", { style: { width: `${pct}%` } })),
    h("span", {}, `${full ? "⚠ " : ""}${water} / ${SPILL_AT} ${t("ff.water")}`),
    down ? h("span", { class: "muted" }, ` +${down} ${t("sym.faceDown")}`) : null);
}

function poolRow(view, ctx, legal, index) {
  const pool = pools(view)[index];
  const cards = Array.isArray(pool.cards) ? pool.cards : [];
  const pending = view.pending && typeof view.pending === "object" ? view.pending : null;
  const spill = view.spill && typeof view.spill === "object" ? view.spill : null;
  const revealing = view.reveal && view.reveal.pool === index;
  const mineToAct = pending && pending.seat === ctx.seat;
  const notes = [];

  const cells = cards.map((card, pos) => {
    const where = t("ff.poolCard", { n: index + 1, pos: pos + 1 });
    const common = { where, key: pos, testid: "pool-card", data: { pool: index, pos } };
    const extra = [];
    if (pending && pending.pool === index && pending.pos === pos && pending.kind !== "spill") extra.push("resolving");
    // A BUMP's neighbours.
    if (pending && pending.kind === "bump" && pending.pool === index && (pos === pending.pos - 1 || pos === pending.pos + 1)) {
      const side = pos === pending.pos - 1 ? "left" : "right";
      const act = legal.bump.get(side);
      if (act) {
        const t = below(view, index);
        return cardEl(view, ctx, card, { ...common, extraClass: extra,
          tag: `⇩ ${side === "left" ? tr("ff.bumpLeft", { n: t === null ? "?" : t + 1 }) : tr("ff.bumpRight", { n: t === null ? "?" : t + 1 })}`,
          onclick: () => ctx.send(act) });
      }
    }
    const pull = pending && pending.kind === "pull" ? legal.pull.get(`${index}:${pos}`) : undefined;
    if (pull) {
      return cardEl(view, ctx, card, { ...common, extraClass: extra,
        tag: `⇧ ${tr("ff.pullTo", { n: pending.pool + 1 })}`, onclick: () => ctx.send(pull) });
    }
    const sp = spill && spill.pool === index ? legal.spill.get(pos) : undefined;
    if (sp) {
      const t = below(view, index);
      return cardEl(view, ctx, card, { ...common, extraClass: extra,
        tag: t === null ? `✕ ${tr("ff.discardIt")}` : `⇩ ${tr("ff.moveTo", { n: t + 1 })}`, onclick: () => ctx.send(sp) });
    }
    return cardEl(view, ctx, card, { ...common, extraClass: extra });
  });

  // Playing: once a hand card is chosen, every Pool it may go to offers "play here" at its end.
  let drop = null;
  if (selection.card !== null && legal.play.has(selection.card)) {
    const act = legal.play.get(selection.card).get(index);
    if (act) {
      drop = h("button", { key: "drop", type: "button", class: "ff-drop legal", "data-legal": "true", "data-testid": "play-here",
        "data-pool": index,
        "aria-label": t("ff.playToLabel", { n: index + 1 }),
        onclick: async () => { if (await ctx.send(act)) selection.card = null; } },
      h("span", { "aria-hidden": "true" }, "▼"), ` ${t("ff.playHere")}`, h("small", {}, t("ff.endOf", { n: index + 1 })));
    }
  }

  if (revealing && !spill) notes.push(h("span", { class: "ff-note reveal" }, `◉ ${t("ff.revealHere")}`));
  if (spill && spill.pool === index) {
    notes.push(h("span", { class: "ff-note spill" }, `≋ ${t("ff.spilledOver")} `,
      who(view, ctx, spill.winner), ` ${t("ff.wonScore")}`));
  }
  if (pending && pending.pool === index && pending.kind !== "spill") {
    notes.push(h("span", { class: "ff-note act" }, `⚡ ${t("ff.actionOf", { action: pending.kind.toUpperCase() })} `,
      who(view, ctx, pending.seat), mineToAct ? `: ${t("ff.yourChoice")}` : ` ${t("ff.resolving")}`));
  }
  if (pending && pending.kind === "pull" && mineToAct && pending.pool === index) {
    notes.push(h("span", { class: "ff-note target" }, `⇧ ${t("ff.pulledHere")}`));
  }

  const classes = ["ff-pool"];
  if (revealing) classes.push("revealing");
  if (spill && spill.pool === index) classes.push("spilled");
  if (!pool.score) classes.push("closed");
  return h("section", { key: index, class: classes.join(" "), "data-testid": "pool", "data-pool": index, "aria-label": t("ff.pool", { n: index + 1 }) },
    h("header", { class: "ff-pool-head" },
      h("h3", {}, t("ff.pool", { n: index + 1 })),
      waterMeter(pool),
      ...notes),
    h("div", { class: "ff-row" },
      scoreCardEl(pool, index),
      cells,
      cells.length ? null : h("span", { class: "ff-empty muted" }, t("ff.noCardYet")),
      drop),
    influenceLine(view, ctx, pool));
}

function handPanel(view, ctx, legal) {
  if (ctx.isSpectator) return null;
  const hand = Array.isArray(view.hand) ? view.hand : [];
  const phase = view.phase;
  const discarding = Array.isArray(view.discarding) ? new Set(view.discarding) : null;
  const pending = view.pending;
  const cells = hand.map((card, i) => {
    const common = { where: t("ff.handCard", { n: i + 1 }), hand: true, key: i, testid: "hand-card", data: { index: i } };
    if (phase === "play" && legal.play.has(i)) {
      const chosen = selection.card === i;
      return cardEl(view, ctx, card, { ...common, pressed: chosen, extraClass: chosen ? ["selected"] : [],
        tag: chosen ? `✔ ${t("ff.chosenPick")}` : t("ff.chooseToPlay"),
        onclick: () => { selection.card = chosen ? null : i; ctx.rerender(); } });
    }
    if (phase === "proxy" && legal.proxy.has(i)) {
      const act = legal.proxy.get(i);
      return cardEl(view, ctx, card, { ...common,
        tag: `⇄ ${t("ff.replacesProxy", { n: pending ? pending.pool + 1 : "?" })}`, onclick: () => ctx.send(act) });
    }
    if (phase === "discard" && legal.discard.size) {
      const on = selection.discard.has(i);
      return cardEl(view, ctx, card, { ...common, pressed: on, extraClass: on ? ["selected", "to-discard"] : [],
        tag: on ? `✕ ${t("ff.toDiscard")}` : `✓ ${t("ff.keep")}`,
        onclick: () => { if (on) selection.discard.delete(i); else selection.discard.add(i); ctx.rerender(); } });
    }
    const extra = discarding && discarding.has(i) ? ["to-discard"] : [];
    return cardEl(view, ctx, card, { ...common, extraClass: extra });
  });

  // The same choice of Pool as "Play here" at each Pool's end, next to the hand: on a phone the
  // Pools may be a long scroll away from the card just chosen.
  let playTo = null;
  if (phase === "play" && selection.card !== null && legal.play.has(selection.card)) {
    const targets = [...legal.play.get(selection.card).entries()].sort((a, b) => a[0] - b[0]);
    playTo = h("div", { class: "ff-play-to", "data-testid": "play-to-row" }, h("span", {}, `${t("ff.playItTo")} `),
      ...targets.map(([p, act]) => h("button", { key: p, type: "button", class: "ff-pool-button legal", "data-legal": "true",
        "data-testid": "play-to", "data-pool": p,
        "aria-label": t("ff.playToLabel", { n: p + 1 }),
        onclick: async () => { if (await ctx.send(act)) selection.card = null; } }, `▼ ${t("ff.pool", { n: p + 1 })}`)));
  }
  let confirm = null;
  if (phase === "discard" && legal.discard.size) {
    const key = discardKey(selection.discard);
    const act = legal.discard.get(key);
    const n = selection.discard.size;
    if (act) {
      confirm = h("button", { type: "button", class: "primary ff-confirm legal", "data-legal": "true", "data-testid": "discard-confirm",
        onclick: async () => { if (await ctx.send(act)) selection.discard = new Set(); } },
      n ? `✕ ${t("ff.discardN", { n })}` : `✓ ${t("ff.keepAll")}`);
    }
  }
  const p = playerAt(view, ctx.seat) || {};
  const title = h("h3", {}, `${t("ff.yourHand")} `, fallsChip(view, ctx, ctx.seat),
    h("span", { class: "muted" }, ` ${t("sym.cards", { n: hand.length })} · ${t("ff.deckN", { n: p.deck ?? "?" })} · ${t("ff.pileN", { n: p.discard ?? "?" })}`));
  const discardNote = discarding
    ? h("p", { class: "ff-chosen", "data-testid": "discard-chosen" }, discarding.size
      ? t("ff.youDiscard", { n: discarding.size }) : t("ff.youKeep"))
    : null;
  const pile = Array.isArray(view.discard_pile) ? view.discard_pile : [];
  return h("section", { class: "ff-hand-box", "data-testid": "hand", "aria-label": t("ff.yourHand") },
    title,
    h("div", { class: "ff-row ff-hand" }, ...cells, cells.length ? null : h("span", { class: "muted" }, t("ff.handEmpty"))),
    playTo,
    confirm ? h("div", { class: "ff-confirm-row" }, confirm) : null,
    discardNote,
    pile.length ? h("details", { class: "ff-pile" }, h("summary", {}, t("ff.yourPile", { n: pile.length })),
      h("div", { class: "ff-row small" }, ...pile.map((c, i) => cardEl(view, ctx, c, { key: i, where: t("ff.pileCard", { n: i + 1 }), hand: true })))) : null);
}

function scoreboard(view, ctx) {
  const players = Array.isArray(view.players) ? view.players : [];
  const active = new Set(Array.isArray(view.active) ? view.active : []);
  const winners = new Set(view.result && Array.isArray(view.result.winners) ? view.result.winners : []);
  return h("div", { class: "ff-scoreboard scroll", "data-testid": "ff-scoreboard" },
    h("table", {},
      h("thead", {}, h("tr", {}, h("th", {}, t("end.player")), h("th", {}, t("end.points")), h("th", {}, t("ff.scoreCards")),
        h("th", {}, t("ff.hand")), h("th", {}, t("ff.toPlay")))),
      h("tbody", {}, ...players.map((p) => h("tr", {
        key: p.seat,
        class: [active.has(p.seat) && !view.result ? "active" : "", winners.has(p.seat) ? "winner" : "", p.seat === ctx.seat ? "me" : ""].join(" ").trim(),
        "data-seat": p.seat,
      },
      h("th", { scope: "row" }, winners.has(p.seat) ? "♛ " : active.has(p.seat) && !view.result ? "▶ " : "",
        who(view, ctx, p.seat), p.first ? h("span", { class: "ff-first", title: t("ff.firstCard") }, ` ① ${t("ff.first")}`) : null),
      h("td", { class: "num" }, `★ ${p.points ?? 0}`),
      h("td", { class: "num" }, String(p.score_cards ?? 0)),
      h("td", { class: "num" }, String(p.hand ?? 0)),
      h("td", { class: "num" }, String(p.to_play ?? 0)))))));
}

// --- the log ----------------------------------------------------------------------------------

function logKind(text) {
  if (/^Round \d+(:| ends)|^The game begins/.test(text)) return ["round", "●"];
  if (/^The game is over/.test(text)) return ["over", "♛"];
  if (/spills over/.test(text)) return ["spill", "≋"];
  if (/plays a card face down/.test(text)) return ["play", "▸"];
  if (/reveals/.test(text)) return ["reveal", "◉"];
  if (/PROXY|BUMP|PULL/.test(text)) return ["action", "⚡"];
  if (/moves .* to the end of Pool/.test(text)) return ["cascade", "⤵"];
  if (/Back to Pool 1|reveal begins/.test(text)) return ["pass", "↺"];
  if (/Score card|game ends/.test(text)) return ["score", "★"];
  return ["other", "·"];
}

/** The symbol of a log entry's kind (an entry of data: its words come from web/i18n/). */
const MARKS = {
  begins: ["round", "●"], round: ["round", "●"], round_ends: ["round", "●"], over: ["over", "♛"],
  spills: ["spill", "≋"], plays: ["play", "▸"], reveals: ["reveal", "◉"], proxy: ["action", "⚡"],
  proxy_stays: ["action", "⚡"], bump: ["action", "⚡"], bump_nothing: ["action", "⚡"], pull: ["action", "⚡"],
  pull_nothing: ["action", "⚡"], cascade: ["cascade", "⤵"], cascade_discards: ["cascade", "⤵"],
  pass: ["pass", "↺"], reveal_begins: ["pass", "↺"], new_score: ["score", "★"], last_round: ["score", "★"],
};

function logMark(entry) {
  const [kind, sym] = MARKS[entry[0]] || ["other", "·"];
  return h("span", { class: `ff-log-sym ff-log-${kind}`, "aria-hidden": "true" }, sym);
}

/**
 * A line stored as text before log entries were data, in words: its kind's symbol, then the text with each Waterfall type that names a
 * player ("Desert plays…") turned into that player's name with their deck as its badge. The one
 * place where this game's log is put into words (the Moves panel and the replay's captions).
 */
function logWords(line, view, ctx) {
  const text = typeof line === "string" ? line : String((line && line.text) || "");
  const seatsByFalls = new Map((Array.isArray(view.players) ? view.players : []).map((p) => [p.falls, p.seat]));
  const [kind, sym] = logKind(text);
  const parts = [h("span", { class: `ff-log-sym ff-log-${kind}`, "aria-hidden": "true" }, sym), " "];
  let last = 0;
  for (const m of text.matchAll(FALLS_RE)) {
    parts.push(text.slice(last, m.index));
    const seat = seatsByFalls.get(m[1]);
    parts.push(seat === undefined ? m[1] : who(view, ctx, seat));
    last = m.index + m[1].length;
  }
  parts.push(text.slice(last));
  return parts;
}

// --- words ------------------------------------------------------------------------------------

function hint(view, ctx, legal) {
  if (view.result) return t("ff.hint.over");
  if (view.phase === "waiting") return t("ff.hint.waiting");
  const pending = view.pending;
  const mine = Array.isArray(view.active) && view.active.includes(ctx.seat);
  // A spectator reads the phase and whose turn it is in the header: a hint that said it again, after
  // the same sentence every time ("You are watching: …"), only pushed the table down.
  if (ctx.isSpectator) return null;
  if (!mine) {
    const who = listText((view.active || []).map((s) => nameOf(view, ctx, s))) || t("frame.theTable");
    return t("ff.hint.waitingFor", { who, what: phaseWords(view, ctx) });
  }
  const pool = pending && Number.isInteger(pending.pool) ? pending.pool : 0;
  const spilled = view.spill && Number.isInteger(view.spill.pool) ? view.spill.pool : 0;
  switch (view.phase) {
    case "play":
      return selection.card === null ? t("ff.hint.play") : t("ff.hint.pool");
    case "proxy":
      return t("ff.hint.proxy", { n: pool + 1 });
    case "bump": {
      const to = below(view, pool);
      return t("ff.hint.bump", { n: pool + 1, to: to === null ? "?" : to + 1 });
    }
    case "pull":
      return t("ff.hint.pull", { n: pool + 1 });
    case "spill": {
      const to = below(view, spilled);
      return t("ff.hint.spill", { n: spilled + 1, to: to === null ? t("ff.yourPileWord") : t("ff.pool", { n: to + 1 }) });
    }
    case "discard":
      return t("ff.hint.discard");
    default:
      return legal ? t("ff.hint.choose") : "";
  }
}

function phaseWords(view, ctx) {
  const p = view.pending || {};
  // "you" and a name take different verbs in both languages: a key for each
  const by = (seat, key, vars) => (seat === ctx.seat ? t(`${key}.you`, vars) : t(key, { who: nameOf(view, ctx, seat), ...vars }));
  switch (view.phase) {
    case "play": return by(Array.isArray(view.active) ? view.active[0] : null, "ff.phase.play", {});
    case "proxy": return by(p.seat, "ff.phase.proxy", { n: p.pool + 1 });
    case "bump": return by(p.seat, "ff.phase.bump", { n: p.pool + 1 });
    case "pull": return by(p.seat, "ff.phase.pull", { n: p.pool + 1 });
    case "spill": return by(p.seat, "ff.phase.spill", { n: (view.spill || {}).pool + 1 });
    case "discard": return t("ff.phase.discard");
    case "over": return t("ff.phase.over");
    default: return String(view.phase || "").replace(/_/g, " ");
  }
}

/** The end screen's final table: points and Score cards, best first. */
function finalTable(view, ctx) {
  const r = view.result;
  if (!r) return null;
  const scores = Array.isArray(r.scores) ? r.scores : [];
  const cards = Array.isArray(r.score_cards) ? r.score_cards : [];
  const winners = new Set(Array.isArray(r.winners) ? r.winners : []);
  const order = scores.map((_, s) => s).sort((a, b) => (scores[b] - scores[a]) || ((cards[b] ?? 0) - (cards[a] ?? 0)) || (a - b));
  return h("div", { class: "ff-final", "data-testid": "ff-final" },
    h("div", { class: "scroll" }, h("table", { class: "final-table" },
      h("thead", {}, h("tr", {}, h("th", {}, t("end.player")), h("th", {}, t("end.points")), h("th", {}, t("ff.scoreCards")))),
      h("tbody", {}, order.map((s) => h("tr", { key: s, class: winners.has(s) ? "winner" : undefined, "data-seat": s },
        h("th", { scope: "row" }, winners.has(s) ? "♛ " : "", who(view, ctx, s)),
        h("td", { class: "num" }, `★ ${scores[s]}`), h("td", { class: "num" }, String(cards[s] ?? "?"))))))),
    h("p", { class: "muted" }, t("ff.tieRule")));
}


// The view names a card by its kind's id in the catalogue (docs/frenzy_falls.md); the table reads each
// view once into faces, so the drawing below sees water, influence and action. A view recorded
// before cards were ids already holds its faces, and passes through unchanged.
const withFacesOf = new WeakMap();

function cardFace(id) {
  return catalogueCard("frenzy_falls", id) || {};
}

function scoreFace(id) {
  if (id === null || id === undefined || typeof id === "object") return id ?? null;
  return catalogueScore("frenzy_falls", id) || { water: "?", points: "?" };
}

function withFaces(view) {
  if (!view || typeof view !== "object") return view;
  let v = withFacesOf.get(view);
  if (v) return v;
  const card = (c) => (c && typeof c === "object" && "card" in c ? { ...c, ...cardFace(c.card) } : c);
  const ids = (list) => (Array.isArray(list) ? list.map((k) => (typeof k === "object" ? k : cardFace(k))) : list);
  v = {
    ...view,
    pools: Array.isArray(view.pools)
      ? view.pools.map((p) => (p ? { ...p, score: scoreFace(p.score), cards: (p.cards || []).map(card) } : p)) : view.pools,
    hand: ids(view.hand),
    discard_pile: ids(view.discard_pile),
  };
  withFacesOf.set(view, v);
  return v;
}

export default {
  id: "frenzy_falls",
  title: "Frenzy Falls",
  get summary() { return t("summary.frenzy_falls"); },

  phaseText(raw, ctx) {
    const view = withFaces(raw);
    const round = Number.isInteger(view.round) ? t("ff.roundPrefix", { n: view.round }) : "";
    if (view.phase === "over") return t("ff.gameOver");
    const w = phaseWords(view, ctx);
    return `${round}${w.charAt(0).toUpperCase()}${w.slice(1)}`;
  },

  figures(player, view) {
    const f = FALLS[player.falls];
    const out = [];
    if (f) out.push(`${f.sym}${f.letter} ${t("ff.fallsOf", { falls: t(`ff.falls.${f.key}`) })}`);
    out.push(`★ ${t("sym.points", { n: player.points ?? 0 })}`, t("ff.scoreCardsN", { n: player.score_cards ?? 0 }));
    out.push(t("ff.counts", { hand: player.hand ?? 0, deck: player.deck ?? 0, discard: player.discard ?? 0 }));
    if (player.first) out.push(`① ${t("ff.firstPlayer")}`);
    if (player.to_play && view.phase === "play") out.push(t("ff.toPlayN", { n: player.to_play }));
    return out;
  },

  logWords,
  logMark,
  logSeat: who,
  finalTable,

  /** A seat's mark in the players list and the seat badge is its deck, as in the moves. */
  seatColour(view, seat) {
    const p = playerAt(view, seat);
    const f = p && FALLS[p.falls];
    return f ? { name: p.falls, symbol: `${f.sym}${f.letter}`, word: t("ff.deck"), css: f.css, ink: "#fff" } : null;
  },

  render(raw, ctx) {
    const view = withFaces(raw);
    const hand = Array.isArray(view.hand) ? view.hand : [];
    const key = `${ctx.room}:${ctx.seat}:${view.round}:${view.phase}:${hand.length}`;
    if (selection.key !== key) selection = { key, card: null, discard: new Set() };
    const legal = readLegal(view);
    if (selection.card !== null && !legal.play.has(selection.card)) selection.card = null;
    for (const i of [...selection.discard]) if (!(i >= 0 && i < hand.length)) selection.discard.delete(i);
    // With one card to play, there is nothing to choose: that card is already picked.
    if (view.phase === "play" && selection.card === null && legal.play.size === 1) selection.card = [...legal.play.keys()][0];

    const n = pools(view).length;
    const info = [
      h("span", { "data-testid": "ff-round" }, t("ff.round", { n: view.round ?? "?" })),
      " · ", h("span", {}, t("ff.scoreDeck", { n: view.score_deck ?? "?" })),
      view.reveal ? [" · ", h("span", {}, t("ff.revealPass", { pass: view.reveal.pass, n: view.reveal.pool + 1 }))] : null,
    ];
    return h("div", { class: "ff", "data-phase": view.phase, onkeydown: (e) => {
      if (e.key === "Escape" && (selection.card !== null || selection.discard.size)) {
        selection.card = null; selection.discard = new Set(); ctx.rerender();
      }
    } },
    h("p", { class: "ff-info" }, ...info),
    view.end_triggered && !view.result ? h("p", { class: "ff-warn", "data-testid": "end-triggered" },
      `⚑ ${t("ff.lastRound")}`) : null,
    h("p", { class: "ff-hint", "data-testid": "hint", role: "status" }, hint(view, ctx, legal)),
    h("div", { class: "ff-pools", "data-testid": "pools" }, Array.from({ length: n }, (_, i) => poolRow(view, ctx, legal, i))),
    handPanel(view, ctx, legal),
    // At the end the end screen's final table says it all; during the game this is the score.
    view.result ? null : scoreboard(view, ctx));
  },
};
