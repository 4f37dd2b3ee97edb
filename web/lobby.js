// The lobby: what can be played, what is open, and making or joining a room (PROTOCOL.md section 1).
//
// Everything here is plain HTTP against /api; the table itself is table.js. The options form is
// built from each option's description ({default, choices?, min?, max?, doc?}), so a game or a hub
// setting added later shows up without touching this file.

import { h, api, toast, savedName, saveName, saveSeat, seatFor, words, copyText, roomLink } from "./ui.js";

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
    oninput: () => { if (nameInput.value.trim()) saveName(nameInput.value.trim()); },
  });
  const goInput = h("input", { id: "go-room", name: "room", placeholder: "a link or a room id", "data-testid": "go-room",
    autocomplete: "off" });
  const goForm = h("form", { class: "go card", onsubmit: (e) => {
    e.preventDefault();
    const raw = goInput.value.trim();
    // A pasted link keeps what follows "#/room/"; anything else is taken as the id itself.
    const m = raw.match(/#\/(room|replay)\/([^/?#\s]+)(\/watch)?/);
    const rid = m ? decodeURIComponent(m[2]) : raw.replace(/^#/, "");
    if (!rid || /[\s/]/.test(rid)) { toast("That is neither a room link nor a room id.", "error"); return; }
    location.hash = m && m[1] === "replay" ? `#/replay/${encodeURIComponent(rid)}`
      : `#/room/${encodeURIComponent(rid)}${m && m[3] ? "/watch" : ""}`;
  } },
  h("label", { for: "go-room" }, "Open a room someone sent you "), goInput,
  h("button", { type: "submit", "data-testid": "go" }, "Open"));
  const gamesBox = h("div", { class: "games", "data-testid": "games" }, h("p", { class: "muted" }, "Loading games…"));
  const createBox = h("form", { class: "create card", "data-testid": "create-form", onsubmit: (e) => { e.preventDefault(); create(); } });
  const roomsBox = h("div", { class: "rooms", "data-testid": "rooms" }, h("p", { class: "muted" }, "Loading rooms…"));

  el.replaceChildren(
    h("section", { class: "who card" },
      h("label", { for: "player-name" }, "Your name "), nameInput,
      h("small", { class: "muted" }, " remembered in this browser")),
    h("section", {}, h("h2", {}, "Games"), gamesBox),
    h("section", { id: "new-room" }, h("h2", {}, "New room"), createBox),
    h("section", {}, h("h2", {}, "Rooms"),
      h("p", { class: "muted" }, "Waiting and running rooms, and finished games with their replays. Private rooms are not listed."),
      roomsBox),
    h("section", {}, goForm),
  );

  function myName() {
    const name = nameInput.value.trim() || "Player";
    saveName(name);
    return name;
  }

  // --- games and the create form -----------------------------------------------------------

  api("GET", "/api/games").then((list) => {
    games = Array.isArray(list) ? list : [];
    gamesBox.replaceChildren(...games.map((g) => h("article", { class: "game card", "data-game": g.id, "data-testid": "game" },
      h("h3", {}, g.name || words(g.id)),
      h("p", { class: "players", "data-testid": "game-players" },
        `${g.min_players === g.max_players ? g.min_players : `${g.min_players}–${g.max_players}`} players`),
      g.description ? h("p", { class: "desc" }, g.description) : null,
      h("button", { type: "button", "data-testid": `pick-${g.id}`, onclick: () => {
        buildCreate(g.id);
        const select = document.getElementById("new-game");
        if (select) { select.scrollIntoView({ block: "center" }); select.focus(); }
      } }, "New room of this game"))));
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
    const submit = h("button", { type: "submit", class: "primary", "data-testid": "create" }, "Create room");
    const privateNote = h("p", { class: "note", "data-testid": "private-note", hidden: true },
      "A private room is not listed here: the table shows its link, which is the only way in. Send it to the others.");
    const optionRows = [];
    const readers = {};
    for (const [name, spec] of Object.entries(game.options || {})) {
      const { input, read } = optionInput(name, spec || {});
      readers[name] = { read, spec: spec || {} };
      optionRows.push(h("div", { class: "option" },
        h("label", { for: input.id }, words(name)), input,
        spec && spec.doc ? h("small", { class: "doc" }, spec.doc) : null));
    }
    const keep = form && form.game === game.id ? form : null;
    form = { game: game.id, seatsSelect, readers, bots: [], seatsValue: Number(seatsSelect.value) };

    // Who sits where: each seat a bot or not; the creator takes the first seat left to people,
    // and with every seat a bot simply watches.
    function mySeat() {
      const bots = new Set(form.bots.filter((b) => b.checked).map((b) => Number(b.value)));
      for (let s = 0; s < form.seatsValue; s++) if (!bots.has(s)) return s;
      return null;
    }
    function labelSeats() {
      const me = mySeat();
      for (const cb of form.bots) {
        const s = Number(cb.value);
        cb.parentElement.lastChild.textContent = ` Seat ${s}: ${cb.checked ? "⚙ bot" : s === me ? "you" : "a player (free seat)"}`;
      }
      submit.textContent = me === null ? "Create room and watch the bots" : `Create room and sit at seat ${me}`;
    }
    function buildBots() {
      const n = Number(seatsSelect.value);
      form.seatsValue = n;
      const source = form.bots.length ? form.bots : keep ? keep.bots : [];
      const was = new Set(source.filter((b) => b.checked).map((b) => Number(b.value)));
      form.bots = [];
      const boxes = [h("legend", {}, "Bots: tick the seats a bot should take")];
      for (let s = 0; s < n; s++) {
        const cb = h("input", { type: "checkbox", value: s, name: "bot", checked: was.has(s),
          "data-testid": `bot-${s}`, onchange: labelSeats });
        form.bots.push(cb);
        boxes.push(h("label", {}, cb, h("span", {}, "")));
      }
      botsBox.replaceChildren(...boxes);
      labelSeats();
    }
    form.mySeat = mySeat;
    buildBots();

    createBox.replaceChildren(
      h("div", { class: "option" }, h("label", { for: "new-game" }, "Game"), gameSelect),
      game.description ? h("p", { class: "desc" }, game.description) : null,
      h("div", { class: "option" }, h("label", { for: "new-seats" }, "Seats"), seatsSelect),
      ...optionRows,
      privateNote,
      botsBox,
      submit,
    );
    const privateBox = createBox.querySelector("#opt-private");
    if (privateBox) {
      const sync = () => { privateNote.hidden = !privateBox.checked; };
      privateBox.addEventListener("change", sync);
      sync();
    }
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
    const me = form.mySeat();
    try {
      const room = await api("POST", "/api/rooms", body);
      if (me === null) location.hash = `#/room/${encodeURIComponent(room.room)}/watch`;
      else await join(room.room, me);
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
        ? { seats: r.names.map((name, seat) => ({ seat, name, bot: Array.isArray(r.bots) ? Boolean(r.bots[seat]) : null })) }
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
      const link = roomLink(r.room);
      const seatChips = seats.map((s) => {
        if (s.name || s.bot) {
          // bot is null when the listing does not say (then no sign rather than a wrong one).
          const sign = s.bot ? "⚙ " : s.bot === false ? "☺ " : "";
          return h("li", { class: `seat ${s.bot ? "bot" : ""}` },
            `${s.seat}: ${sign}${s.name || "bot"}${s.connected === false && !s.bot && r.status === "playing" ? " (away)" : ""}`);
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
          mine && r.status !== "finished"
            ? h("a", { class: "button primary", href: `#/room/${encodeURIComponent(r.room)}` }, `Back to my seat ${mine.seat}`) : null,
          !mine && r.status === "waiting" && r.taken < r.seats && !seats.length
            ? h("button", { type: "button", onclick: () => join(r.room) }, "Join") : null,
          r.status === "finished"
            ? h("a", { class: "button primary", href: `#/replay/${encodeURIComponent(r.room)}`, "data-testid": `replay-${r.room}` },
              "▶ Replay")
            : h("a", { class: "button", href: `#/room/${encodeURIComponent(r.room)}/watch`, "data-testid": `watch-${r.room}` },
              "◉ Watch"),
          r.status === "finished" ? null
            : h("button", { type: "button", "data-testid": `share-${r.room}`, onclick: () => share(link) }, "Copy link")));
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
  if (await copyText(link)) toast("Link copied: send it to the other players.");
  else toast(`Copy this link by hand: ${link}`, "info", 12000);
}
