"""One verdict cache for every way the gate starts.

Before issue 18, ``python -m spec_protocols.gate._cli check ...`` re-ran every
checker (60 s) with the console script's cache warm: Python puts the starting
program's folder first on ``sys.path`` (``bin/`` for the console script, the
current directory for ``-m``) and names the interpreter as it was typed
(``bin/python3.11`` or ``bin/python``), and both went into every key. A
static checker's key also held every installed distribution, so pre-commit's
own environment, with the same checkers, shared nothing.

Each test runs the gate once to fill a private cache, then starts it another
way and asserts that no entry was added (a new key would store one) and that
the checkers said they were reused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._paths import FIXTURES


GOOD = FIXTURES / "plugins" / "good_plugin.py"
BIN = Path(sys.executable).parent


def _entries(cache: Path) -> set[Path]:
    """The stored checker outcomes (a discovery, which is cheap, may be keyed per environment)."""
    return {
        entry
        for entry in (cache / "verdicts" / "entries").rglob("*.json")
        if "checker" in json.loads(entry.read_text(encoding="utf-8"))
    }


def _env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SPEC_PROTOCOLS_NO_CACHE"}
    env["SPEC_PROTOCOLS_CACHE_DIR"] = str(cache)
    return env


def _run(argv: list[str], cache: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, cwd=cwd, env=_env(cache), capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, (argv, proc.stdout, proc.stderr)
    return proc


@pytest.fixture
def warm(tmp_path: Path) -> tuple[Path, Path, set[Path]]:
    """A cache filled by the console script, from a folder outside the checkout."""
    cache, cwd = tmp_path / "cache", tmp_path / "work"
    cwd.mkdir()
    _run([str(BIN / "spec-protocols"), "check", str(GOOD), "--checker", "mypy", "--checker", "pyright"], cache, cwd)
    entries = _entries(cache)
    assert entries, "the first run stored nothing"
    return cache, cwd, entries


def test_python_dash_m_reuses_the_console_scripts_verdicts(warm: tuple[Path, Path, set[Path]]) -> None:
    cache, cwd, before = warm
    for module in ("spec_protocols.gate", "spec_protocols.gate._cli"):
        proc = _run([sys.executable, "-m", module, "check", str(GOOD), "--checker", "mypy", "--checker", "pyright"], cache, cwd)
        assert "mypy, pyright: verdicts reused from the cache" in proc.stderr, (module, proc.stderr)
    assert _entries(cache) == before


def test_the_pytest_plugin_reuses_them(warm: tuple[Path, Path, set[Path]]) -> None:
    cache, cwd, before = warm
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--spec-protocols-gate", str(GOOD),
         "--spec-protocols-checker", "mypy", "--spec-protocols-checker", "pyright"],
        cwd=cwd, env=_env(cache), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert _entries(cache) == before, "the pytest plugin stored new entries: its keys differ"


def test_another_environment_with_the_same_checkers_reuses_static_verdicts(
    warm: tuple[Path, Path, set[Path]], tmp_path: Path
) -> None:
    """pre-commit's case: its own virtual environment, this package and the same checkers in it."""
    cache, cwd, before = warm
    other = tmp_path / "other-venv"
    # A .pth that adds this environment's site-packages gives it the same
    # packages (spec_protocols, mypy, pyright, sglang) under another prefix,
    # interpreter path and PATH.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(other)], check=True, timeout=120)
    (site,) = (p for p in sys.path if p.endswith("site-packages") and Path(p).is_relative_to(sys.prefix))
    (other_site,) = other.glob("lib/python*/site-packages")
    (other_site / "borrowed.pth").write_text(f"import site; site.addsitedir({site!r})\n", encoding="utf-8")
    env_bin = other / "bin"
    proc = subprocess.run(
        [str(env_bin / "python"), "-m", "spec_protocols.gate", "check", str(GOOD), "--checker", "mypy", "--checker", "pyright"],
        # Its PATH leads to its own bin/, then to this environment's (where the
        # pyright executable is: the borrowed site-packages bring no scripts).
        cwd=cwd, env={**_env(cache), "PATH": os.pathsep.join([str(env_bin), str(BIN), os.environ.get("PATH", "")]),
                      "VIRTUAL_ENV": str(other)},
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert "mypy, pyright: verdicts reused from the cache" in proc.stderr, proc.stderr
    assert _entries(cache) == before
