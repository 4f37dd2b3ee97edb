// The Symbiose table, drawn from the view alone (the view contract of rules/symbiose/).
//
// A pond is 2 rows x 4 columns, slot = row * 4 + col. Column 0 scores the pond on the owner's
// left, column 3 the pond on the owner's right, the two middle columns the owner's own pond.
// Only items of view.legal can be chosen: a flip is one click on a highlighted face-down slot; a
// swap is two, first a river card, then one of the pond slots the legal list pairs it with.

import { h } from "../ui.js";
import { catalogueCard } from "../words.js";

const COLOURS = {
  blue: { sym: "◆", word: "blue" },
  green: { sym: "▲", word: "green" },
  orange: { sym: "●", word: "orange" },
  purple: { sym: "★", word: "purple" },
};
const ANIMALS = { frog: "frog", snail: "snail", dragonfly: "dragonfly", fish: "fish" };
const TEAM_NAMES = ["Team ◆ A", "Team ▲ B"];
const COLUMN_NAMES = ["left column", "centre column", "centre column", "right column"];

// The river card chosen for a swap, until a pond slot completes it. Kept per seat and round so a
// selection never survives into a turn where it means nothing.
let selection = { key: null, river: null };

function colourOf(c) {
  return COLOURS[c] || { sym: "■", word: String(c ?? "?") };
}

/**
 * A face-up slot's card: the view names it by its kind's id (a face-down slot is null), the
 * catalogue says what it shows. Views recorded before slots were bare ids held `{up, card}`.
 */
function cardOf(slot) {
  const id = slot !== null && typeof slot === "object" ? (slot.up ? slot.card : null) : slot;
  return id !== undefined && id !== null ? catalogueCard("symbiose", id) : null;
}

function valueText(card) {
  const v = card.value || {};
  if (v.kind === "fixed") return `${v.points} points`;
  if (v.kind === "per_animal") return `${v.points} per ${v.animal}`;
  if (v.kind === "per_colour") return `${v.points} per ${v.colour} card`;
  return "";
}

function cardWords(slot) {
  const c = cardOf(slot);
  if (!c) return "face-down card";
  return `${colourOf(c.colour).word} ${ANIMALS[c.animal] || c.animal}, ${valueText(c)}`;
}

/** The face of one slot: a card or its back, with an optional points badge at scoring. */
function face(slot, points) {
  const parts = [];
  const c = cardOf(slot);
  if (c) {
    const col = colourOf(c.colour);
    const kind = c.value && c.value.kind === "fixed" ? "fixed" : "cond";
    parts.push(
      h("span", { class: "c-colour" }, h("span", { class: "sym", "aria-hidden": "true" }, col.sym), ` ${col.word}`),
      h("span", { class: "c-animal" }, ANIMALS[c.animal] || String(c.animal)),
      h("span", { class: `c-value ${kind}` }, valueText(c)));
  } else {
    parts.push(h("span", { class: "c-back", "aria-hidden": "true" }, "✿"), h("span", { class: "c-down" }, "face down"));
  }
  if (points !== undefined && points !== null) {
    parts.push(h("span", { class: `c-points${points ? "" : " zero"}`, "data-testid": "slot-points" }, `+${points}`));
  }
  return parts;
}

function slotClass(slot) {
  const c = cardOf(slot);
  if (c) return `slot up colour-${String(c.colour)}`;
  return "slot down";
}

function neighbourName(ctx, who) {
  if (who === "river") return "the River";
  if (who === null || who === undefined) return "nobody";
  if (who === ctx.seat) return "you";
  return ctx.name(who);
}

function relation(view, ctx, seat) {
  if (ctx.isSpectator || seat === ctx.seat) return "";
  const me = (view.players || []).find((p) => p.seat === ctx.seat) || {};
  const them = (view.players || []).find((p) => p.seat === seat) || {};
  const words = [];
  const partner = me.team !== null && me.team !== undefined && me.team === them.team;
  if (partner) words.push("your partner");
  if (me.left === seat && me.right === seat) words.push(partner ? "both your side columns score this pond" : "your left and right neighbour");
  else if (me.left === seat) words.push("your left neighbour");
  else if (me.right === seat) words.push("your right neighbour");
  if (!words.length) words.push("opponent");
  return words.join(", ");
}

/** What each move a seat may make now means: flips by slot, swaps by river card. */
function readLegal(view) {
  const flips = new Map();
  const swaps = new Map();
  for (const a of Array.isArray(view.legal) ? view.legal : []) {
    if (!a || typeof a !== "object") continue;
    if (a.type === "flip" && Number.isInteger(a.slot)) flips.set(a.slot, a);
    if (a.type === "swap" && Number.isInteger(a.river) && Number.isInteger(a.slot)) {
      if (!swaps.has(a.river)) swaps.set(a.river, new Map());
      swaps.get(a.river).set(a.slot, a);
    }
  }
  return { flips, swaps };
}

function renderRiver(view, ctx, legal) {
  const river = Array.isArray(view.river) ? view.river : [];
  const chosen = selection.river;
  const cells = river.map((slot, j) => {
    const can = legal.swaps.has(j);
    const attrs = {
      class: `${slotClass(slot)}${can ? " legal" : ""}${chosen === j ? " selected" : ""}`,
      "data-testid": "river-slot", "data-index": j,
    };
    if (!can) return h("div", { ...attrs, key: j, "aria-label": `River ${j + 1}: ${cardWords(slot)}` }, ...face(slot));
    return h("button", {
      ...attrs, key: j, type: "button", "data-legal": "true",
      "aria-pressed": chosen === j ? "true" : "false",
      "aria-label": `River ${j + 1}: ${cardWords(slot)}${chosen === j ? " (chosen; choose it again to cancel)" : " (choose to take it)"}`,
      onclick: () => {
        selection.river = chosen === j ? null : j;
        ctx.rerender();
      },
    }, ...face(slot), chosen === j ? h("span", { class: "c-tag" }, "✔ chosen") : null);
  });
  return h("section", { class: "river-box", "aria-label": "The River" },
    h("h3", {}, `The River`, h("span", { class: "muted" }, ` ${river.length} cards`)),
    h("div", { class: `river n${river.length}`, "data-testid": "river" }, ...cells));
}

function columnHeads(view, ctx, seat) {
  const p = (view.players || []).find((x) => x.seat === seat) || {};
  const self = seat === ctx.seat ? "your own pond" : "own pond";
  return [
    h("div", { class: "col-head side" }, `◀ scores ${neighbourName(ctx, p.left)}`),
    h("div", { class: "col-head centre" }, `scores ${self}`),
    h("div", { class: "col-head centre" }, `scores ${self}`),
    h("div", { class: "col-head side" }, `scores ${neighbourName(ctx, p.right)} ▶`),
  ];
}

function renderPond(view, ctx, seat, legal, scoring) {
  const pond = Array.isArray(view.ponds) && Array.isArray(view.ponds[seat]) ? view.ponds[seat] : [];
  const mine = seat === ctx.seat;
  const score = scoring ? scoring.find((s) => s && s.seat === seat) : null;
  const targets = mine && selection.river !== null && legal.swaps.has(selection.river)
    ? legal.swaps.get(selection.river) : null;
  const cells = pond.map((slot, i) => {
    const row = Math.floor(i / 4) + 1;
    const col = (i % 4) + 1;
    const flip = mine ? legal.flips.get(i) : undefined;
    const swap = targets ? targets.get(i) : undefined;
    const action = flip || swap;
    const points = score && Array.isArray(score.slots) ? score.slots[i] : undefined;
    const attrs = {
      class: `${slotClass(slot)}${action ? " legal" : ""}${swap ? " target" : ""}`,
      "data-testid": "pond-slot", "data-seat": seat, "data-slot": i,
    };
    const where = `${mine ? "Your" : `${ctx.name(seat)}’s`} pond, row ${row} column ${col}`;
    if (!action) return h("div", { ...attrs, key: i, "aria-label": `${where}: ${cardWords(slot)}` }, ...face(slot, points));
    const verb = flip ? "flip it face up" : `swap it with river card ${selection.river + 1}`;
    return h("button", {
      ...attrs, key: i, type: "button", "data-legal": "true",
      "aria-label": `${where}: ${cardWords(slot)} (${verb})`,
      onclick: async () => {
        const ok = await ctx.send(action);
        if (ok) selection.river = null;
      },
    }, ...face(slot, points), h("span", { class: "c-tag" }, flip ? "↻ flip" : "⇄ swap here"));
  });
  const title = mine ? `Your pond (seat ${seat})` : `${ctx.name(seat)} (seat ${seat})`;
  const rel = relation(view, ctx, seat);
  const p = (view.players || []).find((x) => x.seat === seat) || {};
  return h("section", { key: seat, class: `pond-box${mine ? " mine" : ""}${(view.active || []).includes(seat) ? " active" : ""}`,
    "data-testid": mine ? "my-pond" : "pond", "data-seat": seat, "aria-label": title },
  h("h3", {}, (view.active || []).includes(seat) && !view.result ? "▶ " : "", title,
    rel ? h("span", { class: "relation" }, ` — ${rel}`) : null,
    p.team !== null && p.team !== undefined ? h("span", { class: "team" }, ` ${TEAM_NAMES[p.team] || `Team ${p.team}`}`) : null),
  h("div", { class: "pond" }, ...columnHeads(view, ctx, seat), ...cells,
    ...(score && Array.isArray(score.columns)
      ? score.columns.map((pts, c) => h("div", { key: `total-${c}`, class: "col-total", "data-testid": "col-total" },
        h("span", { class: "muted" }, COLUMN_NAMES[c]), ` ${pts}`))
      : [])),
  score ? h("p", { class: "pond-total" }, fixedInColumns(score)
    ? `Total ${score.total} points, of which ${score.fixed} from fixed cards`
    : `Columns ${score.total - score.fixed} + fixed cards ${score.fixed} = ${score.total} points`) : null);
}

/**
 * Whether a seat's column figures already include its fixed cards (then "fixed" is a part of the
 * total, shown as "of which") or come on top of them (then it is one more addend).
 */
function fixedInColumns(s) {
  const cols = Array.isArray(s.columns) ? s.columns.reduce((a, b) => a + b, 0) : 0;
  return cols === s.total;
}

/** Team totals, the final table of a team game (its seats' own totals end the step-by-step scoring). */
function teamTable(view) {
  const teams = view.result && Array.isArray(view.result.teams) ? view.result.teams : null;
  if (!teams) return null;
  const best = Math.max(...teams);
  return h("table", { class: "final-table", "data-testid": "team-totals" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Team"), h("th", { scope: "col" }, "Points"))),
    h("tbody", {}, teams.map((t, i) => h("tr", { key: i, class: t === best ? "winner" : undefined },
      h("th", { scope: "row" }, t === best ? "♛ " : "", TEAM_NAMES[i] || `Team ${i}`),
      h("td", { class: "num" }, String(t))))));
}

function hint(view, ctx, legal) {
  if (view.result) return "The game is over: each card shows the points it scored (+n), the scoring is above.";
  if (ctx.isSpectator) return "You are watching: every face-up card is shown, face-down ones stay hidden.";
  if (!(view.active || []).includes(ctx.seat)) {
    return `Waiting for ${(view.active || []).map((s) => ctx.name(s)).join(", ") || "the others"}.`;
  }
  if (view.phase === "flip") return "Your first turn: flip one of your face-down cards (highlighted).";
  if (view.phase === "forced_flip") return "You swapped a face-up card away: now flip one of your face-down cards.";
  if (view.phase === "swap") {
    if (selection.river === null) return "Choose a card of the River, then the slot of your pond to swap it into.";
    return `Now choose the slot of your pond for river card ${selection.river + 1} (choose the river card again, or press Esc, to cancel).`;
  }
  return legal.flips.size || legal.swaps.size ? "Choose a highlighted card." : "";
}

export default {
  id: "symbiose",
  title: "Symbiose",
  summary: `Each player has a pond of 8 cards in 2 rows of 4, dealt face down. On your first turn you flip one of them. On each later turn you take a card from the River and put it in your pond, face up, in place of any of your cards; the card you replaced goes to the River face up. If that card was already face up, you must then flip one of your face-down cards. Everyone plays 8 turns.

At the end, fixed cards score their points wherever they lie. The other cards score for a board that depends on their column: the left column counts cards in the pond of the player on your left, the right column the pond on your right, the two middle columns your own pond. A "2 per dragonfly" card in your left column scores 2 for each dragonfly your left neighbour has. The highest total wins.

Duel (the rulebook's rules for 2 players, and the default with 2): the River has 8 cards, 4 face down, and it scores as a third board for the column next to it. Standard with 2 players is a variant of this site's, not the rulebook's: a River of 4 face-up cards, and both side columns score your opponent's pond. Teams (4 players): partners sit across; both side columns score your partner's pond, and team totals decide.`,

  phaseText(view) {
    return {
      flip: "First turn: flip a card",
      swap: "Swap with the River",
      forced_flip: "Flip a card after a face-up swap",
      over: "Final scoring",
    }[view.phase] || String(view.phase || "").replace(/_/g, " ");
  },

  /** The final scoring column by column, as the frame reveals it step by step. */
  scoreSteps(view) {
    const scoring = Array.isArray(view.scoring) ? view.scoring : null;
    if (!scoring || !view.result || !Array.isArray(view.result.scores)) return null;
    const by = (seat) => scoring.find((s) => s && s.seat === seat);
    const seats = view.result.scores.map((_, s) => s);
    const col = (seat, ...cs) => {
      const s = by(seat);
      return s && Array.isArray(s.columns) ? cs.reduce((a, c) => a + (Number(s.columns[c]) || 0), 0) : null;
    };
    const included = scoring.every(fixedInColumns);
    const steps = [];
    if (!included) steps.push({ label: "Fixed cards", points: seats.map((s) => (by(s) ? by(s).fixed : null)) });
    steps.push(
      { label: "◀ Left column", note: "scores the pond on the left", points: seats.map((s) => col(s, 0)) },
      { label: "Centre columns", note: "score the own pond", points: seats.map((s) => col(s, 1, 2)) },
      { label: "Right column ▶", note: "scores the pond on the right", points: seats.map((s) => col(s, 3)) });
    if (included) {
      steps[steps.length - 1].note += "; fixed cards count where they lie";
    }
    return steps;
  },

  figures(player, view) {
    const out = [];
    const name = (s) => (s === "river" ? "the River" : (view.players || []).find((p) => p.seat === s)?.name || `Seat ${s}`);
    if (player.team !== null && player.team !== undefined) out.push(TEAM_NAMES[player.team] || `team ${player.team}`);
    if (player.left !== undefined) out.push(`◀ ${name(player.left)}`);
    if (player.right !== undefined) out.push(`${name(player.right)} ▶`);
    if (player.score !== null && player.score !== undefined) out.push(`${player.score} points`);
    else if (typeof player.showing === "number") out.push(`${player.showing} points showing`);
    return out;
  },

  finalTable(view) {
    return teamTable(view);
  },

  render(view, ctx) {
    const key = `${ctx.room}:${ctx.seat}:${view.round}:${view.phase}`;
    if (selection.key !== key) selection = { key, river: null };
    const legal = readLegal(view);
    if (selection.river !== null && !legal.swaps.has(selection.river)) selection.river = null;
    const scoring = Array.isArray(view.scoring) ? view.scoring : null;
    const seats = (view.players || []).map((p) => p.seat);
    const others = ctx.isSpectator ? seats : seats.filter((s) => s !== ctx.seat);
    const mode = { standard: seats.length === 2 ? "Standard (a 2-player variant: both side columns score your opponent)" : "Standard",
      duel: "Duel (2 players, the River scores too)", team: "Teams (partners sit across)" }[view.mode] || view.mode;

    return h("div", { class: "symbiose", onkeydown: (e) => {
      if (e.key === "Escape" && selection.river !== null) { selection.river = null; ctx.rerender(); }
    } },
    h("p", { class: "sym-info" },
      h("span", {}, `Mode: ${mode}`), " · ",
      h("span", { "data-testid": "round" }, `Round ${Math.min(view.round ?? 1, view.rounds ?? 8)} of ${view.rounds ?? 8}`),
      typeof view.deck === "number" ? [" · ", h("span", {}, `${view.deck} cards left in the deck`)] : null),
    h("p", { class: "hint", "data-testid": "hint", role: "status" }, hint(view, ctx, legal)),
    renderRiver(view, ctx, legal),
    ctx.isSpectator ? null : renderPond(view, ctx, ctx.seat, legal, scoring),
    h("div", { class: "others" }, others.map((s) => renderPond(view, ctx, s, legal, scoring))));
  },
};
