// The table with Preact and htm: the same virtual DOM as draw_preact.js, written as tagged templates.
import { h, render } from "preact";
import htm from "htm";
import { noop } from "./model.js";

const html = htm.bind(h);

const cell = (c) => html`<${c.button ? "button" : "div"} key=${c.n} class=${c.cls} data-testid="wp-cell" data-n=${c.n}
  data-owner=${c.owner} data-tile=${c.tile} style=${c.style} title=${c.label} aria-label=${c.label}
  onclick=${c.button ? noop : undefined}><span class="wp-num">${c.n}</span>${c.glyph ? html`<span class="wp-glyph">${c.glyph}</span>` : null}${
  c.code ? html`<span class="wp-tile">${c.code}</span>` : null}<span class="wp-mark">${c.mark}</span><//>`;

function table(m) {
  return html`<div class="wpark phase-${m.phase}">
    <p class="wp-info">Round ${m.round} · ${m.phase}</p>
    <section class="wp-board-box"><div class="wp-board">
      ${m.blocks.map((b) => html`<div key=${b.id} class="wp-block" style=${b.style}><span class="wp-block-id">${b.id}</span>
        <div class="wp-block-cells" style=${b.inner}>${b.cells.map(cell)}</div></div>`)}
      <div class="wp-falls" style=${m.falls}>≈ falls ≈</div></div></section>
    <section class="wp-panel"><ol class="wp-offer-list">${m.offers.map((o) => html`<li key=${o.id} class="wp-offer">
      <p>${o.head}</p><ul>${o.transfers.map((t, i) => html`<li key=${i}>${t}</li>`)}</ul><p class="muted">${o.parties}</p>
      <p>${o.acts.map((a) => html`<button key=${a} type="button" onclick=${noop}>${a}</button>`)}</p></li>`)}</ol></section>
    <section class="wp-panel"><ul class="wp-players">${m.people.map((p) => html`<li key=${p.seat} class=${p.cls}>
      <div>${p.head}<span class="muted"> ${p.status}</span></div><div class="wp-figures">${p.figures}</div>
      <div class="wp-chips">${p.chips.map((c) => html`<${c.button ? "button" : "span"} key=${c.name} class="wp-chip"
        onclick=${c.button ? noop : undefined}><b>${c.code}</b>${c.text}<//>`)}</div></li>`)}</ul></section>
    <section class="wp-panel"><table><tbody>${m.income.map((r) => html`<tr key=${r.seat}><th>${r.head}</th>${
      r.cells.map((c, i) => html`<td key=${i}>${c}</td>`)}<td>${r.coins}</td><td>${r.now}</td></tr>`)}</tbody></table></section>
    <ol class="log">${m.log.map((l) => html`<li key=${l.key}>${l.text}</li>`)}</ol>
  </div>`;
}

export function draw(root, m) {
  render(table(m), root);
}
