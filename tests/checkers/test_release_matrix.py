"""The gate on two sglang releases in one run (issue 22 item 3), with mypy and pyright.

tests/fixtures/release_matrix/workers.py holds a worker written for 0.5.20
(its constructor requires ``ps``, which 0.5.20's scheduler passes and 0.5.23's
does not) and one that takes either release's call. ``--sglang`` is given
twice, each a fetched release's tree: one report, a class x release table,
a ``"sglang"`` object on every JSON result, exit 1 where any release fails
and 0 where all pass. Three gate runs (the suite runs without the verdict
cache, tests/conftest.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import pytest

from spec_protocols.gate._contract import SglangSource

from tests._gate_json import gate, gate_env  # noqa: F401 (gate_env: a fixture)
from tests._paths import REPO_ROOT

WORKERS = REPO_ROOT / "tests" / "fixtures" / "release_matrix" / "workers.py"


@pytest.fixture(scope="module")
def trees(sglang_release: Callable[[str], SglangSource]) -> tuple[str, str]:
    return str(sglang_release("0.5.20").root), str(sglang_release("0.5.23").root)


def test_json_carries_each_results_release_and_the_run_fails_where_one_release_fails(
    trees: tuple[str, str], gate_env: dict[str, str]
) -> None:
    old, new = trees
    code, data, err = gate(gate_env, str(WORKERS), "--sglang", old, "--sglang", new)
    assert data is not None, err
    assert code == 1
    assert [s["release"] for s in data["sglang"]] == ["0.5.20", "0.5.23"]
    verdicts = {(r["target"].rpartition(".")[2], r["sglang"]["release"]): r["verdict"] for r in data["results"]}
    assert verdicts == {
        ("PortableWorker", "0.5.20"): "pass",
        ("PortableWorker", "0.5.23"): "pass",
        ("Worker0520", "0.5.20"): "pass",
        ("Worker0520", "0.5.23"): "fail",
    }
    for item in data["results"]:
        assert set(item["sglang"]) == {"release", "origin", "path", "pin"} and item["sglang"]["origin"] == "path"
    failing = next(r for r in data["results"] if r["verdict"] == "fail")
    assert {p["member"] for p in failing["problems"]} == {"__init__"}
    assert {p["checker"] for p in failing["problems"]} == {"mypy", "pyright"}
    assert data["summary"]["total"] == 4 and data["summary"]["fail"] == 1
    assert any(n.startswith("static only (marked *): 0.5.20, 0.5.23:") for n in data["notes"]), data["notes"]


def test_the_text_report_is_a_class_by_release_table(trees: tuple[str, str], gate_env: dict[str, str]) -> None:
    old, new = trees
    proc = subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", "check", str(WORKERS), "--sglang", old, "--sglang", new, "--no-timings"],
        cwd=REPO_ROOT,
        env=gate_env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["Class", "Protocol", "0.5.20*", "0.5.23*"]
    assert lines[2].split() == ["PortableWorker", "SpecWorker", "pass", "pass"]
    assert lines[3].split() == ["Worker0520", "SpecWorker", "pass", "fail:", "__init__"]
    assert "pass on 0.5.20; fail on 0.5.23" in lines


def test_a_worker_that_passes_every_release_exits_0(trees: tuple[str, str], gate_env: dict[str, str]) -> None:
    old, new = trees
    code, data, err = gate(gate_env, f"{WORKERS}:PortableWorker", "--sglang", old, "--sglang", new)
    assert data is not None, err
    assert code == 0, err
    assert [(r["verdict"], r["sglang"]["release"]) for r in data["results"]] == [("pass", "0.5.20"), ("pass", "0.5.23")]
    assert os.path.samefile(data["sglang"][0]["path"], old)
