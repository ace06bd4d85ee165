"""The ``spec_protocols`` pytest plugin (entry point ``pytest11``, loaded automatically).

Three things for worker authors and CI owners:

* :func:`assert_conforms` (also a fixture of the same name): assert that a
  class or an object conforms to a protocol, with a failure message that lists
  *every* problem :func:`spec_protocols.verify_conformance` found, not just the
  first::

      def test_my_worker(assert_conforms):
          assert_conforms(MyWorker, "SpecWorker")

* :func:`assert_forward_result` (also a fixture): assert that what a spec
  worker's ``forward_batch_generation`` returned in the author's own test
  carries what sglang's overlap loop does with it (``Scheduler.run_batch``
  reads ``batch_result.next_draft_input`` and attributes on it), read from
  the installed sglang's source, every missing read named::

      def test_forward(assert_forward_result):
          assert_forward_result(worker.forward_batch_generation(batch, on_publish=publish))

* ``--spec-protocols-gate TARGET`` (repeatable) runs the gate
  (:func:`spec_protocols.gate.run_gate`) once per session, during
  collection, and adds one test item per (class, protocol) result. The items
  are collected as any test is, under one collector, ``spec-protocols-gate``,
  that the session collects beside its own arguments: pytest counts each
  once ("collected N items"), ``--collect-only`` lists them, and ``-k``
  matches the target's dotted name, the protocol (both are in the item's
  name, ``pkg.mod.MyWorker[SpecWorker]``) and ``gate`` (the collector's name),
  as ``--deselect`` and ``--junitxml`` treat them as any test. An item
  fails with the problems the checkers reported. ``--spec-protocols-checker
  NAME`` (repeatable) picks the checkers (default: all three), and
  ``--spec-protocols-baseline FILE`` accepts known problems. As on the
  command line, a baseline entry that accepted nothing although its checker
  looked fails: it becomes one failing item,
  ``spec-protocols-gate::unused-baseline-entry[...]``, whose message is the
  line ``spec-protocols check`` prints; ``--spec-protocols-ignore-unused-baseline``
  (the CLI's ``--ignore-unused-baseline``) drops those items.

Loading the plugin imports neither spec_protocols' checkers nor sglang nor
torch: pytest loads every ``pytest11`` plugin in every session of the
environment, so everything heavy is imported only when used.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

if TYPE_CHECKING:
    from spec_protocols._verify import ConformanceProblem
    from spec_protocols.gate import Result

__all__ = ["GateCollector", "GateItem", "SpecProtocolsGateFailure", "assert_conforms", "assert_forward_result"]

from spec_protocols._orphans import drop_orphans

# The gate's registry imports no checker (nor torch, nor sglang): reading
# its names costs this plugin's every session nothing.
from spec_protocols.gate._checkers._registry import CHECKER_NAMES as _CHECKERS

# The gate's collector's name and node id, so the prefix of its items' node
# ids: a stable handle for -k and --deselect.
_NODE_PREFIX = "spec-protocols-gate"


def _exported_protocols() -> dict[str, type]:
    """Every protocol ``spec_protocols`` exports, by name: those sglang calls
    (``PROTOCOL_NAMES``, in that order) first, then the factories and the rest."""
    import spec_protocols
    from typing_extensions import is_protocol

    from spec_protocols._protocols import PROTOCOL_NAMES

    found: dict[str, type] = {}
    for name in (*PROTOCOL_NAMES, *sorted(spec_protocols.__all__)):
        value: object = getattr(spec_protocols, name, None)
        if isinstance(value, type) and is_protocol(value):
            found.setdefault(name, value)
    return found


def _resolve_protocol(protocol: object) -> object:
    """A protocol class, or the name of one that ``spec_protocols`` exports (``"SpecWorker"``)."""
    if not isinstance(protocol, str):
        return protocol
    exported = _exported_protocols()
    if protocol not in exported:
        raise ValueError(f"unknown protocol {protocol!r}; choose from {', '.join(exported)}")
    return exported[protocol]


def _construction_problems(cls: type, protocol: object) -> list[ConformanceProblem]:
    """What stops sglang building ``cls`` as ``protocol`` asks, with the gate's
    runtime checks (``verify_conformance`` and ``abstract_members``, as its
    probe runs them for a role with a construction, ``gate/_roles.py``).

    The call is the factory protocol's whose ``__call__`` builds ``protocol``
    (:func:`spec_protocols._members.factory_builds`): a ``SpecWorker`` is built
    by the scheduler's ``SpecWorkerFactory`` call, an ``InjectableDraftWorker``
    by ``build_draft_tp_worker``'s ``DraftWorkerFactory`` call. Given a factory
    protocol itself, what its call builds is checked too. A protocol no call
    builds (``DraftWorker``: its own spec worker builds it, with arguments of
    its own) asks nothing of the constructor.
    """
    from typing import get_origin

    from spec_protocols._members import factory_builds
    from spec_protocols._verify import ConformanceProblem, abstract_members, verify_conformance

    proto = get_origin(protocol) or protocol
    if not isinstance(proto, type):
        return []
    built = factory_builds(proto)
    factory: type | None = proto if built is not None else None
    if factory is None:
        factory = next((f for f in _exported_protocols().values() if factory_builds(f) is proto), None)
        built = proto if factory is not None else None
    if factory is None or built is None:
        return []
    problems: list[ConformanceProblem] = []
    if built is not proto:  # the factory's instances, as the call builds them
        problems += verify_conformance(cls, built).problems
    abstract = abstract_members(cls)
    if abstract:
        problems.append(
            ConformanceProblem(
                "__init__",
                "missing",
                f"the class is abstract ({', '.join(abstract)} never written): {factory.__name__}'s call cannot build it",
            )
        )
    elif factory is not proto:  # a factory protocol given as such was checked whole already
        for problem in verify_conformance(cls, factory).problems:
            problems.append(ConformanceProblem("__init__", problem.kind, f"{factory.__name__}'s call: {problem.message}"))
    return problems


def assert_conforms(cls_or_obj: object, protocol: object) -> None:
    """Assert that ``cls_or_obj`` conforms to ``protocol``, at runtime.

    ``cls_or_obj`` is a class, an instance, or a ``"module:Class"`` string;
    ``protocol`` is a protocol class or the name of any protocol
    ``spec_protocols`` exports. On failure the ``AssertionError`` lists every
    problem, one per line (member, kind, message), as
    :meth:`ConformanceResult.format` writes them. Available as a fixture of
    the same name in every test.

    A class is also checked as sglang builds it, as the gate checks it: a
    ``SpecWorker`` by the scheduler's constructor call
    (``SpecWorkerFactory``: ``server_args=, gpu_id=, nccl_port=,
    target_worker=``), an ``InjectableDraftWorker`` (or a class given with
    ``"DraftWorkerFactory"``) by ``build_draft_tp_worker``'s call of
    ``draft_worker_cls``, and, for a factory protocol, what the call builds;
    an abstract class fails. A ``DraftWorker`` your own spec worker builds is
    held to its members only.

    What it needs: the class, imported. A worker built on sglang's base
    classes (``BaseSpecWorker``, ``TpModelWorker``) imports sglang's runtime
    stack (torch and the packages of ``requirements/sglang-cpu.txt``; no
    GPU). Given as ``"module:Class"``, the import happens here, and a module
    that cannot be imported fails the test in one line that names the module
    that could not be imported and why; a class imported at the top of a
    test module fails that module's collection instead. Where the runtime
    stack is absent (a static-only CI), check with the gate instead:
    ``pytest --spec-protocols-gate TARGET --spec-protocols-sglang RELEASE``
    (or ``spec-protocols check TARGET --sglang RELEASE``) reads the source
    and imports nothing.
    """
    __tracebackhide__ = True
    from spec_protocols._verify import ConformanceResult, verify_conformance

    target = _import_target(cls_or_obj) if isinstance(cls_or_obj, str) else cls_or_obj
    proto = _resolve_protocol(protocol)
    result = verify_conformance(target, proto)
    if issubclass(type(target), type):  # a class (never its __class__, which an instance may fake)
        more = _construction_problems(cast(type, target), proto)
        result = ConformanceResult(result.target, result.protocol, (*result.problems, *more))
    if not result.ok:
        raise AssertionError(result.format())


def _import_target(spec: str) -> object:
    """The class ``"module:Class"`` names, or a one-line test failure saying why it cannot be had."""
    __tracebackhide__ = True
    import importlib

    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise ValueError(f"expected 'module:Class', got {spec!r}")
    failure: str | None = None
    module: object = None
    # Submodules an earlier failed import left without their package would
    # turn this import's real error into a KeyError naming the package.
    drop_orphans()
    before = set(sys.modules)
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # the plugin's own import: any exception is its failure
        failure = f"assert_conforms({spec!r}): {_import_failure(module_name, error)}"
        drop_orphans(before)
    # Failed outside the except block, so that the report is this one line,
    # not the plugin's traceback chained to it.
    if failure is not None:
        pytest.fail(failure, pytrace=False)
    found = getattr(module, class_name, _MISSING)
    if found is _MISSING:
        pytest.fail(f"assert_conforms({spec!r}): {module_name} has no {class_name!r}", pytrace=False)
    return found


_MISSING = object()

_GATE_HINT = "the gate imports nothing: --spec-protocols-gate TARGET --spec-protocols-sglang RELEASE"


def _import_failure(module_name: str, error: BaseException) -> str:
    """Why ``module_name`` could not be imported, in one line: the module that
    could not be found or that raised, the error, and what to do.

    Three cases, told apart by the error and its traceback: the plugin's own
    module (or its package) is not on pytest's import path; an import inside
    sglang failed (its runtime stack: torch and requirements/sglang-cpu.txt);
    anything else the plugin's own code imports or raises, named where it
    happened.
    """
    words = f"{type(error).__name__}: {error}"
    missing = error.name if isinstance(error, ModuleNotFoundError) else None
    if missing is not None and (module_name == missing or module_name.startswith(missing + ".")):
        return (
            f"cannot import {module_name}: {words}; it is not on pytest's import path (run pytest from the folder "
            "that holds it, add that folder to pytest's pythonpath setting, or pip install -e your plugin)"
        )
    raised_in, line = _raising_module(error)
    at = f" (at {raised_in}:{line})" if raised_in else ""
    if raised_in.partition(".")[0] == "sglang" or (missing or "").partition(".")[0] == "sglang":
        return (
            f"cannot import {module_name}: {words}{at}: sglang's own import failed, which needs its runtime stack "
            f"(torch and requirements/sglang-cpu.txt, no GPU); without it, {_GATE_HINT}"
        )
    if missing is not None:
        return (
            f"cannot import {module_name}: {words}{at}: install {missing.partition('.')[0]} where the tests run, "
            f"or check statically: {_GATE_HINT}"
        )
    return f"cannot import {module_name}: {words}{at}; fix that error, or check statically: {_GATE_HINT}"


def _raising_module(error: BaseException) -> tuple[str, int]:
    """The module whose code raised ``error`` (the innermost frame outside
    the import machinery and this plugin) and its line; ``("", 0)`` if none."""
    found = ("", 0)
    tb = error.__traceback__
    while tb is not None:
        name = str(tb.tb_frame.f_globals.get("__name__", ""))
        if name and not name.startswith(("importlib", "_frozen_importlib")) and name != __name__:
            found = (name, tb.tb_lineno)
        tb = tb.tb_next
    return found


@pytest.fixture(name="assert_conforms")
def assert_conforms_fixture() -> Any:
    """The :func:`assert_conforms` helper, as a fixture (no import needed in the test module)."""
    return assert_conforms


def assert_forward_result(result: object, *, algorithm: object = None, sglang: str | os.PathLike[str] | None = None) -> None:
    """Assert that ``result`` carries what sglang's overlap loop does with a spec worker's result.

    ``result`` is what the worker's ``forward_batch_generation`` returned in
    the test (built on the author's own stand-ins: no GPU is needed). On the
    overlap loop ``Scheduler.run_batch`` (managers/scheduler.py) reads and
    stores attributes on it and on its ``next_draft_input`` at every batch
    (0.5.23: ``extra_keep_alive_refs``, ``copy_done``, the draft input's
    ``dsa_topk_indices`` and ``future_indices``, the relay's
    ``bonus_tokens``...); the target worker's own result leaves
    ``next_draft_input`` None, so a worker that hands it back unchanged
    crashes at its first batch. Those uses are read from the source of
    ``sglang`` (a folder holding ``sglang/``, the ``sglang/`` folder; default:
    the installed sglang, located, not imported), the same reading the
    replay checker holds the instance to; a failure names each use the
    result fails, with sglang's line.

    ``algorithm``: the registration's algorithm object (its ``spec_class``
    instance), whose predicates decide the uses made only for some
    algorithms (``spec_algorithm.is_ngram()``); default: a plugin's, for
    which every built-in ``is_<algo>()`` is false. A release whose
    ``run_batch`` makes no use of the result on the overlap loop skips the
    test, saying so.
    """
    __tracebackhide__ = True
    from spec_protocols.gate._checkers._replay._result import failures, overlap_result_uses

    srt = _sglang_srt(sglang)
    uses = overlap_result_uses(srt)
    if not uses:
        pytest.skip(f"assert_forward_result: the run_batch of {srt.parent.parent} makes no use of a forward's result on the overlap loop")
    found = failures(result, uses, _predicate_of(algorithm))
    if found:
        lines = "\n".join(f"  - {f}" for f in found)
        raise AssertionError(
            f"assert_forward_result: {type(result).__name__} lacks what sglang's overlap loop uses of a forward's "
            f"result (Scheduler.run_batch, from {srt}):\n{lines}"
        )


def _sglang_srt(sglang: str | os.PathLike[str] | None) -> Path:
    """``sglang/srt`` of the source ``sglang`` names (None: the installed one,
    located as the gate locates it, not imported); a one-line failure where
    there is none. No release number is read: a test's tree may have none."""
    __tracebackhide__ = True
    from spec_protocols.gate._contract import installed_root, tree_root
    from spec_protocols.gate._model import GateError

    try:
        root = installed_root() if sglang is None else tree_root(sglang)
    except GateError as error:
        pytest.fail(f"assert_forward_result: {error}", pytrace=False)
    if root is None:
        pytest.fail("assert_forward_result: no sglang is installed here; pass sglang=PATH (a folder holding sglang/)", pytrace=False)
    srt = root / "sglang" / "srt"
    if not (srt / "managers").is_dir():
        pytest.fail(f"assert_forward_result: {srt} has no managers/: not an sglang source tree", pytrace=False)
    return srt


def _predicate_of(algorithm: object) -> Callable[[str], bool | None]:
    """The algorithm object's ``name()``, for the uses made only under it; None where it cannot be told."""
    def predicate(name: str) -> bool | None:
        if algorithm is None:
            # A plugin's algorithm is none of the built-in ones.
            return False if name.startswith("is_") else None
        method = getattr(algorithm, name, None)
        if not callable(method):
            return None
        try:
            return bool(method())
        except Exception:  # noqa: BLE001 - the plugin's predicate: it cannot be told, both ways count
            return None

    return predicate


@pytest.fixture(name="assert_forward_result")
def assert_forward_result_fixture() -> Any:
    """The :func:`assert_forward_result` helper, as a fixture."""
    return assert_forward_result


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("spec_protocols", "spec-protocols conformance gate")
    group.addoption(
        "--spec-protocols-gate",
        action="append",
        default=[],
        metavar="TARGET",
        help="run the spec-protocols gate over TARGET (a path, a package or module:Class; "
        "repeatable) and add one test item per (class, protocol)",
    )
    group.addoption(
        "--spec-protocols-checker",
        action="append",
        default=[],
        metavar="NAME",
        choices=_CHECKERS,
        help=f"checker for --spec-protocols-gate ({', '.join(_CHECKERS)}; repeatable; default: the gate's defaults)",
    )
    group.addoption(
        "--spec-protocols-baseline",
        default=None,
        metavar="FILE",
        help="baseline file of accepted problems for --spec-protocols-gate "
        "(an entry that accepts nothing is a failing item)",
    )
    group.addoption(
        "--spec-protocols-sglang",
        action="append",
        default=None,
        metavar="RELEASE|PATH",
        help="check against this sglang release (fetched into the cache) or source tree, as "
        "`spec-protocols check --sglang` (default: the installed sglang); repeatable: each release in one run, "
        "items named TARGET[PROTOCOL][sglang RELEASE]",
    )
    group.addoption(
        "--spec-protocols-ignore-unused-baseline",
        action="store_true",
        default=False,
        help="no failing item for baseline entries that accept nothing",
    )


class SpecProtocolsGateFailure(Exception):
    """Raised by a :class:`GateItem` whose class failed (or could not be verified)."""


class GateCollector(pytest.Collector):
    """The gate's items: the session collects it beside its own arguments
    (:func:`pytest_make_collect_report`), and collecting it runs the gate once."""

    def collect(self) -> list[GateItem]:
        targets: list[str] = self.config.getoption("spec_protocols_gate") or []
        return [
            GateItem.from_parent(self, name=name, result=result, error=error)  # pyright: ignore[reportUnknownMemberType]  # pytest's from_parent leaves **kw untyped
            for name, result, error in _run_gate(self.config, targets)
        ]


class GateItem(pytest.Item):
    """One (class, protocol) result of the gate, as a test item.

    Made by :class:`GateCollector` from a single ``run_gate`` call per
    session; running it only reports that result.
    """

    def __init__(self, *, result: Result | None, error: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)  # pyright: ignore[reportUnknownMemberType]  # pytest's Node.__init__ leaves **kw untyped
        self.result = result
        self.error = error
        # No fixtures. Said anyway: a plugin's runtest wrapper that reads
        # item.funcargs and returns before its yield when there is none
        # (pytest-lsp 1.0.1) would otherwise fail every gate item.
        self.funcargs: dict[str, object] = {}

    def runtest(self) -> None:
        if self.error is not None:
            raise SpecProtocolsGateFailure(self.error)
        assert self.result is not None
        from spec_protocols.gate import Verdict

        if self.result.verdict is not Verdict.PASS:
            raise SpecProtocolsGateFailure(_describe(self.result))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, SpecProtocolsGateFailure):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo, style))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        if self.result is None:
            return self.path, None, "spec-protocols gate"
        check = self.result.check
        return self.path, None, f"{check.target} conforms to {check.protocol}"


def _describe(result: Result) -> str:
    check = result.check
    checkers = ", ".join(f"{name}: {verdict.value}" for name, verdict in result.checkers.items())
    lines = [f"{check.target} vs {check.protocol}: {result.verdict.value} ({checkers})"]
    for problem in result.problems:
        where = f" ({problem.file}:{problem.line})" if problem.file and problem.line else ""
        member = f"{problem.member}: " if problem.member else ""
        lines.append(f"  - [{problem.checker}] {member}{problem.message}{where}")
    return "\n".join(lines)


def _run_gate(config: pytest.Config, targets: Sequence[str]) -> list[tuple[str, Result | None, str | None]]:
    """``(name, result, error)`` per item; one ``error`` item when the gate cannot run.

    With a baseline, each unused entry (:func:`spec_protocols.gate.unused_entries`)
    adds a failing item, unless ``--spec-protocols-ignore-unused-baseline``:
    the same decision as ``spec-protocols check --baseline``, made with the
    same helpers, so that the two cannot drift apart. The baseline is loaded
    here before the gate runs, so that an invalid one is reported at once.
    """
    checkers: list[str] = config.getoption("spec_protocols_checker") or []
    baseline_opt: str | None = config.getoption("spec_protocols_baseline")
    ignore_unused: bool = bool(config.getoption("spec_protocols_ignore_unused_baseline"))
    try:
        from spec_protocols import gate
    except ImportError as exc:
        return [("error", None, f"the spec-protocols gate is not available: {exc}")]
    releases: list[str] = config.getoption("--spec-protocols-sglang") or []
    try:
        # The command line's request, and its decisions: one run over the releases.
        outcome = gate.run(
            gate.GateRequest(
                targets=tuple(targets),
                releases=tuple(releases),
                checkers=tuple(checkers) if checkers else None,
                baseline=Path(baseline_opt) if baseline_opt else None,
                ignore_unused_baseline=ignore_unused,
            )
        )
    except gate.GateError as exc:
        return [("error", None, f"spec-protocols gate: {exc}")]
    matrix = outcome.report
    if len(matrix.runs) > 1:
        named = sorted(
            (
                (f"{r.check.target}[{r.check.protocol}][sglang {label}]", r)
                for label, run in zip(matrix.labels, matrix.runs, strict=True)
                for r in run.report.results
            ),
            key=lambda pair: (pair[1].check.target, pair[1].check.protocol),
        )
    else:
        named = [(f"{r.check.target}[{r.check.protocol}]", r) for r in outcome.single.results]
    items: list[tuple[str, Result | None, str | None]] = [(name, r, None) for name, r in named]
    if outcome.unused:
        names: set[str] = set()
        for entry in outcome.unused:
            member = entry.member if entry.member is not None else "<class>"
            name = f"unused-baseline-entry[{entry.target}[{entry.protocol}].{member}.{entry.checker}]"
            # Whole-class entries differ only by message: number the repeats
            # so that every item has its own node id.
            base, n = name, 1
            while name in names:
                n += 1
                name = f"{base}#{n}"
            names.add(name)
            items.append(
                (
                    name,
                    None,
                    f"spec-protocols: {gate.unused_entry_line(entry)}\n"
                    f"  (in {baseline_opt}: delete the entry, or pass --spec-protocols-ignore-unused-baseline)",
                )
            )
    return items


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """The session's collection, and the gate's collector beside what it
    collected: its items then go through pytest's own collection (counted,
    reported, selected by ``-k`` and ``-m``) as any test does. Adding them to
    the item list afterwards (``pytest_collection_modifyitems``) left them out
    of pytest's count ("collected 0 items / 1 deselected / -1 selected")."""
    report = yield
    if isinstance(collector, pytest.Session) and report.passed and collector.config.getoption("spec_protocols_gate"):
        gate = GateCollector.from_parent(collector, name=_NODE_PREFIX, nodeid=_NODE_PREFIX)  # pyright: ignore[reportUnknownMemberType]  # pytest's from_parent leaves **kw untyped
        report.result.append(gate)
    return report
