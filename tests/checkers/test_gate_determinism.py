"""The same input gives the same JSON report: across runs and across Python 3.11-3.13.

The golden file was produced on Python 3.11 with
``spec-protocols check tests/fixtures/determinism/broken_workers.py --format json --no-timings``
(the repository root replaced by ``<root>``, and the interpreter's version in
the runtime checker's version by ``<version>``). CI runs this test on 3.11, 3.12
and 3.13, so a version-dependent message or order fails it. All three
checkers run: the fixture imports nothing but spec_protocols.

To regenerate after an intended change: ``SPEC_PROTOCOLS_REGOLD=1 scripts/test -k determinism``,
then review the diff.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests._paths import REPO_ROOT


ROOT = REPO_ROOT
FIXTURE = "tests/fixtures/determinism/broken_workers.py"
GOLDEN = ROOT / "tests" / "golden" / "broken_workers.json"


def _run(cache: Path) -> str:
    env = {**os.environ, "SPEC_PROTOCOLS_CACHE_DIR": str(cache)}
    proc = subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", "check", FIXTURE, "--format", "json", "--no-timings"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 1, proc.stderr  # the fixture's workers are broken on purpose
    text = re.sub(r"\(Python [0-9.]+\)", "(Python <version>)", proc.stdout.replace(str(ROOT), "<root>"))
    # Where the installed sglang lives depends on the machine and the interpreter.
    return re.sub(r'("sglang": \{[^}]*"path": )"[^"]*"', r'\1"<sglang>"', text)
def test_report_is_identical_across_runs_and_matches_the_golden(tmp_path: Path) -> None:
    first = _run(tmp_path / "cache")
    second = _run(tmp_path / "cache")  # warm mypy cache: must not change a byte
    assert first == second
    if os.environ.get("SPEC_PROTOCOLS_REGOLD"):
        GOLDEN.write_text(first, encoding="utf-8")
    assert first == GOLDEN.read_text(encoding="utf-8"), (
        f"the report differs from {GOLDEN.name} on Python {sys.version.split()[0]}"
    )
    report = json.loads(first)
    assert "timings" not in report
    # Each checker's version is recorded: the pinned ones, as pinned.
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for name in ("mypy", "pyright"):
        assert f'"{name}=={report["checker_versions"][name]}"' in pyproject, report["checker_versions"]
    assert [r["verdict"] for r in report["results"]] == ["fail", "fail", "fail"]
