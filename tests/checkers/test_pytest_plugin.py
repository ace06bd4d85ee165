"""The ``spec_protocols`` pytest plugin: ``assert_conforms`` and ``--spec-protocols-gate`` items.

Each test runs pytest on a small generated test suite (``pytester``). The gate
item tests replace ``spec_protocols.gate.run_gate`` with a fake returning a
fixed report, so they check the plugin, not the checkers; one ``checkers`` test
runs the real gate.

This module is the part that runs mypy or pyright; tests/unit/test_pytest_plugin.py (fast, no checker) holds the rest.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

# -- --spec-protocols-gate ----------------------------------------------------

def test_real_gate_over_a_generated_skeleton(pytester: pytest.Pytester, tmp_path: Path) -> None:
    # No skip on ImportError here: this project's own modules must import
    # (tests/unit/test_no_hidden_skips.py); the plugin's error item would hide it too.
    from spec_protocols.gate._scaffold import write_skeleton

    good = write_skeleton("worker", "GoodWorker", tmp_path)
    bad = tmp_path / "bad_worker.py"
    bad.write_text(
        textwrap.dedent(
            """
            from spec_protocols import SpecWorkerBase

            class BadWorker(SpecWorkerBase):
                def forward_batch_generation(self, batch: object) -> None:
                    return None
            """
        )
    )
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--spec-protocols-gate", str(good), "--spec-protocols-gate", str(bad),
        "--spec-protocols-checker", "runtime",
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*BadWorker vs SpecWorker: fail*", "*forward_batch_generation*"])
