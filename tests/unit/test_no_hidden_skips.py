"""The test suite cannot hide breakage: three rules, checked on the test sources with ``ast``.

1. **No skip on an ImportError of this project's own modules.** ``sglang`` and
   ``torch`` may be missing on a machine (the skip then names what is
   missing); ``spec_protocols`` is the code under test, and a test that skips
   when it cannot be imported turns a broken module into a green run. Flagged:

   * ``pytest.importorskip("spec_protocols...")`` (and an ``importorskip``
     whose module name is not a string literal: it cannot be told apart);
   * ``try: import spec_protocols...`` (``from spec_protocols... import``,
     ``importlib.import_module`` / ``__import__`` / ``find_spec`` of a
     ``"spec_protocols..."`` literal) with a handler that catches the import
     error (``ImportError``, ``ModuleNotFoundError``, ``Exception``,
     ``BaseException``, bare ``except``) and neither re-raises nor calls
     ``pytest.fail``, or that skips or xfails: a handler that records a flag
     for a later ``skipif`` is as bad as one that skips;
   * ``skipif(...)`` and ``if ...: pytest.skip(...)`` whose condition calls
     ``find_spec`` / ``import_module`` / ``__import__`` / ``importorskip`` on
     a ``"spec_protocols..."`` literal;
   * a call of a *skipping importer* with a ``"spec_protocols..."`` literal:
     a function of the suite that imports a module it is given inside a
     ``try`` whose handler skips (``tests/_sglang.py``'s ``import_sglang``),
     or that passes its argument on to one (``sglang_class``).

2. **Every test that runs mypy or pyright carries the ``checkers`` marker**
   (``pytest -m "not checkers"`` is the fast run; a test that runs a checker
   without the marker makes it slow, and fails where the checkers are absent).
   A test *runs a checker* when, in its body, the bodies of the fixtures it
   requests (fixtures of its module and of ``tests/conftest.py``), or the
   module functions and fixture callables it calls, transitively, one of
   these *sites* occurs:

   * ``subprocess``: ``subprocess.run`` / ``Popen`` / ``check_output`` /
     ``check_call`` / ``call`` whose argv (the literal, or what the local
     name was assigned) contains the string ``"mypy"``, ``"pyright"``,
     ``"mypy.stubtest"``, ``"spec_protocols.gate._cli"`` or ``"check"``
     (``tool("mypy")`` and ``bindir / "pyright"`` count: the literal is in
     the argv's expression);
   * ``api``: any use of the name ``run_gate`` (a call, a reference, an
     import), except a call whose ``checkers=`` chooses the runtime checker
     only (a literal whose items are each ``"runtime"`` or a name ``runtime``
     / ``RUNTIME``, the suite's name for a runtime checker object, real or
     counting; or ``checkers_named("runtime")``), and an assignment to it (a
     fake replacing it);
   * ``cli``: ``main(["check", ...])`` (``cli.main``), in process;
   * ``pytester``: ``runpytest(..., "--spec-protocols-gate", ...)``, the
     plugin's gate, in process.

   A site, or a call of a callable that has sites, does not count when its
   literal arguments choose only the runtime checker (``"--checker",
   "runtime"``; ``"--spec-protocols-checker", "runtime"``), ask for
   ``--help``, or when the test expects exit status 2 from it (the call is an
   argument of a ``*usage_error*`` helper, or it is assigned to ``code, ...``
   and the test asserts ``code == 2``): exit 2 is a usage or environment
   error, which stops the gate before a checker runs (a checker that times
   out is the exception; those tests carry the marker anyway). ``cli`` and
   ``pytester`` sites do not count in a test, fixture or helper that replaces
   ``run_gate`` (``monkeypatch.setattr(..., "run_gate"...)``, assigning
   ``*.run_gate``, or ``makeconftest`` of source that assigns ``run_gate``),
   or that requests a fixture that does.

   The marker counts on the test (``@pytest.mark.checkers``), its class, or
   the module (``pytestmark``).

3. **Every test module of the installed tier (``tests/installed/``) carries
   the ``installed``, ``slow`` and ``checkers`` markers** in its module-level
   ``pytestmark``. The tier builds wheels and venvs and runs the gate through
   ``tests/installed/_userland.py``'s ``run`` (which rule 2 cannot see), for
   minutes: ``-m "not slow"`` (``.ci/run``'s 3.12 and 3.13 legs) and
   ``-m "not checkers"`` must leave it out, and ``-m installed`` pick it.

**Limits** (what this cannot see; it errs towards silence, never towards a
false alarm on the current suite, which ``test_current_suite_*`` pin):

* a checker started from code this cannot read: an argv assembled from data
  (``tests/test_examples.py``'s pre-commit hook runner reads its command from
  YAML), source written to disk and run by pytester or a subprocess, a
  helper of another test module or of ``spec_protocols`` itself, methods
  called through ``self``;
* calls to a helper are judged by their literal arguments only;
  ``"--checker runtime"`` passed through a variable still counts;
* markers added with ``pytest.param(..., marks=...)`` or by hooks do not
  count; import aliases of ``pytest.mark`` other than ``mark`` are not
  followed;
* only the source of ``tests/*.py`` and of ``test_*.py`` / ``conftest.py``
  in folders below it is read (``tests/shapes/`` and ``tests/fixtures/`` hold
  data, not tests, and intentionally contain ``try``/``except ImportError``
  shapes; ``tests/installed/plugins/`` holds the installed tier's plugins,
  and ``tests/installed/_userland.py`` its helpers, whose commands rule 3
  covers).

The rules are checked dynamically too when needed: run the fast suite with a
``subprocess.Popen`` wrapper that logs argv per test (how this file was
validated: no unmarked test started mypy or pyright).
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
OWN = "spec_protocols"

_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
_IMPORT_CALLS = {"find_spec", "import_module", "__import__", "importorskip"}
_SKIPS = {"skip", "xfail", "importorskip"}
_SUBPROCESS = {"run", "Popen", "check_output", "check_call", "call"}
_CHECKER_WORDS = {"mypy", "pyright", "mypy.stubtest", "spec_protocols.gate._cli", "check"}
_RUNPYTEST = {"runpytest", "runpytest_inprocess", "runpytest_subprocess", "inline_run"}
#: Kinds of site that run in this process, so that a replaced run_gate stops them.
_IN_PROCESS = {"cli", "pytester"}


def suite_files() -> list[Path]:
    """The files both rules read (see the module docstring's limits)."""
    top = sorted(p for p in TESTS.glob("*.py"))
    below = sorted(
        p
        for p in TESTS.rglob("*.py")
        if p.parent != TESTS and (p.name.startswith("test_") or p.name == "conftest.py")
    )
    return top + below


# -- shared helpers -----------------------------------------------------------


def _name(node: ast.AST) -> str | None:
    """The last name of a callee: ``f`` for ``f(...)``, ``g`` for ``a.b.g(...)``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _strings(node: ast.AST) -> list[str]:
    """Every string literal in *node*, in source order."""
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _runtime_only(node: ast.expr) -> bool:
    """A ``checkers=`` value that chooses the runtime checker only."""
    if isinstance(node, ast.Call) and _name(node.func) == "checkers_named":
        words = _strings(node)
        return bool(words) and all(w == "runtime" for w in words)
    if not isinstance(node, ast.List | ast.Tuple | ast.Set) or not node.elts:
        return False
    return all(
        (isinstance(item, ast.Constant) and item.value == "runtime")
        or (isinstance(item, ast.Name | ast.Attribute) and _name(item) in ("runtime", "RUNTIME"))
        for item in node.elts
    )


def _is_own(value: object) -> bool:
    return isinstance(value, str) and (value == OWN or value.startswith(OWN + "."))


def _first_arg(call: ast.Call, keyword: str | None = None) -> ast.expr | None:
    if call.args:
        return call.args[0]
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return None


def _walk_no_defs(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """``ast.walk`` over *nodes* without entering nested function or class bodies."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


# -- rule 1: no skip on an ImportError of spec_protocols ---------------------


def _own_import_in(nodes: Iterable[ast.AST]) -> bool:
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Import) and any(_is_own(a.name) for a in sub.names):
                return True
            if isinstance(sub, ast.ImportFrom) and sub.level == 0 and _is_own(sub.module):
                return True
            if isinstance(sub, ast.Call) and _name(sub.func) in _IMPORT_CALLS:
                arg = _first_arg(sub, "name")
                if isinstance(arg, ast.Constant) and _is_own(arg.value):
                    return True
    return False


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(_name(t) in _IMPORT_ERRORS for t in types)


def _calls(nodes: Iterable[ast.AST], names: set[str]) -> bool:
    return any(isinstance(n, ast.Call) and _name(n.func) in names for node in nodes for n in ast.walk(node))


def _handler_hides(handler: ast.ExceptHandler) -> bool:
    if _calls(handler.body, _SKIPS):
        return True
    reraises = any(isinstance(n, ast.Raise) for node in handler.body for n in ast.walk(node))
    return not (reraises or _calls(handler.body, {"fail"}))


def _skipping_importers(trees: Iterable[ast.Module]) -> set[str]:
    """Functions of the suite that skip when importing the module they are given."""
    defs = [n for tree in trees for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    found: set[str] = set()
    for fn in defs:
        for node in ast.walk(fn):
            if not isinstance(node, ast.Try):
                continue
            dynamic = any(
                isinstance(n, ast.Call)
                and _name(n.func) in {"import_module", "__import__"}
                and isinstance(_first_arg(n), ast.Name)
                for stmt in node.body
                for n in ast.walk(stmt)
            )
            if dynamic and any(_catches_import_error(h) and _calls(h.body, _SKIPS) for h in node.handlers):
                found.add(fn.name)
    changed = True
    while changed:  # one that passes its first argument on to a skipping importer
        changed = False
        for fn in defs:
            if fn.name in found or not fn.args.args:
                continue
            first = fn.args.args[0].arg
            for n in ast.walk(fn):
                if not (isinstance(n, ast.Call) and _name(n.func) in found):
                    continue
                arg = _first_arg(n)
                if isinstance(arg, ast.Name) and arg.id == first:
                    found.add(fn.name)
                    changed = True
                    break
    return found


def own_import_skips(sources: dict[str, str]) -> list[str]:
    """``file:line: what`` for every skip conditioned on importing a spec_protocols module."""
    trees = {name: ast.parse(text, filename=name) for name, text in sources.items()}
    importers = _skipping_importers(trees.values())
    found: list[str] = []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            where = f"{name}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call) and _name(node.func) == "importorskip":
                arg = _first_arg(node, "modname")
                if not isinstance(arg, ast.Constant):
                    found.append(f"{where}: importorskip of a computed module name (it may be spec_protocols)")
                elif _is_own(arg.value):
                    found.append(f"{where}: importorskip({arg.value!r}) skips when spec_protocols is broken")
            elif isinstance(node, ast.Call) and _name(node.func) in importers:
                arg = _first_arg(node)
                if isinstance(arg, ast.Constant) and _is_own(arg.value):
                    found.append(f"{where}: {_name(node.func)}({arg.value!r}) skips when it cannot import it")
            elif isinstance(node, ast.Call) and _name(node.func) == "skipif":
                if _own_import_in([*node.args, *(k.value for k in node.keywords)]):
                    found.append(f"{where}: skipif conditioned on importing spec_protocols")
            elif isinstance(node, ast.If) and _own_import_in([node.test]) and _calls(node.body, _SKIPS):
                found.append(f"{where}: skip conditioned on importing spec_protocols")
            elif isinstance(node, ast.Try) and _own_import_in(node.body):
                for handler in node.handlers:
                    if _catches_import_error(handler) and _handler_hides(handler):
                        found.append(
                            f"{name}:{handler.lineno}: an ImportError of spec_protocols is caught and not raised"
                        )
    return found


# -- rule 2: tests that run a checker carry the checkers marker --------------


@dataclass
class _Function:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    fixture: str | None  # the fixture name, for a fixture
    params: list[str]
    #: kinds of the sites in the body outside nested defs (what requesting a fixture runs)
    setup: set[str] = field(default_factory=set[str])
    #: kinds of every site, nested defs included (what calling it may run)
    any: set[str] = field(default_factory=set[str])
    neutral: bool = False


def _is_mark(node: ast.expr, mark: str) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return isinstance(target, ast.Attribute) and target.attr == mark and _name(target.value) == "mark"


def _marked(decorators: Iterable[ast.expr]) -> bool:
    return any(_is_mark(d, "checkers") for d in decorators)


def _pytestmark(body: Iterable[ast.stmt]) -> bool:
    for stmt in body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets):
            values = stmt.value.elts if isinstance(stmt.value, ast.List | ast.Tuple) else [stmt.value]
            if _marked(values):
                return True
    return False


def _fixture_name(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if _name(target) == "fixture":
            if isinstance(d, ast.Call):
                for kw in d.keywords:
                    if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                        return kw.value.value
            return fn.name
    return None


def _only_runtime_or_help(words: list[str]) -> bool:
    """Literal arguments that choose only the runtime checker, or ask for help."""
    if "--help" in words or "-h" in words:
        return True
    chosen = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("--checker", "--spec-protocols-checker")]
    return bool(chosen) and all(c == "runtime" for c in chosen)


def _assigned(fn: ast.AST, name: str) -> list[ast.expr]:
    return [
        n.value
        for n in ast.walk(fn)
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
    ]


def _resolved_strings(expr: ast.expr, scope: ast.AST) -> list[str]:
    """The string literals of *expr*, and of what each local name in it was
    assigned in *scope* (``argv = [...]``; ``[*cmd, *files]``), transitively."""
    words: list[str] = []
    seen: set[str] = set()
    todo = [expr]
    while todo:
        node = todo.pop()
        words += _strings(node)
        for name in (n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id not in seen):
            seen.add(name)
            todo += _assigned(scope, name)
    return words


def _replaces_run_gate_source(text: str) -> bool:
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return False
    return any(
        isinstance(n, ast.Assign) and any(_name(t) == "run_gate" for t in n.targets) for n in ast.walk(tree)
    )


class _Module:
    """One test module's functions, with the sites each runs."""

    def __init__(self, name: str, tree: ast.Module, shared_fixtures: dict[str, _Function]) -> None:
        self.name = name
        self.tree = tree
        self.strings = {
            t.id: s.value.value
            for s in tree.body
            if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)
            for t in s.targets
            if isinstance(t, ast.Name)
        }
        self.functions: dict[str, _Function] = {}
        self.fixtures: dict[str, _Function] = dict(shared_fixtures)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                info = _Function(node, _fixture_name(node), [a.arg for a in node.args.args])
                if info.fixture is not None:
                    self.fixtures[info.fixture] = info
                else:
                    self.functions[node.name] = info
        self.parents: dict[ast.AST, ast.AST] = {
            child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)
        }

    # What one node runs -------------------------------------------------------

    def _site(self, node: ast.AST, fn: _Function) -> set[str]:
        if isinstance(node, ast.Name | ast.Attribute) and _name(node) == "run_gate":
            if isinstance(node.ctx, ast.Store):
                return set()
            parent = self.parents.get(node)
            if isinstance(parent, ast.Call) and parent.func is node:
                if any(kw.arg == "checkers" and _runtime_only(kw.value) for kw in parent.keywords):
                    return set()
            return {"api"}
        if isinstance(node, ast.ImportFrom) and any(a.name == "run_gate" for a in node.names):
            return {"api"}
        if not isinstance(node, ast.Call):
            return set()
        callee = _name(node.func)
        words = [w for arg in [*node.args, *(k.value for k in node.keywords)] for w in _strings(arg)]
        if (
            callee in _SUBPROCESS
            and isinstance(node.func, ast.Attribute)
            and _name(node.func.value) == "subprocess"
        ):
            argv = _first_arg(node, "args")
            argv_words = _resolved_strings(argv, fn.node) if argv is not None else []
            if _CHECKER_WORDS & set(argv_words) and not _only_runtime_or_help(argv_words):
                return {"subprocess"}
        if callee == "main" and node.args and isinstance(node.args[0], ast.List | ast.Tuple):
            elts = node.args[0].elts
            if elts and isinstance(elts[0], ast.Constant) and elts[0].value == "check":
                if not _only_runtime_or_help(_strings(node.args[0])):
                    return {"cli"}
        if callee in _RUNPYTEST and "--spec-protocols-gate" in words and not _only_runtime_or_help(words):
            return {"pytester"}
        return set()

    def _expects_exit_2(self, call: ast.Call, fn: _Function) -> bool:
        node: ast.AST = call
        while node in self.parents and node is not fn.node:
            parent = self.parents[node]
            if isinstance(parent, ast.Call) and "usage_error" in (_name(parent.func) or ""):
                return True
            if isinstance(parent, ast.Assign) and parent.value is node:
                target = parent.targets[0]
                first = target.elts[0] if isinstance(target, ast.Tuple) and target.elts else target
                if isinstance(first, ast.Name):
                    return any(
                        isinstance(n, ast.Compare)
                        and isinstance(n.left, ast.Name)
                        and n.left.id == first.id
                        and isinstance(n.ops[0], ast.Eq)
                        and isinstance(n.comparators[0], ast.Constant)
                        and n.comparators[0].value == 2
                        for n in ast.walk(fn.node)
                    )
                return False
            node = parent
        return False

    def _callee(self, call: ast.Call, fn: _Function) -> _Function | None:
        if not isinstance(call.func, ast.Name):
            return None
        name = call.func.id
        if name in fn.params and name in self.fixtures:
            return self.fixtures[name]
        callee = self.functions.get(name)
        return callee if callee is not fn else None

    def _neutral(self, fn: _Function) -> bool:
        for n in ast.walk(fn.node):
            if isinstance(n, ast.Call) and _name(n.func) == "setattr":
                words = _strings(ast.Tuple(elts=list(n.args[:2]), ctx=ast.Load()))
                if any(w == "run_gate" or w.endswith(".run_gate") for w in words):
                    return True
            if isinstance(n, ast.Assign) and any(_name(t) == "run_gate" for t in n.targets):
                return True
            if isinstance(n, ast.Call) and _name(n.func) in {"makeconftest", "makepyfile"}:
                for arg in [*n.args, *(k.value for k in n.keywords)]:
                    text = self.strings.get(arg.id) if isinstance(arg, ast.Name) else None
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        text = arg.value
                    if text is not None and _replaces_run_gate_source(text):
                        return True
        return any(p in self.fixtures and self.fixtures[p].neutral for p in fn.params)

    def _kinds(self, fn: _Function, nodes: Iterable[ast.AST]) -> set[str]:
        kinds: set[str] = set()
        for node in nodes:
            site = self._site(node, fn)
            if isinstance(node, ast.Call) and not site:
                callee = self._callee(node, fn)
                if callee is not None:
                    site = set(callee.any)
                    words = [w for arg in [*node.args, *(k.value for k in node.keywords)] for w in _strings(arg)]
                    if _only_runtime_or_help(words):
                        site = set[str]()
            if site and isinstance(node, ast.Call) and self._expects_exit_2(node, fn):
                site = set[str]()
            kinds |= site
        if fn.neutral:
            kinds -= _IN_PROCESS
        return kinds

    def solve(self) -> None:
        every = [*self.functions.values(), *self.fixtures.values()]
        changed = True
        while changed:
            changed = False
            for fn in every:
                neutral = self._neutral(fn)
                setup = self._kinds(fn, _walk_no_defs(fn.node.body))
                for p in fn.params:
                    if p in self.fixtures and self.fixtures[p] is not fn:
                        setup |= self.fixtures[p].setup
                any_ = setup | self._kinds(fn, ast.walk(fn.node))
                if (neutral, setup, any_) != (fn.neutral, fn.setup, fn.any):
                    fn.neutral, fn.setup, fn.any = neutral, setup, any_
                    changed = True

    def tests(self) -> Iterator[tuple[str, _Function, bool]]:
        """``(test id, function, carries the checkers marker)``."""
        module_marked = _pytestmark(self.tree.body)
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
                fn = self.functions.get(node.name)
                if fn is not None:
                    yield f"{self.name}::{node.name}", fn, module_marked or _marked(node.decorator_list)
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                class_marked = module_marked or _marked(node.decorator_list) or _pytestmark(node.body)
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith("test"):
                        fn = _Function(item, None, [a.arg for a in item.args.args][1:])
                        self.functions[f"{node.name}.{item.name}"] = fn
                        self.solve()
                        yield f"{self.name}::{node.name}::{item.name}", fn, class_marked or _marked(item.decorator_list)


def checker_tests(sources: dict[str, str], conftest: str = "") -> dict[str, tuple[set[str], bool]]:
    """``{test id: (kinds of checker runs, carries the marker)}`` for every test that runs a checker."""
    shared: dict[str, _Function] = {}
    if conftest:
        base = _Module("conftest.py", ast.parse(conftest), {})
        base.solve()
        shared = base.fixtures
    found: dict[str, tuple[set[str], bool]] = {}
    for name, text in sources.items():
        module = _Module(name, ast.parse(text, filename=name), shared)
        module.solve()
        for test_id, fn, marked in module.tests():
            if fn.any or fn.setup:
                found[test_id] = (fn.setup | fn.any, marked)
    return found


def unmarked_checker_tests(sources: dict[str, str], conftest: str = "") -> list[str]:
    return sorted(
        f"{test_id}: runs {', '.join(sorted(kinds))} without pytest.mark.checkers"
        for test_id, (kinds, marked) in checker_tests(sources, conftest).items()
        if not marked
    )


# -- the suite ------------------------------------------------------------------


def _suite() -> dict[str, str]:
    return {str(p.relative_to(TESTS.parent)): p.read_text(encoding="utf-8") for p in suite_files()}


def _conftest() -> str:
    path = TESTS / "conftest.py"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_current_suite_never_skips_on_an_own_import_error() -> None:
    assert own_import_skips(_suite()) == []


def test_current_suite_marks_every_checker_test() -> None:
    sources = {k: v for k, v in _suite().items() if not k.endswith("conftest.py")}
    assert unmarked_checker_tests(sources, _conftest()) == []


INSTALLED_TIER_MARKS = ("installed", "slow", "checkers")


def unmarked_installed_modules(sources: dict[str, str]) -> list[str]:
    """Rule 3: ``module: pytestmark lacks MARK`` for each installed-tier test module without every tier marker."""
    problems: list[str] = []
    for name, text in sources.items():
        marks: set[str] = set()
        for stmt in ast.parse(text, filename=name).body:
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets):
                values = stmt.value.elts if isinstance(stmt.value, ast.List | ast.Tuple) else [stmt.value]
                marks |= {mark for mark in INSTALLED_TIER_MARKS for value in values if _is_mark(value, mark)}
        problems += [f"{name}: pytestmark lacks {mark}" for mark in INSTALLED_TIER_MARKS if mark not in marks]
    return sorted(problems)


def test_current_installed_tier_is_marked() -> None:
    tier = {k: v for k, v in _suite().items() if k.startswith("tests/installed/") and Path(k).name.startswith("test_")}
    assert tier, "no test module in tests/installed/"
    assert unmarked_installed_modules(tier) == []


@pytest.mark.parametrize(
    ("source", "missing"),
    [
        ("import pytest\npytestmark = [pytest.mark.installed, pytest.mark.slow, pytest.mark.checkers]\n", []),
        ("from pytest import mark\npytestmark = (mark.installed, mark.slow, mark.checkers)\n", []),
        ("import pytest\npytestmark = [pytest.mark.installed, pytest.mark.checkers]\n", ["slow"]),
        ("import pytest\npytestmark = pytest.mark.slow\n", ["installed", "checkers"]),
        ("import pytest\n@pytest.mark.installed\n@pytest.mark.slow\n@pytest.mark.checkers\ndef test_x(): pass\n",
         ["installed", "slow", "checkers"]),
    ],
    ids=["list", "tuple-from-import", "no-slow", "one-mark", "test-marks-only"],
)
def test_installed_tier_marks_are_read_from_pytestmark(source: str, missing: list[str]) -> None:
    assert unmarked_installed_modules({"t.py": source}) == sorted(f"t.py: pytestmark lacks {m}" for m in missing)


def test_current_suite_heuristic_is_not_vacuous() -> None:
    """The rule sees the suite's checker tests through each kind of site
    (a renamed helper would otherwise silently turn the check off)."""
    sources = {k: v for k, v in _suite().items() if not k.endswith("conftest.py")}
    found = checker_tests(sources, _conftest())
    kinds: set[str] = set[str]().union(*(k for k, _ in found.values()))
    assert {"subprocess", "api", "cli"} <= kinds, sorted(found)
    assert len(found) >= 15, sorted(found)


# -- the rules on synthetic sources (each flagged shape, and its safe twin) ---


@pytest.mark.parametrize(
    "source",
    [
        'import pytest\napi = pytest.importorskip("spec_protocols.gate._pipeline")\n',
        "import pytest\nname = 'x'\npytest.importorskip(name)\n",
        "import pytest\ndef f():\n    try:\n        from spec_protocols.gate import api\n"
        "    except ImportError as exc:\n        pytest.skip(str(exc))\n",
        "try:\n    import spec_protocols.gate._pipeline\n    HAVE = True\nexcept ModuleNotFoundError:\n    HAVE = False\n",
        "import importlib, pytest\ntry:\n    importlib.import_module('spec_protocols.x')\nexcept Exception:\n"
        "    pytest.xfail('no')\n",
        "import importlib.util, pytest\n"
        "@pytest.mark.skipif(importlib.util.find_spec('spec_protocols.gate') is None, reason='x')\n"
        "def test_x(): pass\n",
        "import importlib.util, pytest\ndef test_x():\n"
        "    if importlib.util.find_spec('spec_protocols.gate') is None:\n        pytest.skip('x')\n",
        "import importlib, pytest\ndef load(module):\n    try:\n        return importlib.import_module(module)\n"
        "    except Exception as exc:\n        pytest.skip(str(exc))\n"
        "def cls(module, name):\n    return getattr(load(module), name)\n"
        "def test_x():\n    cls('spec_protocols.gate._pipeline', 'run_gate')\n",
    ],
    ids=["importorskip", "computed-importorskip", "try-skip", "try-flag", "import-module-xfail", "skipif",
         "if-skip", "skipping-importer"],
)
def test_own_import_skips_are_flagged(source: str) -> None:
    assert own_import_skips({"t.py": source}), source


@pytest.mark.parametrize(
    "source",
    [
        'import pytest\nsglang = pytest.importorskip("sglang")\n',
        "import pytest\ndef f():\n    try:\n        import torch\n    except ImportError:\n        pytest.skip('no torch')\n",
        "import pytest\ndef f():\n    try:\n        import spec_protocols.gate._pipeline\n    except ImportError as exc:\n"
        "        pytest.fail(f'broken: {exc}')\n",
        "def f():\n    try:\n        import spec_protocols.gate._pipeline\n    except ImportError:\n        raise\n",
        "import importlib, pytest\ndef load(module):\n    try:\n        return importlib.import_module(module)\n"
        "    except Exception as exc:\n        pytest.skip(str(exc))\n"
        "def test_x():\n    load('sglang.srt')\n",
    ],
    ids=["sglang", "torch", "fail", "reraise", "skipping-importer-of-sglang"],
)
def test_other_imports_and_failing_handlers_are_fine(source: str) -> None:
    assert own_import_skips({"t.py": source}) == []


_RUN_FIXTURE = """
import pytest
from spec_protocols.gate import _cli as cli

@pytest.fixture
def run(capsys):
    def call(*argv):
        return cli.main(["check", *argv])
    return call

def _assert_usage_error(result, *fragments):
    assert result == 2
"""


@pytest.mark.parametrize(
    ("source", "kinds"),
    [
        ("import subprocess, sys\ndef test_x():\n    subprocess.run([sys.executable, '-m', 'mypy', 'a.py'])\n",
         {"subprocess"}),
        ("import subprocess\ndef tool(n): return n\ndef test_x():\n    argv = [tool('pyright'), 'a.py']\n"
         "    subprocess.run(argv)\n", {"subprocess"}),
        ("import subprocess, sys\ndef test_x():\n    cmd = [sys.executable, '-m', 'pyright']\n"
         "    subprocess.run([*cmd, 'a.py'])\n", {"subprocess"}),
        ("import subprocess, sys\ndef _run():\n    return subprocess.run([sys.executable, '-m', "
         "'spec_protocols.gate._cli', 'check', 'x'])\ndef test_x():\n    _run()\n", {"subprocess"}),
        ("from spec_protocols.gate._pipeline import run_gate\ndef test_x():\n    run_gate(['x'])\n", {"api"}),
        ("def _gate():\n    from spec_protocols.gate._pipeline import run_gate\n    return run_gate\n"
         "def test_x():\n    _gate()(['x'])\n", {"api"}),
        (_RUN_FIXTURE + "def test_x(run):\n    code, out, err = run('pkg')\n    assert code == 1\n", {"cli"}),
        (_RUN_FIXTURE + "def test_x(run):\n    run('pkg', '--checker', 'mypy')\n", {"cli"}),
        ("def test_x(pytester):\n    pytester.runpytest('--spec-protocols-gate', 'pkg')\n", {"pytester"}),
        ("import pytest\n@pytest.fixture\ndef report():\n    from spec_protocols.gate._pipeline import run_gate\n"
         "    return run_gate(['x'])\ndef test_x(report):\n    assert report\n", {"api"}),
    ],
    ids=["subprocess-mypy", "subprocess-argv-name", "subprocess-argv-starred", "helper-cli-subprocess", "run-gate", "run-gate-helper",
         "cli-fixture", "cli-fixture-mypy", "pytester-gate", "fixture-runs-gate"],
)
def test_unmarked_checker_runs_are_flagged(source: str, kinds: set[str]) -> None:
    found = checker_tests({"t.py": source})
    assert found == {"t.py::test_x": (kinds, False)}
    assert unmarked_checker_tests({"t.py": source}) == [f"t.py::test_x: runs {', '.join(sorted(kinds))} without pytest.mark.checkers"]
    marked = source.replace("def test_x", "@pytest.mark.checkers\ndef test_x")
    if "import pytest" not in marked:
        marked = "import pytest\n" + marked
    assert unmarked_checker_tests({"t.py": marked}) == []
    assert unmarked_checker_tests({"t.py": "import pytest\npytestmark = [pytest.mark.checkers]\n" + source}) == []


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess, sys\ndef test_x():\n    subprocess.run([sys.executable, '-c', 'import mypy_extensions'])\n",
        "def test_x():\n    assert {'mypy': 1, 'pyright': 2}\n",
        "from spec_protocols.gate._pipeline import run_gate\ndef test_x():\n    run_gate(['x'], checkers=('runtime',))\n",
        "from spec_protocols.gate import run_gate\ndef test_x(runtime):\n    run_gate(['x'], checkers=[runtime])\n",
        "from spec_protocols import gate\ndef test_x():\n    gate.run_gate(['x'], checkers=gate.checkers_named(['runtime']))\n",
        _RUN_FIXTURE + "def test_x(run):\n    _assert_usage_error(run('no_such_module'), 'no module')\n",
        _RUN_FIXTURE + "def test_x(run):\n    code, out, err = run('bad name.py')\n    assert code == 2\n",
        _RUN_FIXTURE + "def test_x(run):\n    run('pkg', '--checker', 'runtime')\n",
        _RUN_FIXTURE + "def test_x(run, monkeypatch):\n    monkeypatch.setattr('spec_protocols.gate._pipeline.run_gate', "
        "lambda *a, **k: None)\n    run('pkg')\n",
        _RUN_FIXTURE + "@pytest.fixture\ndef fake(monkeypatch):\n    monkeypatch.setattr(api, 'run_gate', None)\n"
        "def test_x(run, fake):\n    run('pkg')\n",
        _RUN_FIXTURE + "def test_x():\n    cli.main(['check', '--help'])\n",
        "FAKE = '''\nimport spec_protocols.gate._pipeline as api\napi.run_gate = lambda *a, **k: None\n'''\n"
        "def test_x(pytester):\n    pytester.makeconftest(FAKE)\n    pytester.runpytest('--spec-protocols-gate', 'p')\n",
        "def test_x(pytester):\n    pytester.runpytest('--spec-protocols-gate', 'p', '--spec-protocols-checker', 'runtime')\n",
    ],
    ids=["python-c", "data", "run-gate-runtime-only", "run-gate-runtime-object", "run-gate-runtime-named", "usage-error-helper", "asserts-exit-2", "cli-runtime-only",
         "monkeypatched-run-gate", "fixture-replaces-run-gate", "help", "fake-conftest", "plugin-runtime-only"],
)
def test_runs_without_a_checker_are_not_flagged(source: str) -> None:
    assert checker_tests({"t.py": source}) == {}
