"""The run memo through run_gate: a fail never turns into a pass.

The checker here decides by the target's text (a class whose file says
BROKEN fails), so a stale memo would show as a wrong verdict. How the cache
is turned on and the stages counted: tests/_verdict_cache_support.py; the
memo's own cases (a tree of the test's own): tests/unit/test_cache_cheap_key.py.
Slow (each test runs the pipeline: the contract of the installed sglang, once
per module, and discovery); no checker runs, nothing measures time.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from spec_protocols.gate._cache import _fingerprint, _runs
from spec_protocols.gate._harness import CheckInput
from spec_protocols.gate._model import Check, CheckerOutcome, GateReport, Problem, Verdict
from spec_protocols.gate._run import run_gate
from spec_protocols.gate._reports import render

from tests._fake_checker import FakeChecker
from tests._verdict_cache_support import (  # noqa: F401  (cache_on, shared_cache, stages: fixtures)
    Stages,
    cache_on,
    shared_cache,
    stable,
    stages,
)

PASSING = '''from spec_protocols import SpecWorkerBase


class Worker(SpecWorkerBase):
    """OK_____"""

    def forward_batch_generation(self, batch, /, *, on_publish=None):
        raise NotImplementedError
'''
FAILING = PASSING.replace("OK_____", "BROKEN_")
assert len(FAILING) == len(PASSING)


class ByText(FakeChecker):
    """A checker that fails every class whose file says BROKEN, and counts its runs."""

    name = "by-text"

    def __init__(self) -> None:
        self.runs = 0

    def version(self) -> str:
        return "1"

    def distributed(self) -> bool:
        return True  # a fixed version: the run memo may key it, as it keys an installed checker

    def run(self, check_input: CheckInput) -> CheckerOutcome:
        self.runs += 1
        verdicts: dict[Check, Verdict] = {}
        problems: dict[Check, tuple[Problem, ...]] = {}
        for cls in check_input.discovery.classes:
            broken = "BROKEN" in cls.file.read_text(encoding="utf-8")
            for role in cls.roles:
                check = Check(cls.dotted, role.protocol)
                verdicts[check] = Verdict.FAIL if broken else Verdict.PASS
                problems[check] = (Problem(self.name, None, "says BROKEN"),) if broken else ()
        return CheckerOutcome(self.name, verdicts, problems)


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files the test writes count as settled at once (not "racy"), so that runs keep memos."""
    monkeypatch.setattr(_fingerprint, "_RACY_NS", -1)
    monkeypatch.setattr(_runs, "RACY_NS", -1)


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    file = tmp_path / "memo_plugin" / "workers_memo.py"
    file.parent.mkdir()
    file.write_text(PASSING, encoding="utf-8")
    return file


def _gate(target: Path, checker: ByText) -> GateReport:
    return run_gate([str(target)], checkers=[checker])


def _verdicts(report: GateReport) -> set[Verdict]:
    return {r.verdict for r in report.results}


def _memos(cache: Path) -> list[Path]:
    return sorted((cache / "verdicts" / "runs").glob("*/*.json"))


def test_an_unchanged_run_is_recalled_without_any_stage(
    settled: None, cache_on: Path, plugin: Path, stages: Stages
) -> None:
    checker = ByText()
    first = _gate(plugin, checker)
    before = (stages.contracts, stages.discoveries)
    second = _gate(plugin, checker)
    assert checker.runs == 1 and (stages.contracts, stages.discoveries) == before
    assert second.reused == ("by-text",) and _verdicts(second) == {Verdict.PASS}
    assert stable(second) == stable(first)
    assert "by-text (cached)" in second.timings
    uncached = run_gate([str(plugin)], checkers=[checker], cache=False)
    for fmt in ("json", "text", "junit", "markdown", "github"):
        assert render(second, fmt, include_timings=False) == render(uncached, fmt, include_timings=False), fmt


def test_an_edit_keeping_size_and_mtime_turns_the_pass_into_a_fail(settled: None, cache_on: Path, plugin: Path) -> None:
    checker = ByText()
    _gate(plugin, checker)
    assert _verdicts(_gate(plugin, checker)) == {Verdict.PASS} and checker.runs == 1
    stamp = plugin.stat()
    plugin.write_text(FAILING, encoding="utf-8")
    os.utime(plugin, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert _verdicts(_gate(plugin, checker)) == {Verdict.FAIL}
    assert checker.runs == 2


def test_restoring_the_passing_file_never_recalls_the_fail(settled: None, cache_on: Path, plugin: Path) -> None:
    checker = ByText()
    plugin.write_text(FAILING, encoding="utf-8")
    _gate(plugin, checker)
    assert _verdicts(_gate(plugin, checker)) == {Verdict.FAIL}
    plugin.write_text(PASSING, encoding="utf-8")
    assert _verdicts(_gate(plugin, checker)) == {Verdict.PASS}


def test_a_touched_file_goes_through_the_stages_and_keeps_a_new_memo(
    settled: None, cache_on: Path, plugin: Path, stages: Stages
) -> None:
    checker = ByText()
    first = _gate(plugin, checker)
    stamp = plugin.stat().st_mtime_ns + 5_000_000_000
    os.utime(plugin, ns=(stamp, stamp))
    discoveries = stages.discoveries
    touched = _gate(plugin, checker)  # the memo misses; the stages' keys are by content: all cached
    assert checker.runs == 1 and stable(touched) == stable(first)
    assert stages.discoveries == discoveries  # discovery's own entry still stands (same content)
    again = _gate(plugin, checker)
    assert checker.runs == 1 and stable(again) == stable(first)


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 3],
        lambda text: json.dumps({**json.loads(text), "key": "0" * 64}),
        lambda text: json.dumps({**json.loads(text), "report": {"results": []}}),
    ],
    ids=["truncated", "wrong-key", "wrong-report"],
)
def test_a_tampered_memo_goes_through_the_stages(
    settled: None, cache_on: Path, plugin: Path, damage: Callable[[str], str]
) -> None:
    checker = ByText()
    plugin.write_text(FAILING, encoding="utf-8")
    before = set(_memos(cache_on))
    first = _gate(plugin, checker)
    mine = [memo for memo in _memos(cache_on) if memo not in before]
    assert len(mine) == 1
    mine[0].write_text(damage(mine[0].read_text(encoding="utf-8")), encoding="utf-8")
    second = _gate(plugin, checker)
    assert _verdicts(second) == {Verdict.FAIL} and stable(second) == stable(first)


def test_a_damaged_outcome_entry_runs_the_checker_again(settled: None, cache_on: Path, plugin: Path) -> None:
    checker = ByText()
    plugin.write_text(FAILING, encoding="utf-8")
    entries = cache_on / "verdicts" / "entries"
    before = set(entries.glob("*/*.json"))
    _gate(plugin, checker)
    outcome = [e for e in entries.glob("*/*.json") if e not in before and '"outcome"' in e.read_text(encoding="utf-8")]
    assert len(outcome) == 1
    outcome[0].write_text(outcome[0].read_text(encoding="utf-8").replace('"fail"', '"pass"'), encoding="utf-8")
    report = _gate(plugin, checker)
    assert checker.runs == 2 and _verdicts(report) == {Verdict.FAIL}


def test_no_cache_neither_reads_nor_keeps_a_memo(settled: None, cache_on: Path, plugin: Path) -> None:
    checker = ByText()
    before = set(_memos(cache_on))
    run_gate([str(plugin)], checkers=[checker], cache=False)
    assert set(_memos(cache_on)) == before
