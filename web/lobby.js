// The lobby: what can be played, what is open, and making or joining a room (PROTOCOL.md section 1).
//
// Everything here is plain HTTP against /api; the table itself is table.js. The options form is
// built from each option's description ({default, choices?, min?, max?, doc?}), so a game or a hub
// setting added later shows up without touching this file.

import { h, api, toast, savedName, saveName, saveSeat, seatFor, words } from "./ui.js";

const REFRESH_MS = 3000;
const MAX_ROOMS = 30;
const STATUS_WORDS = { waiting: "◷ waiting for players", playing: "▶ playing", finished: "■ finished" };
const STATUS_ORDER = { waiting: 0, playing: 1, finished: 2 };

/** Render the lobby into el; returns a function that stops its timers. */
export function renderLobby(el) {
  let games = [];
  let stopped = false;
  let timer = null;

  const nameInput = h("input", {
    id: "player-name", name: "name", maxlength: 24, autocomplete: "nickname",
    placeholder: "Your name", value: savedName(), "data-testid": "name",
    onchange: () => saveName(nameInput.value.trim()),
  });
  const gamesBox = h("div", { class: "games", "data-testid": "games" }, h("p", { class: "muted" }, "Loading games…"));
  const createBox = h("form", { class: "create card", "data-testid": "create-form", onsubmit: (e) => { e.preventDefault(); create(); } });
  const roomsBox = h("div", { class: "rooms", "data-testid": "rooms" }, h("p", { class: "muted" }, "Loading rooms…"));

  el.replaceChildren(
    h("section", { class: "who card" },
      h("label", { for: "player-name" }, "Your name "), nameInput),
    h("section", {}, h("h2", {}, "Games"), gamesBox),
    h("section", {}, h("h2", {}, "New room"), createBox),
    h("section", {}, h("h2", {}, "Open rooms"), roomsBox),
  );

  function myName() {
    const name = nameInput.value.trim() || "Player";
    saveName(name);
    return name;
  }

  // --- games and the create form -----------------------------------------------------------

  api("GET", "/api/games").then((list) => {
    games = Array.isArray(list) ? list : [];
    gamesBox.replaceChildren(...games.map((g) => h("article", { class: "game card", "data-game": g.id },
      h("h3", {}, g.name || words(g.id)),
      h("p", { class: "players" }, `${g.min_players === g.max_players ? g.min_players : `${g.min_players}–${g.max_players}`} players`),
      g.description ? h("p", { class: "desc" }, g.description) : null)));
    if (!games.length) gamesBox.replaceChildren(h("p", { class: "muted" }, "No games are served."));
    buildCreate();
  }).catch((e) => {
    gamesBox.replaceChildren(h("p", { class: "error" }, `Could not load the games: ${e.message}`));
  });

  let form = null; // {game, seats, options: {name: read()}, bots: [checkbox]}

  function buildCreate(gameId) {
    const game = games.find((g) => g.id === gameId) || games[0];
    if (!game) return;
    const gameSelect = h("select", { id: "new-game", name: "game", "data-testid": "new-game",
      onchange: () => buildCreate(gameSelect.value) },
    ...games.map((g) => h("option", { value: g.id, selected: g.id === game.id }, g.name || words(g.id))));
    const seatsSelect = h("select", { id: "new-seats", name: "seats", "data-testid": "new-seats",
      onchange: () => buildBots() });
    for (let n = game.min_players; n <= game.max_players; n++) {
      seatsSelect.appendChild(h("option", { value: n, selected: n === (form && form.game === game.id ? form.seatsValue : game.min_players) }, String(n)));
    }
    const botsBox = h("fieldset", { class: "bots", "data-testid": "bots" });
    const optionRows = [];
    const readers = {};
    for (const [name, spec] of Object.entries(game.options || {})) {
      const { input, read } = optionInput(name, spec || {});
      readers[name] = { read, spec: spec || {} };
      optionRows.push(h("div", { class: "option" },
        h("label", { for: input.id }, words(name)), input,
        spec && spec.doc ? h("small", { class: "doc" }, spec.doc) : null));
    }
    form = { game: game.id, seatsSelect, readers, bots: [], seatsValue: Number(seatsSelect.value) };

    function buildBots() {
      const n = Number(seatsSelect.value);
      form.seatsValue = n;
      const was = new Set(form.bots.filter((b) => b.checked).map((b) => Number(b.value)));
      form.bots = [];
      const boxes = [h("legend", {}, "Bots")];
      for (let s = 0; s < n; s++) {
        if (s === 0) {
          boxes.push(h("label", { class: "seat-you" }, h("input", { type: "checkbox", disabled: true }), " Seat 0: you"));
          continue;
        }
        const cb = h("input", { type: "checkbox", value: s, name: "bot", checked: was.has(s),
          "data-testid": `bot-${s}` });
        form.bots.push(cb);
        boxes.push(h("label", {}, cb, ` Seat ${s}: ⚙ bot`));
      }
      botsBox.replaceChildren(...boxes);
    }
    buildBots();

    createBox.replaceChildren(
      h("div", { class: "option" }, h("label", { for: "new-game" }, "Game"), gameSelect),
      game.description ? h("p", { class: "desc" }, game.description) : null,
      h("div", { class: "option" }, h("label", { for: "new-seats" }, "Seats"), seatsSelect),
      ...optionRows,
      botsBox,
      h("button", { type: "submit", class: "primary", "data-testid": "create" }, "Create room and sit at seat 0"),
    );
  }

  async function create() {
    if (!form) return;
    const options = {};
    for (const [name, { read, spec }] of Object.entries(form.readers)) {
      const value = read();
      // Send only what differs from the default: the hub fills the rest, and a default never
      // clashes with another choice (a mode that needs a certain seat count, say).
      if (value !== undefined && JSON.stringify(value) !== JSON.stringify(spec.default)) options[name] = value;
    }
    const body = {
      game: form.game,
      seats: Number(form.seatsSelect.value),
      options,
      bots: form.bots.filter((b) => b.checked).map((b) => Number(b.value)),
    };
    try {
      const room = await api("POST", "/api/rooms", body);
      await join(room.room, 0);
    } catch (e) {
      toast(`Could not create the room: ${e.message}`, "error");
    }
  }

  async function join(rid, seat) {
    try {
      const body = { name: myName() };
      if (seat !== undefined && seat !== null) body.seat = seat;
      const got = await api("POST", `/api/rooms/${encodeURIComponent(rid)}/join`, body);
      saveSeat(rid, got.seat, got.token);
      location.hash = `#/room/${encodeURIComponent(rid)}`;
    } catch (e) {
      toast(e.status === 409 ? "That seat is taken (or the room is full)." : `Could not join: ${e.message}`, "error");
      refresh();
    }
  }

  // --- open rooms -------------------------------------------------------------------------

  async function refresh() {
    if (stopped) return;
    clearTimeout(timer);
    try {
      const rooms = await api("GET", "/api/rooms");
      const list = (Array.isArray(rooms) ? rooms : [])
        .slice()
        .sort((a, b) => (STATUS_ORDER[a.status] ?? 3) - (STATUS_ORDER[b.status] ?? 3))
        .slice(0, MAX_ROOMS);
      // The listing may carry each seat's name (an extension of the contract); only without it is
      // each room asked for its seats, which costs a request per room per refresh.
      const details = await Promise.all(list.map((r) => (Array.isArray(r.names)
        ? { seats: r.names.map((name, seat) => ({ seat, name, bot: false })) }
        : api("GET", `/api/rooms/${encodeURIComponent(r.room)}`).catch(() => null))));
      if (stopped) return;
      renderRooms(list, details);
    } catch (e) {
      if (!stopped) roomsBox.replaceChildren(h("p", { class: "error" }, `Could not load the rooms: ${e.message}`));
    }
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  }

  function renderRooms(list, details) {
    if (!list.length) {
      roomsBox.replaceChildren(h("p", { class: "muted" }, "No rooms yet: create one above."));
      return;
    }
    const game = (id) => games.find((g) => g.id === id);
    roomsBox.replaceChildren(...list.map((r, i) => {
      const d = details[i];
      const mine = seatFor(r.room);
      const seats = d && Array.isArray(d.seats) ? d.seats : [];
      const link = `${location.origin}${location.pathname}#/room/${encodeURIComponent(r.room)}`;
      const seatChips = seats.map((s) => {
        if (s.name || s.bot) {
          return h("li", { class: `seat ${s.bot ? "bot" : ""}` },
            `${s.seat}: ${s.bot ? "⚙ " : "☺ "}${s.name || "bot"}${s.connected === false && !s.bot && r.status === "playing" ? " (away)" : ""}`);
        }
        return h("li", { class: "seat free" },
          r.status === "waiting"
            ? h("button", { type: "button", "data-testid": `join-${r.room}-${s.seat}`, onclick: () => join(r.room, s.seat) },
              `${s.seat}: free — join`)
            : `${s.seat}: empty`);
      });
      return h("article", { class: `room card status-${r.status}`, "data-room": r.room, "data-testid": "room" },
        h("header", {},
          h("strong", {}, (game(r.game) && game(r.game).name) || words(r.game)),
          " ", h("span", { class: "room-id" }, `#${r.room}`),
          " ", h("span", { class: "status" }, STATUS_WORDS[r.status] || r.status),
          " ", h("span", { class: "taken" }, `${r.taken}/${r.seats} seated`)),
        seatChips.length ? h("ul", { class: "seats" }, ...seatChips) : null,
        h("div", { class: "actions" },
          mine ? h("a", { class: "button primary", href: `#/room/${encodeURIComponent(r.room)}` }, `Back to my seat ${mine.seat}`) : null,
          !mine && r.status === "waiting" && r.taken < r.seats && !seats.length
            ? h("button", { type: "button", onclick: () => join(r.room) }, "Join") : null,
          h("a", { class: "button", href: `#/room/${encodeURIComponent(r.room)}/watch`, "data-testid": `watch-${r.room}` }, "◉ Watch"),
          h("button", { type: "button", onclick: () => share(link) }, "Share link")));
    }));
  }

  refresh();
  return () => { stopped = true; clearTimeout(timer); };
}

/** An input for one option, and how to read its value back in the option's own type. */
function optionInput(name, spec) {
  const id = `opt-${name}`;
  const dflt = spec.default;
  const bools = Array.isArray(spec.choices) && spec.choices.length && spec.choices.every((c) => typeof c === "boolean");
  if (typeof dflt === "boolean" && (!Array.isArray(spec.choices) || bools)) {
    const cb = h("input", { id, name, type: "checkbox", checked: dflt, "data-testid": id });
    return { input: cb, read: () => cb.checked };
  }
  if (Array.isArray(spec.choices) && spec.choices.length) {
    const select = h("select", { id, name, "data-testid": id },
      ...spec.choices.map((c, i) => h("option", { value: i, selected: JSON.stringify(c) === JSON.stringify(dflt) },
        c === null ? "none" : words(String(c)))));
    return { input: select, read: () => spec.choices[Number(select.value)] };
  }
  if (typeof dflt === "number" || spec.min !== undefined || spec.max !== undefined) {
    const input = h("input", { id, name, type: "number", step: 1, min: spec.min, max: spec.max,
      value: dflt ?? "", placeholder: dflt === null ? "none" : "", "data-testid": id });
    return {
      input,
      read: () => {
        if (input.value.trim() === "") return dflt;
        const n = Number(input.value);
        return Number.isFinite(n) ? Math.trunc(n) : dflt;
      },
    };
  }
  const input = h("input", { id, name, type: "text", value: dflt ?? "", "data-testid": id });
  return { input, read: () => (input.value === "" && dflt === null ? null : input.value) };
}

async function share(link) {
  try {
    await navigator.clipboard.writeText(link);
    toast("Link copied: send it to the other players.");
  } catch {
    // Clipboard access needs a secure page; show the link to copy by hand instead.
    window.prompt("Copy this link:", link);
  }
}
