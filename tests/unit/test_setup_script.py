"""``scripts/setup`` says each step it takes in one line on stderr, and nothing when there is nothing to do.

It runs here on a stand-in interpreter (a shell script that records its
arguments, and makes a copy of itself for ``-m venv``), so that the steps
are seen without installing anything.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests._paths import REPO_ROOT

STAND_IN = """\
#!/bin/sh
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  mkdir -p "$3/bin" && cp "$0" "$3/bin/python"
  exit 0
fi
printf '%s\\n' "$*" >> "$(dirname "$0")/../calls.log"
"""


def _stand_in(tmp_path: Path) -> Path:
    python = tmp_path / "python3.11"
    python.write_text(STAND_IN, encoding="utf-8")
    python.chmod(0o755)
    return python


def _setup(venv: Path, python: Path, *, runtime: bool) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "SPEC_PROTOCOLS_VENV": str(venv),
        "SPEC_PROTOCOLS_PYTHON": str(python),
        "SPEC_PROTOCOLS_NO_RUNTIME": "0" if runtime else "1",
    }
    return subprocess.run([str(REPO_ROOT / "scripts" / "setup")], env=env, capture_output=True, text=True, timeout=120)


def _steps(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert all(line.startswith("scripts/setup: ") for line in lines), done.stderr
    return [line.removeprefix("scripts/setup: ") for line in lines]


def test_a_first_set_up_says_each_step_then_a_second_says_nothing(tmp_path: Path) -> None:
    venv, python = tmp_path / "venv", _stand_in(tmp_path)
    steps = _steps(_setup(venv, python, runtime=True))
    assert steps[:-1] == [
        f"creating {venv} with {python}",
        "upgrading pip",
        "installing spec-protocols (editable) with its dev extra: mypy, pyright, pytest",
        "installing sglang's CPU dependency set (requirements/sglang-cpu.txt; torch and torchvision are 5.5 GB "
        "of it, most of a first set-up's minutes; SPEC_PROTOCOLS_NO_RUNTIME=1 leaves it out)",
        "installing what imports on CPU without its CUDA requirements (requirements/sglang-cpu-no-deps.txt: flashinfer)",
        "installing sglang's source without its dependencies (requirements/sglang-source.txt, --no-deps)",
        "checking the installed requirements (pip check)",
    ], steps
    assert steps[-1].startswith(f"{venv} is ready ("), steps
    calls = (venv / "calls.log").read_text(encoding="utf-8")
    assert "-r requirements/sglang-cpu.txt" in calls and "--no-deps -r requirements/sglang-source.txt" in calls

    assert _steps(_setup(venv, python, runtime=True)) == []
    assert (venv / "calls.log").read_text(encoding="utf-8") == calls, "a set-up with nothing to do ran pip"


def test_a_changed_option_updates_the_venv_and_says_why(tmp_path: Path) -> None:
    venv, python = tmp_path / "venv", _stand_in(tmp_path)
    _steps(_setup(venv, python, runtime=True))
    (venv / "calls.log").unlink()
    steps = _steps(_setup(venv, python, runtime=False))
    assert steps[0] == f"updating {venv}: its requirements or options changed since it was set up", steps
    assert "leaving out sglang's CPU dependency set (SPEC_PROTOCOLS_NO_RUNTIME=1: static checks only)" in steps
    assert "sglang-cpu.txt" not in (venv / "calls.log").read_text(encoding="utf-8")
