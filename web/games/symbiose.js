// The Symbiose table, drawn from the view alone (the view contract of rules/symbiose/).
//
// A pond is 2 rows x 4 columns, slot = row * 4 + col. Column 0 scores the pond on the owner's
// left, column 3 the pond on the owner's right, the two middle columns the owner's own pond.
// Only items of view.legal can be chosen: a flip is one click on a highlighted face-down slot; a
// swap is two, first a river card, then one of the pond slots the legal list pairs it with.

import { h } from "../ui.js";
import { catalogueCard, known, listText, t, wordOr } from "../words.js";

const COLOURS = { blue: { sym: "◆" }, green: { sym: "▲" }, orange: { sym: "●" }, purple: { sym: "★" } };
const TEAM_MARKS = ["◆ A", "▲ B"];
const COLUMN_KEYS = ["sym.colLeft", "sym.colCentre", "sym.colCentre", "sym.colRight"];

const colourWord = (c) => wordOr(`sym.colour.${c}`, c);
const animalWord = (a) => wordOr(`sym.animal.${a}`, a);
const teamName = (i) => t("sym.team", { team: TEAM_MARKS[i] || String(i) });

// The river card chosen for a swap, until a pond slot completes it. Kept per seat and round so a
// selection never survives into a turn where it means nothing.
let selection = { key: null, river: null };

function colourOf(c) {
  return { sym: (COLOURS[c] || { sym: "■" }).sym, word: colourWord(c) };
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
  if (v.kind === "fixed") return t("sym.value.fixed", { n: v.points });
  if (v.kind === "per_animal") return t("sym.value.perAnimal", { n: v.points, animal: animalWord(v.animal) });
  if (v.kind === "per_colour") return t("sym.value.perColour", { n: v.points, colour: colourWord(v.colour) });
  return "";
}

function cardWords(slot) {
  const c = cardOf(slot);
  if (!c) return t("sym.faceDownCard");
  return t("sym.cardWords", { colour: colourWord(c.colour), animal: animalWord(c.animal), value: valueText(c) });
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
      h("span", { class: "c-animal" }, animalWord(c.animal)),
      h("span", { class: `c-value ${kind}` }, valueText(c)));
  } else {
    parts.push(h("span", { class: "c-back", "aria-hidden": "true" }, "✿"), h("span", { class: "c-down" }, t("sym.faceDown")));
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
  if (who === "river") return t("sym.theRiver");
  if (who === null || who === undefined) return t("grab.nobody");
  if (who === ctx.seat) return t("sym.you");
  return ctx.name(who);
}

function relation(view, ctx, seat) {
  if (ctx.isSpectator || seat === ctx.seat) return "";
  const me = (view.players || []).find((p) => p.seat === ctx.seat) || {};
  const them = (view.players || []).find((p) => p.seat === seat) || {};
  const words = [];
  const partner = me.team !== null && me.team !== undefined && me.team === them.team;
  if (partner) words.push(t("sym.partner"));
  if (me.left === seat && me.right === seat) words.push(partner ? t("sym.bothSides") : t("sym.leftRight"));
  else if (me.left === seat) words.push(t("sym.left"));
  else if (me.right === seat) words.push(t("sym.right"));
  if (!words.length) words.push(t("sym.opponent"));
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
    if (!can) return h("div", { ...attrs, key: j, "aria-label": `${t("sym.riverN", { n: j + 1 })}: ${cardWords(slot)}` }, ...face(slot));
    return h("button", {
      ...attrs, key: j, type: "button", "data-legal": "true",
      "aria-pressed": chosen === j ? "true" : "false",
      "aria-label": `${t("sym.riverN", { n: j + 1 })}: ${cardWords(slot)} ${chosen === j ? t("sym.chosenCancel") : t("sym.chooseTake")}`,
      onclick: () => {
        selection.river = chosen === j ? null : j;
        ctx.rerender();
      },
    }, ...face(slot), chosen === j ? h("span", { class: "c-tag" }, `✔ ${t("sym.chosen")}`) : null);
  });
  return h("section", { class: "river-box", "aria-label": t("sym.river") },
    h("h3", {}, t("sym.river"), h("span", { class: "muted" }, ` ${t("sym.cards", { n: river.length })}`)),
    h("div", { class: `river n${river.length}`, "data-testid": "river" }, ...cells));
}

function columnHeads(view, ctx, seat) {
  const p = (view.players || []).find((x) => x.seat === seat) || {};
  const self = seat === ctx.seat ? t("sym.yourOwnPond") : t("sym.ownPond");
  return [
    h("div", { class: "col-head side" }, `◀ ${t("sym.scores", { what: neighbourName(ctx, p.left) })}`),
    h("div", { class: "col-head centre" }, t("sym.scores", { what: self })),
    h("div", { class: "col-head centre" }, t("sym.scores", { what: self })),
    h("div", { class: "col-head side" }, `${t("sym.scores", { what: neighbourName(ctx, p.right) })} ▶`),
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
    const where = mine ? t("sym.whereMine", { row, col }) : t("sym.where", { name: ctx.name(seat), row, col });
    if (!action) return h("div", { ...attrs, key: i, "aria-label": `${where}: ${cardWords(slot)}` }, ...face(slot, points));
    const verb = flip ? t("sym.flipIt") : t("sym.swapIt", { n: selection.river + 1 });
    return h("button", {
      ...attrs, key: i, type: "button", "data-legal": "true",
      "aria-label": `${where}: ${cardWords(slot)} (${verb})`,
      onclick: async () => {
        const ok = await ctx.send(action);
        if (ok) selection.river = null;
      },
    }, ...face(slot, points), h("span", { class: "c-tag" }, flip ? `↻ ${t("sym.flip")}` : `⇄ ${t("sym.swapHere")}`));
  });
  const title = mine ? t("sym.yourPond", { seat }) : `${ctx.name(seat)} (${t("frame.seatN", { seat })})`;
  const rel = relation(view, ctx, seat);
  const p = (view.players || []).find((x) => x.seat === seat) || {};
  return h("section", { key: seat, class: `pond-box${mine ? " mine" : ""}${(view.active || []).includes(seat) ? " active" : ""}`,
    "data-testid": mine ? "my-pond" : "pond", "data-seat": seat, "aria-label": title },
  h("h3", {}, (view.active || []).includes(seat) && !view.result ? "▶ " : "", title,
    rel ? h("span", { class: "relation" }, ` — ${rel}`) : null,
    p.team !== null && p.team !== undefined ? h("span", { class: "team" }, ` ${teamName(p.team)}`) : null),
  h("div", { class: "pond" }, ...columnHeads(view, ctx, seat), ...cells,
    ...(score && Array.isArray(score.columns)
      ? score.columns.map((pts, c) => h("div", { key: `total-${c}`, class: "col-total", "data-testid": "col-total" },
        h("span", { class: "muted" }, t(COLUMN_KEYS[c])), ` ${pts}`))
      : [])),
  score ? h("p", { class: "pond-total" }, fixedInColumns(score)
    ? t("sym.totalOfWhich", { total: score.total, fixed: score.fixed })
    : t("sym.totalSum", { cols: score.total - score.fixed, fixed: score.fixed, total: score.total })) : null);
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
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("sym.teamHead")), h("th", { scope: "col" }, t("end.points")))),
    h("tbody", {}, teams.map((total, i) => h("tr", { key: i, class: total === best ? "winner" : undefined },
      h("th", { scope: "row" }, total === best ? "♛ " : "", teamName(i)),
      h("td", { class: "num" }, String(total))))));
}

function hint(view, ctx, legal) {
  if (view.result) return t("sym.hint.over");
  if (ctx.isSpectator) return t("sym.hint.watching");
  if (!(view.active || []).includes(ctx.seat)) {
    return t("frame.waitingFor", { others: listText((view.active || []).map((s) => ctx.name(s))) || t("sym.theOthers") });
  }
  if (view.phase === "flip") return t("sym.hint.flip");
  if (view.phase === "forced_flip") return t("sym.hint.forced");
  if (view.phase === "swap") {
    if (selection.river === null) return t("sym.hint.swap");
    return t("sym.hint.slot", { n: selection.river + 1 });
  }
  return legal.flips.size || legal.swaps.size ? t("sym.hint.choose") : "";
}

export default {
  id: "symbiose",
  title: "Symbiose",
  get summary() { return t("summary.symbiose"); },

  phaseText(view) {
    return known(`sym.phase.${view.phase}`) ? t(`sym.phase.${view.phase}`) : String(view.phase || "").replace(/_/g, " ");
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
    if (!included) steps.push({ label: t("sym.step.fixed"), points: seats.map((s) => (by(s) ? by(s).fixed : null)) });
    steps.push(
      { label: `◀ ${t("sym.step.left")}`, note: t("sym.step.leftNote"), points: seats.map((s) => col(s, 0)) },
      { label: t("sym.step.centre"), note: t("sym.step.centreNote"), points: seats.map((s) => col(s, 1, 2)) },
      { label: `${t("sym.step.right")} ▶`, note: t("sym.step.rightNote"), points: seats.map((s) => col(s, 3)) });
    if (included) {
      steps[steps.length - 1].note += `; ${t("sym.step.fixedWhere")}`;
    }
    return steps;
  },

  figures(player, view) {
    const out = [];
    const name = (s) => (s === "river" ? t("sym.theRiver") : (view.players || []).find((p) => p.seat === s)?.name || t("seat.name", { seat: s }));
    if (player.team !== null && player.team !== undefined) out.push(teamName(player.team));
    if (player.left !== undefined) out.push(`◀ ${name(player.left)}`);
    if (player.right !== undefined) out.push(`${name(player.right)} ▶`);
    if (player.score !== null && player.score !== undefined) out.push(t("sym.points", { n: player.score }));
    else if (typeof player.showing === "number") out.push(t("sym.showing", { n: player.showing }));
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
    const modeKey = view.mode === "standard" && seats.length === 2 ? "sym.mode.standard2" : `sym.mode.${view.mode}`;
    const mode = known(modeKey) ? t(modeKey) : view.mode;

    return h("div", { class: "symbiose", onkeydown: (e) => {
      if (e.key === "Escape" && selection.river !== null) { selection.river = null; ctx.rerender(); }
    } },
    h("p", { class: "sym-info" },
      h("span", {}, t("sym.mode", { mode })), " · ",
      h("span", { "data-testid": "round" }, t("sym.round", { round: Math.min(view.round ?? 1, view.rounds ?? 8), rounds: view.rounds ?? 8 })),
      typeof view.deck === "number" ? [" · ", h("span", {}, t("sym.deckLeft", { n: view.deck }))] : null),
    h("p", { class: "hint", "data-testid": "hint", role: "status" }, hint(view, ctx, legal)),
    renderRiver(view, ctx, legal),
    ctx.isSpectator ? null : renderPond(view, ctx, ctx.seat, legal, scoring),
    h("div", { class: "others" }, others.map((s) => renderPond(view, ctx, s, legal, scoring))));
  },
};
