"""Engine states as plain data and back: a snapshot can rebuild data, never run code.

Stores keep a room's state between a crash and a restart, or from one process to the next. Bytes
that anyone with write access to the store could change must not be able to run code in the
hub, so snapshots are not `pickle`: a state becomes nested lists of scalars, and only the
dataclasses that a game's own modules define can be built back, field by field, without calling
any of their methods.

Every container is a list whose first item names what it was:

    ["L", item, ...]            a list
    ["T", item, ...]            a tuple
    ["S", item, ...]            a set (sorted when it can be, so one state gives one encoding)
    ["F", item, ...]            a frozenset
    ["D", key, value, ...]      a dict (any keys, in their order)
    ["R", version, [ints], g]   a random.Random, by its getstate()
    ["C", name, field, value, ...]  a dataclass of the game's modules, by module and qualified name

Scalars (None, bool, int, float, str, bytes) stand as themselves. A mutable object that the state
reaches twice would come back as two objects, so `dump` refuses it instead (the tests play every
game at random and check each state survives the round trip). A dataclass field added since a
snapshot was written loads with its default; any other change of fields refuses the snapshot.
"""
from __future__ import annotations

import dataclasses
import functools
import random
import sys
from collections.abc import Iterable, Mapping
from typing import Any

#: The format's version; a snapshot of another version is refused and the room rebuilt from its log.
VERSION = 1

SCALARS = (type(None), bool, int, float, str, bytes)


class SnapshotError(Exception):
    """A state that cannot be written as plain data, or data that is not a snapshot of this game."""


def name_of(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def state_types(game: Any) -> dict[str, type]:
    """The dataclasses a game's state may hold: every one defined in the game's own modules (its
    module, or every module of its package), and nothing else.

    Each is also listed as `~rules.<game>.<class name>` when no other class of the game has that
    name, so a snapshot stored before a class moved to another module of its game still loads."""
    types = dict(_types_of(type(game).__module__))
    by_name: dict[str, list[type]] = {}
    for name, cls in types.items():
        by_name.setdefault(_moved(name), []).append(cls)
    types.update({key: found[0] for key, found in by_name.items() if len(found) == 1})
    return types


def _moved(name: str) -> str:
    """The key a class is found by in any module of its game: `rules.symbiose.state.State` and
    `rules.symbiose.State` are both `~rules.symbiose.State`."""
    parts = name.split(".")
    return "~" + ".".join([*parts[:2], parts[-1]])


@functools.cache
def _types_of(module: str) -> tuple[tuple[str, type], ...]:
    package = module.rpartition(".")[0] if module.count(".") > 1 else module
    out: dict[str, type] = {}
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or not (mod_name == package or mod_name.startswith(package + ".")):
            continue
        for value in vars(mod).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == mod_name:
                out[name_of(value)] = value
    return tuple(sorted(out.items()))


def dump(state: Any) -> Any:
    return _Dumper().dump(state)


class _Dumper:
    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.keep: list[Any] = []  # holds what `seen` names, so no id is reused during one dump

    def mutable(self, obj: Any) -> None:
        if id(obj) in self.seen:
            raise SnapshotError(f"the state reaches one {type(obj).__name__} twice")
        self.seen.add(id(obj))
        self.keep.append(obj)

    def dump(self, obj: Any) -> Any:
        if isinstance(obj, SCALARS):
            return obj
        cls = type(obj)
        if cls is list:
            self.mutable(obj)
            return ["L", *map(self.dump, obj)]
        if cls is tuple:
            return ["T", *map(self.dump, obj)]
        if cls is dict:
            self.mutable(obj)
            out: list[Any] = ["D"]
            for k, v in obj.items():
                out.append(self.dump(k))
                out.append(self.dump(v))
            return out
        if cls is set or cls is frozenset:
            if cls is set:
                self.mutable(obj)
            return ["S" if cls is set else "F", *map(self.dump, _ordered(obj))]
        if cls is random.Random:
            self.mutable(obj)
            version, internal, gauss = obj.getstate()
            return ["R", version, list(internal), gauss]
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            params = getattr(cls, "__dataclass_params__", None)
            if not (params is not None and params.frozen):
                self.mutable(obj)
            fields: list[Any] = ["C", name_of(cls)]
            for f in dataclasses.fields(obj):
                fields.append(f.name)
                fields.append(self.dump(getattr(obj, f.name)))
            return fields
        raise SnapshotError(f"a {cls.__name__} cannot be written as plain data")


def _ordered(items: Iterable[Any]) -> list[Any]:
    listed = list(items)
    try:
        return sorted(listed)
    except TypeError:
        return listed


def load(data: Any, types: Mapping[str, type]) -> Any:
    """Rebuild a state from `dump`'s data; only the dataclasses in `types` can be built."""
    try:
        return _load(data, types)
    except SnapshotError:
        raise
    except (TypeError, ValueError, IndexError, KeyError, AttributeError, OverflowError, RecursionError) as e:
        raise SnapshotError(f"not a snapshot: {type(e).__name__}: {e}"[:200]) from None


def _has_default(f: dataclasses.Field[Any]) -> bool:
    return f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING


def _default(f: dataclasses.Field[Any]) -> Any:
    """A field added since the snapshot was written, with a default: the snapshot loads with it, as a
    state made before the field existed would have gone on (a field renamed or removed still refuses)."""
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default


def _load(data: Any, types: Mapping[str, type]) -> Any:
    if isinstance(data, SCALARS):
        return data
    if not isinstance(data, list) or not data or not isinstance(data[0], str):
        raise SnapshotError(f"unexpected {type(data).__name__} in a snapshot")
    tag, rest = data[0], data[1:]
    if tag == "L":
        return [_load(v, types) for v in rest]
    if tag == "T":
        return tuple(_load(v, types) for v in rest)
    if tag == "S":
        return {_load(v, types) for v in rest}
    if tag == "F":
        return frozenset(_load(v, types) for v in rest)
    if tag == "D":
        if len(rest) % 2:
            raise SnapshotError("a map with a key and no value")
        return {_load(rest[i], types): _load(rest[i + 1], types) for i in range(0, len(rest), 2)}
    if tag == "R":
        version, internal, gauss = rest
        if not (isinstance(internal, list) and all(type(x) is int for x in internal)):
            raise SnapshotError("a random state must be integers")
        rng = random.Random()
        rng.setstate((version, tuple(internal), gauss))
        return rng
    if tag == "C":
        cls = (types.get(rest[0]) or types.get(_moved(rest[0]))) if isinstance(rest[0], str) else None
        if cls is None:
            raise SnapshotError(f"{str(rest[0])[:80]!r} is not a type of this game's state")
        pairs = rest[1:]
        given = {pairs[i]: pairs[i + 1] for i in range(0, len(pairs), 2)}
        fields = dataclasses.fields(cls)
        names = [f.name for f in fields]
        added = {f.name: f for f in fields if f.name not in given and _has_default(f)}
        if sorted([*given, *added]) != sorted(names):
            raise SnapshotError(f"{cls.__qualname__} has other fields now")
        obj: Any = object.__new__(cls)
        for name in names:
            value = _default(added[name]) if name in added else _load(given[name], types)
            object.__setattr__(obj, name, value)
        return obj
    raise SnapshotError(f"unknown tag {tag[:8]!r} in a snapshot")
