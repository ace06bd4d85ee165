"""Outside its own module a checker is named only by the registry: adding one touches no shared code.

Every string literal of ``spec_protocols/gate`` outside ``gate/_checkers/``
(docstrings aside: they explain, they decide nothing) is read with ``ast``;
one that names a registered checker fails the test. "runtime" is also an
English word ("made at runtime"), and so is "replay" ("the replay stopped"), so
each counts only as "<name> checker" or as the literal name itself.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from spec_protocols.gate._checkers import CHECKER_NAMES
from tests._paths import REPO_ROOT

GATE = REPO_ROOT / "spec_protocols" / "gate"
#: Names that are also words of prose.
_WORDS = frozenset({"runtime", "replay"})


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that stand alone as statements (docstrings, attribute docs)."""
    return {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}


def _names_a_checker(text: str) -> str | None:
    for name in CHECKER_NAMES:
        pattern = rf"\b{name} checker\b" if name in _WORDS else rf"\b{re.escape(name)}\b"
        if text == name or re.search(pattern, text):
            return name
    return None


def _literals_naming_checkers() -> list[str]:
    found: list[str] = []
    for path in sorted(GATE.rglob("*.py")):
        if "_checkers" in path.relative_to(GATE).parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                name = _names_a_checker(node.value)
                if name is not None:
                    found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}: names {name}: {node.value[:60]!r}")
    return found


def test_no_literal_outside_the_checkers_names_a_checker() -> None:
    assert _literals_naming_checkers() == []


def test_the_rule_sees_a_literal_that_names_one(tmp_path: Path) -> None:
    """Not vacuous: the reading finds a checker's name where one is written."""
    assert _names_a_checker("choose --checker mypy") == "mypy"
    assert _names_a_checker("the runtime checker skipped") == "runtime"
    assert _names_a_checker("classes made at runtime") is None
    assert _names_a_checker("pyright") == "pyright"
