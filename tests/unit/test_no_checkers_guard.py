"""The guard of tests/unit/ and tests/slow/ (tests/_no_checkers.py): a test there that
starts mypy or pyright fails, saying it belongs in tests/checkers/."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests._no_checkers import checker_in_argv
from tests._paths import REPO_ROOT

pytest_plugins = ["pytester"]


@pytest.mark.parametrize(
    ("argv", "what"),
    [
        ([sys.executable, "-m", "mypy", "x.py"], "mypy"),
        (["python3", "-m", "mypy.stubtest", "spec_protocols"], "mypy.stubtest"),
        ("/venv/bin/mypy --strict x.py", "mypy"),
        (["/venv/bin/pyright", "--outputjson"], "pyright"),
        (["node", "/x/node_modules/pyright/index.js"], "pyright"),
        (["spec-protocols", "check", "x.py"], "the gate's static checkers (no --checker runtime)"),
        ([sys.executable, "-m", "spec_protocols.gate", "check", "x.py", "--checker", "mypy"], "the gate's static checkers (no --checker runtime)"),
        (["spec-protocols", "check", "x.py", "--checker", "runtime", "--checker=pyright"], "the gate's static checkers (no --checker runtime)"),
    ],
)
def test_what_runs_a_checker(argv: object, what: str) -> None:
    assert checker_in_argv(argv) == what


@pytest.mark.parametrize(
    "argv",
    [
        [sys.executable, "-c", "print('mypy')"],
        ["spec-protocols", "check", "x.py", "--checker", "runtime"],
        [sys.executable, "-m", "spec_protocols.gate", "check", "x.py", "--checker=runtime"],
        ["spec-protocols", "check", "--help"],
        ["spec-protocols", "contract", "--sglang", "0.5.23"],
        [sys.executable, "-m", "pytest", "-m", "mypy"],
        ["git", "log", "--", "mypy.ini"],
    ],
)
def test_what_does_not(argv: list[str]) -> None:
    assert checker_in_argv(argv) is None


def test_a_missing_checker_starts_nothing_and_passes() -> None:
    with pytest.raises(FileNotFoundError):
        subprocess.run(["/no/such/dir/mypy", "x.py"], check=False)


def test_a_test_that_starts_mypy_fails_with_one_line(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeconftest("from tests._no_checkers import no_static_checker\n")
    pytester.makepyfile(
        test_runs_mypy=(
            "import subprocess, sys\n\n"
            "def test_mypy():\n"
            "    try:\n"
            "        subprocess.run([sys.executable, '-m', 'mypy', '--version'], check=False)\n"
            "    except Exception:\n"
            "        pass  # the guard's failure is no Exception: this does not swallow it\n\n"
            "def test_runtime_gate():\n"
            "    subprocess.run([sys.executable, '-c', 'pass'], check=True)\n"
        )
    )
    # In a subprocess (this test's own guard sees pytest there, not the mypy it starts).
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["this test runs mypy: it belongs in tests/checkers/"])
