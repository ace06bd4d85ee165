"""Running the gate as a user does (``python -m spec_protocols.gate._cli check``) and reading its JSON report.

For the checker tests that run whole releases (tests/checkers/test_gate_releases.py,
tests/checkers/test_gate_outside_range.py): each module gets a gate cache of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from tests._paths import REPO_ROOT


@pytest.fixture(scope="module")
def gate_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of the module's gate runs: a cache folder of the module's own."""
    return {**os.environ, "SPEC_PROTOCOLS_CACHE_DIR": str(tmp_path_factory.mktemp("gate-cache"))}


def gate(env: dict[str, str], *args: str) -> tuple[int, dict[str, Any] | None, str]:
    """``check ARGS --format json --no-timings`` from the repository root: exit status, report (None: not JSON), stderr."""
    proc = subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", "check", *args, "--format", "json", "--no-timings"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError:
        data = None
    return proc.returncode, data, proc.stderr
