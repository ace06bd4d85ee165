"""Gate reliability (issue 5): bad input, failing checkers, no code execution in
static mode, determinism, hostile names, no leftovers.

Most cases call ``spec_protocols.gate._cli.main`` in-process (capsys), which is
what the console script runs; checkers still run in subprocesses.

This module is the part that runs mypy or pyright; tests/unit/test_gate_cli.py (fast, no checker) holds the rest.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._cli_support import (  # noqa: F401  (gate_cache, run, use_gate_cache: fixtures)
    GOOD,
    PLUGINS,
    WORKER_SOURCE,
    Run,
    assert_usage_error,
    gate_cache,
    run,
    use_gate_cache,
)


def test_checker_exceeding_timeout(run: Run) -> None:
    assert_usage_error("mypy --timeout 0.001", run(str(GOOD), "--checker", "mypy", "--timeout", "0.001"), "--timeout")
def test_pyright_exceeding_timeout(run: Run) -> None:
    assert_usage_error("pyright --timeout 0.001", run(str(GOOD), "--checker", "pyright", "--timeout", "0.001"), "--timeout")


# -- baselines (run_gate replaced by a fake: no checker runs) ---------------

# -- static mode runs no target code ---------------------------------------

MARKER_MODULE = """\
import pathlib

pathlib.Path(__file__).with_name("IMPORTED").write_text("the target module was imported")

""" + WORKER_SOURCE.format(name="MarkerWorker")
def test_static_mode_never_imports_the_target(run: Run, tmp_path: Path) -> None:
    pytest.importorskip("sglang")
    plugin = tmp_path / "marker_plugin.py"
    plugin.write_text(MARKER_MODULE)
    marker = tmp_path / "IMPORTED"

    code, out, err = run(str(plugin), "--checker", "mypy", "--checker", "pyright", "--format", "json", "--no-timings")
    assert code == 0, (out, err)
    assert not marker.exists()
    code, out2, err = run(str(plugin), "--no-import", "--format", "json", "--no-timings")
    assert code == 0, (out2, err)
    assert not marker.exists()
    assert json.loads(out2)["checkers"] == ["mypy", "pyright"]

    # Documented behaviour: the runtime checker DOES import (execute) the target.
    code, out3, err = run(str(plugin), "--checker", "runtime", "--format", "json", "--no-timings")
    assert code == 0, (out3, err)
    assert marker.exists()
def test_import_error_makes_runtime_skipped_static_still_run(run: Run, tmp_path: Path) -> None:
    pytest.importorskip("sglang")
    plugin = tmp_path / "raising_plugin.py"
    plugin.write_text(WORKER_SOURCE.format(name="RaisingWorker") + '\nraise RuntimeError("boom at import time")\n')
    code, out, err = run(str(plugin), "--format", "json", "--no-timings")
    assert "Traceback" not in err
    (item,) = json.loads(out)["results"]
    assert item["checkers"] == {"runtime": "skipped", "replay": "skipped", "mypy": "pass", "pyright": "pass"}, item
    assert any(n.startswith("runtime: skipped:") and "boom at import time" in n for n in item["notes"]), item
    # skipped is not a failure: the static checkers decided.
    assert item["verdict"] == "pass"
    assert code == 0


# -- determinism ------------------------------------------------------------
def test_same_input_same_json(run: Run) -> None:
    pytest.importorskip("sglang")
    args = (str(PLUGINS / "getattr_plugin.py"), str(GOOD), "--checker", "mypy", "--checker", "pyright", "--format", "json", "--no-timings")
    first = run(*args)
    second = run(*args)
    assert first[0] == second[0] == 1
    assert first[1] == second[1]
    data = json.loads(first[1])
    keys = [(r["target"], r["protocol"]) for r in data["results"]]
    assert keys == sorted(keys)


# -- hostile names, leftovers, user files -----------------------------------

def _tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
def test_no_leftovers_and_user_files_untouched(tmp_path: Path, gate_cache: Path) -> None:
    pytest.importorskip("sglang")
    user = tmp_path / "user_project"
    user.mkdir()
    (user / "my_worker.py").write_text(WORKER_SOURCE.format(name="MyWorker"))
    before = _tree_digest(user)
    env = dict(os.environ, SPEC_PROTOCOLS_CACHE_DIR=str(gate_cache))
    proc = subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", "check", "my_worker.py", "--no-import", "--format", "json"],
        cwd=user,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _tree_digest(user) == before
    assert sorted(p.name for p in user.iterdir()) == ["my_worker.py"] or set(p.name for p in user.iterdir()) <= {
        "my_worker.py",
        "__pycache__",
    }
    runs = gate_cache / "runs"
    assert not runs.exists() or list(runs.iterdir()) == []


# -- the default target -----------------------------------------------------
def test_no_target_checks_installed_sglang(run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("sglang")
    monkeypatch.chdir(tmp_path)
    code, out, err = run("--checker", "mypy", "--format", "json", "--no-timings")
    assert code == 0, (out, err)
    data = json.loads(out)
    targets = {r["target"] for r in data["results"]}
    assert len(data["results"]) == 14
    assert all(t.startswith("sglang.srt.") for t in targets)
    assert "sglang.srt.speculative.ngram_worker.NGRAMWorker" in targets
def test_console_script_pyright_sees_sglang(tmp_path: Path, gate_cache: Path) -> None:
    """Regression (fixed in 25e10be): under the console script sys.path[0] is the
    venv's bin/, which holds sglang's own `sglang` script; the static view once
    linked that file as site-packages/sglang and pyright said unverified."""
    pytest.importorskip("sglang")
    script = Path(sys.executable).parent / "spec-protocols"
    if not script.exists() or not (Path(sys.executable).parent / "sglang").exists():
        pytest.skip("needs the console scripts of spec-protocols and sglang in the same bin/")
    env = dict(os.environ, SPEC_PROTOCOLS_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run(
        [str(script), "check", str(GOOD), "--checker", "pyright", "--format", "json", "--no-timings"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
