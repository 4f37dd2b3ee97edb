// The router: the URL hash names the screen, so every screen can be linked, shared and reloaded.
//
//   #/                    the lobby
//   #/room/<rid>          play (when this tab holds a token for the room) or watch
//   #/room/<rid>/watch    always watch
//   #/replay/<rid>        a finished game, move by move (not served yet)

import { renderLobby } from "./lobby.js";
import { openTable, showNet } from "./table.js";
import { h } from "./ui.js";

const app = document.getElementById("app");
let leave = null;

function route() {
  if (leave) { leave(); leave = null; }
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "room" && parts[1]) {
    document.title = `Room ${parts[1]} · Game hub`;
    leave = openTable(app, parts[1], { watch: parts[2] === "watch" });
  } else if (parts[0] === "replay" && parts[1]) {
    document.title = `Replay ${parts[1]} · Game hub`;
    showNet("idle");
    app.replaceChildren(h("section", { class: "card" },
      h("h2", {}, "Replays"), h("p", {}, "Replays are not served yet."),
      h("p", {}, h("a", { href: `#/room/${encodeURIComponent(parts[1])}/watch` }, "Watch the room instead"), " · ",
        h("a", { href: "#/" }, "Lobby"))));
  } else {
    document.title = "Game hub";
    showNet("idle");
    leave = renderLobby(app);
  }
  window.scrollTo(0, 0);
}

window.addEventListener("hashchange", route);
route();
