// The place for "Play again" on the end screen (frame.js endScreen), between the replay link and the
// way back to the lobby.
//
// playAgain({rid, view, mode, ctx}) receives the finished room: its id, its final view (the game in
// view.game, the seats and names in view.players, the result in view.result), "live" or "replay",
// and the module context (ctx.seat is this viewer's seat, null for a spectator). It returns what to
// draw there (a Preact node) or null.
//
// It draws nothing yet: a new room for the same players needs the hub to offer it (who is asked,
// who follows, which seats), which it does not do yet. Whatever it returns appears on every game's
// end screen at once, live and in replays alike (mode tells them apart).

/** What the end screen shows to play the same game again, given {rid, view, mode, ctx}: nothing yet. */
export function playAgain(finished) {
  void finished;
  return null;
}
