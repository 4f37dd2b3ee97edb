// The lobby: what can be played, what is open, and making or joining a room (PROTOCOL.md section 1).
//
// Everything here is plain HTTP against /api; the table itself is table.js. The options form is
// built from each option's description ({default, choices?, min?, max?, doc?, by_seats?}), so a game
// or a hub setting added later shows up without touching this file; the hub's own options get plain
// words (and seconds rather than milliseconds) from the language files (web/i18n/), units from OPTION_UNITS. `by_seats` gives, per seat count,
// the default and choices for a table of that size (Symbiose's modes): the form offers only those.

import { useEffect, useRef, useState } from "preact/hooks";
import { h, render, api, toast, savedName, saveName, nameOrAsk, saveSeat, seatFor, words, withCode, copyText, roomLink, myGames, forgetGame, reclaimSeat } from "./ui.js";
import { known, language, onLanguage, t } from "./words.js";

const REFRESH_MS = 3000;
const MAX_ROOMS = 30;
const statusWords = (status) => (status in STATUS_ORDER ? t(`status.${status}`) : null);
const STATUS_ORDER = { waiting: 0, playing: 1, finished: 2 };

/**
 * Units of options whose names are the hub's own shorthand: `scale` turns what the player types
 * (seconds, any fraction) into what the option takes (whole milliseconds). Every option's label and
 * help are words of the language files (`option.<name>`, `option.<name>.help`), and each choice's
 * (`choice.<value>`, `choice.<value>.help`); one they lack shows the hub's own words.
 */
const OPTION_UNITS = {
  bot_delay_ms: { unit: "unit.seconds", scale: 1000 },
  grab_window_ms: { unit: "unit.seconds", scale: 1000 },
  decision_seconds: { unit: "unit.seconds" },
  bank_seconds: { unit: "unit.seconds" },
};

function optionWords(name) {
  const w = OPTION_UNITS[name] || {};
  return {
    ...w,
    label: known(`option.${name}`) ? t(`option.${name}`) : null,
    help: known(`option.${name}.help`) ? t(`option.${name}.help`) : null,
  };
}

/** A game's one-line description in the reader's language, else the hub's. */
function description(g) {
  return known(`game.${g.id}`) ? t(`game.${g.id}`) : g.description;
}

/** Draw again when the reader picks another language. */
function useLanguage() {
  const [, setLang] = useState(language());
  useEffect(() => onLanguage(setLang), []);
}

/** Render the lobby into el; returns a function that takes it away (and stops its timers). */
export function renderLobby(el) {
  render(h(Lobby, {}), el);
  return () => render(null, el);
}

function Lobby() {
  useLanguage();
  const [name, setName] = useState(savedName);
  const [games, setGames] = useState(null);
  const [gamesError, setGamesError] = useState(null);
  const [picked, setPicked] = useState(null);
  const [rooms, setRooms] = useState(null);
  const [roomsError, setRoomsError] = useState(null);
  const refresh = useRef(() => {});

  useEffect(() => {
    api("GET", "/api/games").then((list) => setGames(Array.isArray(list) ? list : []))
      .catch((e) => setGamesError(e.message));
  }, []);

  useEffect(() => {
    let stopped = false;
    let timer = null;
    const load = async () => {
      clearTimeout(timer);
      try {
        const got = await api("GET", "/api/rooms");
        const list = (Array.isArray(got) ? got : []).slice()
          .sort((a, b) => (STATUS_ORDER[a.status] ?? 3) - (STATUS_ORDER[b.status] ?? 3))
          .slice(0, MAX_ROOMS);
        // The listing may carry each seat's name (an extension of the contract); only without it is
        // each room asked for its seats, which costs a request per room per refresh.
        const details = await Promise.all(list.map((r) => (Array.isArray(r.names)
          ? { seats: r.names.map((n, seat) => {
            const pres = Array.isArray(r.presence) && r.presence[seat] ? r.presence[seat] : {};
            const bot = pres.presence === "bot" ? true : Array.isArray(r.bots) ? Boolean(r.bots[seat]) : null;
            return { seat, name: n, bot, presence: pres.presence, grace_until: pres.grace_until };
          }) }
          : api("GET", `/api/rooms/${encodeURIComponent(r.room)}`).catch(() => null))));
        if (stopped) return;
        setRooms(list.map((r, i) => ({ ...r, detail: details[i] })));
        setRoomsError(null);
      } catch (e) {
        if (!stopped) setRoomsError(e.message);
      }
      if (!stopped) timer = setTimeout(load, REFRESH_MS);
    };
    refresh.current = load;
    load();
    return () => { stopped = true; clearTimeout(timer); };
  }, []);

  // Everyone at the table sees it: asked for, never made up ("Player" for everyone said nothing).
  const myName = () => {
    const n = nameOrAsk(document.getElementById("player-name")); // the field shows `name`
    if (n) saveName(n);
    return n;
  };

  const join = async (rid, seat) => {
    const n = myName();
    if (!n) return;
    try {
      const body = { name: n };
      if (seat !== undefined && seat !== null) body.seat = seat;
      const got = await api("POST", `/api/rooms/${encodeURIComponent(rid)}/join`, body);
      saveSeat(rid, got.seat, got.token);
      location.hash = `#/room/${encodeURIComponent(rid)}`;
    } catch (e) {
      toast(e.status === 409 ? t("lobby.seatTaken") : t("lobby.couldNotJoin", { why: e.message }), "error");
      refresh.current();
    }
  };

  const pick = (id) => {
    setPicked({ id, at: Date.now() });
    requestAnimationFrame(() => {
      const select = document.getElementById("new-game");
      if (select) { select.scrollIntoView({ block: "center" }); select.focus(); }
    });
  };

  return h("div", { class: "lobby" },
    h("section", { class: "who card" },
      h("label", { for: "player-name" }, `${t("lobby.yourName")} `),
      h("input", { id: "player-name", name: "name", maxlength: 24, autocomplete: "nickname", placeholder: t("lobby.yourName"),
        value: name, "data-testid": "name", oninput: (e) => {
          setName(e.currentTarget.value);
          if (e.currentTarget.value.trim()) saveName(e.currentTarget.value.trim());
        } }),
      h("small", { class: "muted" }, t("lobby.nameKept"))),
    // First under the name: the seats a returning player comes back for, where nothing that loads
    // or refreshes above them (the rooms, the games) moves them under a finger or a pointer.
    h(MyGames, { games: games || [] }),
    h("section", {}, h("h2", {}, t("lobby.games")), h(GameList, { games, error: gamesError, onPick: pick })),
    h("section", { id: "new-room" }, h("h2", {}, t("lobby.newRoom")),
      games && games.length ? h(CreateForm, { games, picked, join, askName: myName }) : h("p", { class: "muted" }, games ? t("lobby.noGames") : "…")),
    h("section", {}, h("h2", {}, t("lobby.rooms")),
      h("p", { class: "muted" }, t("lobby.roomsNote")),
      h(RoomList, { rooms, error: roomsError, games: games || [], join })),
    h(History, { games: games || [] }),
    h("section", {}, h(GoForm, {})));
}

const MY_GAMES_SHOWN = 12;
const HISTORY_PAGE = 10;

function gameName(games, id) {
  const g = games.find((x) => x.id === id);
  return (g && g.name) || words(id);
}

function when(ms) {
  return ms ? new Date(ms).toLocaleString(language(), { dateStyle: "medium", timeStyle: "short" }) : "";
}

/** The games this browser sat at (remembered in it, no account needed), each as the hub has it now. */
function MyGames({ games }) {
  const [mine, setMine] = useState(() => myGames().slice(0, MY_GAMES_SHOWN));
  const [info, setInfo] = useState({});
  useEffect(() => {
    let stopped = false;
    Promise.all(mine.map((g) => api("GET", `/api/rooms/${encodeURIComponent(g.rid)}`)
      .then((i) => [g.rid, i]).catch((e) => [g.rid, e.status === 404 ? "gone" : null])))
      .then((pairs) => { if (!stopped) setInfo(Object.fromEntries(pairs)); });
    return () => { stopped = true; };
  }, [mine]);
  if (!mine.length) return null;
  const back = (g) => {
    reclaimSeat(g.rid, g.seat, g.token);
    location.hash = `#/room/${encodeURIComponent(g.rid)}`;
  };
  const drop = (g) => { forgetGame(g.rid); setMine(myGames().slice(0, MY_GAMES_SHOWN)); };
  return h("section", { "data-testid": "my-games" }, h("h2", {}, t("mine.title")),
    h("p", { class: "muted" }, t("mine.note")),
    h("ul", { class: "my-games" }, mine.map((g) => {
      const i = info[g.rid];
      const status = i === "gone" ? "gone" : i && i.status;
      return h("li", { key: g.rid, class: `card status-${status || "unknown"}`, "data-testid": "my-game", "data-room": g.rid },
        h("strong", {}, i && i !== "gone" ? gameName(games, i.game) : "…"), " ",
        h("span", { class: "room-id" }, `#${g.rid}`), " ",
        h("span", { class: "status" }, status === "gone" ? t("status.gone") : statusWords(status) || "…"), " ",
        h("span", { class: "muted" }, t("mine.asAt", { name: g.name || t("mine.you"), seat: g.seat, when: when(g.at) })), " ",
        status === "finished"
          ? [h("a", { class: "button primary", href: `#/replay/${encodeURIComponent(g.rid)}`, "data-testid": `my-replay-${g.rid}` }, t("replay.button")),
            typeof i.next_room === "string" && i.next_room ? [" ", h(NextGame, { g, next: i.next_room, testid: `my-next-${g.rid}` })] : null]
          : status === "waiting" || status === "playing"
            ? h("button", { type: "button", class: "primary", "data-testid": `my-back-${g.rid}`, onclick: () => back(g) }, t("mine.back"))
            : null,
        " ", h("button", { type: "button", class: "quiet", title: t("mine.forget"), onclick: () => drop(g) }, "✕"));
    })));
}

/**
 * A finished game of mine whose next game was set (someone pressed "Play again"): take my seat there
 * with this game's token (the hub seats me in the same seat under a new one), or go back to it if
 * this browser already sat there. Without it, the rematch was only offered on the end screen, which
 * a player who had left the table never saw again.
 */
function NextGame({ g, next, testid }) {
  const [busy, setBusy] = useState(false);
  const held = myGames().find((x) => x.rid === next);
  if (held) {
    const back = () => {
      reclaimSeat(held.rid, held.seat, held.token);
      location.hash = `#/room/${encodeURIComponent(next)}`;
    };
    return h("button", { type: "button", "data-testid": testid, "data-room": next, onclick: back }, t("next.back"));
  }
  const again = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const got = await api("POST", `/api/rooms/${encodeURIComponent(g.rid)}/again`, { token: g.token });
      saveSeat(got.room, got.seat, got.token);
      location.hash = `#/room/${encodeURIComponent(got.room)}`;
    } catch (e) {
      setBusy(false);
      if (e.code === "seat_taken") {
        toast(t("next.taken"), "error");
        location.hash = `#/room/${encodeURIComponent(next)}/watch`;
      } else {
        toast(t("next.couldNot", { why: e.message }), "error");
      }
    }
  };
  return h("button", { type: "button", class: "primary", "data-testid": testid, "data-room": next, disabled: busy, onclick: again },
    busy ? t("next.setting") : t("next.again"));
}

/** Finished public games, newest first, a page at a time (GET /api/history). */
function History({ games }) {
  const [pages, setPages] = useState([]);
  const [next, setNext] = useState(undefined);
  const [error, setError] = useState(null);
  const more = async (before) => {
    try {
      const got = await api("GET", `/api/history?limit=${HISTORY_PAGE}${before ? `&before=${before}` : ""}`);
      setPages((p) => [...p, ...(got.games || [])]);
      setNext(got.next || null);
    } catch (e) { setError(e.message); }
  };
  useEffect(() => { more(null); }, []);
  return h("section", { "data-testid": "history" }, h("h2", {}, t("history.title")),
    error ? h("p", { class: "error" }, t("history.couldNot", { why: error })) : null,
    pages.length ? h("ul", { class: "history" }, pages.map((g) => h("li", { key: g.room, "data-testid": "finished-game", "data-room": g.room },
      h("strong", {}, gameName(games, g.game)), " ",
      h("span", { class: "muted" }, `${(g.names || []).filter(Boolean).join(", ")} · ${when(g.finished)}`), " ",
      g.result && g.result.abandoned ? h("span", { class: "abandoned", "data-testid": `abandoned-${g.room}` }, t("history.abandoned")) : null,
      h("a", { class: "button", href: `#/replay/${encodeURIComponent(g.room)}`, "data-testid": `history-replay-${g.room}` }, t("replay.button")))))
      : h("p", { class: "muted" }, next === undefined ? "…" : t("history.none")),
    next ? h("button", { type: "button", "data-testid": "history-more", onclick: () => more(next) }, t("history.older")) : null);
}

function GameList({ games, error, onPick }) {
  if (error) return h("div", { class: "games", "data-testid": "games" }, h("p", { class: "error" }, t("games.couldNot", { why: error })));
  if (!games) return h("div", { class: "games", "data-testid": "games" }, h("p", { class: "muted" }, t("games.loading")));
  return h("div", { class: "games", "data-testid": "games" }, games.map((g) => h("article", { key: g.id, class: "game card",
    "data-game": g.id, "data-testid": "game" },
  h("h3", {}, g.name || words(g.id)),
  h("p", { class: "players", "data-testid": "game-players" },
    g.min_players === g.max_players ? t("games.players", { n: g.min_players })
      : t("games.range", { min: g.min_players, max: g.max_players })),
  description(g) ? h("p", { class: "desc" }, description(g)) : null,
  h("button", { type: "button", "data-testid": `pick-${g.id}`, onclick: () => onPick(g.id) }, t("games.pick")))));
}

/** The value an option's field shows for a value of the option (seconds for milliseconds). */
function shown(name, value) {
  const w = OPTION_UNITS[name];
  if (typeof value !== "number" || !w || !w.scale) return value;
  return Math.round((value / w.scale) * 1000) / 1000;
}

/** An option's description for a table of `seats`: its `by_seats` entry laid over it. */
export function specFor(spec, seats) {
  const own = spec && spec.by_seats && spec.by_seats[String(seats)];
  return own ? { ...spec, ...own } : (spec || {});
}

/** How well a bot seat plays, weakest first (rules/levels.py): what the game's entry of /api/games
 * offers (`bot_levels`; the strong one only for games the search knows); a new bot plays at normal. */
const BOT_LEVELS = ["easy", "normal"];

/** A fresh form for a game: its seats, you at seat 0, no bots, every option at its default. */
function freshForm(game, seats = null) {
  const n = seats ?? game.min_players;
  const values = {};
  for (const [name, spec] of Object.entries(game.options || {})) values[name] = shown(name, specFor(spec, n).default);
  return { game: game.id, seats: n, me: 0, bots: new Set(), levels: {}, values };
}

/** The form's values for another seat count: an option whose choices depend on it goes to that
 * count's default when its value is not among them (so the form never offers what the hub refuses). */
function reseat(game, values, seats) {
  const out = { ...values };
  for (const [name, spec] of Object.entries(game.options || {})) {
    if (!spec || !spec.by_seats) continue;
    const now = specFor(spec, seats);
    if (!Array.isArray(now.choices) || !now.choices.some((c) => JSON.stringify(c) === JSON.stringify(out[name]))) out[name] = shown(name, now.default);
  }
  return out;
}

function CreateForm({ games, picked, join, askName }) {
  const [form, setForm] = useState(() => freshForm(games[0]));
  useEffect(() => {
    const g = picked && games.find((x) => x.id === picked.id);
    if (g) setForm(freshForm(g));
  }, [picked]);
  const game = games.find((g) => g.id === form.game) || games[0];
  const set = (changes) => setForm({ ...form, ...changes });
  const seatsOf = form.seats;
  const me = form.me === null || form.me >= seatsOf ? (form.me === null ? null : 0) : form.me;
  const bots = new Set([...form.bots].filter((s) => s < seatsOf && s !== me));
  const allBots = me === null && bots.size === seatsOf;
  const privateRoom = form.values.private === true;

  // what each option holds now, in its own type (for `when` and the placeholders of `choice_docs`)
  const current = {};
  for (const [name, given] of Object.entries(game.options || {})) current[name] = read(name, specFor(given, seatsOf), form.values[name]);
  const offered = (spec) => !spec.when || Object.entries(spec.when).every(([other, values]) =>
    Array.isArray(values) && values.some((v) => JSON.stringify(v) === JSON.stringify(current[other])));

  const create = async (e) => {
    e.preventDefault();
    if (me !== null && !askName()) return; // before the room is made: no room left with a seat nobody took
    const options = {};
    for (const [name, given] of Object.entries(game.options || {})) {
      const spec = specFor(given, seatsOf);
      if (!offered(spec)) continue; // means nothing with the other choices made
      const value = read(name, spec, form.values[name]);
      // Send only what differs from this seat count's default: the hub fills the rest.
      if (value !== undefined && JSON.stringify(value) !== JSON.stringify(spec.default)) options[name] = value;
    }
    // a normal bot is its seat alone; another level says so (docs/protocol.md)
    const levelOf = (s) => (form.levels || {})[s] || "normal";
    const body = { game: game.id, seats: seatsOf, options,
      bots: [...bots].sort((a, b) => a - b).map((s) => (levelOf(s) === "normal" ? s : { seat: s, level: levelOf(s) })) };
    try {
      const room = await api("POST", "/api/rooms", body);
      if (me === null) location.hash = `#/room/${encodeURIComponent(room.room)}/watch`;
      else await join(room.room, me);
    } catch (err) {
      toast(t("form.couldNot", { why: err.message }), "error");
    }
  };

  const seatChoices = [];
  for (let n = game.min_players; n <= game.max_players; n++) seatChoices.push(n);
  const seatRows = [];
  for (let s = 0; s < seatsOf; s++) {
    if (s === me) {
      seatRows.push(h("label", { key: s, class: "mine" },
        h("input", { type: "checkbox", disabled: true, checked: false, "data-testid": "bot-you", "aria-describedby": "you-sit" }),
        h("span", {}, t("form.seatYou", { seat: s }))));
      continue;
    }
    const on = bots.has(s);
    seatRows.push(h("label", { key: s },
      h("input", { type: "checkbox", value: s, name: "bot", checked: on, "data-testid": `bot-${s}`,
        onchange: (e) => {
          const next = new Set(bots);
          if (e.currentTarget.checked) next.add(s); else next.delete(s);
          set({ bots: next });
        } }),
      h("span", {}, t(on ? "form.seatBot" : "form.seatFree", { seat: s })),
      on ? h("select", { class: "bot-level", "data-testid": `bot-level-${s}`, "aria-label": t("form.botLevel", { seat: s }),
        value: (form.levels || {})[s] || "normal",
        onchange: (e) => set({ levels: { ...(form.levels || {}), [s]: e.currentTarget.value } }) },
      (game.bot_levels || BOT_LEVELS).map((lv) => h("option", { key: lv, value: lv }, t(`level.${lv}`)))) : null));
  }

  return h("form", { class: "create card", "data-testid": "create-form", onsubmit: create },
    h("div", { class: "option" }, h("label", { for: "new-game" }, t("form.game")),
      h("select", { id: "new-game", name: "game", "data-testid": "new-game", value: game.id,
        onchange: (e) => setForm(freshForm(games.find((g) => g.id === e.currentTarget.value) || game)) },
      games.map((g) => h("option", { key: g.id, value: g.id }, g.name || words(g.id))))),
    description(game) ? h("p", { class: "desc" }, description(game)) : null,
    h("div", { class: "option" }, h("label", { for: "new-seats" }, t("form.seats")),
      h("select", { id: "new-seats", name: "seats", "data-testid": "new-seats", value: String(seatsOf),
        onchange: (e) => { const n = Number(e.currentTarget.value); set({ seats: n, values: reseat(game, form.values, n) }); } },
      seatChoices.map((n) => h("option", { key: n, value: String(n) }, String(n))))),
    h("div", { class: "option" }, h("label", { for: "new-me" }, t("form.you")),
      h("select", { id: "new-me", name: "me", "data-testid": "new-me", value: me === null ? "watch" : String(me),
        onchange: (e) => set({ me: e.currentTarget.value === "watch" ? null : Number(e.currentTarget.value) }) },
      Array.from({ length: seatsOf }, (_, s) => h("option", { key: s, value: String(s) }, t("form.playAt", { seat: s }))),
      h("option", { key: "watch", value: "watch" }, t("form.onlyWatch"))),
      h("small", { id: "you-sit", class: "doc" }, me === null
        ? t("form.youWatch") : t("form.youSit", { seat: me }))),
    Object.entries(game.options || {}).filter(([, spec]) => offered(specFor(spec, seatsOf)))
      .map(([name, spec]) => h(OptionField, { key: `${game.id}:${name}`, name, spec: specFor(spec, seatsOf),
        value: form.values[name], current, onValue: (v) => set({ values: { ...form.values, [name]: v } }) })),
    privateRoom ? h("p", { class: "note", "data-testid": "private-note" },
      t("form.privateNote")) : null,
    h("fieldset", { class: "bots", "data-testid": "bots" }, h("legend", {}, t("form.bots")), seatRows),
    h("button", { type: "submit", class: "primary", "data-testid": "create" },
      me === null ? t(allBots ? "form.createWatchBots" : "form.createWatch") : t("form.createSit", { seat: me })));
}

/**
 * What the chosen value means, from the option's `choice_docs`, with `{name}` put as the value of
 * option `name` (in the units the player typed it in); null when the option has no such words.
 */
function choiceDoc(spec, value, current) {
  const docs = spec.choice_docs;
  const chosen = value === undefined ? spec.default : value;
  if (!docs || typeof docs[String(chosen)] !== "string") return null;
  const text = known(`choice.${chosen}.help`) ? t(`choice.${chosen}.help`, Object.fromEntries(Object.keys(current || {})
    .map((k) => [k, `{${k}}`]))) : docs[String(chosen)];
  return text.replace(/\{(\w+)\}/g, (all, other) => {
    const v = current ? current[other] : undefined;
    if (v === undefined || v === null) return all;
    const scale = (OPTION_UNITS[other] || {}).scale;
    return String(scale ? v / scale : v);
  });
}

/** The option's value from what its field holds, in the option's own type and units. */
function read(name, spec, value) {
  const dflt = spec.default;
  const w = OPTION_UNITS[name] || {};
  if (typeof dflt === "boolean" && (!Array.isArray(spec.choices) || spec.choices.every((c) => typeof c === "boolean"))) return Boolean(value);
  if (Array.isArray(spec.choices) && spec.choices.length) return value;
  if (typeof dflt === "number" || spec.min !== undefined || spec.max !== undefined) {
    if (value === "" || value === null || value === undefined) return dflt;
    const n = Number(value);
    return Number.isFinite(n) ? Math.round(n * (w.scale || 1)) : dflt;
  }
  return value === "" && dflt === null ? null : value;
}

/** A field for one option, chosen by its description; its help in plain words (`code` as code). */
function OptionField({ name, spec, value, current, onValue }) {
  const id = `opt-${name}`;
  const w = optionWords(name);
  const dflt = spec.default;
  let input;
  if (typeof dflt === "boolean" && (!Array.isArray(spec.choices) || spec.choices.every((c) => typeof c === "boolean"))) {
    input = h("input", { id, name, type: "checkbox", checked: Boolean(value), "data-testid": id,
      onchange: (e) => onValue(e.currentTarget.checked) });
  } else if (Array.isArray(spec.choices) && spec.choices.length) {
    const at = Math.max(0, spec.choices.findIndex((c) => JSON.stringify(c) === JSON.stringify(value)));
    input = h("select", { id, name, "data-testid": id, value: String(at), onchange: (e) => onValue(spec.choices[Number(e.currentTarget.value)]) },
      spec.choices.map((c, i) => h("option", { key: i, value: String(i) }, c === null ? t("form.none") : known(`choice.${c}`) ? t(`choice.${c}`) : words(String(c)))));
  } else if (typeof dflt === "number" || spec.min !== undefined || spec.max !== undefined) {
    input = h("input", { id, name, type: "number", step: w.scale ? "any" : 1, min: shown(name, spec.min), max: shown(name, spec.max),
      value: value ?? "", placeholder: dflt === null ? t("form.none") : "", "data-testid": id, inputmode: "decimal",
      oninput: (e) => onValue(e.currentTarget.value) });
  } else {
    input = h("input", { id, name, type: "text", value: value ?? "", "data-testid": id, oninput: (e) => onValue(e.currentTarget.value) });
  }
  const help = choiceDoc(spec, value, current) || w.help || spec.doc;
  return h("div", { class: "option", "data-testid": `option-${name}` },
    h("label", { for: id }, w.label || words(name)), input,
    w.unit ? h("span", { class: "unit" }, t(w.unit)) : null,
    help ? h("small", { class: "doc" }, withCode(help)) : null);
}

/** " (here)", " (away, a bot in 12 s)", " (away)": a seat's presence from the listing or the room's info. */
function presenceWords(s, r) {
  const presence = s.presence || (s.connected === false && !s.bot && r.status === "playing" ? "away" : null);
  if (presence === "here") return t("presence.here");
  if (presence !== "away" || s.bot) return "";
  if (typeof s.grace_until === "number") {
    return t("presence.awayBot", { s: Math.max(0, Math.ceil((s.grace_until - Date.now()) / 1000)) });
  }
  return t("presence.away");
}

function RoomList({ rooms, error, games, join }) {
  if (error && !rooms) return h("div", { class: "rooms", "data-testid": "rooms" }, h("p", { class: "error" }, t("rooms.couldNot", { why: error })));
  if (!rooms) return h("div", { class: "rooms", "data-testid": "rooms" }, h("p", { class: "muted" }, t("rooms.loading")));
  if (!rooms.length) return h("div", { class: "rooms", "data-testid": "rooms" }, h("p", { class: "muted" }, t("rooms.none")));
  const game = (id) => games.find((g) => g.id === id);
  return h("div", { class: "rooms", "data-testid": "rooms" }, rooms.map((r) => {
    const d = r.detail;
    const mine = seatFor(r.room);
    const seats = d && Array.isArray(d.seats) ? d.seats : [];
    const chips = seats.map((s) => {
      if (s.name || s.bot) {
        // bot is null when the listing does not say (then no sign rather than a wrong one).
        const sign = s.bot ? "⚙ " : s.bot === false ? "☺ " : "";
        return h("li", { key: s.seat, class: `seat${s.bot ? " bot" : ""}`, "data-presence": s.presence || undefined },
          `${s.seat}: ${sign}${s.name || t("rooms.bot")}${presenceWords(s, r)}`);
      }
      return h("li", { key: s.seat, class: "seat free" },
        r.status === "waiting"
          ? h("button", { type: "button", "data-testid": `join-${r.room}-${s.seat}`, onclick: () => join(r.room, s.seat) },
            t("rooms.freeJoin", { seat: s.seat }))
          : t("rooms.empty", { seat: s.seat }));
    });
    return h("article", { key: r.room, class: `room card status-${r.status}`, "data-room": r.room, "data-testid": "room" },
      h("header", {},
        h("strong", {}, (game(r.game) && game(r.game).name) || words(r.game)),
        " ", h("span", { class: "room-id" }, `#${r.room}`),
        " ", h("span", { class: "status", "data-testid": `status-${r.room}` },
          r.abandoned ? t("status.abandoned") : statusWords(r.status) || r.status),
        " ", h("span", { class: "taken" }, t("rooms.seated", { taken: r.taken, seats: r.seats })),
        typeof r.watchers === "number" && r.status !== "finished"
          ? h("span", { class: "watchers muted", "data-testid": `watchers-${r.room}` }, t("rooms.watching", { n: r.watchers })) : null),
      chips.length ? h("ul", { class: "seats" }, chips) : null,
      h("div", { class: "actions" },
        mine && r.status !== "finished"
          ? h("a", { class: "button primary", href: `#/room/${encodeURIComponent(r.room)}` }, t("rooms.backTo", { seat: mine.seat })) : null,
        !mine && r.status === "waiting" && r.taken < r.seats && !seats.length
          ? h("button", { type: "button", onclick: () => join(r.room) }, t("rooms.join")) : null,
        r.status === "finished"
          ? h("a", { class: "button primary", href: `#/replay/${encodeURIComponent(r.room)}`, "data-testid": `replay-${r.room}` }, t("replay.button"))
          : h("a", { class: "button", href: `#/room/${encodeURIComponent(r.room)}/watch`, "data-testid": `watch-${r.room}` }, t("rooms.watch")),
        r.status === "finished" && typeof r.next_room === "string" && r.next_room ? nextTable(r.room, r.next_room) : null,
        r.status === "finished" ? null
          : h("button", { type: "button", "data-testid": `share-${r.room}`, onclick: () => share(roomLink(r.room)) }, t("rooms.copy"))));
  }));
}

/**
 * Where a finished room's players went on ("Play again"): my seat there if this browser sat at the
 * finished game, else the next table to watch (where its free seats are offered to sit at).
 */
function nextTable(rid, next) {
  const testid = `next-${rid}`;
  const g = myGames().find((x) => x.rid === rid);
  if (g) return h(NextGame, { g, next, testid });
  return h("a", { class: "button", href: `#/room/${encodeURIComponent(next)}/watch`, "data-testid": testid, "data-room": next },
    t("next.follow"));
}

function GoForm() {
  const [text, setText] = useState("");
  const go = (e) => {
    e.preventDefault();
    const raw = text.trim();
    // A pasted link keeps what follows "#/room/"; anything else is taken as the id itself.
    const m = raw.match(/#\/(room|replay)\/([^/?#\s]+)(\/watch)?/);
    const rid = m ? decodeURIComponent(m[2]) : raw.replace(/^#/, "");
    if (!rid || /[\s/]/.test(rid)) { toast(t("go.bad"), "error"); return; }
    location.hash = m && m[1] === "replay" ? `#/replay/${encodeURIComponent(rid)}`
      : `#/room/${encodeURIComponent(rid)}${m && m[3] ? "/watch" : ""}`;
  };
  return h("form", { class: "go card", onsubmit: go },
    h("label", { for: "go-room" }, t("go.label")),
    h("input", { id: "go-room", name: "room", placeholder: t("go.placeholder"), "data-testid": "go-room", autocomplete: "off",
      value: text, oninput: (e) => setText(e.currentTarget.value) }),
    h("button", { type: "submit", "data-testid": "go" }, t("go.open")));
}

async function share(link) {
  if (await copyText(link)) toast(t("share.copied"));
  else toast(t("share.byHand", { link }), "info", 12000);
}
