"""``spec-protocols upgrade`` as a user runs it: real releases, mypy and pyright.

* a worker written for 0.5.20 (tests/fixtures/upgrade/worker_for_0_5_20.py:
  its constructor takes ``ps`` without a default, its injected draft takes
  0.5.20's ``build_draft_tp_worker`` keywords): 0.5.20 -> 0.5.23 says first
  that 3 steps must change it, then names the constructor change, with the
  gate's problem on 0.5.23, then the inherited need of
  ``weight_update_runners`` and the draft factory's keywords, and folds the
  other four into one line; exit 1;
* a worker that passes on both (worker_for_both.py, ``ps=None``): exit 0,
  the verdict first, nothing numbered;
* docs/upgrading.md is what scripts/upgrade-docs makes of the example plugin
  and the 0.5.20 worker (regenerate: ``scripts/upgrade-docs``);
* bad input (the same release twice, a release the gate cannot read, a value
  that is no release, a missing target, no --from): one line, exit 2, never
  a traceback, before any checker runs.

The module's runs share one gate cache of their own (the releases are fetched
into it with ``pip download --no-deps``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._gate_json import gate_env  # noqa: F401 (a fixture)
from tests._paths import FIXTURES, REPO_ROOT

UPGRADE = FIXTURES / "upgrade"
WRITTEN_FOR_0_5_20 = UPGRADE / "worker_for_0_5_20.py"
PORTABLE = UPGRADE / "worker_for_both.py"
PAGE = REPO_ROOT / "docs" / "upgrading.md"


def upgrade(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", "upgrade", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


@pytest.fixture(scope="module")
def plan_0_5_20(gate_env: dict[str, str]) -> dict[str, Any]:  # noqa: F811
    proc = upgrade(gate_env, "--from", "0.5.20", "--to", "0.5.23", str(WRITTEN_FOR_0_5_20), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def test_a_worker_written_for_0_5_20_gets_the_constructor_change_first(plan_0_5_20: dict[str, Any]) -> None:
    first = plan_0_5_20["steps"][0]
    assert first["kind"] == "constructor"
    assert "0.5.23 no longer passes ps=" in first["change"]
    assert first["expected"] == "WorkerClass(server_args=, gpu_id=, nccl_port=, target_worker=)"
    assert first["site"].startswith("managers/scheduler.py:") and "maybe_init_draft_worker" in first["site"]
    (cls,) = first["classes"]
    assert cls["target"] == "worker_for_0_5_20.LegacyWorker" and cls["must_change"]
    assert {p["checker"] for p in cls["problems"]} == {"mypy", "pyright"}
    # Each checker says the constructor cannot take 0.5.23's call; what the
    # constructor does inside (build_draft_tp_worker(ps=...), which 0.5.20's
    # takes and 0.5.23's does not) is part of the same step.
    for checker in ("mypy", "pyright"):
        said = [p["message"] for p in cls["problems"] if p["checker"] == checker]
        assert any("the constructor cannot take the call sglang makes" in m for m in said), said
        assert all(p["member"] == "__init__" for p in cls["problems"])


def test_the_later_steps_name_the_kept_default_and_the_draft_factory(plan_0_5_20: dict[str, Any]) -> None:
    steps = {s["subject"]: s for s in plan_0_5_20["steps"]}
    kinds = [s["kind"] for s in plan_0_5_20["steps"]]
    assert kinds.index("constructor") < kinds.index("new member") < kinds.index("draft factory")
    runners = steps["SpecWorker.weight_update_runners"]
    assert "weight_updater.py" in runners["site"]
    (worker,) = runners["classes"]
    assert worker["must_change"] and "draft_worker.draft_runners" in worker["note"]
    factory = steps["build_draft_tp_worker's call of draft_worker_cls"]
    assert "no longer passes ps=" in factory["change"] and "random_seed=, load_group=" in factory["change"]
    concerned = {(c["target"], c["protocol"]): c["must_change"] for c in factory["classes"]}
    assert concerned[("worker_for_0_5_20.LegacyDraftWorker", "DraftWorkerFactory")] is True
    assert plan_0_5_20["verdict"].endswith("must change for sglang 0.5.23: 3 steps; after them nothing the gate reports on sglang 0.5.23 is left.")
    assert [s["subject"] for s in plan_0_5_20["steps"] if s["must_change"]] == [
        "the scheduler's call that constructs the spec worker",
        "SpecWorker.weight_update_runners",
        "build_draft_tp_worker's call of draft_worker_cls",
    ]


def test_the_text_report_leads_with_the_verdict_then_the_constructor(gate_env: dict[str, str]) -> None:  # noqa: F811
    proc = upgrade(gate_env, "--from", "0.5.20", "--to", "0.5.23", str(WRITTEN_FOR_0_5_20))
    assert proc.returncode == 1, proc.stderr
    text = proc.stdout
    # The first paragraph: the heading, then the verdict (wrapped at 80 columns).
    first = " ".join(text.split("\n\n")[0].split())
    assert first.endswith("must change for sglang 0.5.23: 3 steps; after them nothing the gate reports on sglang 0.5.23 is left.")
    assert text.index("1. [constructor]") < text.index("2. [new member]") < text.index("3. [draft factory]")
    # The four steps that change nothing for the worker: one paragraph, after the numbered ones.
    folded = " ".join(text.split("\n\n")[-1].split())
    assert folded.startswith("Nothing to change for the other 4 changes between sglang 0.5.20 and 0.5.23"), text


def test_a_worker_that_passes_on_both_has_nothing_to_change(gate_env: dict[str, str]) -> None:  # noqa: F811
    proc = upgrade(gate_env, "--from", "0.5.20", "--to", "0.5.23", str(PORTABLE), "--format", "markdown")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "**must change**" not in proc.stdout
    (heading, verdict, *rest) = proc.stdout.split("\n\n")
    assert verdict == f"**{PORTABLE} passes on sglang 0.5.23 as it is: nothing must change.**"
    assert not any(line[:1].isdigit() for line in proc.stdout.splitlines()), proc.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--from", "0.5.23", "--to", "0.5.23", str(PORTABLE)], "--from and --to are the same"),
        (["--from", "0.5.4", "--to", "0.5.23", str(PORTABLE)], "older than any release the gate can read"),
        (["--from", "0.5.20", "--to", "bogus", str(PORTABLE)], "--to bogus: neither an existing path nor a release"),
        (["--from", "0.5.20", "--to", "0.5.23", "no_such_plugin.py"], "no_such_plugin.py"),
        (["--to", "0.5.23", str(PORTABLE)], "--from"),
        (["--from", "0.5.20", "--to", "0.5.23"], "TARGET"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(gate_env: dict[str, str], args: list[str], fragment: str) -> None:  # noqa: F811
    proc = upgrade(gate_env, *args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert fragment in proc.stderr, proc.stderr


def test_docs_upgrading_is_current(gate_env: dict[str, str], tmp_path: Path) -> None:  # noqa: F811
    """docs/upgrading.md is scripts/upgrade-docs' output, never a hand edit; regenerate it with
    ``scripts/upgrade-docs`` (or ``SPEC_PROTOCOLS_UPDATE_DOCS=1`` on this test)."""
    made = tmp_path / "upgrading.md"
    env = {**gate_env, "SPEC_PROTOCOLS_VENV": str(Path(sys.executable).parent.parent)}
    proc = subprocess.run(
        [str(REPO_ROOT / "scripts" / "upgrade-docs"), str(made)], env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert proc.returncode == 0, proc.stderr
    text = made.read_text(encoding="utf-8")
    if os.environ.get("SPEC_PROTOCOLS_UPDATE_DOCS"):
        PAGE.write_text(text, encoding="utf-8")
    assert PAGE.read_text(encoding="utf-8") == text, "docs/upgrading.md is stale: run scripts/upgrade-docs"


def test_apply_makes_the_worker_written_for_0_5_20_pass_0_5_23(gate_env: dict[str, str], tmp_path: Path) -> None:  # noqa: F811
    """``--apply`` (issue 30, item 3): the edits written, the worker passes 0.5.23; what no edit concerns keeps its text."""
    worker = tmp_path / WRITTEN_FOR_0_5_20.name
    original = WRITTEN_FOR_0_5_20.read_text(encoding="utf-8")
    worker.write_text(original, encoding="utf-8")
    proc = upgrade(gate_env, "--from", "0.5.20", "--to", "0.5.23", str(worker), "--apply", "--no-cache")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "after the edits: on --to 0.5.23: 3 pass, 0 fail, 0 unverified" in proc.stdout, proc.stdout
    assert "it passes --to only" in proc.stdout  # 0.5.20's build_draft_tp_worker still wants ps=
    edited = worker.read_text(encoding="utf-8")
    assert "        random_seed: int | None,\n        load_group: LoadGroup,\n    ) -> None:" in edited
    assert "def weight_update_runners(self)" in edited
    removed = {line for line in original.splitlines() if line not in edited.splitlines()}
    assert removed == {"            ps=ps,", "        ps: Any,"}, removed
