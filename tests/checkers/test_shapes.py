"""The shapes corpus: plugin code as people really write it, and the verdicts the gate must give.

``tests/shapes/`` holds one *shape* per file (or per small folder): a
realistic out-of-tree plugin module in which exactly one way of writing a
worker decides the verdict (a base spelled through an alias, a class in a
``try`` body, a draft class injected through ``functools.partial``, a module
that prints at import...). Each shape declares what the gate must say, in
comments anywhere in its ``.py`` files::

    # expect: <target> <Protocol> <gate-verdict> [runtime=<v>] [replay=<v>] [mypy=<v>] [pyright=<v>] [member=<name>] [runtime-decides]
    # expect-note: <substring of a note in the report>
    # expect-absent: <target that must not be among the results>

``<v>`` is ``pass``, ``fail``, ``unverified``, ``skipped`` or ``any`` (not
asserted). ``member=`` requires, from every checker expected to ``fail``, a
problem naming that member. ``runtime-decides`` marks a row whose gate verdict
rests on the checkers that import the plugin (the runtime checker, the
replay): it is skipped where sglang cannot be imported at runtime (no torch:
CI's Python 3.12 and 3.13 runs), and there every row of a module that imports
sglang at runtime expects the runtime checker to say ``skipped``, and every
row expects the replay (which always imports sglang) to say ``skipped``. Files and folders whose names start with ``_``
are helpers, never targets.

The gate runs ONCE over the whole corpus (every entry of ``tests/shapes/``
that does not start with ``_``, plus one file given twice to prove that
targets are de-duplicated); each expectation is then one test. The shape
table in docs/verdicts.md is generated from the same expectations and the
shapes' docstrings (:func:`render_shapes_table`); set
``SPEC_PROTOCOLS_UPDATE_DOCS=1`` to rewrite it.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests._paths import REPO_ROOT

# The gate runs mypy and pyright at this interpreter's version: CI runs this file on 3.11, 3.12 and 3.13.
pytestmark = pytest.mark.per_python

# find_spec, not importorskip: importing sglang's package costs seconds, and
# the runtime checker imports it in its own process anyway.
if importlib.util.find_spec("sglang") is None:
    pytest.skip("sglang is not installed", allow_module_level=True)


REPO = REPO_ROOT
SHAPES = REPO / "tests" / "shapes"
DOCS = REPO / "docs" / "verdicts.md"
TABLE_START = "<!-- shapes-table:start -->"
TABLE_END = "<!-- shapes-table:end -->"

CHECKERS = ("runtime", "replay", "mypy", "pyright")
VERDICTS = frozenset({"pass", "fail", "unverified", "skipped", "any"})
#: The one target given twice on the command line.
DUPLICATED_TARGET = SHAPES / "inject_module_var.py"
#: Environment variables that select branches in the shapes; unset for the run.
SHAPE_FLAGS = ("SPEC_SHAPES_FAST_WORKER", "SPEC_SHAPES_FAST_DRAFT")
GATE_TIMEOUT_S = 900

#: Whether sglang's modules can be imported at runtime (they import torch).
SGLANG_AT_RUNTIME = importlib.util.find_spec("torch") is not None
NO_RUNTIME_REASON = "sglang cannot be imported at runtime here (torch is not installed): the runtime checker skips"

_EXPECT_RE = re.compile(r"^\s*#\s*expect(?P<kind>|-note|-absent):\s*(?P<body>.*?)\s*$")


# -- the corpus ---------------------------------------------------------------


@dataclass(frozen=True)
class Expectation:
    """One ``# expect:`` row: what the gate must report for (target, protocol)."""

    shape: str
    file: str
    line: int
    target: str
    protocol: str
    gate: str
    checkers: dict[str, str]
    member: str | None = None
    runtime_decides: bool = False
    #: Whether the module declaring the row imports sglang at runtime.
    imports_sglang: bool = True
    shape_doc: str = ""

    @property
    def id(self) -> str:
        return f"{self.target}-{self.protocol}"

    def expected_checkers(self) -> dict[str, str]:
        """The per-checker expectations on this machine (see the module docstring)."""
        expected = dict(self.checkers)
        if not SGLANG_AT_RUNTIME and self.imports_sglang and expected.get("runtime", "any") != "any":
            expected["runtime"] = "skipped"
        if not SGLANG_AT_RUNTIME and expected.get("replay", "any") != "any":
            expected["replay"] = "skipped"
        return expected


@dataclass(frozen=True)
class NoteExpectation:
    shape: str
    file: str
    line: int
    text: str

    @property
    def id(self) -> str:
        return f"{self.shape}-note-{self.text}"


@dataclass(frozen=True)
class AbsentExpectation:
    shape: str
    file: str
    line: int
    target: str
    shape_doc: str = ""

    @property
    def id(self) -> str:
        return f"{self.target}-absent"


@dataclass
class Corpus:
    rows: list[Expectation] = field(default_factory=list)
    notes: list[NoteExpectation] = field(default_factory=list)
    absent: list[AbsentExpectation] = field(default_factory=list)


def shape_entries() -> list[Path]:
    """The corpus's shapes: every entry of tests/shapes/ not starting with ``_`` (or ``.``), sorted."""
    return sorted(p for p in SHAPES.iterdir() if not p.name.startswith(("_", ".")))


def corpus_targets() -> list[str]:
    """The gate's command-line targets: every shape as an absolute path, sorted, plus one twice."""
    return [str(p) for p in shape_entries()] + [str(DUPLICATED_TARGET)]


def shape_name(entry: Path) -> str:
    """How a shape is named in test ids and the docs table: ``alias_base``, ``reexport_pkg/``."""
    return entry.stem if entry.is_file() else f"{entry.name}/"


def shape_files(entry: Path) -> list[Path]:
    """The ``.py`` files of a shape, following directory symlinks, in a stable order."""
    if entry.is_file():
        return [entry]
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(entry, followlinks=True):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        found.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py"))
    return found


def _leading_docstring(path: Path) -> str | None:
    """The module docstring of *path*, also for a file with a syntax error further down."""
    text = path.read_text(encoding="utf-8")
    try:
        return ast.get_docstring(ast.parse(text))
    except SyntaxError:
        match = re.match(r'\s*(?:"""|\'\'\')(.*?)(?:"""|\'\'\')', text, re.DOTALL)
        return match.group(1).strip() if match else None


def shape_doc(entry: Path) -> str:
    """The first line of the shape's docstring: the file's, or the package's ``__init__.py``,
    or (a plain folder) the first of its files that has one."""
    if entry.is_file():
        candidates = [entry]
    else:
        init = entry / "__init__.py"
        candidates = [init] if init.is_file() else shape_files(entry)
    for path in candidates:
        doc = _leading_docstring(path)
        if doc:
            return doc.strip().splitlines()[0].strip()
    return ""


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.Module, package: str) -> Iterator[str]:
    """Modules the import of *tree* imports: module-level and class-body statements,
    through if/try/with, but not ``if TYPE_CHECKING:`` and not function bodies."""

    def walk(body: Sequence[ast.stmt]) -> Iterator[str]:
        for node in body:
            if isinstance(node, ast.Import):
                yield from (alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".") if package else []
                    parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                    base = ".".join([*parts, *([node.module] if node.module else [])])
                else:
                    base = node.module or ""
                yield base
                yield from (f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
            elif isinstance(node, ast.If):
                if not _is_type_checking(node.test):
                    yield from walk(node.body)
                yield from walk(node.orelse)
            elif isinstance(node, ast.Try):
                for part in (node.body, node.orelse, node.finalbody):
                    yield from walk(part)
                for handler in node.handlers:
                    yield from walk(handler.body)
            elif isinstance(node, (ast.With, ast.ClassDef)):
                yield from walk(node.body)

    yield from walk(tree.body)


def _module_file(name: str, roots: Sequence[Path]) -> Path | None:
    parts = name.split(".")
    for root in roots:
        for candidate in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
            if candidate.is_file():
                return candidate
    return None


def imports_sglang_at_runtime(path: Path, roots: Sequence[Path], _seen: set[Path] | None = None) -> bool:
    """Whether importing *path* imports sglang, directly or through corpus modules it imports."""
    seen = set() if _seen is None else _seen
    if path in seen:
        return False
    seen.add(path)
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return False
    package = ""
    for root in roots:
        try:
            rel = path.relative_to(root)
        except ValueError:
            continue
        # pkg/mod.py and pkg/__init__.py both import relative to pkg.
        package = ".".join(rel.with_suffix("").parts[:-1])
        break
    for name in _runtime_imports(tree, package):
        if name == "sglang" or name.startswith("sglang."):
            return True
        found = _module_file(name, roots)
        if found is not None and imports_sglang_at_runtime(found, roots, seen):
            return True
    return False


def _parse_row(shape: str, rel: str, lineno: int, body: str, sglang: bool, doc: str) -> Expectation:
    words = body.split()
    where = f"{rel}:{lineno}"
    if len(words) < 3:
        raise ValueError(f"{where}: '# expect:' needs <target> <Protocol> <gate-verdict>: {body!r}")
    target, protocol, gate, *options = words
    if gate not in VERDICTS:
        raise ValueError(f"{where}: unknown gate verdict {gate!r}")
    checkers: dict[str, str] = {}
    member: str | None = None
    runtime_decides = False
    for option in options:
        key, sep, value = option.partition("=")
        if not sep and key == "runtime-decides":
            runtime_decides = True
        elif sep and key in CHECKERS and value in VERDICTS:
            checkers[key] = value
        elif sep and key == "member" and value:
            member = value
        else:
            raise ValueError(f"{where}: cannot read {option!r} in '# expect: {body}'")
    return Expectation(shape, rel, lineno, target, protocol, gate, checkers, member, runtime_decides, sglang, doc)


def load_corpus() -> Corpus:
    """Every expectation of every shape, in shape order, then file order, then line order."""
    corpus = Corpus()
    for entry in shape_entries():
        doc = shape_doc(entry)
        name = shape_name(entry)
        roots = [SHAPES] if entry.is_file() or (entry / "__init__.py").is_file() else [entry, SHAPES]
        for path in shape_files(entry):
            rel = os.path.relpath(path, SHAPES)
            sglang = imports_sglang_at_runtime(path, roots)
            for lineno, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                match = _EXPECT_RE.match(text)
                if match is None:
                    continue
                kind, body = match["kind"], match["body"]
                if kind == "":
                    corpus.rows.append(_parse_row(name, rel, lineno, body, sglang, doc))
                elif kind == "-note":
                    corpus.notes.append(NoteExpectation(name, rel, lineno, body))
                else:
                    if len(body.split()) != 1:
                        raise ValueError(f"{rel}:{lineno}: '# expect-absent:' takes one target: {body!r}")
                    corpus.absent.append(AbsentExpectation(name, rel, lineno, body, doc))
    return corpus


CORPUS = load_corpus()


# -- the docs table ----------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_shapes_table(rows: Sequence[Expectation | AbsentExpectation]) -> str:
    """The markdown table of the shapes and their expected verdicts (no trailing newline).

    One line per expectation, grouped by shape in the order given; the shape
    and its docstring's first line (the *Why*) appear on a shape's first line
    only. A checker an expectation does not mention is ``-``; ``any`` means
    the corpus does not assert it. An ``expect-absent`` row says that the
    class is ``not checked``.
    """
    lines = [
        "| Shape | Class / site | Protocol | runtime | replay | mypy | pyright | gate | Why |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    previous: str | None = None
    for row in rows:
        first = row.shape != previous
        previous = row.shape
        shape = f"`{row.shape}`" if first else ""
        why = _cell(row.shape_doc) if first else ""
        if isinstance(row, AbsentExpectation):
            cells = [shape, f"`{row.target}`", "-", *("-" for _ in CHECKERS), "not checked", why]
        else:
            verdicts = [row.checkers.get(name, "-") for name in CHECKERS]
            cells = [shape, f"`{_cell(row.target)}`", row.protocol, *verdicts, row.gate, why]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def table_rows(corpus: Corpus) -> list[Expectation | AbsentExpectation]:
    """Expectation and absent rows together, in corpus order (shape, file, line)."""
    order = {shape_name(entry): i for i, entry in enumerate(shape_entries())}
    rows: list[Expectation | AbsentExpectation] = [*corpus.rows, *corpus.absent]
    return sorted(rows, key=lambda r: (order[r.shape], r.file, r.line))


# -- the single gate run -----------------------------------------------------


@dataclass(frozen=True)
class CorpusRun:
    returncode: int | None
    report: dict[str, Any] | None
    stdout: str
    stderr: str
    seconds: float

    def require_report(self) -> dict[str, Any]:
        if self.report is None:
            pytest.fail(
                f"the corpus run gave no JSON report (exit {self.returncode}, {self.seconds:.0f}s); "
                f"stderr ends: {self.stderr[-2000:]!r}; stdout starts: {self.stdout[:500]!r}"
            )
        return self.report

    def results(self) -> list[dict[str, Any]]:
        return list(self.require_report().get("results", []))

    def all_notes(self) -> list[str]:
        report = self.require_report()
        notes = [str(n) for n in report.get("notes", [])]
        for result in report.get("results", []):
            notes.extend(str(n) for n in result.get("notes", []))
        return notes


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory: pytest.TempPathFactory) -> CorpusRun:
    cache = tmp_path_factory.mktemp("shapes-gate-cache")
    cwd = tmp_path_factory.mktemp("shapes-cwd")
    env = dict(os.environ, SPEC_PROTOCOLS_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    for name in SHAPE_FLAGS:
        env.pop(name, None)
    command = [sys.executable, "-m", "spec_protocols.gate._cli", "check", *corpus_targets(), "--format", "json", "--no-timings"]
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            command, cwd=cwd, env=env, capture_output=True, text=True, timeout=GATE_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired as exc:
        def text(raw: str | bytes | None) -> str:
            return raw.decode(errors="replace") if isinstance(raw, bytes) else (raw or "")

        return CorpusRun(
            None, None, text(exc.stdout), f"timed out after {GATE_TIMEOUT_S}s; {text(exc.stderr)}", time.perf_counter() - start
        )
    seconds = time.perf_counter() - start
    try:
        report = json.loads(proc.stdout) if proc.stdout.strip() else None
    except json.JSONDecodeError:
        report = None
    return CorpusRun(proc.returncode, report, proc.stdout, proc.stderr, seconds)


def _find(run: CorpusRun, target: str, protocol: str) -> dict[str, Any] | None:
    for result in run.results():
        if result.get("target") == target and result.get("protocol") == protocol:
            return result
    return None


def _reported_near(run: CorpusRun, target: str) -> list[str]:
    """What the report holds for the same module (for a readable failure)."""
    module = target.split(":")[0].rsplit(".", 1)[0]
    return sorted(f"{r['target']} {r['protocol']}" for r in run.results() if str(r.get("target", "")).startswith(module))


# -- tests ---------------------------------------------------------------------


def test_corpus_run_exit_status(corpus_run: CorpusRun) -> None:
    """Some shapes fail, so the gate exits 1; never 2 (an aborted run) and never a traceback."""
    assert "Traceback" not in corpus_run.stderr, corpus_run.stderr[-4000:]
    assert corpus_run.returncode != 2, f"the gate aborted: {corpus_run.stderr.strip()[-2000:]}"
    assert corpus_run.returncode == 1, (corpus_run.returncode, corpus_run.stderr[-2000:])
    corpus_run.require_report()


@pytest.mark.parametrize("row", CORPUS.rows, ids=[row.id for row in CORPUS.rows])
def test_expectation(corpus_run: CorpusRun, row: Expectation) -> None:
    if row.runtime_decides and not SGLANG_AT_RUNTIME:
        pytest.skip(NO_RUNTIME_REASON)
    where = f"(declared at tests/shapes/{row.file}:{row.line})"
    result = _find(corpus_run, row.target, row.protocol)
    if result is None:
        pytest.fail(
            f"{row.target} {row.protocol} was not reported {where}; reported for that module: "
            f"{_reported_near(corpus_run, row.target)}"
        )
    shown = json.dumps(result, indent=1)
    if row.gate != "any":
        assert result["verdict"] == row.gate, f"gate verdict {where}:\n{shown}"
    expected = row.expected_checkers()
    for checker, verdict in expected.items():
        if verdict != "any":
            assert result["checkers"].get(checker) == verdict, f"{checker} verdict {where}:\n{shown}"
    if row.member is not None:
        for checker, verdict in expected.items():
            if verdict != "fail":
                continue
            members = {p.get("member") for p in result.get("problems", []) if p.get("checker") == checker}
            assert row.member in members, f"no {checker} problem names {row.member!r} {where}:\n{shown}"


@pytest.mark.parametrize("note", CORPUS.notes, ids=[note.id for note in CORPUS.notes])
def test_expect_note(corpus_run: CorpusRun, note: NoteExpectation) -> None:
    notes = corpus_run.all_notes()
    assert any(note.text in n for n in notes), (
        f"no note contains {note.text!r} (declared at tests/shapes/{note.file}:{note.line}); notes: {notes}"
    )


@pytest.mark.parametrize("absent", CORPUS.absent, ids=[a.id for a in CORPUS.absent])
def test_expect_absent(corpus_run: CorpusRun, absent: AbsentExpectation) -> None:
    found = [f"{r['target']} {r['protocol']}" for r in corpus_run.results() if r.get("target") == absent.target]
    assert not found, f"must not be checked (tests/shapes/{absent.file}:{absent.line}): {found}"


def test_no_check_reported_twice(corpus_run: CorpusRun) -> None:
    """One result per (target, protocol): also with a target given twice, and with two
    ``plugin_dup`` modules in one run."""
    counts = Counter((r.get("target"), r.get("protocol")) for r in corpus_run.results())
    assert not [key for key, n in counts.items() if n > 1], sorted(key for key, n in counts.items() if n > 1)


def test_corpus_is_well_formed() -> None:
    """Every shape explains itself and declares an expectation; class names and rows are unique."""
    declared = {row.shape for row in CORPUS.rows} | {n.shape for n in CORPUS.notes} | {a.shape for a in CORPUS.absent}
    problems: list[str] = []
    class_names: Counter[str] = Counter()
    for entry in shape_entries():
        if shape_name(entry) not in declared:
            problems.append(f"{entry.name}: declares no expectation")
        if not shape_doc(entry):
            problems.append(f"{entry.name}: has no docstring")
        for path in shape_files(entry):
            text = path.read_text(encoding="utf-8")
            rel = os.path.relpath(path, SHAPES)
            if _leading_docstring(path) is None:
                problems.append(f"{rel}: does not start with a module docstring")
            if "\nfrom __future__ import annotations\n" not in text:
                problems.append(f"{rel}: lacks 'from __future__ import annotations'")
            class_names.update(re.findall(r"^\s*class\s+(\w+)", text, re.MULTILINE))
    problems += [f"class name {name} is used {n} times" for name, n in class_names.items() if n > 1]
    ids = Counter(row.id for row in CORPUS.rows)
    problems += [f"expectation {key} is declared {n} times" for key, n in ids.items() if n > 1]
    linked = SHAPES / "pkg_symlinked" / "linked"
    if not linked.is_symlink():
        problems.append("pkg_symlinked/linked must be a symbolic link to ../_pkg_symlink_source")
    assert not problems, "\n".join(problems)


def test_docs_table_matches_corpus() -> None:
    """docs/verdicts.md holds exactly the table generated from the corpus
    (``SPEC_PROTOCOLS_UPDATE_DOCS=1`` rewrites it)."""
    text = DOCS.read_text(encoding="utf-8")
    if TABLE_START not in text or TABLE_END not in text:
        pytest.fail(
            f"docs/verdicts.md has no shapes table: add the two lines {TABLE_START} and {TABLE_END} "
            "where it belongs, then run this test with SPEC_PROTOCOLS_UPDATE_DOCS=1 to fill it in"
        )
    before, rest = text.split(TABLE_START, 1)
    current, after = rest.split(TABLE_END, 1)
    wanted = "\n" + render_shapes_table(table_rows(CORPUS)) + "\n"
    if current == wanted:
        return
    if os.environ.get("SPEC_PROTOCOLS_UPDATE_DOCS") == "1":
        DOCS.write_text(before + TABLE_START + wanted + TABLE_END + after, encoding="utf-8")
        return
    pytest.fail(
        "the shapes table in docs/verdicts.md is out of date; regenerate it with "
        "SPEC_PROTOCOLS_UPDATE_DOCS=1 python -m pytest tests/checkers/test_shapes.py -k docs_table"
    )
