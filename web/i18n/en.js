// English words of the tables. Log entries arrive as data, [kind, ...args] (docs/protocol.md, "Log
// entries"); each kind's words are a function of `w`, the helpers that put a seat, a card, a number
// into words (web/words.js), and of the entry's arguments in order. A function returns a string or
// a list of strings and nodes. The keys of every language file are the same (tests/web/test_words.py).

const seatList = (w, seats) => w.list(seats.map((s) => w.seat(s)));
const plural = (w, n, one, other) => (w.plural(n) === "one" ? one : other);
const cards = (w, n) => `${n} ${plural(w, n, "card", "cards")}`;
const pool = (i) => `Pool ${i + 1}`;
const locations = (w, ns) => `${plural(w, ns.length, "location", "locations")} ${ns.join(", ")}`;
const article = (word) => (/^[AEIOU]/.test(word) ? "an" : "a");

/** A Waterfall Park deal: "Pink gives Yellow location 12, 2 Pool, 3 coins; Yellow gives Pink …". */
function deal(w, transfers) {
  const out = [];
  transfers.forEach(([giver, receiver, locs, tiles, coins], i) => {
    const items = locs.length ? [locations(w, locs)] : [];
    for (const [tile, n] of Object.entries(tiles || {})) items.push(`${n} ${tile}`);
    if (coins) items.push(`${coins} ${plural(w, coins, "coin", "coins")}`);
    out.push(i ? "; " : "", w.seat(giver), " gives ", w.seat(receiver), ` ${items.join(", ")}`);
  });
  return out;
}

const FV_NAMES = {
  skulls: "Skulls",
  palla_paca_card: "“Pallá pacá” card",
  palla_paca_hand: "“Pallá pacá” hand",
  two_cards: "Two cards to the deck",
  three_cards: "Three cards to the deck",
  one_card: "One card",
  wild: "Wildcard",
};
const FV_EFFECTS = {
  skulls: "sends their whole hand under the draw pile; they draw 5 new cards",
  palla_paca_card: "exchanges one card with them",
  palla_paca_hand: "exchanges hands with them",
  two_cards: "sends 2 of their cards back into the deck",
  three_cards: "sends 3 of their cards back into the deck",
  one_card: "takes one of their cards",
};
const FV_COMBINATIONS = {
  race_straight: "5 consecutive cards of the same race",
  five_of_a_value: "5 cards of the same value",
  invincible_ladder: "invincible ladder",
};

/** A Frenzy Falls card in a Pool as every viewer may see it: a face-down card shows only its back. */
function inPool(w, owner, card) {
  if (card === null || card === undefined) return ["a face-down card of ", w.seat(owner)];
  return [w.seat(owner), "’s ", w.card(card, { bare: true })];
}

export default {
  cards: {
    symbiose: (c) => {
      const v = c.value || {};
      const label = v.kind === "fixed" ? `${v.points} points` : `${v.points} per ${v.animal || v.colour}`;
      return `${c.colour} ${c.animal} (${label})`;
    },
    frenetic_village: (c) => (c.kind === "army"
      ? `${c.race.charAt(0).toUpperCase()}${c.race.slice(1)} ${c.value}` : FV_NAMES[c.kind] || c.kind),
    frenzy_falls: (c, { bare = false } = {}) => {
      const name = c.action ? `${c.action} (${c.water} water, ${c.influence} influence)` : `${c.water} (${c.influence} influence)`;
      return bare ? name : `a ${name}`;
    },
  },
  scores: {
    frenzy_falls: (s, w) => `${s.points} ${plural(w, s.points, "point", "points")}, ${s.water} water`,
  },
  log: {
    symbiose: {
      start: (w, mode, seats) => `Symbiose (${mode}) for ${seats}: each flips one card to begin.`,
      flip: (w, seat, slot, card) => [w.seat(seat), ` flipped slot ${slot}: `, w.card(card), "."],
      swap: (w, seat, river, taken, riverUp, slot, given, slotUp) => [w.seat(seat),
        ` took ${riverUp ? "" : "face-down "}river ${river}, `, w.card(taken),
        `, for its ${slotUp ? "" : "face-down "}slot ${slot}, `, w.card(given), "."],
      scores: (w, scores, winners) => ["Scores: ",
        ...scores.flatMap((v, s) => [s ? ", " : "", w.seat(s), ` ${v}`]),
        ". ", plural(w, winners.length, "Winner: ", "Winners: "), seatList(w, winners), "."],
    },
    frenetic_village: {
      battle: (w, battle, starter) => [`Battle ${battle} begins; `, w.seat(starter), " starts."],
      reshuffled: () => "The draw pile ran out: every discard pile is shuffled into a new one.",
      short: () => "The draw pile runs short: every discard pile is shuffled in under it.",
      draws: (w, seat, n) => [w.seat(seat), n === 1 ? " draws a card." : ` draws ${cards(w, n)}.`],
      discards: (w, seat, card) => [w.seat(seat), " discards ", w.card(card), "."],
      plays: (w, seat, card, target) => [w.seat(seat), " plays ", w.card(card), " on ", w.seat(target),
        "’s pile and ", FV_EFFECTS[card] || "strikes", "."],
      no_grab: (w, card) => ["Nobody grabs ", w.card(card), "."],
      grabs: (w, seat, card, pile) => [w.seat(seat), " grabs ", w.card(card), " from ", w.seat(pile), "’s pile."],
      declares: (w, seat, combination, hand, battle) => [w.seat(seat), " places a card face down: ",
        FV_COMBINATIONS[combination] || combination, ` (${hand.map((c) => w.cardText(c)).join(", ")}). `,
        w.seat(seat), ` wins battle ${battle}!`],
      over: (w, winners) => ["The game is over: ", seatList(w, winners), " won."],
    },
    frenzy_falls: {
      begins: (w, first) => ["The game begins: ", w.seat(first), " has the First Player card."],
      reshuffles: (w, seat) => [w.seat(seat), " shuffles their discard pile into a new deck."],
      round: (w, round, first) => [`Round ${round}: `, w.seat(first), " plays first."],
      no_card: (w, seat) => [w.seat(seat), " has no card in hand and plays nothing."],
      plays: (w, seat, p) => [w.seat(seat), ` plays a card face down to ${pool(p)}.`],
      reveal_begins: () => "All cards are played: the reveal begins at Pool 1.",
      pass: (w, n) => `Back to Pool 1 (pass ${n}).`,
      reveals: (w, p, seat, card) => [`${pool(p)}: `, w.seat(seat), " reveals ", w.card(card), "."],
      proxy_stays: (w, seat) => [w.seat(seat), " has no card in hand: the PROXY stays."],
      bump_nothing: () => "The BUMP has no card to move.",
      pull_nothing: () => "The PULL finds no card in another Pool.",
      proxy: (w, seat, card) => [w.seat(seat), "’s PROXY is discarded and replaced by ", w.card(card), " from hand."],
      bump: (w, owner, card, to) => ["The BUMP moves ", inPool(w, owner, card), ` to the end of ${pool(to)}.`],
      pull: (w, owner, card, from, to) => ["The PULL moves ", inPool(w, owner, card),
        ` from ${pool(from)} to the end of ${pool(to)}.`],
      spills: (w, p, water, seat, score, influence) => [`${pool(p)} spills over at ${water} water: `, w.seat(seat),
        ` wins the Score card (${w.score(score)}) with ${influence} influence.`],
      new_score: (w, p, score) => `${pool(p)} gets a new Score card (${w.score(score)}).`,
      last_round: () => "No Score card is left to replace it: the game ends after this round.",
      winner_discards: (w, seat, n, p) => [w.seat(seat), ` discards ${cards(w, n)} from ${pool(p)}.`],
      rest_discarded: (w, n, p) => `The other ${cards(w, n)} in ${pool(p)} ${plural(w, n, "is", "are")} discarded.`,
      cascade_discards: (w, seat, card) => [w.seat(seat), " discards ", w.card(card), ": no Pool is left to move it to."],
      cascade: (w, seat, card, to) => [w.seat(seat), " moves ", w.card(card), ` to the end of ${pool(to)}.`],
      round_ends: (w, round, hand) => `Round ${round} ends: each player may discard cards before drawing to ${hand}.`,
      refills: (w, seat, discarded, drawn) => [w.seat(seat), ` discards ${cards(w, discarded)} and draws ${drawn}.`],
      over: (w, round, winners) => [`The game is over after round ${round}: `, seatList(w, winners),
        plural(w, winners.length, " wins.", " share the victory.")],
    },
    waterfall_park: {
      round: (w, round, n, discard) => `Round ${round}: ${n} Location cards each; keep all but ${discard}.`,
      chosen: (w, seat) => [w.seat(seat), " has chosen."],
      takes: (w, seat, ns) => [w.seat(seat), ` takes ${locations(w, ns)}.`],
      no_base: (w, seat, n) => [w.seat(seat), ` has no base for location ${n}; its card returns to the deck.`],
      reveals: (w, seat, tiles) => [w.seat(seat), ` reveals ${tiles.join(", ")}.`],
      exchange: () => "Exchange: trade locations, tiles and coins; say ready when done.",
      base_moved: (w, seat, from, to) => [w.seat(seat), ` moves a base from location ${from} to location ${to}.`],
      card_returned: (w, seat, n) => [w.seat(seat), ` keeps its bases; location ${n} returns to the deck.`],
      offer: (w, id, seat, transfers) => [`Offer #${id} by `, w.seat(seat), ": ", ...deal(w, transfers), "."],
      countered: (w, seat, id) => [w.seat(seat), ` declines offer #${id} with a counter-offer.`],
      accepts: (w, seat, id) => [w.seat(seat), ` accepts offer #${id}.`],
      declines: (w, seat, id) => [w.seat(seat), ` declines offer #${id}.`],
      withdraws: (w, seat, id) => [w.seat(seat), ` withdraws offer #${id}.`],
      fails: (w, id) => `Offer #${id} fails: a party no longer holds what it gives.`,
      trade: (w, id, transfers) => [`Trade #${id} done: `, ...deal(w, transfers), "."],
      void: (w, id, seat) => [`Offer #${id} is void: `, w.seat(seat), " no longer holds what it gives."],
      ready: (w, seat) => [w.seat(seat), " is ready."],
      unready: (w, seat) => [w.seat(seat), " negotiates again."],
      lapse: (w, ids) => `Open offers lapse: ${ids.map((id) => `#${id}`).join(", ")}.`,
      construction: () => "Construction: place tiles on your empty locations.",
      builds: (w, seat, tile, n) => [w.seat(seat), ` builds ${article(tile)} ${tile} on location ${n}.`],
      done: (w, seat) => [w.seat(seat), " is done building."],
      income: (w, round, earnings) => [`Round ${round} income: `,
        ...earnings.flatMap((v, s) => [s ? ", " : "", w.seat(s), ` ${v}`]), "."],
      over: (w, coins, winners) => ["Game over. Coins: ", ...coins.flatMap((v, s) => [s ? ", " : "", w.seat(s), ` ${v}`]),
        ". ", seatList(w, winners), plural(w, winners.length, " wins.", " win.")],
    },
  },
};
