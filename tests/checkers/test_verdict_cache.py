"""The verdict cache (spec_protocols/gate/_cache): a checker whose input is unchanged is not run again.

The suite runs with the cache off (tests/conftest.py sets
SPEC_PROTOCOLS_NO_CACHE); these tests turn it on, in a cache folder of their
own. A counting wrapper around the runtime checker (fast: the fixture imports
only spec_protocols) tells whether the checker ran; counting wrappers around
the contract extractor and discovery tell whether those stages ran. No test
here measures time.

This module is the part that runs mypy or pyright; tests/slow/test_verdict_cache.py (slow, no checker) holds the rest.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from spec_protocols.gate import _pipeline
from spec_protocols.gate._cache import NO_CACHE_ENV
from spec_protocols.gate._checkers import CHECKERS, Checker
from spec_protocols.gate._contract import Contract, SglangSource, extract_contract
from spec_protocols.gate._discovery import SourceReads, discover
from spec_protocols.gate._harness import CheckInput
from spec_protocols.gate._model import CheckerOutcome, Discovery, GateReport, ResolvedTarget, Verdict
from spec_protocols.gate._pipeline import run_gate
from spec_protocols.gate._reports import render
from tests._paths import FIXTURES
from tests.unit.test_contract_rules import write_tree

FIXTURE = FIXTURES / "determinism" / "broken_workers.py"


class Counting:
    """A checker that counts its runs and otherwise is ``inner``."""

    def __init__(self, inner: Checker, version: str | None = None, transient: bool = False) -> None:
        self.inner = inner
        self.runs = 0
        self._version = version
        self._transient = transient

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def reads_harness(self) -> bool:
        return self.inner.reads_harness

    @property
    def imports_target(self) -> bool:
        return self.inner.imports_target

    def version(self) -> str:
        return self._version if self._version is not None else self.inner.version()

    def run(self, check_input: CheckInput) -> CheckerOutcome:
        self.runs += 1
        outcome = self.inner.run(check_input)
        return replace(outcome, transient=True) if self._transient else outcome


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache folder for the module: its stat memo of sglang's tree is
    built once, and each test checks its own copy of the fixture, so that no
    test sees another's entries."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def cache_on(monkeypatch: pytest.MonkeyPatch, shared_cache: Path) -> Path:
    monkeypatch.delenv(NO_CACHE_ENV, raising=False)
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(shared_cache))
    return shared_cache


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """A fresh copy of the determinism fixture (three broken workers)."""
    copy = tmp_path / "plugin" / "broken_workers.py"
    copy.parent.mkdir()
    shutil.copyfile(FIXTURE, copy)
    return copy


@pytest.fixture
def runtime() -> Counting:
    """The runtime checker, counting its runs: passed to run_gate, never put in the registry."""
    return Counting(CHECKERS["runtime"])


@dataclass
class Stages:
    """How many times the contract was extracted and discovery ran."""

    contracts: int = 0
    discoveries: int = 0


@pytest.fixture
def stages(monkeypatch: pytest.MonkeyPatch) -> Stages:
    counts = Stages()

    def counting_extract(source: SglangSource) -> Contract:
        counts.contracts += 1
        return extract_contract(source)

    def counting_discover(
        targets: list[ResolvedTarget], extra_roots: list[Path], *, read: SourceReads | None = None
    ) -> Discovery:
        counts.discoveries += 1
        return discover(targets, extra_roots, read=read)

    monkeypatch.setattr(_pipeline, "extract_contract", counting_extract)
    monkeypatch.setattr(_pipeline, "discover", counting_discover)
    return counts


def _stable(report: GateReport) -> str:
    return render(report, "json", include_timings=False)


def _sglang_tree(root: Path) -> Path:
    """A small synthetic sglang release (9.9.9) that the extractor accepts."""
    return write_tree(
        root,
        """
        def __init__(self, server_args):
            self.spec_algorithm = SpeculativeAlgorithm.from_string(server_args.speculative_algorithm)
            DraftWorkerClass = self.spec_algorithm.create_worker(server_args)
            self.draft_worker = DraftWorkerClass(server_args=server_args)

        def run_batch(self, batch):
            return self.draft_worker.forward_batch_generation(batch)
        """,
    )


class Silent:
    """A static checker with nothing to say, instantly: the stages are under test, not the verdicts."""

    name = "mypy"
    reads_harness = True
    imports_target = False

    def __init__(self) -> None:
        self.runs = 0

    def version(self) -> str:
        return "silent"

    def run(self, check_input: CheckInput) -> CheckerOutcome:
        self.runs += 1
        checks = [c for cls in check_input.discovery.classes for c in cls.checks]
        return CheckerOutcome(self.name, dict.fromkeys(checks, Verdict.PASS), {})


# Marked although the static checker is a fake: with --sglang PATH the gate
# refuses a runtime-only run (the tree is not importable), so this test runs
# a checker that reads the harness, which the suite's hygiene rule rightly
# counts as a checker run (it cannot tell a fake from mypy).
def test_the_contract_is_reused_until_one_sglang_file_changes(
    cache_on: Path, tmp_path: Path, target: Path, stages: Stages, monkeypatch: pytest.MonkeyPatch
) -> None:
    silent = Silent()
    tree = _sglang_tree(tmp_path / "release")

    def gate() -> GateReport:
        return run_gate([str(target)], checkers=[silent], sglang=str(tree))

    first = gate()
    second = gate()
    assert stages.contracts == 1 and silent.runs == 1
    assert _stable(second) == _stable(first)
    assert first.sglang is not None and first.sglang.release == "9.9.9"
    # A file the extractor reads...
    scheduler = tree / "sglang" / "srt" / "managers" / "scheduler.py"
    scheduler.write_text(scheduler.read_text(encoding="utf-8") + "\n    def idle(self):\n        self.draft_worker.clear_cache_pool()\n", encoding="utf-8")
    gate()
    assert stages.contracts == 2
    # ... and one it does not (the whole package is keyed: it could be imported by one that is).
    (tree / "sglang" / "utils.py").write_text("X = 1\n", encoding="utf-8")
    gate()
    assert stages.contracts == 3
    gate()
    assert stages.contracts == 3


def test_all_three_checkers_are_reused_and_report_the_same(cache_on: Path, target: Path) -> None:
    uncached = run_gate([str(target)], cache=False)
    run_gate([str(target)])
    counting = {name: Counting(CHECKERS[name]) for name in ("runtime", "mypy", "pyright")}
    cached = run_gate([str(target)], checkers=list(counting.values()))
    assert {name: c.runs for name, c in counting.items()} == {"runtime": 0, "mypy": 0, "pyright": 0}
    assert _stable(cached) == _stable(uncached)
    assert {"runtime (cached)", "mypy (cached)", "pyright (cached)"} <= set(cached.timings)


