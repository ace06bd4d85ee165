"""Out-of-tree plugin files, checked by path (issue 4, item 3).

The gate is run as ``python -m spec_protocols.gate._cli`` in a subprocess with
a private cache directory. See tests/fixtures/plugins/ for the plugins.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from tests._paths import FIXTURES

# The gate runs mypy and pyright at this interpreter's version: CI runs this file on 3.11, 3.12 and 3.13.
pytestmark = pytest.mark.per_python

pytest.importorskip("sglang")


PLUGINS = FIXTURES / "plugins"


@pytest.fixture(scope="module")
def gate(tmp_path_factory: pytest.TempPathFactory):
    cache = tmp_path_factory.mktemp("plugin-gate-cache")
    cwd = tmp_path_factory.mktemp("plugin-cwd")

    def run(*args: str) -> tuple[int, dict[str, Any], str]:
        env = dict(os.environ, SPEC_PROTOCOLS_CACHE_DIR=str(cache))
        proc = subprocess.run(
            [sys.executable, "-m", "spec_protocols.gate._cli", "check", *args, "--format", "json", "--no-timings"],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        data = json.loads(proc.stdout) if proc.stdout.strip() else {}
        return proc.returncode, data, proc.stderr

    return run


def _by_key(data: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["target"], r["protocol"]): r for r in data["results"]}


def test_good_plugin_passes_every_checker(gate) -> None:
    rc, data, err = gate(str(PLUGINS / "good_plugin.py"))
    results = _by_key(data)
    assert set(results) == {
        ("good_plugin.GoodPluginWorker", "SpecWorker"),
        ("good_plugin.PassThroughDraftWorker", "DraftWorker"),
        ("good_plugin.PassThroughDraftWorker", "DraftWorkerFactory"),
    }, (err, data)
    for item in results.values():
        # It registers no algorithm: the replay has nothing to replay (tests/shapes/replay_* register theirs).
        assert item["checkers"] == {"runtime": "pass", "replay": "skipped", "mypy": "pass", "pyright": "pass"}, item
        assert item["verdict"] == "pass"
    assert rc == 0, err


def test_getattr_plugin_missing_member_fails_both_static_checkers(gate) -> None:
    rc, data, err = gate(str(PLUGINS / "getattr_plugin.py"), "--checker", "mypy", "--checker", "pyright")
    assert rc == 1, err
    item = _by_key(data)[("getattr_plugin.DelegatingPluginWorker", "SpecWorker")]
    assert item["verdict"] == "fail"
    assert item["checkers"] == {"mypy": "fail", "pyright": "fail"}
    for checker in ("mypy", "pyright"):
        assert "forward_batch_generation" in {p["member"] for p in item["problems"] if p["checker"] == checker}


def test_unresolvable_base_is_unverified_never_pass(gate) -> None:
    rc, data, err = gate(f"{PLUGINS / 'unresolved_plugin.py'}:UnresolvedPluginWorker")
    assert rc == 1, err
    item = _by_key(data)[("unresolved_plugin.UnresolvedPluginWorker", "SpecWorker")]
    assert item["verdict"] == "unverified"
    assert item["checkers"]["mypy"] == "unverified"
    assert item["checkers"]["pyright"] == "unverified"
    # The runtime checker cannot import it: skipped with the reason (a note,
    # never a problem, so never in a baseline), never pass.
    assert item["checkers"]["runtime"] == "skipped"
    assert any(n.startswith("runtime: skipped:") and "not_installed_pkg" in n for n in item["notes"])
    assert not [p for p in item["problems"] if p["checker"] == "runtime"]
