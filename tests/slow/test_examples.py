"""The out-of-tree plugin in ``examples/sglang_plugin_example``: registration, injection, conformance.

The package is imported from its source directory (it is not installed).
Tests that import sglang are marked ``sglang_runtime``; the gate test is
marked ``checkers``.

This module is the slow part; tests/unit/test_examples.py (fast, no checker), tests/checkers/test_examples.py (runs mypy or pyright) hold the rest.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests._paths import REPO_ROOT
from tests._sglang import import_sglang

EXAMPLE = REPO_ROOT / "examples" / "sglang_plugin_example"
def _python(code: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=EXAMPLE, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()


@pytest.mark.sglang_runtime
def test_register_adds_the_algorithm_once_and_not_at_import() -> None:
    import_sglang("sglang.srt.speculative.spec_info")
    out = _python(
        "from sglang.srt.speculative.spec_info import SpeculativeAlgorithm as S\n"
        "import spec_example_plugin as p\n"
        "from sglang.srt.speculative import spec_registry\n"
        "print(spec_registry.get_spec(p.ALGORITHM_NAME) is None)\n"  # nothing registered by importing
        "p.register(); p.register()\n"  # idempotent: sglang itself raises on a second registration
        "algo = S.from_string('example_spec')\n"
        "print(type(algo).__name__, algo.name, algo.supports_overlap)\n"
        "print(algo.factory(None).__qualname__)\n"
    )
    assert out.splitlines() == ["True", "ExampleAlgorithm EXAMPLE_SPEC True", "ExampleWorker"]


# -- adoption: the pre-commit hooks (.pre-commit-hooks.yaml) -------------------

# -- docs/authoring.md's worked example (examples/walkthrough) -----------------

