// The router: the URL hash names the screen, so every screen can be linked, shared and reloaded.
//
//   #/                       the lobby
//   #/room/<rid>             play (when this tab holds a token for the room) or watch
//   #/room/<rid>/watch       always watch
//   #/replay/<rid>[/<move>]  a finished game, move by move

import { renderLobby } from "./lobby.js";
import { openTable, showNet } from "./table.js";
import { openReplay } from "./replay.js";

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

window.addEventListener("hashchange", route);
route();
