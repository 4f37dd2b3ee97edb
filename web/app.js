// The router: the URL hash names the screen, so every screen can be linked, shared and reloaded.
//
//   #/                       the lobby
//   #/room/<rid>             play (when this tab holds a token for the room) or watch
//   #/room/<rid>/watch       always watch
//   #/replay/<rid>[/<move>]  a finished game, move by move

import { renderLobby } from "./lobby.js";
import { openTable, showNet } from "./table.js";
import { openReplay } from "./replay.js";
import { LANGUAGE_NAMES, language, onLanguage, setLanguage, t } from "./words.js";

const app = document.getElementById("app");
let leave = null;
// Every screen is drawn into #app by Preact, which leaves alone what it did not draw: the page's own
// "Loading…" goes first.
app.replaceChildren();

function route() {
  if (leave) { leave(); leave = null; }
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "room" && parts[1]) {
    document.title = `Room ${parts[1]} · Game hub`;
    leave = openTable(app, parts[1], { watch: parts[2] === "watch" });
  } else if (parts[0] === "replay" && parts[1]) {
    document.title = `Replay ${parts[1]} · Game hub`;
    const step = /^\d+$/.test(parts[2] || "") ? Number(parts[2]) : null;
    leave = openReplay(app, parts[1], { step });
  } else {
    document.title = "Game hub";
    showNet("idle");
    leave = renderLobby(app);
  }
  window.scrollTo(0, 0);
}

// The language switch in the site header: every language by its own name; a change is kept in this
// browser and every screen draws itself again in it (the lobby, a table mid-game, a replay).
const pickLanguage = document.getElementById("language");
if (pickLanguage) {
  for (const [code, name] of Object.entries(LANGUAGE_NAMES)) {
    const o = document.createElement("option");
    o.value = code;
    o.lang = code;
    o.textContent = name;
    pickLanguage.append(o);
  }
  const label = () => {
    pickLanguage.value = language();
    const l = document.getElementById("language-label");
    if (l) l.textContent = t("site.language");
    const brand = document.querySelector("header.site .brand");
    if (brand) brand.textContent = t("site.name");
  };
  label();
  pickLanguage.addEventListener("change", () => setLanguage(pickLanguage.value));
  onLanguage(label);
}

window.addEventListener("hashchange", route);
route();
