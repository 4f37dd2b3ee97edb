// The table with uhtml 4 (its keyed build): templates parsed once, their holes updated; keyed lists
// through htmlFor(list, key). (uhtml 5, a rewrite around signals, did not update a table drawn with
// new data outside its signal components in this bench, so its mature 4.x line is measured.)
import { html, htmlFor, render } from "uhtml";
import { noop } from "./model.js";

const BLOCKS = {};
const CELLS = {};
const OFFERS = {};
const PEOPLE = {};
const CHIPS = {};
const INCOME = {};
const LOG = {};

const inner = (c) => html`<span class="wp-num">${c.n}</span>${c.glyph ? html`<span class="wp-glyph">${c.glyph}</span>` : null}${
  c.code ? html`<span class="wp-tile">${c.code}</span>` : null}<span class="wp-mark">${c.mark}</span>`;
const cell = (c) => (c.button
  ? htmlFor(CELLS, `b${c.n}`)`<button class=${c.cls} data-testid="wp-cell" data-n=${c.n} data-owner=${c.owner} data-tile=${c.tile}
      style=${c.style} title=${c.label} aria-label=${c.label} onclick=${noop}>${inner(c)}</button>`
  : htmlFor(CELLS, `d${c.n}`)`<div class=${c.cls} data-testid="wp-cell" data-n=${c.n} data-owner=${c.owner} data-tile=${c.tile}
      style=${c.style} title=${c.label} aria-label=${c.label}>${inner(c)}</div>`);
const chip = (p, c) => (c.button
  ? htmlFor(CHIPS, `b${p.seat}${c.name}`)`<button class="wp-chip" onclick=${noop}><b>${c.code}</b>${c.text}</button>`
  : htmlFor(CHIPS, `s${p.seat}${c.name}`)`<span class="wp-chip"><b>${c.code}</b>${c.text}</span>`);

function table(m) {
  return html`<div class=${`wpark phase-${m.phase}`}>
    <p class="wp-info">Round ${m.round} · ${m.phase}</p>
    <section class="wp-board-box"><div class="wp-board">
      ${m.blocks.map((b) => htmlFor(BLOCKS, b.id)`<div class="wp-block" style=${b.style}><span class="wp-block-id">${b.id}</span>
        <div class="wp-block-cells" style=${b.inner}>${b.cells.map(cell)}</div></div>`)}
      <div class="wp-falls" style=${m.falls}>≈ falls ≈</div></div></section>
    <section class="wp-panel"><ol class="wp-offer-list">${m.offers.map((o) => htmlFor(OFFERS, o.id)`<li class="wp-offer">
      <p>${o.head}</p><ul>${o.transfers.map((t) => html`<li>${t}</li>`)}</ul><p class="muted">${o.parties}</p>
      <p>${o.acts.map((a) => html`<button type="button" onclick=${noop}>${a}</button>`)}</p></li>`)}</ol></section>
    <section class="wp-panel"><ul class="wp-players">${m.people.map((p) => htmlFor(PEOPLE, p.seat)`<li class=${p.cls}>
      <div>${p.head}<span class="muted"> ${p.status}</span></div><div class="wp-figures">${p.figures}</div>
      <div class="wp-chips">${p.chips.map((c) => chip(p, c))}</div></li>`)}</ul></section>
    <section class="wp-panel"><table><tbody>${m.income.map((r) => htmlFor(INCOME, r.seat)`<tr><th>${r.head}</th>${
      r.cells.map((c) => html`<td>${c}</td>`)}<td>${r.coins}</td><td>${r.now}</td></tr>`)}</tbody></table></section>
    <ol class="log">${m.log.map((l) => htmlFor(LOG, l.key)`<li>${l.text}</li>`)}</ol>
  </div>`;
}

export function draw(root, m) {
  render(root, table(m));
}
