"""The gate's one way to read Python source (``spec_protocols.gate._source``), and the corners it decides.

The contract and discovery read source through the same rooms: one locator,
one parse, one resolver of relative imports, one walker of the statements a
body runs at its own level, one evaluator of static conditions. Where the
two stages' walkers used to disagree (the contract ignored ``for`` / ``with``
/ ``match``; a class body's ``finally`` was read before its handlers), the
tests below pin the reading now shared.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

from spec_protocols.gate._discovery import discover, resolve_target
from spec_protocols.gate._paths import search_path
from spec_protocols.gate._source import (
    ParseCache,
    absolute_module,
    find_module_file,
    from_imports,
    module_locations,
    parse_file,
    parses_shared,
    statements,
    static_truth,
)


def _body(source: str) -> list[ast.stmt]:
    return ast.parse(textwrap.dedent(source)).body


def test_statements_run_at_one_level_in_source_order() -> None:
    body = _body(
        """
        import a
        if x:
            import b
        else:
            import c
        for _ in y:
            import d
        while z:
            import e
        with w:
            import f
        try:
            import g
        except ImportError:
            import h
        else:
            import i
        finally:
            import j
        match m:
            case 1:
                import k
        def fn():
            import never
        class C:
            import never_either
        """
    )
    imported = [s.names[0].name for s, _ in statements(body) if isinstance(s, ast.Import)]
    assert imported == list("abcdefghijk")


def test_statements_mark_the_branches_the_checkers_see_as_false() -> None:
    body = _body(
        """
        if sys.version_info < (3, 0):
            class Old: ...
            if other:
                class Older: ...
        else:
            class New: ...
        if sys.version_info >= (3, 0):
            class Kept: ...
        else:
            class Dropped: ...
        if TYPE_CHECKING:
            class Seen: ...
        """
    )
    marks = {s.name: (f.condition if f else None) for s, f in statements(body) if isinstance(s, ast.ClassDef)}
    assert marks == {
        "Old": "sys.version_info < (3, 0)",
        "Older": "sys.version_info < (3, 0)",  # the outermost false test
        "New": None,
        "Kept": None,
        "Dropped": "not (sys.version_info >= (3, 0))",
        "Seen": None,  # TYPE_CHECKING is deliberately unknown
    }


@pytest.mark.parametrize(
    ("test", "truth"),
    [
        ("sys.version_info >= (3, 0)", True),
        ("sys.version_info[0] == 2", False),
        (f"sys.version_info[:2] == ({sys.version_info[0]}, {sys.version_info[1]})", True),
        (f"sys.platform == {sys.platform!r}", True),
        ("sys.platform.startswith('no-such-os')", False),
        ("not sys.version_info >= (3, 0)", False),
        ("sys.version_info >= (3, 0) and unknown", None),
        ("sys.version_info < (3, 0) and unknown", False),
        ("sys.version_info >= (3, 0) or unknown", True),
        ("TYPE_CHECKING", None),
        ("sys.platform == 3", None),
    ],
)
def test_static_truth(test: str, truth: bool | None) -> None:
    expr = ast.parse(test, mode="eval").body
    assert static_truth(expr) is truth


@pytest.mark.parametrize(
    ("package", "module", "level", "absolute"),
    [
        ("a.b", "c", 0, "c"),
        ("a.b", "c", 1, "a.b.c"),
        ("a.b", None, 1, "a.b"),
        ("a.b", "c", 2, "a.c"),
        ("a.b", None, 3, None),  # above the top-level package
        ("a.b", "c", 4, None),
    ],
)
def test_absolute_module(package: str, module: str | None, level: int, absolute: str | None) -> None:
    assert absolute_module(package, module, level) == absolute


def test_from_imports_resolve_relative_names() -> None:
    body = _body("from .x import A as B, C\nfrom ..y import *\nimport z\n")
    assert list(from_imports(body, "p.q")) == [("B", "p.q.x", "A"), ("C", "p.q.x", "C"), ("*", "p.y", "*")]


def test_one_locator_for_files_and_namespace_portions(tmp_path: Path) -> None:
    for portion in ("one", "two"):
        (tmp_path / portion / "ns" / "pkg").mkdir(parents=True)
        (tmp_path / portion / "ns" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "one" / "ns" / "mod.py").write_text("")
    search = [str(tmp_path / "one"), str(tmp_path / "two")]
    assert find_module_file("ns.mod", search) == tmp_path / "one" / "ns" / "mod.py"
    assert find_module_file("ns.pkg", search) == tmp_path / "one" / "ns" / "pkg" / "__init__.py"
    assert find_module_file("ns", search) == tmp_path / "one" / "ns"
    assert find_module_file("ns.absent", search) is None
    assert find_module_file("not-a-name", search) is None
    # The verdict cache records every folder a namespace package spans.
    assert module_locations("ns", search) == [tmp_path / "one" / "ns", tmp_path / "two" / "ns"]
    assert module_locations("absent", search) is None
    assert search_path([tmp_path])[0] == str(tmp_path)


def test_parse_once(tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    good.write_text("# coding: latin-1\nNAME = 'caf\xe9'\n", encoding="latin-1")
    bad = tmp_path / "bad.py"
    bad.write_text("def (:\n")
    parsed = parse_file(good)
    assert "café" in parsed.text and isinstance(parsed.tree.body[0], ast.Assign) and len(parsed.sha256) == 64
    cache = ParseCache()
    assert cache.text(good) == parsed.text
    first = cache.parse(good)
    assert first is not None and cache.parse(good) is first
    assert cache.text(bad) == "def (:\n" and cache.parse(bad) is None
    assert cache.parse(tmp_path / "absent.py") is None and cache.text(tmp_path / "absent.py") is None


def test_a_release_run_parses_each_file_once(tmp_path: Path) -> None:
    module = tmp_path / "mod.py"
    module.write_text("X = 1\n")
    assert parse_file(module) is not parse_file(module)  # outside a run's scope, every reader parses
    with parses_shared():
        first = parse_file(module)
        assert parse_file(module) is first and ParseCache().parse(module) is first
        module.write_text("X = 22\n")  # another size: changed since, parsed again
        again = parse_file(module)
        assert again is not first and "22" in again.text
        with pytest.raises(SyntaxError):  # a failure is not kept: it is raised to every reader
            (tmp_path / "bad.py").write_text("def (:\n")
            parse_file(tmp_path / "bad.py")
    assert parse_file(module) is not again


def test_the_fingerprint_reads_each_import_line_the_first_included() -> None:
    from spec_protocols.gate._cache._fingerprint import _imports

    source = b"import os.path\nfrom a.b import c\n  import x, y as z\nvalue = 'import q'\n\tfrom .rel import r\n"
    assert _imports(source) == ["a", "os", "x", "y"]


def _members_of(tmp_path: Path, source: str) -> dict[str, int]:
    module = tmp_path / "corner_worker.py"
    module.write_text("from spec_protocols import SpecWorkerBase\n\n" + textwrap.dedent(source))
    found = discover([resolve_target(f"{module}:Worker")])
    (worker,) = found.classes
    return {m.name: m.line for m in worker.members if m.owner == worker.dotted}


def test_a_class_body_finally_is_read_last(tmp_path: Path) -> None:
    """``finally`` runs after the handler: its definition is the one a lookup
    finds (discovery read handlers after ``finally`` before the walkers were one)."""
    members = _members_of(
        tmp_path,
        """
        class Worker(SpecWorkerBase):
            try:
                import missing_module
            except ImportError:
                def member(self) -> int: return 1
            finally:
                def member(self) -> int: return 2
        """,
    )
    assert members["member"] == 10


def test_a_class_body_loop_and_match_bind_members(tmp_path: Path) -> None:
    """A ``for`` or ``match`` in a class body runs when the class is made: what
    it defines is a member (discovery skipped both before the walkers were one)."""
    members = _members_of(
        tmp_path,
        """
        class Worker(SpecWorkerBase):
            for _index in range(1):
                def in_loop(self) -> None: ...
            match 1:
                case 1:
                    def in_match(self) -> None: ...
            if sys.version_info < (3, 0):
                def never(self) -> None: ...
        """,
    )
    assert {"in_loop", "in_match"} <= set(members)
    assert "never" not in members


def test_the_contract_reads_a_module_as_its_import_binds_it(tmp_path: Path) -> None:
    """A built-in worker imported at module level under ``with`` (or ``for``,
    ``match``) is bound when spec_info is imported: the contract names it
    where it is defined, through a package that re-exports it (the
    extractor's own module walker skipped ``with`` before the walkers were one)."""
    from tests.unit.test_contract_rules import SPEC_INFO, write_tree

    from spec_protocols.gate._contract import extract_contract, source_at

    spec_info = SPEC_INFO.replace(
        "import enum\n",
        "import contextlib\nimport enum\n\nwith contextlib.suppress(ImportError):\n"
        "    from sglang.srt.speculative.workers import GuardedWorker\n",
    ).replace(
        "    def create_worker(self, server_args):\n        return None\n",
        "    def create_worker(self, server_args):\n        return GuardedWorker\n",
    )
    assert spec_info != SPEC_INFO
    files = {
        "srt/speculative/spec_info.py": spec_info,
        "srt/speculative/workers/__init__.py": "from .guarded import GuardedWorker\n",
        "srt/speculative/workers/guarded.py": "class GuardedWorker:\n    pass\n",
    }
    write_tree(tmp_path, "def run(self):\n    self.draft_worker.forward_batch_generation(batch)\n", files)
    contract = extract_contract(source_at(tmp_path))
    assert [w.dotted for w in contract.built_in_workers] == ["sglang.srt.speculative.workers.guarded.GuardedWorker"]


def test_the_scheduler_side_is_read_as_its_import_binds_it(tmp_path: Path) -> None:
    """A class or function of ``managers/`` defined under a module-level
    ``try`` / ``if`` exists once the module is imported: its uses of the spec
    worker are the scheduler's (only top-level definitions were walked before
    the walkers were one)."""
    from tests.unit.test_contract_rules import write_tree

    from spec_protocols.gate._contract import extract_contract, source_at

    files = {
        "srt/managers/fallback.py": (
            "try:\n"
            "    from sglang.srt.managers.missing import Mixin\n"
            "except ImportError:\n"
            "    class Mixin:\n"
            "        def publish(self):\n"
            "            self.draft_worker.only_in_the_fallback()\n"
        ),
    }
    write_tree(tmp_path, "def run(self):\n    self.draft_worker.forward_batch_generation(batch)\n", files)
    contract = extract_contract(source_at(tmp_path))
    (use,) = [u for u in contract.spec_worker if u.member == "only_in_the_fallback"]
    assert (use.site.file, use.site.function, use.classification) == ("managers/fallback.py", "Mixin.publish", "required")
