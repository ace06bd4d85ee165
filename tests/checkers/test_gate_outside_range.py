"""The gate on releases outside the supported range (issue 18): a true verdict, or one line.

For 0.5.5 and each of 0.5.10 to 0.5.18, fetched once into the gate's cache
and checked with ``--sglang`` (its source, not installed) by mypy and
pyright: a plugin worker written for what that release's scheduler passes
and calls passes (exit 0), and a broken variant fails (exit 1) under both
checkers, naming exactly what it breaks. The workers are
tests/fixtures/releases/sglang_<release>.py, each with a docstring naming the
call sites it follows. No release of these has
``build_draft_tp_worker(draft_worker_cls=...)`` (0.5.19 is the first), so
none injects a draft worker class.

Also: a worker is held to its own release's calls, not to the newest
release's signatures or another release's keywords; the floor
(``OLDEST_READABLE``) is read; a release whose scheduler constructs only its
own classes (0.5.4) is refused in one line (exit 2), as is a release the
index does not have.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from spec_protocols._releases import NEWEST, OLDEST, OLDEST_READABLE, version_order
from spec_protocols.gate._contract import SglangSource

from tests._gate_json import gate, gate_env  # noqa: F401 (gate_env: a fixture)
from tests._paths import REPO_ROOT


ROOT = REPO_ROOT
FIXTURES = ROOT / "tests" / "fixtures" / "releases"

#: (release, class, the members each checker must name; None: the class passes).
CASES: tuple[tuple[str, str, frozenset[str] | None], ...] = (
    ("0.5.5", "PluginWorker", None),
    ("0.5.5", "BrokenNoDpRank", frozenset({"__init__"})),
    ("0.5.10", "PluginWorker", None),
    ("0.5.10", "BrokenNoAttnCpRank", frozenset({"__init__"})),
    ("0.5.11", "PluginWorker", None),
    ("0.5.11", "BrokenNoDraftTokenCount", frozenset({"speculative_num_draft_tokens"})),
    ("0.5.12", "PluginWorker", None),
    ("0.5.12", "BrokenNoModelConfig", frozenset({"model_config"})),
    ("0.5.13", "PluginWorker", None),
    ("0.5.13", "BrokenVerifyHookOfOldRelease", frozenset({"on_verify_complete_cpu"})),
    ("0.5.14", "PluginWorker", None),
    ("0.5.14", "BrokenNoOnPublish", frozenset({"forward_batch_generation"})),
    ("0.5.15", "PluginWorker", None),
    ("0.5.15", "BrokenAbstract", frozenset({"__init__"})),
    ("0.5.16", "PluginWorker", None),
    ("0.5.16", "BrokenRankKeywords", frozenset({"__init__"})),
    ("0.5.17", "PluginWorker", None),
    ("0.5.17", "BrokenLoadTimeAsMethod", frozenset({"weight_load_time"})),
    ("0.5.18", "PluginWorker", None),
    ("0.5.18", "BrokenTpModelDraft", frozenset({"init_hicache_draft_plan", "primary_draft_kv_pool"})),
)


def fixture_of(release: str) -> Path:
    return FIXTURES / f"sglang_{release.replace('.', '_')}.py"


def check_one(env: dict[str, str], release_root: Path, target: str) -> tuple[int, dict[str, Any], dict[str, Any]]:
    code, data, err = gate(env, target, "--sglang", str(release_root), "--checker", "mypy", "--checker", "pyright")
    assert data is not None, err
    (result,) = data["results"]
    return code, data, result


def members_named(result: dict[str, Any], checker: str) -> set[str]:
    return {p["member"] for p in result["problems"] if p["checker"] == checker}


@pytest.mark.parametrize(("release", "worker", "broken"), CASES, ids=[f"{r}-{w}" for r, w, _ in CASES])
def test_the_verdict_is_true_against_the_releases_own_call_sites(
    release: str,
    worker: str,
    broken: frozenset[str] | None,
    sglang_release: Callable[[str], SglangSource],
    gate_env: dict[str, str],
) -> None:
    source = sglang_release(release)
    code, data, result = check_one(gate_env, source.root, f"{fixture_of(release)}:{worker}")
    assert data["sglang"]["release"] == release and data["sglang"]["pin"] is None
    assert any(f"sglang {release} is before the oldest supported release" in n for n in data["notes"]), data["notes"]
    assert result["protocol"] == "SpecWorker"
    if broken is None:
        assert code == 0, json.dumps(result, indent=1)
        assert result["checkers"] == {"mypy": "pass", "pyright": "pass"}, result
    else:
        assert code == 1, json.dumps(result, indent=1)
        assert result["checkers"] == {"mypy": "fail", "pyright": "fail"}, result
        for checker in ("mypy", "pyright"):
            assert members_named(result, checker) == broken, result


#: (the fixture's release, class, the release it is checked against, the members named; None: passes).
ACROSS: tuple[tuple[str, str, str, frozenset[str] | None], ...] = (
    # 0.5.13 passes on_verify_complete_cpu(counts, batch_size=); 0.5.12 passes the counts alone.
    ("0.5.12", "PluginWorker", "0.5.13", frozenset({"on_verify_complete_cpu"})),
    # ... so 0.5.13's counts-only hook fits 0.5.12: only the model_config 0.5.12 reads is missing.
    ("0.5.13", "BrokenVerifyHookOfOldRelease", "0.5.12", frozenset({"model_config"})),
    # 0.5.5 passes neither attn_cp_rank nor moe_dp_rank, which 0.5.10's worker requires.
    ("0.5.10", "PluginWorker", "0.5.5", frozenset({"__init__"})),
    # The floor: 0.5.4.post2 constructs a plugin's worker as 0.5.5 does.
    ("0.5.5", "PluginWorker", OLDEST_READABLE, None),
    # 0.5.16 passes ps instead of the rank keywords.
    ("0.5.15", "PluginWorker", "0.5.16", frozenset({"__init__"})),
)


@pytest.mark.parametrize(("written_for", "worker", "release", "broken"), ACROSS, ids=[f"{a}-{w}-on-{r}" for a, w, r, _ in ACROSS])
def test_a_worker_is_held_to_the_calls_of_the_release_checked(
    written_for: str,
    worker: str,
    release: str,
    broken: frozenset[str] | None,
    sglang_release: Callable[[str], SglangSource],
    gate_env: dict[str, str],
) -> None:
    source = sglang_release(release)
    code, _, result = check_one(gate_env, source.root, f"{fixture_of(written_for)}:{worker}")
    if broken is None:
        assert code == 0 and result["checkers"] == {"mypy": "pass", "pyright": "pass"}, result
    else:
        assert code == 1 and result["checkers"] == {"mypy": "fail", "pyright": "fail"}, result
        for checker in ("mypy", "pyright"):
            assert members_named(result, checker) == broken, result


def test_a_release_that_builds_only_its_own_workers_is_refused_in_one_line(
    sglang_release: Callable[[str], SglangSource], gate_env: dict[str, str]
) -> None:
    """0.5.4 (given as a tree: as a number it is refused before it is fetched)."""
    source = sglang_release("0.5.4")
    code, data, err = gate(gate_env, f"{fixture_of('0.5.5')}:PluginWorker", "--sglang", str(source.root), "--checker", "mypy")
    assert code == 2 and data is None
    assert err.count("\n") == 1 and err.startswith("spec-protocols: error: sglang 0.5.4 ("), err
    assert f"supported: {OLDEST} to {NEWEST}, the oldest release the gate can read: {OLDEST_READABLE}" in err


def test_a_release_the_index_does_not_have_is_refused_naming_the_newest(gate_env: dict[str, str]) -> None:
    code, data, err = gate(gate_env, f"{fixture_of('0.5.5')}:PluginWorker", "--sglang", "9.9.9", "--checker", "mypy")
    assert code == 2 and data is None and err.count("\n") == 1, err
    if "not on the package index" not in err:
        pytest.skip(f"the package index could not be asked here: {err.strip()}")
    newest = err.split("the newest there: ", 1)[1].split(")", 1)[0]
    assert version_order(newest) >= version_order(NEWEST), err
    assert err.rstrip().endswith(f"supported: {OLDEST} to {NEWEST}"), err
    assert not list(Path(gate_env["SPEC_PROTOCOLS_CACHE_DIR"]).glob("sglang/wheels/sglang-9.9.9*"))


#: sglang's own workers that the gate once judged wrongly on a release it reads (issue 27, item 4):
#: (release, module, {(class, protocol): verdict}).
OWN_WORKERS: tuple[tuple[str, str, dict[tuple[str, str], str]], ...] = (
    # Built by the scheduler itself under --enable-multi-layer-eagle, on the
    # overlap branch, which ServerArgs leaves on for EAGLE/EAGLE3 only: there
    # init_disaggregation reads the draft runner, never the worker's model_config.
    ("0.5.7", "multi_layer_eagle_worker_v2", {("MultiLayerEagleWorkerV2", "SpecWorker"): "pass"}),
    # ... and its V1 sibling on the synchronous branch is a spec worker too.
    ("0.5.7", "multi_layer_eagle_worker", {("MultiLayerEagleWorker", "SpecWorker"): "pass", ("MultiLayerEagleWorker", "DraftWorker"): "pass"}),
    # model_runner set in __init__, model_config through __getattr__ from its TpModelWorker.
    ("0.5.11", "dflash_worker", {("DFlashWorker", "SpecWorker"): "pass"}),
)


@pytest.mark.parametrize(("release", "module", "expected"), OWN_WORKERS, ids=[f"{r}-{m}" for r, m, _ in OWN_WORKERS])
def test_sglang_s_own_workers_get_their_role_and_a_true_verdict(
    release: str,
    module: str,
    expected: dict[tuple[str, str], str],
    sglang_release: Callable[[str], SglangSource],
    gate_env: dict[str, str],
) -> None:
    source = sglang_release(release)
    code, data, err = gate(gate_env, f"sglang.srt.speculative.{module}", "--sglang", str(source.root), "--checker", "mypy", "--checker", "pyright")
    assert data is not None, err
    found = {(r["target"].rpartition(".")[2], r["protocol"]): r["verdict"] for r in data["results"]}
    assert found == expected, json.dumps(data["results"], indent=1)
    assert code == 0
