"""The out-of-tree plugin in ``examples/sglang_plugin_example``: registration, injection, conformance.

The package is imported from its source directory (it is not installed).
Tests that import sglang are marked ``sglang_runtime``; the gate test is
marked ``checkers``.

This module is the part that runs mypy or pyright; tests/unit/test_examples.py (fast, no checker), tests/slow/test_examples.py (slow, no checker) hold the rest.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from spec_protocols.gate import checkers_named, run_gate

from tests._paths import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "sglang_plugin_example"
PACKAGE = EXAMPLE / "spec_example_plugin"


def test_the_gate_passes_the_example() -> None:
    report = run_gate([str(PACKAGE)])
    checked = sorted((r.check.target, r.check.protocol) for r in report.results)
    assert checked == [
        ("spec_example_plugin.algorithm.ExampleAlgorithm", "SpecAlgorithm"),
        ("spec_example_plugin.draft.ExampleDraftWorker", "DraftWorker"),
        ("spec_example_plugin.draft.ExampleDraftWorker", "DraftWorkerFactory"),
        ("spec_example_plugin.worker.ExampleWorker", "SpecWorker"),
    ]
    failing = {f"{r.check.target}[{r.check.protocol}]": [p.message for p in r.problems] for r in report.results if not r.verdict.value == "pass"}
    assert not failing, failing


# -- adoption: the pre-commit hooks (.pre-commit-hooks.yaml) -------------------

HOOKS_FILE = EXAMPLE.parent.parent / ".pre-commit-hooks.yaml"


def _hooks() -> dict[str, dict[str, Any]]:
    yaml = pytest.importorskip("yaml", reason="PyYAML is needed to read .pre-commit-hooks.yaml")
    return {hook["id"]: hook for hook in yaml.safe_load(HOOKS_FILE.read_text())}


def _run_hook(hook: dict[str, Any], args: list[str], files: list[str]) -> subprocess.CompletedProcess[str]:
    # What pre-commit runs: entry + args (+ the staged files when pass_filenames).
    entry = str(hook["entry"]).split()
    executable = Path(sys.executable).parent / entry[0]
    argv = [str(executable), *entry[1:], *args, *(files if hook["pass_filenames"] else [])]
    return subprocess.run(argv, capture_output=True, text=True, timeout=600)
def test_files_hook_checks_the_changed_files(tmp_path: Path) -> None:
    from spec_protocols.gate._scaffold import write_skeleton

    good = write_skeleton("worker", "GoodWorker", tmp_path)
    bad = tmp_path / "bad_worker.py"
    bad.write_text(
        "from spec_protocols import SpecWorkerBase\n\n"
        "class BadWorker(SpecWorkerBase):\n"
        "    def forward_batch_generation(self, batch: object) -> None:\n"
        "        return None\n"
    )
    hook = _hooks()["spec-protocols-files"]
    passed = _run_hook(hook, ["--checker", "runtime"], [str(good)])
    assert passed.returncode == 0, passed.stdout + passed.stderr
    failed = _run_hook(hook, ["--checker", "runtime"], [str(good), str(bad)])
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "BadWorker" in failed.stdout
    # The whole-gate hook ignores the file list and checks what args name.
    whole = _run_hook(_hooks()["spec-protocols"], ["--checker", "runtime", str(good)], [str(bad)])
    assert whole.returncode == 0, whole.stdout + whole.stderr


# -- docs/authoring.md's worked example (examples/walkthrough) -----------------

WALKTHROUGH = EXAMPLE.parent / "walkthrough"


WALKTHROUGH_MISTAKES = {
    # file: the (class, protocol, members) that fail, each for every checker that runs
    "no_forward.py": ("no_forward.NoForwardWorker", "SpecWorker", ("forward_batch_generation",)),
    "draft_keywords.py": ("draft_keywords.PositionalDraftWorker", "DraftWorkerFactory", ("__init__",)),
    # Every kept default that ends in draft_worker.draft_runners: the last two
    # through _draft_model_runners, whose fall-through path a plugin takes.
    "kept_runners.py": (
        "kept_runners.KeptRunnersWorker",
        "SpecWorker",
        ("weight_update_runners", "primary_draft_kv_pool", "init_hicache_draft_plan"),
    ),
}
def test_the_walkthrough_passes_the_gate() -> None:
    report = run_gate([str(WALKTHROUGH / "tiny_draft")])
    verdicts = {(r.check.target, r.check.protocol): r.verdict.value for r in report.results}
    assert verdicts == {
        ("tiny_draft.algorithm.TinyDraftAlgorithm", "SpecAlgorithm"): "pass",
        ("tiny_draft.draft.TinyDraftWorker", "DraftWorker"): "pass",
        ("tiny_draft.draft.TinyDraftWorker", "DraftWorkerFactory"): "pass",
        ("tiny_draft.worker.TinyDraftSpecWorker", "SpecWorker"): "pass",
    }
@pytest.mark.parametrize("name", sorted(WALKTHROUGH_MISTAKES))
def test_each_walkthrough_mistake_fails_where_the_guide_says(name: str) -> None:
    target, protocol, members = WALKTHROUGH_MISTAKES[name]
    report = run_gate([str(WALKTHROUGH / "mistakes" / name)], checkers=checkers_named(["mypy", "pyright"]))
    # A worker that injects the failing draft class fails for it too (its
    # problem is the gate's, naming the injected class): not the guide's row.
    failing = {
        (r.check.target, r.check.protocol)
        for r in report.results
        if r.verdict.value != "pass" and any(p.checker != "gate" for p in r.problems)
    }
    assert failing == {(target, protocol)}
    (result,) = [r for r in report.results if (r.check.target, r.check.protocol) == (target, protocol)]
    assert {p.member for p in result.problems} == set(members), result.problems
    for member in members:
        assert {p.checker for p in result.problems if p.member == member} == {"mypy", "pyright"}, result.problems
def test_copying_tpmodelworker_signature_is_upstream_noise(tmp_path: Path) -> None:
    # docs/authoring.md, "Known upstream noise": plain mypy reports [override]
    # on the copied def line (sglang's own BaseTpWorker/TpModelWorker clash);
    # the gate and pyright pass the class; the ignore in tiny_draft is used.
    noise = WALKTHROUGH / "mistakes" / "copied_signature.py"
    report = run_gate([str(noise)], checkers=checkers_named(["mypy", "pyright"]))
    assert [r.verdict.value for r in report.results] == ["pass"]
    # The guide's set-up (the stubs, follow_untyped_imports), narrowed to run
    # in seconds: sglang's unstubbed modules are skipped but spec_info, whose
    # typed register() decorator tiny_draft/__init__.py uses. The full set-up
    # reports the same single error, in minutes.
    config = tmp_path / "mypy.ini"
    config.write_text(
        f"[mypy]\nstrict = True\nwarn_unused_ignores = True\nmypy_path = {EXAMPLE.parent.parent / 'stubs'}\n"
        "follow_untyped_imports = True\n[mypy-sglang.*]\nfollow_imports = skip\nimplicit_reexport = True\n"
        "[mypy-sglang.srt.speculative.spec_info]\nfollow_imports = silent\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--no-incremental", "--show-error-codes",
         str(noise), str(WALKTHROUGH / "tiny_draft")],
        cwd=WALKTHROUGH, capture_output=True, text=True, timeout=900,
    )
    errors = [line for line in proc.stdout.splitlines() if ": error:" in line]
    def_line = next(n for n, text in enumerate(noise.read_text().splitlines(), 1) if "def forward_batch_generation" in text)
    assert errors == [
        f"{noise.relative_to(WALKTHROUGH)}:{def_line}: error: Signature of \"forward_batch_generation\" incompatible "
        'with supertype "sglang.srt.managers.tp_worker.BaseTpWorker"  [override]'
    ], proc.stdout + proc.stderr
