"""Chat at the table: what a line may hold, the lines a room keeps, and who hears each one.

A line is plain data (it travels in the room's log and snapshots, and in `event` frames):
`{"id", "seat", "name", "text", "time", "to", "move"}`. `id` rises by one per line in a room, so a
client merges what it is sent again (after a reconnect) without doubling a line; `seat` is None for
a spectator; `to` is `"all"`, or `"spectators"` for a spectator's line in a room whose
`spectator_chat` option keeps spectators to themselves; `move` is how many actions the game had
applied when it was said, which places it in the replay.

Chat changes no view: a line is an event, so the views' seqs and deltas are exactly what they would
be without it, and a client that knows nothing of chat still follows the game.
"""
from __future__ import annotations

import unicodedata
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from hub.tables.frames import Encoded
from hub.tables.seat import epoch_ms

if TYPE_CHECKING:
    from hub.tables.audience import Audience
    from hub.tables.journal import Replier
    from hub.tables.table import Table

#: A spectator who gives no name (spectators join no seat, so the hub knows none).
SPECTATOR = "spectator"
TO_ALL, TO_SPECTATORS = "all", "spectators"
#: Categories refused anywhere in a line: controls (a newline included: a line is one line),
#: formatting (bidirectional overrides that reorder what others read, invisible characters),
#: surrogates, private use, and the line and paragraph separators.
REFUSED = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
ZWJ = "\u200d"
#: Chosen here: more combining marks than this on one character is "Zalgo" text that spills over
#: the lines around it; no script needs as many.
MAX_MARKS = 5
#: Chosen here: the emoji blocks. A code point this Python's Unicode tables do not know yet (an
#: emoji newer than them) is let through there and refused anywhere else.
EMOJI_BLOCKS = (0x1F000, 0x1FAFF)


class ChatRefused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _symbolic(ch: str) -> bool:
    return unicodedata.category(ch) in ("So", "Sk") or ch == "\ufe0f"


def clean_text(raw: str, longest: int) -> str:
    """The line as it is kept and shown: NFC-normalised, trimmed, 1 to `longest` characters (code
    points), with nothing that hides or reorders text. A zero width joiner (a formatting character)
    is kept where it joins two symbols, as in the emoji of a family; anywhere else it is refused."""
    if len(raw) > 4 * longest:  # refuse a huge string before normalising it
        raise ChatRefused("text_too_long", f"a line has at most {longest} characters")
    text = unicodedata.normalize("NFC", raw).strip()
    if not text:
        raise ChatRefused("empty_text", "a line needs some text")
    if len(text) > longest:
        raise ChatRefused("text_too_long", f"a line has at most {longest} characters")
    marks = 0
    for i, ch in enumerate(text):
        cat = unicodedata.category(ch)
        if ch == ZWJ and 0 < i < len(text) - 1 and _symbolic(text[i - 1]) and _symbolic(text[i + 1]):
            marks = 0
            continue
        if cat in REFUSED or (cat == "Cn" and not EMOJI_BLOCKS[0] <= ord(ch) <= EMOJI_BLOCKS[1]):
            raise ChatRefused("bad_text", f"a line may not hold the character U+{ord(ch):04X} ({cat})")
        marks = marks + 1 if cat in ("Mn", "Me") else 0
        if marks > MAX_MARKS:
            raise ChatRefused("bad_text", f"at most {MAX_MARKS} combining marks on one character")
    return text


def visible(line: dict[str, Any], seat: int | None) -> bool:
    """Whether the audience of `seat` (None: the spectators) hears a line."""
    return seat is None or line.get("to") != TO_SPECTATORS


def event_of(line: dict[str, Any]) -> dict[str, Any]:
    return {"t": "event", "kind": "chat", **line}


def deliver(audiences: Iterable[Audience], line: dict[str, Any]) -> None:
    """Send a line to every connection that hears it: one encoding for all the audiences."""
    frame = Encoded(event_of(line))
    for aud in audiences:
        if visible(line, aud.seat):
            aud.broadcast((frame,))


class ChatLog:
    """The last lines of a room (or of a relay of it), oldest first."""

    __slots__ = ("lines", "last_id")

    def __init__(self, keep: int, lines: Iterable[dict[str, Any]] = ()) -> None:
        self.lines: deque[dict[str, Any]] = deque(maxlen=max(0, keep))
        self.last_id = 0
        for line in lines:
            self.add(line)

    def add(self, line: dict[str, Any]) -> None:
        self.lines.append(line)
        if isinstance(line.get("id"), int):
            self.last_id = max(self.last_id, line["id"])

    def new(self, seat: int | None, name: str, text: str, to: str, move: int, now_ms: int) -> dict[str, Any]:
        line = {"id": self.last_id + 1, "seat": seat, "name": name, "text": text, "time": now_ms, "to": to,
                "move": move}
        self.add(line)
        return line

    def history(self, seat: int | None, after: int | None = None) -> dict[str, Any] | None:
        """The `chat_history` event a connection gets after its welcome: the kept lines it hears
        (those after line `after` when the client says it has the ones before); None when none."""
        lines = [ln for ln in self.lines
                 if visible(ln, seat) and (after is None or int(ln.get("id") or 0) > after)]
        if not lines:
            return None
        return {"t": "event", "kind": "chat_history", "lines": lines}


def say(room: Table, seat: int | None, name: str | None, text: str, conn: Replier | None = None,
        say_id: int | None = None, aid: str | None = None) -> bool:
    """A line said at the table, already checked (`clean_text`). It changes no view; with a journal
    it is logged like any change, and goes out once it is in the log."""
    if seat is not None and not 0 <= seat < len(room.seats):
        if conn is not None:
            conn.error(say_id, "unauthorized", "no such seat")
        return False
    speaker = (room.seats[seat].name if seat is not None else name) or SPECTATOR
    apart = seat is None and room.hub_options.get("spectator_chat") == TO_SPECTATORS
    line = room.chat.new(seat, speaker, text, TO_SPECTATORS if apart else TO_ALL, room.actions, epoch_ms())
    room.metrics.chat_lines.inc()
    if room.journal is not None:
        room.journal.record({"k": "chat", "ln": line, "aid": aid}, [])
        return True
    deliver(room.audiences.values(), line)
    if conn is not None and say_id is not None:
        conn.send_frame({"t": "ack", "id": say_id})
    return True
