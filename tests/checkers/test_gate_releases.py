"""The gate on every supported sglang release, each on its own contract (issue 12).

For each of 0.5.19 to 0.5.23, fetched once into the gate's cache and checked
with ``--sglang`` (no install):

* the clean source passes: exit 0, every worker and draft class ``pass`` from
  both mypy and pyright, the runtime checker visibly skipped;
* a member that release calls, removed from ``BaseSpecWorker`` in a copy,
  fails every worker that inherited it, under both checkers, naming that
  member and nothing else.

And a release outside the range (0.5.18) is checked against its own source,
with a note; a structural worker without ``on_verify_complete_cpu`` fails on
the installed 0.5.23 under all three checkers.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from spec_protocols._releases import SUPPORTED_RELEASES
from spec_protocols.gate._contract import SglangSource

from tests._gate_json import gate, gate_env  # noqa: F401 (gate_env: a fixture)
from tests._paths import REPO_ROOT
from tests._sglang import defines_getattr


ROOT = REPO_ROOT
STRUCTURAL = ROOT / "tests" / "fixtures" / "structural" / "structural_workers.py"

#: Per release, a member its scheduler calls and BaseSpecWorker defines: the
#: newest member of each release where it has one (0.5.20 prewarm_sampling,
#: 0.5.21 weight_update_runners, 0.5.23 draft_swa_window), else one every
#: release calls.
REMOVED = {
    "0.5.19": "preloaded_weights_bytes",
    "0.5.20": "prewarm_sampling",
    "0.5.21": "weight_update_runners",
    "0.5.22": "clear_cache_pool",
    "0.5.23": "draft_swa_window",
}


def mirror_with(source: Path, dest: Path, file: str, edit: Callable[[str], str]) -> Path:
    """``dest``/sglang: links to ``source``/sglang's files, but ``file`` (relative to
    the folder holding sglang/) rewritten by ``edit``."""
    package = source / "sglang"
    for dirpath, dirnames, filenames in os.walk(package):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        here = dest / "sglang" / Path(dirpath).relative_to(package)
        here.mkdir(parents=True, exist_ok=True)
        for name in filenames:
            (here / name).symlink_to(Path(dirpath) / name)
    target = dest / file
    text = target.read_text(encoding="utf-8")
    target.unlink()
    target.write_text(edit(text), encoding="utf-8")
    return dest


def remove_from_base_spec_worker(member: str) -> Callable[[str], str]:
    """Rename ``member``'s definition in class BaseSpecWorker (not in the draft base above it)."""

    def edit(text: str) -> str:
        start = text.index("\nclass BaseSpecWorker(")
        body = text[start:]
        old = f"    def {member}("
        assert old in body, f"BaseSpecWorker defines no {member}"
        return text[:start] + body.replace(old, f"    def {member}_removed(", 1)

    return edit


@pytest.mark.parametrize("release", SUPPORTED_RELEASES)
def test_the_clean_release_passes(release: str, sglang_release: Callable[[str], SglangSource], gate_env: dict[str, str]) -> None:
    source = sglang_release(release)
    code, data, err = gate(gate_env, "--sglang", str(source.root))
    assert data is not None, err
    assert code == 0, json.dumps(data, indent=1)[-4000:]
    assert data["sglang"]["release"] == release and data["sglang"]["pin"] == release
    assert data["checkers"] == ["mypy", "pyright"]
    assert any(n.startswith("runtime and replay checkers: skipped: --sglang") for n in data["notes"]), data["notes"]
    protocols = {r["protocol"] for r in data["results"]}
    assert {"SpecWorker", "DraftWorker"} <= protocols
    assert len([r for r in data["results"] if r["protocol"] == "SpecWorker"]) >= 7
    for item in data["results"]:
        assert item["checkers"] == {"mypy": "pass", "pyright": "pass"}, item


@pytest.mark.parametrize("release", SUPPORTED_RELEASES)
def test_a_member_the_release_calls_removed_fails(
    release: str, sglang_release: Callable[[str], SglangSource], gate_env: dict[str, str], tmp_path: Path
) -> None:
    member = REMOVED[release]
    source = sglang_release(release)
    tree = mirror_with(
        source.root, tmp_path, "sglang/srt/speculative/base_spec_worker.py", remove_from_base_spec_worker(member)
    )
    code, data, err = gate(gate_env, "--sglang", str(tree))
    assert data is not None, err
    assert code == 1
    failing = [r for r in data["results"] if r["verdict"] != "pass"]
    assert failing, "no worker failed"
    for item in failing:
        # A worker whose __getattr__ may supply the member on the instance
        # (DFlash, DSpark, Uno forward to their target worker) is one neither
        # checker can follow: unverified, never a pass.
        expected = "unverified" if defines_getattr(tree, item["target"]) else "fail"
        assert item["protocol"] == "SpecWorker" and item["verdict"] == expected, item
        assert item["checkers"] == {"mypy": expected, "pyright": expected}, item
        for checker in ("mypy", "pyright"):
            assert {p["member"] for p in item["problems"] if p["checker"] == checker} == {member}, item


def test_a_release_before_the_range_is_checked_against_its_own_source(
    sglang_release: Callable[[str], SglangSource], gate_env: dict[str, str]
) -> None:
    """0.5.18 (no draft_worker_cls yet): its own contract, a note, no false failure."""
    source = sglang_release("0.5.18")
    code, data, err = gate(gate_env, "--sglang", str(source.root))
    assert data is not None, err
    assert code == 0, json.dumps(data, indent=1)[-4000:]
    assert data["sglang"]["release"] == "0.5.18" and data["sglang"]["pin"] is None
    assert any("0.5.18 is before the oldest supported release" in n for n in data["notes"]), data["notes"]


def test_a_structural_worker_without_the_verify_hook_fails_under_every_checker(gate_env: dict[str, str]) -> None:
    code, data, err = gate(
        gate_env, f"{STRUCTURAL}:CompleteWorker", f"{STRUCTURAL}:NoVerifyHookWorker", "--sglang", _installed_root()
    )
    assert data is not None, err
    assert code == 1
    results = {r["target"].rpartition(".")[2]: r for r in data["results"]}
    assert results["CompleteWorker"]["checkers"] == {"runtime": "pass", "replay": "skipped", "mypy": "pass", "pyright": "pass"}, results
    broken = results["NoVerifyHookWorker"]
    assert broken["checkers"] == {"runtime": "fail", "replay": "skipped", "mypy": "fail", "pyright": "fail"}, broken
    for checker in ("runtime", "mypy", "pyright"):
        assert {p["member"] for p in broken["problems"] if p["checker"] == checker} == {"on_verify_complete_cpu"}, broken


def _installed_root() -> str:
    """The installed sglang, named explicitly: --sglang on the installed tree keeps the runtime checker."""
    spec = importlib.util.find_spec("sglang")  # locates it; imports nothing
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("sglang is not installed")
    return str(Path(list(spec.submodule_search_locations)[0]).resolve().parent)
