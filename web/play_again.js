// "Play again" on the end screen (frame.js endScreen), between the replay link and the way back to
// the lobby.
//
// playAgain({rid, view, mode, ctx}) receives the finished room: its id, its final view, "live" or
// "replay", and the module context (ctx.seat is this viewer's seat, null for a spectator). It returns
// what to draw there (a Preact node) or null: nothing in a replay.
//
// The hub makes the next room (docs/protocol.md, "Play again"): POST /api/rooms/{rid}/again with this
// tab's seat token seats the player in the same seat of the next room under a new token; the first
// press makes that room. The finished room's info names it (`next_room`) once anyone pressed, so the
// end screen asks for it every few seconds: a player who has not pressed yet sees that the others
// want a rematch, and a spectator is offered to follow to the next table.

import { useEffect, useState } from "preact/hooks";
import { h, api, toast, seatFor, saveSeat } from "./ui.js";
import { t } from "./words.js";

const LOOK_EVERY_MS = 2000;

/** What the end screen shows to play the same game again, given {rid, view, mode, ctx}. */
export function playAgain(finished) {
  const { rid, mode, ctx } = finished || {};
  if (mode !== "live" || !rid) return null;
  const seat = ctx && !ctx.isSpectator ? ctx.seat : null;
  return h(PlayAgain, { key: rid, rid, seat });
}

function go(hash) {
  if (location.hash !== hash) location.hash = hash;
}

/** The button (a seated player) or the link to follow (a spectator), with what the hub says of the next room. */
function PlayAgain({ rid, seat }) {
  const [next, setNext] = useState(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let stopped = false;
    let timer = null;
    const look = () => api("GET", `/api/rooms/${encodeURIComponent(rid)}`)
      .then((info) => {
        if (stopped || !info || typeof info.next_room !== "string") return;
        setNext(info.next_room);
        clearInterval(timer); // a link never changes once made
      })
      .catch(() => {});
    look();
    timer = setInterval(look, LOOK_EVERY_MS);
    return () => { stopped = true; clearInterval(timer); };
  }, [rid]);

  const held = seat !== null && seat !== undefined ? seatFor(rid) : null;
  if (!held) {
    if (!next) return null;
    return h("a", { class: "button", href: `#/room/${encodeURIComponent(next)}/watch`, "data-testid": "follow-next" },
      `◉ ${t("again.follow")}`);
  }
  const mine = next ? seatFor(next) : null;
  if (mine) {
    return h("a", { class: "button primary", href: `#/room/${encodeURIComponent(next)}`, "data-testid": "play-again-go" },
      `↻ ${t("again.go")}`);
  }
  const press = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const got = await api("POST", `/api/rooms/${encodeURIComponent(rid)}/again`, { token: held.token });
      saveSeat(got.room, got.seat, got.token);
      go(`#/room/${encodeURIComponent(got.room)}`);
    } catch (e) {
      setBusy(false);
      toast(e.code === "seat_taken" ? t("again.taken") : t("again.failed", { why: e.message }), "error");
    }
  };
  return h("span", { class: "play-again", "data-testid": "play-again-box" },
    h("button", { type: "button", class: "primary", "data-testid": "play-again", disabled: busy, onclick: press },
      busy ? t("again.setting") : `↻ ${next ? t("again.othersIn") : t("again.play")}`),
    next ? h("small", { class: "muted", "data-testid": "play-again-waiting" }, ` ${t("again.kept")}`) : null);
}
