// Les mots des tables en français. Mêmes clés que web/i18n/en.js (un test le vérifie) ; chaque sorte
// d'entrée du journal est une fonction de `w` (web/words.js) et de ses arguments dans l'ordre.
//
// Choisi : les règles n'existent qu'en anglais. Où un mot du jeu n'a pas de traduction établie, le
// choix est marqué « choisi » ci-dessous ; les noms d'action de Frenzy Falls (PROXY, BUMP, PULL)
// restent tels qu'ils sont imprimés sur les cartes.

const seatList = (w, seats) => w.list(seats.map((s) => w.seat(s)));
const plural = (w, n, one, other) => (w.plural(n) === "one" ? one : other);
const cards = (w, n) => `${n} ${plural(w, n, "carte", "cartes")}`;
// choisi : « Pool » des règles de Frenzy Falls devient « Bassin ».
const pool = (i) => `Bassin ${i + 1}`;
const locations = (w, ns) => `${plural(w, ns.length, "l’emplacement", "les emplacements")} ${ns.join(", ")}`;

// choisi : les attractions de Waterfall Park, par leur nom anglais (l'id de la sorte de tuile).
export const WP_TILES = {
  "Gift Shop": "Boutique de souvenirs",
  "Ice Cream Stand": "Glacier",
  Bar: "Bar",
  "Ghost Train": "Train fantôme",
  Carousel: "Carrousel",
  "Bowling Alley": "Bowling",
  Theater: "Théâtre",
  Circus: "Cirque",
  Pool: "Piscine",
};
const tile = (name) => WP_TILES[name] || name;

/** Un accord de Waterfall Park : « Rose donne à Jaune l’emplacement 12, 2 Piscine, 3 pièces ; … ». */
function deal(w, transfers) {
  const out = [];
  transfers.forEach(([giver, receiver, locs, tiles, coins], i) => {
    const items = locs.length ? [locations(w, locs)] : [];
    for (const [name, n] of Object.entries(tiles || {})) items.push(`${n} ${tile(name)}`);
    if (coins) items.push(`${coins} ${plural(w, coins, "pièce", "pièces")}`);
    out.push(i ? " ; " : "", w.seat(giver), " donne à ", w.seat(receiver), ` ${items.join(", ")}`);
  });
  return out;
}

const FV_NAMES = {
  skulls: "Crânes",
  palla_paca_card: "carte « Pallá pacá »",
  palla_paca_hand: "main « Pallá pacá »",
  two_cards: "Deux cartes à la pioche",
  three_cards: "Trois cartes à la pioche",
  one_card: "Une carte",
  wild: "Joker",
};
const FV_EFFECTS = {
  skulls: "envoie toute sa main sous la pioche ; il ou elle pioche 5 nouvelles cartes",
  palla_paca_card: "échange une carte avec lui ou elle",
  palla_paca_hand: "échange les mains avec lui ou elle",
  two_cards: "renvoie 2 de ses cartes dans la pioche",
  three_cards: "renvoie 3 de ses cartes dans la pioche",
  one_card: "lui prend une carte",
};
const FV_COMBINATIONS = {
  race_straight: "5 cartes consécutives d’un même peuple",
  five_of_a_value: "5 cartes de même valeur",
  invincible_ladder: "échelle invincible",
};
// choisi : les peuples du Village frénétique.
const FV_RACES = { humans: "Humains", elves: "Elfes", dwarves: "Nains", goblins: "Gobelins" };

export const SYMBIOSE_COLOURS = { blue: "bleu", green: "vert", orange: "orange", purple: "violet" };
export const SYMBIOSE_ANIMALS = { dragonfly: "libellule", fish: "poisson", frog: "grenouille", snail: "escargot" };

/** Une carte de Frenzy Falls dans un Bassin telle que tous la voient : face cachée, seulement son dos. */
function inPool(w, owner, card) {
  if (card === null || card === undefined) return ["une carte face cachée de ", w.seat(owner)];
  return ["la carte ", w.card(card, { bare: true }), " de ", w.seat(owner)];
}

// Les mots des écrans, par clé (web/words.js t) : un texte, ou des formes du pluriel {one, other}
// choisies par `n`, où `{nom}` prend la valeur donnée.
const ui = {
  "site.language": "Langue",
  "lobby.yourName": "Votre nom",
  "lobby.nameKept": " gardé dans ce navigateur",
  "lobby.games": "Jeux",
  "lobby.newRoom": "Nouvelle salle",
  "lobby.noGames": "Aucun jeu n’est proposé.",
  "lobby.rooms": "Salles",
  "lobby.roomsNote": "Les salles en attente et en cours, et les parties finies avec leur rediffusion. Les salles privées ne sont pas listées.",
  "lobby.seatTaken": "Cette place est prise (ou la salle est pleine).",
  "lobby.couldNotJoin": "Impossible de rejoindre : {why}",
  "status.waiting": "◷ attend des joueurs",
  "status.playing": "▶ en cours",
  "status.finished": "■ finie",
  "status.abandoned": "■ abandonnée : ses joueurs sont partis",
  "status.gone": "n’est plus gardée",
  "mine.title": "Mes parties",
  "mine.note": "Les parties où vous vous êtes assis dans ce navigateur.",
  "mine.asAt": "en tant que {name} à la place {seat}, {when}",
  "mine.you": "vous",
  "mine.back": "Retour à ma place",
  "mine.forget": "Oublier cette partie dans ce navigateur",
  "replay.button": "▶ Revoir",
  "next.back": "↻ Retour à ma place dans la partie suivante",
  "next.taken": "Votre place dans la partie suivante est déjà prise : regardez-la plutôt.",
  "next.couldNot": "Impossible de rejoindre la partie suivante : {why}",
  "next.setting": "Mise en place de la table…",
  "next.again": "↻ Rejouer : rejoindre la table suivante",
  "next.follow": "◉ Suivre à la partie suivante",
  "history.title": "Parties finies",
  "history.couldNot": "Impossible de les charger : {why}",
  "history.abandoned": "abandonnée : ses joueurs sont partis ",
  "history.none": "Aucune pour l’instant.",
  "history.older": "Parties plus anciennes",
  "games.couldNot": "Impossible de charger les jeux : {why}",
  "games.loading": "Chargement des jeux…",
  "games.players": { one: "{n} joueur", other: "{n} joueurs" },
  "games.range": "{min} à {max} joueurs",
  "games.pick": "Nouvelle salle de ce jeu",
  "form.couldNot": "Impossible de créer la salle : {why}",
  "form.seatYou": " Place {seat} (vous)",
  "form.seatBot": " Place {seat} : ⚙ bot",
  "form.seatFree": " Place {seat} : un joueur (place libre)",
  "form.game": "Jeu",
  "form.seats": "Places",
  "form.you": "Vous",
  "form.playAt": "jouer à la place {seat}",
  "form.onlyWatch": "seulement regarder",
  "form.youWatch": "Vous regardez ; les places sans bot attendent des joueurs.",
  "form.youSit": "Vous prenez la place {seat} ; cochez les places qu’un bot doit prendre, les autres attendent des joueurs.",
  "form.privateNote": "Une salle privée n’est pas listée ici : la table montre son lien, seul moyen d’y entrer. Envoyez-le aux autres.",
  "form.bots": "Bots : cochez les places qu’un bot doit prendre",
  "form.createWatchBots": "Créer la salle et regarder les bots",
  "form.createWatch": "Créer la salle et regarder",
  "form.createSit": "Créer la salle et s’asseoir à la place {seat}",
  "form.none": "aucun",
  "rooms.couldNot": "Impossible de charger les salles : {why}",
  "rooms.loading": "Chargement des salles…",
  "rooms.none": "Aucune salle pour l’instant : créez-en une ci-dessus.",
  "rooms.bot": "bot",
  "rooms.freeJoin": "{seat} : libre — rejoindre",
  "rooms.empty": "{seat} : vide",
  "rooms.seated": "{taken}/{seats} assis",
  "rooms.watching": " · ◉ {n} spectateurs",
  "rooms.backTo": "Retour à ma place {seat}",
  "rooms.join": "Rejoindre",
  "rooms.watch": "◉ Regarder",
  "rooms.copy": "Copier le lien",
  "presence.here": " (présent)",
  "presence.awayBot": " (absent, un bot dans {s} s)",
  "presence.away": " (absent)",
  "go.label": "Ouvrir une salle qu’on vous a envoyée ",
  "go.placeholder": "un lien ou un id de salle",
  "go.open": "Ouvrir",
  "go.bad": "Ce n’est ni un lien de salle ni un id de salle.",
  "share.copied": "Lien copié : envoyez-le aux autres joueurs.",
  "share.byHand": "Copiez ce lien à la main : {link}",
  "unit.seconds": "secondes",
  "option.bot_delay_ms": "Temps de réflexion des bots",
  "option.bot_delay_ms.help": "Combien de temps un bot attend avant de jouer : le rythme d’une personne par défaut, 0 pour aussitôt.",
  "option.grab_window_ms": "Temps pour saisir",
  "option.grab_window_ms.help": "Combien de temps une carte reste à saisir au plus.",
  "option.decision_seconds": "Temps par décision",
  "option.decision_seconds.help": "0 veut dire sans limite. Quand le temps est écoulé, le jeu fait le coup par défaut pour le joueur.",
  "option.bank_seconds": "Réserve de temps",
  "option.bank_seconds.help": "Du temps en plus, propre à chaque joueur, utilisé une fois le temps d’une décision écoulé (comme une pendule d’échecs) ; 0 veut dire aucune.",
  "option.private": "Salle privée",
  "option.private.help": "Pas listée dans le salon : seuls ceux à qui vous envoyez le lien peuvent entrer.",
  "option.spectator_chat": "Discussion des spectateurs",
  "option.spectator_chat.help": "« Table » : tout le monde lit ce que disent les spectateurs. « Spectateurs » : seuls les autres spectateurs.",
  "option.max_offers": "Offres ouvertes par joueur",
  "option.max_offers.help": "Les offres ouvertes qu’un joueur peut avoir à la fois.",
  "option.battles": "Batailles",
  "option.battles.help": "Combien de batailles durent les variantes « Plus petit total » et « Points de bataille ».",
  "option.variant": "Variante",
  "option.mode": "Mode",
  "choice.table": "Table",
  "choice.spectators": "Spectateurs",
  "choice.single": "Une bataille",
  "choice.five_wins": "Cinq victoires",
  "choice.lowest_total": "Plus petit total",
  "choice.battle_points": "Points de bataille",
  "choice.standard": "Standard",
  "choice.duel": "Duel",
  "choice.team": "Équipes",
  "choice.single.help": "Une bataille : le premier à déclarer une combinaison gagnante gagne la partie.",
  "choice.five_wins.help": "Bataille après bataille : le premier à gagner 5 batailles gagne la partie.",
  "choice.lowest_total.help": "{battles} batailles : après chacune, chaque joueur sauf son vainqueur additionne les cartes restées en main ; le plus petit total gagne.",
  "choice.battle_points.help": "{battles} batailles : chaque vainqueur marque les cartes de la main gagnante ; le plus de points gagne.",
  "option.mode.help": "Duel (2 joueurs, celui des règles : une Rivière de 8 qui compte aussi) ; standard (3 ou 4 ; à 2, une variante de ce serveur, pas des règles) ; équipes (4, partenaires face à face).",
  "game.frenzy_falls": "Jouez des cartes Cascade dans les Bassins ; la plus grande influence remporte chaque Bassin qui déborde.",
  "game.waterfall_park": "Négociez emplacements et attractions, construisez les plus grandes attractions au plus tôt, gagnez le plus.",
  "game.frenetic_village": "Piochez, défaussez, frappez avec des cartes action et saisissez les cartes à l’instant où elles tombent : le premier à tenir une suite, cinq d’une valeur ou une échelle invincible gagne la bataille.",
  "game.symbiose": "Échangez des cartes entre votre mare et la Rivière ; chaque colonne compte un plateau différent.",
};

export default {
  ui,
  cards: {
    symbiose: (c) => {
      const v = c.value || {};
      const what = v.animal ? SYMBIOSE_ANIMALS[v.animal] || v.animal : `carte ${SYMBIOSE_COLOURS[v.colour] || v.colour}`;
      const label = v.kind === "fixed" ? `${v.points} points` : `${v.points} par ${what}`;
      return `${SYMBIOSE_ANIMALS[c.animal] || c.animal} ${SYMBIOSE_COLOURS[c.colour] || c.colour} (${label})`;
    },
    frenetic_village: (c) => (c.kind === "army"
      ? `${FV_RACES[c.race] || c.race} ${c.value}` : FV_NAMES[c.kind] || c.kind),
    frenzy_falls: (c, { bare = false } = {}) => {
      const name = c.action ? `${c.action} (${c.water} d’eau, ${c.influence} d’influence)` : `${c.water} (${c.influence} d’influence)`;
      return bare ? name : `un ${name}`;
    },
  },
  scores: {
    frenzy_falls: (s, w) => `${s.points} ${plural(w, s.points, "point", "points")}, ${s.water} d’eau`,
  },
  log: {
    symbiose: {
      start: (w, mode, seats) => `Symbiose (${mode === "duel" ? "duel" : mode === "team" ? "équipes" : "standard"}) à ${seats} : chacun retourne une carte pour commencer.`,
      flip: (w, seat, slot, card) => [w.seat(seat), ` retourne la case ${slot} : `, w.card(card), "."],
      swap: (w, seat, river, taken, riverUp, slot, given, slotUp) => [w.seat(seat),
        ` prend la carte ${riverUp ? "" : "face cachée "}${river} de la Rivière, `, w.card(taken),
        `, pour sa case ${slotUp ? "" : "face cachée "}${slot}, `, w.card(given), "."],
      scores: (w, scores, winners) => ["Scores : ",
        ...scores.flatMap((v, s) => [s ? ", " : "", w.seat(s), ` ${v}`]),
        ". ", plural(w, winners.length, "Gagnant : ", "Gagnants : "), seatList(w, winners), "."],
    },
    frenetic_village: {
      battle: (w, battle, starter) => [`La bataille ${battle} commence ; `, w.seat(starter), " commence."],
      reshuffled: () => "La pioche est épuisée : toutes les défausses sont mélangées en une nouvelle pioche.",
      short: () => "La pioche s’épuise : toutes les défausses sont mélangées sous elle.",
      draws: (w, seat, n) => [w.seat(seat), n === 1 ? " pioche une carte." : ` pioche ${cards(w, n)}.`],
      discards: (w, seat, card) => [w.seat(seat), " défausse ", w.card(card), "."],
      plays: (w, seat, card, target) => [w.seat(seat), " joue ", w.card(card), " sur la pile de ", w.seat(target),
        " et ", FV_EFFECTS[card] || "frappe", "."],
      no_grab: (w, card) => ["Personne ne saisit ", w.card(card), "."],
      grabs: (w, seat, card, pile) => [w.seat(seat), " saisit ", w.card(card), " sur la pile de ", w.seat(pile), "."],
      declares: (w, seat, combination, hand, battle) => [w.seat(seat), " pose une carte face cachée : ",
        FV_COMBINATIONS[combination] || combination, ` (${hand.map((c) => w.cardText(c)).join(", ")}). `,
        w.seat(seat), ` gagne la bataille ${battle} !`],
      over: (w, winners) => ["La partie est finie : ", seatList(w, winners),
        plural(w, winners.length, " a gagné.", " ont gagné.")],
    },
    frenzy_falls: {
      begins: (w, first) => ["La partie commence : ", w.seat(first), " a la carte Premier joueur."],
      reshuffles: (w, seat) => [w.seat(seat), " mélange sa défausse en une nouvelle pioche."],
      round: (w, round, first) => [`Manche ${round} : `, w.seat(first), " joue en premier."],
      no_card: (w, seat) => [w.seat(seat), " n’a pas de carte en main et ne joue rien."],
      plays: (w, seat, p) => [w.seat(seat), ` joue une carte face cachée au ${pool(p)}.`],
      reveal_begins: () => "Toutes les cartes sont jouées : la révélation commence au Bassin 1.",
      pass: (w, n) => `Retour au Bassin 1 (passage ${n}).`,
      reveals: (w, p, seat, card) => [`${pool(p)} : `, w.seat(seat), " révèle ", w.card(card), "."],
      proxy_stays: (w, seat) => [w.seat(seat), " n’a pas de carte en main : le PROXY reste."],
      bump_nothing: () => "Le BUMP n’a aucune carte à déplacer.",
      pull_nothing: () => "Le PULL ne trouve aucune carte dans un autre Bassin.",
      proxy: (w, seat, card) => ["Le PROXY de ", w.seat(seat), " est défaussé et remplacé par ", w.card(card), " de sa main."],
      bump: (w, owner, card, to) => ["Le BUMP déplace ", inPool(w, owner, card), ` au bout du ${pool(to)}.`],
      pull: (w, owner, card, from, to) => ["Le PULL déplace ", inPool(w, owner, card),
        ` du ${pool(from)} au bout du ${pool(to)}.`],
      spills: (w, p, water, seat, score, influence) => [`Le ${pool(p)} déborde à ${water} d’eau : `, w.seat(seat),
        ` gagne la carte Score (${w.score(score)}) avec ${influence} d’influence.`],
      new_score: (w, p, score) => `Le ${pool(p)} reçoit une nouvelle carte Score (${w.score(score)}).`,
      last_round: () => "Il ne reste aucune carte Score pour la remplacer : la partie finit après cette manche.",
      winner_discards: (w, seat, n, p) => [w.seat(seat), ` défausse ${cards(w, n)} du ${pool(p)}.`],
      rest_discarded: (w, n, p) => `${plural(w, n, "L’autre", "Les autres")} ${cards(w, n)} du ${pool(p)} ${plural(w, n, "est défaussée", "sont défaussées")}.`,
      cascade_discards: (w, seat, card) => [w.seat(seat), " défausse ", w.card(card), " : aucun Bassin ne reste où la déplacer."],
      cascade: (w, seat, card, to) => [w.seat(seat), " déplace ", w.card(card), ` au bout du ${pool(to)}.`],
      round_ends: (w, round, hand) => `Fin de la manche ${round} : chacun peut défausser avant de compléter sa main à ${hand}.`,
      refills: (w, seat, discarded, drawn) => [w.seat(seat), ` défausse ${cards(w, discarded)} et en pioche ${drawn}.`],
      over: (w, round, winners) => [`La partie est finie après la manche ${round} : `, seatList(w, winners),
        plural(w, winners.length, " gagne.", " se partagent la victoire.")],
    },
    waterfall_park: {
      round: (w, round, n, discard) => `Manche ${round} : ${n} cartes Emplacement chacun ; gardez-les toutes sauf ${discard}.`,
      chosen: (w, seat) => [w.seat(seat), " a choisi."],
      takes: (w, seat, ns) => [w.seat(seat), ` prend ${locations(w, ns)}.`],
      no_base: (w, seat, n) => [w.seat(seat), ` n’a plus de base pour l’emplacement ${n} ; sa carte retourne à la pioche.`],
      reveals: (w, seat, tiles) => [w.seat(seat), ` révèle ${tiles.map(tile).join(", ")}.`],
      exchange: () => "Échanges : échangez emplacements, tuiles et pièces ; dites « prêt » quand c’est fini.",
      base_moved: (w, seat, from, to) => [w.seat(seat), ` déplace une base de l’emplacement ${from} à l’emplacement ${to}.`],
      card_returned: (w, seat, n) => [w.seat(seat), ` garde ses bases ; l’emplacement ${n} retourne à la pioche.`],
      offer: (w, id, seat, transfers) => [`Offre n° ${id} de `, w.seat(seat), " : ", ...deal(w, transfers), "."],
      countered: (w, seat, id) => [w.seat(seat), ` refuse l’offre n° ${id} par une contre-offre.`],
      accepts: (w, seat, id) => [w.seat(seat), ` accepte l’offre n° ${id}.`],
      declines: (w, seat, id) => [w.seat(seat), ` refuse l’offre n° ${id}.`],
      withdraws: (w, seat, id) => [w.seat(seat), ` retire l’offre n° ${id}.`],
      fails: (w, id) => `L’offre n° ${id} échoue : une partie ne possède plus ce qu’elle donne.`,
      trade: (w, id, transfers) => [`Échange n° ${id} conclu : `, ...deal(w, transfers), "."],
      void: (w, id, seat) => [`L’offre n° ${id} est caduque : `, w.seat(seat), " ne possède plus ce qu’il donne."],
      ready: (w, seat) => [w.seat(seat), " est prêt."],
      unready: (w, seat) => [w.seat(seat), " reprend les négociations."],
      lapse: (w, ids) => `Les offres ouvertes expirent : ${ids.map((id) => `n° ${id}`).join(", ")}.`,
      construction: () => "Construction : placez des tuiles sur vos emplacements vides.",
      builds: (w, seat, name, n) => [w.seat(seat), ` construit : ${tile(name)} sur l’emplacement ${n}.`],
      done: (w, seat) => [w.seat(seat), " a fini de construire."],
      income: (w, round, earnings) => [`Revenus de la manche ${round} : `,
        ...earnings.flatMap((v, s) => [s ? ", " : "", w.seat(s), ` ${v}`]), "."],
      over: (w, coins, winners) => ["Fin de la partie. Pièces : ", ...coins.flatMap((v, s) => [s ? ", " : "", w.seat(s), ` ${v}`]),
        ". ", seatList(w, winners), plural(w, winners.length, " gagne.", " gagnent.")],
    },
  },
};
