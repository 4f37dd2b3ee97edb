"""The hub's three layers import one way, with no circle, type-only imports counted.

run (starting and supervising processes) -> any layer; edge -> tables, the store interface (hub.stores,
hub.stores.base, hub.stores.quota) and the process budget and collector policy of run only; stores -> tables;
tables -> neither; the shared top modules -> no layer. Read from the source (AST), not by importing.
"""
from __future__ import annotations

import ast
from pathlib import Path

HUB = Path(__file__).resolve().parents[2] / "hub"
SHARED = {"hub.settings", "hub.metrics", "hub.logs", "hub.tokens"}
STORE_FACE = {"hub.stores", "hub.stores.base", "hub.stores.quota"}
RUN_FACE = {"hub.run", "hub.run.fds", "hub.run.gcpolicy"}


def modules() -> dict[str, Path]:
    out = {}
    for p in HUB.rglob("*.py"):
        rel = p.relative_to(HUB.parent).with_suffix("")
        out[".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)] = p
    return out


def imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    def resolve(name: str) -> str | None:
        while name:
            if name in mods:
                return name
            name = name.rpartition(".")[0]
        return None

    edges: dict[str, set[str]] = {}
    for m, p in mods.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(p.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for n in names:
                r = resolve(n)
                if r is not None and r != m and r.startswith("hub"):
                    found.add(r)
        edges[m] = found
    return edges


def layer(m: str) -> str:
    parts = m.split(".")
    layered = len(parts) > 2 or (len(parts) == 2 and parts[1] in ("edge", "tables", "stores", "run"))
    return parts[1] if layered else "top"


def against_the_layers(m: str, t: str) -> bool:
    lm, lt = layer(m), layer(t)
    if lm == "run":
        return False
    if lm == "tables":
        return lt in ("edge", "stores", "run")
    if lm == "stores":
        return lt in ("edge", "run")
    if lm == "edge":
        return (lt == "stores" and t not in STORE_FACE) or (lt == "run" and t not in RUN_FACE)
    return m in SHARED and lt != "top"


def test_the_process_runtime_is_its_own_layer() -> None:
    """What starts and supervises processes lives in hub/run/, not beside what every layer shares."""
    mods = modules()
    assert {"hub.run.cli", "hub.run.workers", "hub.run.fds", "hub.run.gcpolicy"} <= set(mods)
    assert not {m for m in mods if layer(m) == "top"} - SHARED - {"hub", "hub.__main__"}


def test_imports_run_one_way() -> None:
    wrong = [(m, t) for m, targets in imports(modules()).items() for t in targets if against_the_layers(m, t)]
    assert not wrong, f"imports against the layers: {sorted(wrong)}"


def test_no_import_circles() -> None:
    edges = imports(modules())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for v in edges:
        if v not in index:
            visit(v)
    assert not circles, f"import circles: {circles}"
