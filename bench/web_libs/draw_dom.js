// The baseline: the whole table built anew with document.createElement on each delta and swapped
// in, which is how the client drew before it used a library.
import { noop } from "./model.js";

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "onclick") el.addEventListener("click", v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

function table(m) {
  return h("div", { class: `wpark phase-${m.phase}` },
    h("p", { class: "wp-info" }, `Round ${m.round} · ${m.phase}`),
    h("section", { class: "wp-board-box" }, h("div", { class: "wp-board" },
      m.blocks.map((b) => h("div", { class: "wp-block", style: b.style },
        h("span", { class: "wp-block-id" }, b.id),
        h("div", { class: "wp-block-cells", style: b.inner }, b.cells.map((c) => h(c.button ? "button" : "div", {
          class: c.cls, "data-testid": "wp-cell", "data-n": c.n, "data-owner": c.owner, "data-tile": c.tile,
          style: c.style, title: c.label, "aria-label": c.label, onclick: c.button ? noop : undefined },
        h("span", { class: "wp-num" }, c.n), c.glyph ? h("span", { class: "wp-glyph" }, c.glyph) : null,
        c.code ? h("span", { class: "wp-tile" }, c.code) : null, h("span", { class: "wp-mark" }, c.mark)))))),
      h("div", { class: "wp-falls", style: m.falls }, "≈ falls ≈"))),
    h("section", { class: "wp-panel" }, h("ol", { class: "wp-offer-list" }, m.offers.map((o) => h("li", { class: "wp-offer" },
      h("p", {}, o.head), h("ul", {}, o.transfers.map((t) => h("li", {}, t))), h("p", { class: "muted" }, o.parties),
      h("p", {}, o.acts.map((a) => h("button", { type: "button", onclick: noop }, a))))))),
    h("section", { class: "wp-panel" }, h("ul", { class: "wp-players" }, m.people.map((p) => h("li", { class: p.cls },
      h("div", {}, p.head, h("span", { class: "muted" }, ` ${p.status}`)), h("div", { class: "wp-figures" }, p.figures),
      h("div", { class: "wp-chips" }, p.chips.map((c) => h(c.button ? "button" : "span", { class: "wp-chip",
        onclick: c.button ? noop : undefined }, h("b", {}, c.code), c.text))))))),
    h("section", { class: "wp-panel" }, h("table", {}, h("tbody", {}, m.income.map((r) => h("tr", {},
      h("th", {}, r.head), r.cells.map((c) => h("td", {}, c)), h("td", {}, r.coins), h("td", {}, r.now)))))),
    h("ol", { class: "log" }, m.log.map((l) => h("li", {}, l.text))));
}

export function draw(root, m) {
  root.replaceChildren(table(m));
}
