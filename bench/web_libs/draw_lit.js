// The table with lit-html: templates whose static parts are cloned once, their holes updated; keyed
// lists through the repeat directive.
import { html, render, nothing } from "lit-html";
import { repeat } from "lit-html/directives/repeat.js";
import { noop } from "./model.js";

const inner = (c) => html`<span class="wp-num">${c.n}</span>${c.glyph ? html`<span class="wp-glyph">${c.glyph}</span>` : nothing}${
  c.code ? html`<span class="wp-tile">${c.code}</span>` : nothing}<span class="wp-mark">${c.mark}</span>`;
const cell = (c) => (c.button
  ? html`<button class=${c.cls} data-testid="wp-cell" data-n=${c.n} data-owner=${c.owner} data-tile=${c.tile} style=${c.style}
      title=${c.label} aria-label=${c.label} @click=${noop}>${inner(c)}</button>`
  : html`<div class=${c.cls} data-testid="wp-cell" data-n=${c.n} data-owner=${c.owner} data-tile=${c.tile} style=${c.style}
      title=${c.label} aria-label=${c.label}>${inner(c)}</div>`);
const chip = (c) => (c.button ? html`<button class="wp-chip" @click=${noop}><b>${c.code}</b>${c.text}</button>`
  : html`<span class="wp-chip"><b>${c.code}</b>${c.text}</span>`);

function table(m) {
  return html`<div class="wpark phase-${m.phase}">
    <p class="wp-info">Round ${m.round} · ${m.phase}</p>
    <section class="wp-board-box"><div class="wp-board">
      ${repeat(m.blocks, (b) => b.id, (b) => html`<div class="wp-block" style=${b.style}><span class="wp-block-id">${b.id}</span>
        <div class="wp-block-cells" style=${b.inner}>${repeat(b.cells, (c) => c.n, cell)}</div></div>`)}
      <div class="wp-falls" style=${m.falls}>≈ falls ≈</div></div></section>
    <section class="wp-panel"><ol class="wp-offer-list">${repeat(m.offers, (o) => o.id, (o) => html`<li class="wp-offer">
      <p>${o.head}</p><ul>${o.transfers.map((t) => html`<li>${t}</li>`)}</ul><p class="muted">${o.parties}</p>
      <p>${o.acts.map((a) => html`<button type="button" @click=${noop}>${a}</button>`)}</p></li>`)}</ol></section>
    <section class="wp-panel"><ul class="wp-players">${repeat(m.people, (p) => p.seat, (p) => html`<li class=${p.cls}>
      <div>${p.head}<span class="muted"> ${p.status}</span></div><div class="wp-figures">${p.figures}</div>
      <div class="wp-chips">${repeat(p.chips, (c) => c.name, chip)}</div></li>`)}</ul></section>
    <section class="wp-panel"><table><tbody>${repeat(m.income, (r) => r.seat, (r) => html`<tr><th>${r.head}</th>${
      r.cells.map((c) => html`<td>${c}</td>`)}<td>${r.coins}</td><td>${r.now}</td></tr>`)}</tbody></table></section>
    <ol class="log">${repeat(m.log, (l) => l.key, (l) => html`<li>${l.text}</li>`)}</ol>
  </div>`;
}

export function draw(root, m) {
  render(table(m), root);
}
