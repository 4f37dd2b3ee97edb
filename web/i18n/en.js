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

// The screens' words, by key (web/words.js t): a text, {one, other} plural forms chosen by `n`, with
// `{name}` filled from the call's values.
const ui = {
  "site.language": "Language",
  "lobby.yourName": "Your name",
  "lobby.nameKept": " remembered in this browser",
  "lobby.games": "Games",
  "lobby.newRoom": "New room",
  "lobby.noGames": "No games are served.",
  "lobby.rooms": "Rooms",
  "lobby.roomsNote": "Waiting and running rooms, and finished games with their replays. Private rooms are not listed.",
  "lobby.seatTaken": "That seat is taken (or the room is full).",
  "lobby.couldNotJoin": "Could not join: {why}",
  "status.waiting": "◷ waiting for players",
  "status.playing": "▶ playing",
  "status.finished": "■ finished",
  "status.abandoned": "■ abandoned: its players left",
  "status.gone": "no longer kept",
  "mine.title": "My games",
  "mine.note": "The games you sat at in this browser.",
  "mine.asAt": "as {name} at seat {seat}, {when}",
  "mine.you": "you",
  "mine.back": "Back to my seat",
  "mine.forget": "Forget this game in this browser",
  "replay.button": "▶ Replay",
  "next.back": "↻ Back to my seat in the next game",
  "next.taken": "Your seat in the next game is already taken: watch it instead.",
  "next.couldNot": "Could not join the next game: {why}",
  "next.setting": "Setting the table…",
  "next.again": "↻ Play again: join the next table",
  "next.follow": "◉ Follow to the next game",
  "history.title": "Finished games",
  "history.couldNot": "Could not load them: {why}",
  "history.abandoned": "abandoned: its players left ",
  "history.none": "None yet.",
  "history.older": "Older games",
  "games.couldNot": "Could not load the games: {why}",
  "games.loading": "Loading games…",
  "games.players": { one: "{n} player", other: "{n} players" },
  "games.range": "{min}–{max} players",
  "games.pick": "New room of this game",
  "form.couldNot": "Could not create the room: {why}",
  "form.seatYou": " Seat {seat} (you)",
  "form.seatBot": " Seat {seat}: ⚙ bot",
  "form.seatFree": " Seat {seat}: a player (free seat)",
  "form.game": "Game",
  "form.seats": "Seats",
  "form.you": "You",
  "form.playAt": "play at seat {seat}",
  "form.onlyWatch": "only watch",
  "form.youWatch": "You watch; seats without a bot wait for players.",
  "form.youSit": "You take seat {seat}; tick the seats a bot should take, the others wait for players.",
  "form.privateNote": "A private room is not listed here: the table shows its link, which is the only way in. Send it to the others.",
  "form.bots": "Bots: tick the seats a bot should take",
  "form.createWatchBots": "Create room and watch the bots",
  "form.createWatch": "Create room and watch",
  "form.createSit": "Create room and sit at seat {seat}",
  "form.none": "none",
  "rooms.couldNot": "Could not load the rooms: {why}",
  "rooms.loading": "Loading rooms…",
  "rooms.none": "No rooms yet: create one above.",
  "rooms.bot": "bot",
  "rooms.freeJoin": "{seat}: free — join",
  "rooms.empty": "{seat}: empty",
  "rooms.seated": "{taken}/{seats} seated",
  "rooms.watching": " · ◉ {n} watching",
  "rooms.backTo": "Back to my seat {seat}",
  "rooms.join": "Join",
  "rooms.watch": "◉ Watch",
  "rooms.copy": "Copy link",
  "presence.here": " (here)",
  "presence.awayBot": " (away, a bot in {s} s)",
  "presence.away": " (away)",
  "go.label": "Open a room someone sent you ",
  "go.placeholder": "a link or a room id",
  "go.open": "Open",
  "go.bad": "That is neither a room link nor a room id.",
  "share.copied": "Link copied: send it to the other players.",
  "share.byHand": "Copy this link by hand: {link}",
  "unit.seconds": "seconds",
  "option.bot_delay_ms": "Bot thinking time",
  "option.bot_delay_ms.help": "How long a bot waits before it moves: a person's pace by default, 0 for at once.",
  "option.grab_window_ms": "Time to grab",
  "option.grab_window_ms.help": "How long a card stays up for grabs at most.",
  "option.decision_seconds": "Time per decision",
  "option.decision_seconds.help": "0 means no limit. When the time is up, the game makes the default move for the player.",
  "option.bank_seconds": "Time bank",
  "option.bank_seconds.help": "Extra time of each player's own, used once a decision's time is up (like a chess clock); 0 means none.",
  "option.private": "Private room",
  "option.private.help": "Not listed in the lobby: only those you send the link can join.",
  "option.spectator_chat": "Spectators' chat",
  "option.spectator_chat.help": "“Table”: everyone reads what spectators say. “Spectators”: only other spectators do.",
  "option.max_offers": "Open offers per player",
  "option.max_offers.help": "Open offers a player may have at once.",
  "option.battles": "Battles",
  "option.battles.help": "How many battles the “Lowest total” and “Battle points” variants last.",
  "option.variant": "Variant",
  "option.mode": "Mode",
  "choice.table": "Table",
  "choice.spectators": "Spectators",
  "choice.single": "Single",
  "choice.five_wins": "Five wins",
  "choice.lowest_total": "Lowest total",
  "choice.battle_points": "Battle points",
  "choice.standard": "Standard",
  "choice.duel": "Duel",
  "choice.team": "Team",
  "choice.single.help": "One battle: the first to declare a winning combination wins the game.",
  "choice.five_wins.help": "Battle after battle: the first to win 5 battles wins the game.",
  "choice.lowest_total.help": "{battles} battles: after each, every player but its winner adds up the cards left in hand; the lowest total wins.",
  "choice.battle_points.help": "{battles} battles: each winner scores the cards of the winning hand; the most points wins.",
  "option.mode.help": "Duel (2 players, the rulebook's: a River of 8 that scores too); standard (3 or 4; with 2 a variant of this hub's, not the rulebook's); team (4, partners across).",
  "game.frenzy_falls": "Play Waterfall cards into Pools; the most influence wins each Pool that spills over.",
  "game.waterfall_park": "Negotiate locations and attractions, build the biggest attractions soonest, earn the most.",
  "game.frenetic_village": "Draw, discard, strike with action cards and grab cards the instant they land: the first to hold a run, five of a value or an invincible ladder wins the battle.",
  "game.symbiose": "Swap cards between your pond and the river; each column scores a different board.",
};

export default {
  ui,
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
