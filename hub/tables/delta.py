"""RFC 6902 operations between two views, made for documents that change a little at a time.

`jsonpatch.make_patch` is general: it looks for values that moved anywhere in the document,
and it costs about a millisecond and a half on a four-seat Symbiose view. A room makes one
diff per audience per action, so that was most of what an action cost the hub. Views are
positional by design (PROTOCOL.md, the engines' docs): a change touches few paths, and a list
changes by an edit in one place or as a window that slides (a log that keeps its last lines).
This diff walks the two documents once:

- maps: `remove` the keys that went, `add` the keys that came, recurse into the rest;
- lists: strip the common head and tail; if what is left of the old list, less a few items
  at its front, begins what is left of the new one (a sliding window), `remove` those and
  `add` the new end; else compare the common length item by item (recursing), and `remove`
  the rest (from the end) or `add` it;
- any other difference: `replace`;
- and where a map or list took more than two operations whose encoding is longer than the
  whole new value's, one `replace` of it instead (a `legal` list that changed entirely).

Equality is JSON's, not Python's: `True == 1` in Python, so a scalar whose type changed is
replaced, and subtrees that `==` calls equal are confirmed by their msgpack encodings (C speed;
views keep a stable key order, and `json_equal` settles the rare mismatch). On the games' views
this costs 30 to 130 us a diff, against 0.35 to 2 ms for `jsonpatch.make_patch`.
"""
from __future__ import annotations

from typing import Any

from msgpack import Packer

Ops = list[dict[str, Any]]

#: The most items a sliding window may drop from its front in one step: more than the logs trim at
#: once (rules/*: 20), and only shifts whose first kept item matches are compared whole.
SHIFT_MAX = 32

_pack = Packer().pack  # one packer for every call: building one per call cost more than packing


def escape(key: str) -> str:
    if "~" in key or "/" in key:
        return key.replace("~", "~0").replace("/", "~1")
    return key


def json_equal(a: Any, b: Any) -> bool:
    """Equal as JSON documents: map order does not count, and a bool is never a number."""
    ta = type(a)
    if ta is not type(b):
        return False
    if ta is dict:
        return len(a) == len(b) and all(k in b and json_equal(v, b[k]) for k, v in a.items())
    if ta is list:
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def make_patch(old: Any, new: Any) -> Ops:
    ops: Ops = []
    _diff(old, new, "", ops)
    return ops


Packs = dict[str, bytes]


class Shared:
    """What one change's audiences worked out so far: the operations for a top-level value by
    (key, old encoding, new encoding), and the encoding of each map or list that several of the
    change's views hold (the engines' `views` build what every audience sees alike once)."""

    __slots__ = ("ops", "_packs")

    def __init__(self) -> None:
        self.ops: dict[tuple[str, bytes, bytes], Ops] = {}
        self._packs: dict[int, tuple[Any, bytes]] = {}  # id -> (the object, kept alive; its encoding)

    def pack(self, value: Any) -> bytes:
        p: bytes
        t = type(value)
        if t is not dict and t is not list:
            p = _pack(value)
            return p
        got = self._packs.get(id(value))
        if got is not None and got[0] is value:
            return got[1]
        p = _pack(value)
        self._packs[id(value)] = (value, p)
        return p


def packs_of(view: dict[str, Any]) -> Packs:
    return {k: _pack(v) for k, v in view.items()}


def diff_view(old: dict[str, Any], new: dict[str, Any], old_packs: Packs, shared: Shared) -> tuple[Ops, Packs]:
    """`make_patch` for two views of one audience, and the new view's encodings by top-level key.

    A room diffs one view per audience per change, and the audiences see mostly the same thing: the
    players, the board, the log. So the top-level values are compared by their msgpack encodings
    (the strict comparison `_same` makes, with the old side's kept from the last change rather than
    made again), and a value whose old and new encodings another audience of this change already
    diffed takes that audience's operations: the walk below a shared value runs once per change,
    not once per audience. The operations are the same as `make_patch`'s (tests/hub/test_delta.py).
    """
    ops: Ops = []
    for k in old:
        if k not in new:
            ops.append({"op": "remove", "path": f"/{escape(k)}"})
    packs: Packs = {}
    pack = shared.pack
    for k, v in new.items():
        p = packs[k] = pack(v)
        if k not in old:
            ops.append({"op": "add", "path": f"/{escape(k)}", "value": v})
            continue
        q = old_packs.get(k)
        if q is None:
            q = _pack(old[k])
        if p == q:
            continue
        key = (k, q, p)
        done = shared.ops.get(key)
        if done is None:
            at = len(ops)
            _diff(old[k], v, f"/{escape(k)}", ops)
            shared.ops[key] = ops[at:]
        else:
            ops.extend(done)
    if len(ops) > 2 and _WHOLE + _map_len(packs) < len(_pack(ops)):  # the view's length from its parts'
        return [{"op": "replace", "path": "", "value": new}], packs
    return ops, packs


#: The bytes of a replace of the whole view, less the view's own (`None` packs as one byte).
_WHOLE = len(_pack({"op": "replace", "path": "", "value": None})) - 1
_KEY_LEN: dict[str, int] = {}


def _map_len(packs: Packs) -> int:
    """The msgpack length of the map whose values encode as `packs`, without encoding it again."""
    n = len(packs)
    total = 1 if n < 16 else 3 if n < 65536 else 5
    for k, p in packs.items():
        kl = _KEY_LEN.get(k)
        if kl is None:
            kl = len(_pack(k))
            if len(_KEY_LEN) < 4096:  # views use a few dozen keys; the bound is for anything else
                _KEY_LEN[k] = kl
        total += kl + len(p)
    return total


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    t = type(a)
    if t is not type(b) or a != b:
        return False
    if t is not dict and t is not list:
        return True
    # `==` let True pass for 1: the encodings tell them apart (and, but for map order, match)
    return _pack(a) == _pack(b) or json_equal(a, b)


def _eq(a: Any, b: Any) -> bool:
    """Python's equality, and the same type at the top: for runs that `_strict` then confirms at once."""
    return a is b or (type(a) is type(b) and a == b)


def _strict(a: list[Any], b: list[Any]) -> bool:
    return not a or _pack(a) == _pack(b) or json_equal(a, b)


def _diff(a: Any, b: Any, path: str, ops: Ops) -> None:
    ta = type(a)
    if ta is not type(b):
        ops.append({"op": "replace", "path": path, "value": b})
    elif ta is dict or ta is list:
        at = len(ops)
        (_diff_map if ta is dict else _diff_list)(a, b, path, ops)
        if len(ops) - at > 2:
            whole = {"op": "replace", "path": path, "value": b}
            if len(_pack(whole)) < len(_pack(ops[at:])):
                del ops[at:]
                ops.append(whole)
    elif a != b:
        ops.append({"op": "replace", "path": path, "value": b})


def _diff_map(a: dict[str, Any], b: dict[str, Any], path: str, ops: Ops) -> None:
    for k in a:
        if k not in b:
            ops.append({"op": "remove", "path": f"{path}/{escape(k)}"})
    for k, v in b.items():
        if k not in a:
            ops.append({"op": "add", "path": f"{path}/{escape(k)}", "value": v})
        else:
            w = a[k]
            if not _same(w, v):
                _diff(w, v, f"{path}/{escape(k)}", ops)


def _diff_list(a: list[Any], b: list[Any], path: str, ops: Ops) -> None:
    la, lb = len(a), len(b)
    n = min(la, lb)
    same = _eq
    head = 0
    while head < n and _eq(a[head], b[head]):
        head += 1
    tail = 0
    while tail < n - head and _eq(a[la - 1 - tail], b[lb - 1 - tail]):
        tail += 1
    if not (_strict(a[:head], b[:head]) and _strict(a[la - tail:], b[lb - tail:])):
        same = _same  # a bool met a number inside items `==` called equal: item by item, strictly
        head = 0
        while head < n and _same(a[head], b[head]):
            head += 1
        tail = 0
        while tail < n - head and _same(a[la - 1 - tail], b[lb - 1 - tail]):
            tail += 1
    if head == la == lb:
        return
    am, bm = la - head - tail, lb - head - tail  # the lengths of the two middles
    first = b[head] if bm else None
    for k in range(1, min(am - 1, SHIFT_MAX) + 1):
        keep = am - k
        if keep > bm or not _eq(a[head + k], first):  # the run must begin with the new middle's head
            continue
        old_run, new_run = a[head + k:head + am], b[head:head + keep]
        if (old_run == new_run and _strict(old_run, new_run)) if same is _eq else \
                all(_same(x, y) for x, y in zip(old_run, new_run, strict=True)):
            for _ in range(k):
                ops.append({"op": "remove", "path": f"{path}/{head}"})
            for i in range(head + keep, head + bm):
                ops.append({"op": "add", "path": f"{path}/{i}", "value": b[i]})
            return
    common = min(am, bm)
    for i in range(head, head + common):
        _diff(a[i], b[i], f"{path}/{i}", ops)
    if am > bm:
        for i in range(head + am - 1, head + common - 1, -1):
            ops.append({"op": "remove", "path": f"{path}/{i}"})
    else:
        for i in range(head + common, head + bm):
            ops.append({"op": "add", "path": f"{path}/{i}", "value": b[i]})
