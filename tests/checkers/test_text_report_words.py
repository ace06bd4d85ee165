"""The text report on the scaffold with one mistake: one problem, both checkers, the change in words (issue 29, item 4).

Before: "pyright: __init__ (...:41): the constructor cannot take the call
sglang makes: ... (+1 more)", the "+1" being mypy's words for the same
mistake, with no way named to see it and the fix to be read off the
expected and got signatures.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from spec_protocols.gate._contract import SglangSource
from spec_protocols.gate._scaffold import write_skeleton

from tests._gate_json import gate_env  # noqa: F401 (a fixture)
from tests._paths import REPO_ROOT


def test_a_renamed_keyword_is_one_problem_with_its_change(
    tmp_path: Path, sglang_release: Callable[[str], SglangSource], gate_env: dict[str, str]
) -> None:
    worker = write_skeleton("worker", "MyWorker", tmp_path)
    text = worker.read_text(encoding="utf-8")
    broken = text.replace("        gpu_id: int,\n", "        gpu: int,\n", 1).replace("self.gpu_id = gpu_id", "self.gpu_id = gpu", 1)
    assert broken != text
    worker.write_text(broken, encoding="utf-8")
    root = sglang_release("0.5.23").root
    proc = subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", "check", str(worker), "--sglang", str(root),
         "--checker", "mypy", "--checker", "pyright", "--no-timings"],
        cwd=REPO_ROOT, env=gate_env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    words = " ".join(out.split())  # a long path wraps the problem's first line
    assert words.count("the constructor cannot take the call sglang makes") == 1, out
    assert f"pyright (and mypy): __init__ ({worker}:" in words, out
    assert "\n    change: rename gpu to gpu_id\n" in out, out
    assert "more" not in out and "reports at" not in out, out
