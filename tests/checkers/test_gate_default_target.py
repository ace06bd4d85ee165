"""The embedded default of `spec-protocols check` with no TARGET.

This module is the part that runs mypy or pyright; tests/unit/test_gate_default_target.py (fast, no checker) holds the rest.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from spec_protocols.gate import run_gate
from spec_protocols.gate._model import Verdict
from spec_protocols.gate._pipeline import REFERENCE_TARGET
def test_reference_workers_pass_every_checker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # What a machine without sglang checks by default must itself conform.
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(tmp_path / "cache"))
    report = run_gate([REFERENCE_TARGET])
    assert report.ok
    assert {(r.check.target.rsplit(".", 1)[1], r.check.protocol) for r in report.results} == {
        ("ReferenceDraftWorker", "DraftWorker"),
        ("ReferenceDraftWorker", "DraftWorkerFactory"),
        ("ReferenceSpecWorker", "SpecWorker"),
    }
    assert all(set(r.checkers) == {"runtime", "replay", "mypy", "pyright"} for r in report.results)
    # The reference workers register nothing: the replay has no call sequence to replay, and says so.
    assert all(r.checkers["replay"] is Verdict.SKIPPED for r in report.results)
