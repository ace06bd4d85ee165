"""The ``spec_protocols`` pytest plugin (entry point ``pytest11``, loaded automatically).

Two things for worker authors and CI owners:

* :func:`assert_conforms` (also a fixture of the same name): assert that a
  class or an object conforms to a protocol, with a failure message that lists
  *every* problem :func:`spec_protocols.verify_conformance` found, not just the
  first::

      def test_my_worker(assert_conforms):
          assert_conforms(MyWorker, "SpecWorker")

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

from collections.abc import Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from spec_protocols.gate import Result

__all__ = ["GateCollector", "GateItem", "SpecProtocolsGateFailure", "assert_conforms"]

# The gate's registry imports no checker (nor torch, nor sglang): reading
# its names costs this plugin's every session nothing.
from spec_protocols.gate._checkers._registry import CHECKER_NAMES as _CHECKERS

# The gate's collector's name and node id, so the prefix of its items' node
# ids: a stable handle for -k and --deselect.
_NODE_PREFIX = "spec-protocols-gate"


def _resolve_protocol(protocol: object) -> object:
    """A protocol class, or its name in ``spec_protocols`` (``"SpecWorker"``)."""
    if not isinstance(protocol, str):
        return protocol
    import spec_protocols

    from spec_protocols._protocols import PROTOCOL_NAMES

    if protocol not in PROTOCOL_NAMES:
        raise ValueError(f"unknown protocol {protocol!r}; choose from {', '.join(PROTOCOL_NAMES)}")
    return getattr(spec_protocols, protocol)


def assert_conforms(cls_or_obj: object, protocol: object) -> None:
    """Assert that ``cls_or_obj`` conforms to ``protocol``, at runtime.

    ``cls_or_obj`` is a class, an instance, or a ``"module:Class"`` string;
    ``protocol`` is a protocol class or the name of one of spec_protocols'
    protocols. On failure the ``AssertionError`` lists every problem, one per
    line (member, kind, message), as :meth:`ConformanceResult.format` writes
    them. Available as a fixture of the same name in every test.

    What it needs: the class, imported. A worker built on sglang's base
    classes (``BaseSpecWorker``, ``TpModelWorker``) imports sglang's runtime
    stack (torch and the packages of ``requirements/sglang-cpu.txt``; no
    GPU). Given as ``"module:Class"``, the import happens here, and a module
    that cannot be imported fails the test in one line that says so; a class
    imported at the top of a test module fails that module's collection
    instead. Where the runtime stack is absent (a static-only CI), check with
    the gate instead: ``pytest --spec-protocols-gate TARGET --spec-protocols-sglang RELEASE``
    (or ``spec-protocols check TARGET --sglang RELEASE``) reads the source
    and imports nothing.
    """
    __tracebackhide__ = True
    from spec_protocols import verify_conformance

    target = _import_target(cls_or_obj) if isinstance(cls_or_obj, str) else cls_or_obj
    result = verify_conformance(target, _resolve_protocol(protocol))
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
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # the plugin's own import: any exception is its failure
        failure = (
            f"assert_conforms({spec!r}): cannot import {module_name}: {type(error).__name__}: {error}. A worker on "
            "sglang's base classes needs sglang's runtime stack (torch and requirements/sglang-cpu.txt, no GPU); "
            "without it use the gate, which imports nothing: --spec-protocols-gate TARGET --spec-protocols-sglang RELEASE"
        )
    # Failed outside the except block, so that the report is this one line,
    # not the plugin's traceback chained to it.
    if failure is not None:
        pytest.fail(failure, pytrace=False)
    found = getattr(module, class_name, _MISSING)
    if found is _MISSING:
        pytest.fail(f"assert_conforms({spec!r}): {module_name} has no {class_name!r}", pytrace=False)
    return found


_MISSING = object()


@pytest.fixture(name="assert_conforms")
def assert_conforms_fixture() -> Any:
    """The :func:`assert_conforms` helper, as a fixture (no import needed in the test module)."""
    return assert_conforms


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
