// What the Waterfall Park table shows of a view, worked out once and drawn by each library alike:
// the park by blocks (78 locations), the players with their tiles, the open offers, the log and the
// income table. The same words, classes and attributes as the client's own table, so that each
// library draws as many elements, attributes and texts as the client does.

const CODES = { "Gift Shop": "Gi", "Ice Cream Stand": "Ic", Bar: "Ba", "Ghost Train": "Gh", Carousel: "Ca",
  "Bowling Alley": "Bo", Theater: "Th", Circus: "Ci", Pool: "Po" };

export function model(view) {
  const board = view.board;
  const sites = view.sites;
  const players = view.players;
  const me = view.seat;
  const who = (s) => { const p = players[s]; return p ? `${p.glyph} ${p.colour} (${s === me ? "you" : p.name})` : `Seat ${s}`; };
  const hand = new Set(view.hand || []);
  const legalCells = new Set();
  for (const a of view.legal || []) {
    if (a.type === "discard") for (const c of a.cards) legalCells.add(c);
    if (a.type === "build") legalCells.add(a.location);
  }
  const exchange = view.phase === "exchange";
  const blocks = board.blocks.map((b) => ({ id: b.id, style: `grid-column:${b.x + 1} / span ${b.w};grid-row:${b.y + 1} / span ${b.h}`,
    inner: `grid-template-columns:repeat(${b.w},minmax(0,1fr))`, cells: [] }));
  const byId = new Map(blocks.map((b) => [b.id, b]));
  const origin = new Map(board.blocks.map((b) => [b.id, b]));
  for (const loc of board.locations) {
    const site = sites[loc.n - 1];
    const p = site.owner === null ? null : players[site.owner];
    const o = origin.get(loc.block);
    const words = [`Location ${loc.n}, block ${loc.block}`, p ? `owned by ${who(site.owner)}` : "unowned",
      site.tile ? `built: ${site.tile}` : "empty"];
    if (hand.has(loc.n)) words.push("in your hand");
    const button = legalCells.has(loc.n) || (exchange && site.owner !== null);
    byId.get(loc.block).cells.push({
      n: loc.n, button, label: words.join("; "), owner: site.owner === null ? "" : String(site.owner),
      tile: site.tile || "", code: site.tile ? CODES[site.tile] : "", glyph: p ? p.glyph : "",
      mark: hand.has(loc.n) ? "◇" : legalCells.has(loc.n) ? "+" : "",
      cls: `wp-cell wp-own-${p ? p.colour.toLowerCase() : "none"}${site.tile ? " built" : ""}${hand.has(loc.n) ? " in-hand" : ""}${button ? " legal" : ""}`,
      style: `grid-column:${loc.x - o.x + 1};grid-row:${loc.y - o.y + 1}`,
    });
  }
  const names = view.attractions.map((a) => a.name);
  const people = players.map((p) => ({
    seat: p.seat, cls: `wp-player wp-own-${p.colour.toLowerCase()}${p.seat === me ? " me" : ""}`,
    head: who(p.seat), status: p.ready ? "✔ finished with this phase" : "◷ still deciding",
    figures: `${p.locations} locations · ${p.built} built · ${p.bases} bases left · ${typeof p.coins === "number" ? `${p.coins} coins` : "coins secret"} · earns ${p.earning} now`,
    chips: names.filter((n) => (p.tiles[n] || 0) > 0).map((n) => ({ name: n, code: CODES[n], text: ` ${n} ×${p.tiles[n]}`, button: exchange })),
  }));
  const offers = Object.values(view.offers || {}).sort((a, b) => a.id - b.id).map((o) => ({
    id: o.id, head: `Offer #${o.id} by ${who(o.author)}`,
    transfers: o.transfers.map((t) => `${who(t.from)} gives ${who(t.to)}: ${[
      t.locations.length ? `locations ${t.locations.join(", ")}` : "",
      ...Object.entries(t.tiles).map(([k, v]) => `${v}× ${k}`), t.coins ? `${t.coins} coins` : ""].filter(Boolean).join(" · ")}`),
    parties: o.parties.map((s) => `${who(s)} ${o.accepted.includes(s) ? "✔ accepted" : "◷ to answer"}`).join(", "),
    acts: (view.legal || []).filter((a) => a.offer === o.id).map((a) => a.type),
  }));
  const from = view.log.length > 40 ? view.log.length - 40 : 0;
  const log = view.log.slice(from).map((text, i) => ({ key: from + i, text }));
  const income = players.map((p) => ({ seat: p.seat, head: who(p.seat),
    cells: [0, 1, 2, 3].map((r) => (r < p.income.length ? `+${p.income[r]}` : "—")),
    coins: typeof p.coins === "number" ? String(p.coins) : "secret", now: String(p.earning) }));
  return { phase: view.phase, round: view.round, blocks, people, offers, log, income,
    falls: `grid-column:${board.waterfall.x + 1} / span ${board.waterfall.w};grid-row:${board.waterfall.y + 1} / span ${board.waterfall.h}` };
}

/** A click handler that does nothing: every library attaches one per button, as the client does. */
export function noop() {}
