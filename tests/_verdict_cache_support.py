"""What the verdict-cache tests share (tests/slow/test_verdict_cache.py, no checker, and
tests/checkers/test_verdict_cache.py, runs mypy or pyright).

The suite runs with the cache off (tests/conftest.py sets
SPEC_PROTOCOLS_NO_CACHE); these tests turn it on, in a cache folder of their
own. A counting wrapper around the runtime checker (fast: the fixture imports
only spec_protocols) tells whether the checker ran; counting wrappers around
the contract extractor and discovery tell whether those stages ran. No test
here measures time.

``Counting`` wraps a checker and counts its runs; ``Stages`` counts how often the
pipeline extracted the contract and ran discovery. The fixtures are imported into
each test module (pytest finds them in its namespace): ``shared_cache`` is
module-scoped, so each importing module gets its own cache folder; ``cache_on``
turns the cache on in it; ``target`` is a fresh copy of the determinism fixture;
``runtime`` is the counting runtime checker; ``stages`` installs the counting
extractor and discovery. Nothing here starts a checker.
"""

from __future__ import annotations

import shutil
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from spec_protocols.gate import _pipeline
from spec_protocols.gate._cache import NO_CACHE_ENV
from spec_protocols.gate._checkers import CHECKERS, Checker
from spec_protocols.gate._contract import Contract, SglangSource, extract_contract
from spec_protocols.gate._discovery import SourceReads, discover
from spec_protocols.gate._harness import CheckInput
from spec_protocols.gate._model import CheckerOutcome, Discovery, GateReport, ResolvedTarget
from spec_protocols.gate._reports import render

from tests._paths import FIXTURES

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

    def __getattr__(self, name: str) -> object:
        # The rest of the checker's identity (label, rank, dialect, pin...) is the inner checker's.
        return getattr(self.inner, name)

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
        targets: list[ResolvedTarget],
        extra_roots: list[Path],
        *,
        read: SourceReads | None = None,
        built_in: Collection[str] = (),
    ) -> Discovery:
        counts.discoveries += 1
        return discover(targets, extra_roots, read=read, built_in=built_in)

    monkeypatch.setattr(_pipeline, "extract_contract", counting_extract)
    monkeypatch.setattr(_pipeline, "discover", counting_discover)
    return counts


def stable(report: GateReport) -> str:
    """The report as JSON without timings: equal for equal verdicts."""
    return render(report, "json", include_timings=False)
