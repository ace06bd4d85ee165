"""``spec-protocols new worker|draft`` writes the class decorator on the generated class.

The decorator is what makes the author's IDE (plain mypy or pyright) report a
broken edit at the class; tests/checkers/test_class_decorators_checkers.py
shows both checkers doing so on an edited skeleton.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from spec_protocols.gate._scaffold import write_skeleton


@pytest.mark.parametrize(("kind", "name", "decorator"), [("worker", "MyWorker", "spec_worker_class"), ("draft", "MyDraft", "draft_worker_class")])
def test_the_generated_class_is_decorated_and_the_decorator_imported(kind: str, name: str, decorator: str, tmp_path: Path) -> None:
    tree = ast.parse(write_skeleton(kind, name, tmp_path).read_text())  # type: ignore[arg-type]
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert cls.name == name
    assert [ast.unparse(d) for d in cls.decorator_list] == [decorator]
    imported = {(n.module, a.name) for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    assert ("spec_protocols", decorator) in imported
