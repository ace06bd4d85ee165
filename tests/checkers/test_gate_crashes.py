"""A checker that crashes is one line: the checker, its first error whole, the next step.

Before issue 18 a crash read ``mypy crashed (exit 2): {"file": ".../typing_extensions.py",
"line": -1, ... "message": "This file shadows library mod`` (mypy's JSON line,
cut at 200 characters), with neither the cause nor what to do. Now the line
names the checker's own first error whole, the gate run without it, and a
folder kept with the checker's configuration, the harness and its output.

This module is the part that runs mypy or pyright; tests/unit/test_gate_crashes.py (fast, no checker) holds the rest.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from spec_protocols.gate import _cli as cli

from tests._paths import FIXTURES

GOOD = FIXTURES / "plugins" / "good_plugin.py"


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main(["check", *argv])
    _, err = capsys.readouterr()
    return code, err.strip()


def _kept(err: str) -> Path:
    """The folder the message names."""
    after = err.split("report it with ", 1)[1]
    return Path(after.split(" (its configuration", 1)[0])
def test_a_real_mypy_crash_names_its_first_error_whole(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A project folder that vendors typing_extensions.py: mypy refuses to run
    # beside a module that shadows its own (the crash every wheel install hit).
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(GOOD, project / "vendoring_plugin.py")
    (project / "typing_extensions.py").write_text("# vendored\n", encoding="utf-8")
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(tmp_path / "cache"))
    code, err = _check(capsys, str(project / "vendoring_plugin.py"), "--checker", "mypy", "--checker", "pyright")
    assert code == 2
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f'mypy crashed (exit 2): {project / "typing_extensions.py"}: This file shadows library module "typing_extensions";' in err
    assert "next: run without it (--checker pyright)" in err, err
    kept = _kept(err)
    assert kept.parent == tmp_path / "cache" / "crashes"
    assert (kept / "mypy.ini").is_file() and (kept / "spec_protocols_harness.py").is_file()
    assert "This file shadows library module" in (kept / "mypy-output.txt").read_text(encoding="utf-8")


