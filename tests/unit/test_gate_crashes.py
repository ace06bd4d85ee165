"""A checker that crashes is one line: the checker, its first error whole, the next step.

Before issue 18 a crash read ``mypy crashed (exit 2): {"file": ".../typing_extensions.py",
"line": -1, ... "message": "This file shadows library mod`` (mypy's JSON line,
cut at 200 characters), with neither the cause nor what to do. Now the line
names the checker's own first error whole, the gate run without it, and a
folder kept with the checker's configuration, the harness and its output.

This module is the fast part; tests/checkers/test_gate_crashes.py (runs mypy or pyright) holds the rest.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from spec_protocols.gate import _cli as cli
from spec_protocols.gate._checkers._process import crash, first_error_line

from tests._paths import FIXTURES

GOOD = FIXTURES / "plugins" / "good_plugin.py"


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main(["check", *argv])
    _, err = capsys.readouterr()
    return code, err.strip()


def _fake_run_command(returncode: int, stdout: str, stderr: str) -> Callable[..., subprocess.CompletedProcess[str]]:
    def fake(name: str, argv: list[str], *, cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(list(argv), returncode, stdout, stderr)

    return fake


def test_a_long_first_error_is_never_cut(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    message = "a blocking error whose explanation goes on " + "and on " * 60 + "to its very end"
    report = f'{{"file": "/x/y.py", "line": -1, "column": -1, "severity": "error", "message": "{message}", "code": null}}\n'
    monkeypatch.setattr("spec_protocols.gate._checkers._mypy._mypy_oneshot.run_command", _fake_run_command(2, report, ""))
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(tmp_path / "cache"))
    code, err = _check(capsys, str(GOOD), "--checker", "mypy", "--checker", "runtime")
    assert code == 2
    assert f"mypy crashed (exit 2): /x/y.py: {message}; next: run without it (--checker runtime)" in err, err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("stdout", "stderr", "expected"),
    [
        ("", "Traceback (most recent call last):\n  File 'x'\nKeyError: 'harness'\n", "KeyError: 'harness'"),
        ("", "mypy: error: Cannot find config file 'x'\n", "mypy: error: Cannot find config file 'x'"),
        ("node: not found\n", "", "node: not found"),
        ("", "", "no output"),
    ],
)
def test_the_first_error_line(stdout: str, stderr: str, expected: str) -> None:
    crashed = crash("mypy", subprocess.CompletedProcess(["mypy"], 2, stdout, stderr))
    assert crashed.first_error == expected
    assert str(crashed).startswith(f"mypy crashed (exit 2): {expected}; next:")


def test_a_traceback_header_is_not_the_error() -> None:
    assert first_error_line("Traceback (most recent call last):\n  File 'a'\nValueError: bad\n") == "ValueError: bad"
