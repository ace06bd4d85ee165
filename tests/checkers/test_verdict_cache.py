"""The verdict cache (spec_protocols/gate/_cache): a checker whose input is unchanged is not run again.

How these tests turn the cache on and see whether a checker or a stage ran:
tests/_verdict_cache_support.py.

This module is the part that runs mypy or pyright; tests/slow/test_verdict_cache.py (slow, no checker) holds the rest.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from spec_protocols.gate._checkers import CHECKERS
from spec_protocols.gate._harness import CheckInput
from spec_protocols.gate._model import CheckerOutcome, GateReport, Verdict
from spec_protocols.gate._run import run_gate
from tests._fake_checker import FakeChecker
from tests._verdict_cache_support import (  # noqa: F401  (cache_on, shared_cache, stages, target: fixtures)
    Counting,
    Stages,
    cache_on,
    shared_cache,
    stable,
    stages,
    target,
)
from tests.unit.test_contract_rules import write_tree


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


class Silent(FakeChecker):
    """A static checker with nothing to say, instantly: the stages are under test, not the verdicts."""

    name = "mypy"
    reads_harness = True

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
    assert stable(second) == stable(first)
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


def test_every_default_checker_is_reused_and_reports_the_same(cache_on: Path, target: Path) -> None:
    uncached = run_gate([str(target)], cache=False)
    run_gate([str(target)])
    names = ("runtime", "replay", "mypy", "pyright")
    counting = {name: Counting(CHECKERS[name]) for name in names}
    cached = run_gate([str(target)], checkers=list(counting.values()))
    assert {name: c.runs for name, c in counting.items()} == dict.fromkeys(names, 0)
    assert stable(cached) == stable(uncached)
    assert {f"{name} (cached)" for name in names} <= set(cached.timings)


