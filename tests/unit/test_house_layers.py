"""The gate's house: no stage imports a later one, and no module imports itself back.

Data flows one way (README, "Architecture"; docs/design.md), and so do the
imports. Every module of ``spec_protocols.gate`` belongs to the stage of its
room (its top-level module or package below ``gate``); a module may import
from its own stage and from the stages below it, never from one above. The
imports are read with ``ast`` (nothing is imported), every ``import`` and
``from ... import`` of the file, also those inside functions and under
``if TYPE_CHECKING:``: a dependency is one wherever it is written.

A room that is in no stage fails the test: place it in :data:`STAGES` where
it belongs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests._paths import REPO_ROOT

GATE = REPO_ROOT / "spec_protocols" / "gate"
PACKAGE = "spec_protocols.gate"

#: The stages, from the bottom: each room (a module or package directly below
#: ``gate``) and the stage it is in. ``""`` is ``spec_protocols.gate`` itself.
STAGES: tuple[tuple[str, frozenset[str]], ...] = (
    ("the model and its vocabulary", frozenset({"_model", "_codec", "_findings"})),
    ("paths and reading source", frozenset({"_paths", "_source", "_signatures"})),
    ("contract", frozenset({"_contract", "_roles"})),
    ("discovery", frozenset({"_discovery"})),
    ("harness", frozenset({"_harness"})),
    ("checkers", frozenset({"_checkers"})),
    ("verdicts and cache", frozenset({"_verdicts", "_remedies", "_baseline", "_cache"})),
    ("reports, and what they make of TARGET's files", frozenset({"_reports", "_upgrade", "_fix"})),
    ("pipeline", frozenset({"_request", "_pipeline", "_releases_run", "_run"})),
    ("watch mode and the editor", frozenset({"_watch", "_lsp"})),
    ("CLI", frozenset({"_cli", "_explanation", "_scaffold"})),
    ("the public surface", frozenset({"", "__main__"})),
)

#: Upward imports the house still has, each with the room that is to remove it:
#: listed so that no other can come in, and so that this list only shrinks (an
#: entry no longer true fails the test too).
KNOWN_UPWARD: dict[tuple[str, str], str] = {}


#: Import cycles the house still has (each a set of modules), with the room that
#: is to break them; as with :data:`KNOWN_UPWARD`, the list only shrinks.
KNOWN_CYCLES: dict[frozenset[str], str] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(GATE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(GATE.rglob("*.py")) if "__pycache__" not in path.parts}


def _imported(name: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """The gate modules a module imports, by their dotted names."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            # `from package import submodule` imports the submodule.
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules and target.startswith(PACKAGE + "."):
                target = target.rpartition(".")[0]  # `import a.b.c` where c is a name
            if target in modules and target != name:
                yield target


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: set(_imported(name, path, modules)) for name, path in modules.items()}


def _room(module: str) -> str:
    return module.removeprefix(PACKAGE).removeprefix(".").partition(".")[0]


def _stage(module: str) -> int:
    room = _room(module)
    for index, (_, rooms) in enumerate(STAGES):
        if room in rooms:
            return index
    raise AssertionError(f"{module}: the room {room!r} is in no stage of the house: add it to STAGES where it belongs")


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _upward(graph: dict[str, set[str]]) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            if _stage(target) > _stage(module):
                found[(module, target)] = f"{STAGES[_stage(module)][0]} -> {STAGES[_stage(target)][0]}"
    return found


def test_every_room_is_in_a_stage() -> None:
    for module in _modules():
        _stage(module)


def test_no_stage_imports_a_later_one() -> None:
    upward = _upward(_graph())
    new = {edge: why for edge, why in upward.items() if edge not in KNOWN_UPWARD}
    assert not new, "upward imports: " + "; ".join(f"{a} imports {b} ({why})" for (a, b), why in new.items())
    gone = [edge for edge in KNOWN_UPWARD if edge not in upward]
    assert not gone, f"no longer upward, remove from KNOWN_UPWARD: {gone}"


def test_no_import_cycle_among_the_gates_modules() -> None:
    cycles = {frozenset(c) for c in _cycles(_graph())}
    new = [sorted(c) for c in cycles if c not in KNOWN_CYCLES]
    assert not new, f"import cycles: {new}"
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in cycles]
    assert not gone, f"no longer a cycle, remove from KNOWN_CYCLES: {gone}"


def test_the_checks_see_what_they_check() -> None:
    """Not vacuous: the graph holds the imports, an upward edge and a cycle are found."""
    graph = _graph()
    assert f"{PACKAGE}._source" in graph[f"{PACKAGE}._discovery._source_index"]
    assert f"{PACKAGE}._contract._extract._walker" in graph[f"{PACKAGE}._contract._extract"]
    assert _upward({f"{PACKAGE}._source._parse": {f"{PACKAGE}._pipeline"}}) == {
        (f"{PACKAGE}._source._parse", f"{PACKAGE}._pipeline"): "paths and reading source -> pipeline"
    }
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
