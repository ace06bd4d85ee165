"""The sglang integration series drops in (issue 13): integrations/sglang/0.5.23/.

What the three parts prove together, and how the patched tree is built:
tests/_integration_support.py.

This module is the part that runs mypy or pyright; tests/unit/test_integration_sglang.py (fast, no checker), tests/slow/test_integration_sglang.py (slow, no checker) hold the rest.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from spec_protocols.gate._contract import SglangSource

from tests._integration_support import (  # noqa: F401  (installed, needs_patch, patched_tree: fixtures)
    RELEASE,
    env_with,
    installed,
    mirror_installed,
    needs_patch,
    patched_tree,
)
from tests._sglang import defines_getattr


# -- sources ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gate_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return {**os.environ, "SPEC_PROTOCOLS_CACHE_DIR": str(tmp_path_factory.mktemp("gate-cache"))}


# -- inside a patched sglang --------------------------------------------------------------

# -- the gate on the patched tree -----------------------------------------------------------


@pytest.fixture(scope="module")
def gate_on_patched(patched_tree: Path, gate_env: dict[str, str]) -> dict[str, Any]:
    """``spec-protocols check sglang.srt.speculative`` with all three checkers, the
    patched tree first on the import path."""
    env = {**gate_env, "PYTHONPATH": env_with(patched_tree)["PYTHONPATH"]}
    proc = subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", "check", "sglang.srt.speculative", "--format", "json", "--no-timings"],
        cwd=patched_tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.stdout, proc.stderr[-3000:]
    data: dict[str, Any] = json.loads(proc.stdout)
    data["exit"] = proc.returncode
    return data
@pytest.mark.sglang_runtime
def test_gate_passes_the_patched_tree(gate_on_patched: dict[str, Any], patched_tree: Path) -> None:
    data = gate_on_patched
    assert data["exit"] == 0, [r for r in data["results"] if r["verdict"] != "pass"]
    assert data["sglang"]["release"] == RELEASE
    assert Path(data["sglang"]["path"]).resolve() == patched_tree.resolve()  # the copy was checked
    # As on the unpatched release: in particular, the contract still finds
    # build_draft_tp_worker's draft_worker_cls behind its overloads.
    assert data["notes"] == []
    assert len(data["results"]) == 14
    for item in data["results"]:
        assert item["checkers"]["mypy"] == item["checkers"]["pyright"] == "pass", item
        # The runtime checker imports each module; NGRAM and UNO need CUDA kernels.
        assert item["checkers"]["runtime"] in ("pass", "skipped"), item
    ran = [r for r in data["results"] if r["checkers"]["runtime"] == "pass"]
    assert len(ran) >= 10, "the runtime checker imported too few patched modules"


def _broken() -> ModuleType:
    """The broken-sglang corpus (tests/checkers/test_gate_broken_sglang.py): its cases and helpers."""
    return importlib.import_module("tests.checkers.test_gate_broken_sglang")


#: Corpus cases whose anchor text the series changes, rewritten for the patched tree.
def _adapted_cases(broken: ModuleType) -> tuple[Any, ...]:
    dwc = f"{broken.SPEC}/draft_worker_common.py"
    adapted = {
        # The series puts overloads before build_draft_tp_worker and types
        # draft_worker_cls with DraftWorkerFactory: the same break, new anchors.
        "h_injected_abstract": (
            broken.Patch(
                dwc,
                "def resolve_draft_worker_attention_backend(",
                broken.ABSTRACTDRAFT.lstrip("\n") + "\n\ndef resolve_draft_worker_attention_backend(",
            ),
            broken.Patch(
                dwc,
                "draft_worker_cls: DraftWorkerFactory[InjectableDraftWorker] = TpModelWorker,",
                "draft_worker_cls: DraftWorkerFactory[InjectableDraftWorker] = AbstractDraft,",
            ),
        ),
    }
    return tuple(
        replace(case, patches=adapted[case.key]) if case.key in adapted else case
        for case in broken.CASES
        if broken._applies(case, RELEASE)
    )


@pytest.fixture(scope="module")
def broken_runs(installed: SglangSource, needs_patch: str, gate_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, tuple[Any, ...], Any, Any]]:
    """The corpus (all cases in one run, the base case alone) on top of the patched tree."""
    broken = _broken()
    release = broken.Release(RELEASE, installed.root / "sglang", installed=True)
    cases = _adapted_cases(broken)

    def run(name: str, patches: tuple[Any, ...]) -> Any:
        tree = mirror_installed(installed, tmp_path_factory.mktemp(name), patched=True)
        broken._apply(tree, patches, f"{RELEASE} with the series")
        return broken.run_gate_on(tree, release, gate_env)

    corpus = run("patched-broken", tuple(p for case in cases for p in case.patches))
    base = run("patched-base-broken", broken.BASE_CASE.patches)
    yield broken, cases, corpus, base
@pytest.mark.sglang_runtime
def test_broken_corpus_still_fails_on_the_patched_tree(broken_runs: tuple[ModuleType, tuple[Any, ...], Any, Any]) -> None:
    broken, cases, corpus, _ = broken_runs
    assert len(cases) == len(broken.CASES)
    for case in cases:
        broken._assert_detected(corpus, case, f"{RELEASE}+series")
@pytest.mark.sglang_runtime
def test_base_default_removed_still_fails_on_the_patched_tree(
    broken_runs: tuple[ModuleType, tuple[Any, ...], Any, Any], installed: SglangSource
) -> None:
    broken, _, _, base = broken_runs
    assert base.returncode == 1, base.stderr[-2000:]
    spec_workers = [r for r in base.data["results"] if r["protocol"] == "SpecWorker"]
    assert len(spec_workers) == 8
    for item in spec_workers:
        if item["target"] in broken.OVERRIDES_ON_VERIFY_COMPLETE_CPU:
            expected = "pass"
        else:
            expected = "unverified" if defines_getattr(installed.root, item["target"]) else "fail"
        assert item["checkers"] == {"mypy": expected, "pyright": expected}, item



# -- 0007: a plugin registered with the default spec_class ---------------------------------

#: The shape whose registration leaves sglang's CustomSpecAlgo as the algorithm
#: object; on the unpatched release it fails every checker (tests/shapes, the corpus).
_DEFAULT_REGISTRATION = "reg_algorithm_default"


@pytest.mark.sglang_runtime
def test_a_default_registration_passes_on_the_patched_tree(patched_tree: Path, gate_env: dict[str, str], tmp_path: Path) -> None:
    """0007, through the gate: with the series applied, ``CustomSpecAlgo`` has
    every member the scheduler calls, so the default registration passes all
    four checkers (the shapes corpus pins its failure on the unpatched release)."""
    shape = Path(__file__).resolve().parents[1] / "shapes" / f"{_DEFAULT_REGISTRATION}.py"
    (tmp_path / f"{_DEFAULT_REGISTRATION}.py").write_text(shape.read_text(encoding="utf-8"), encoding="utf-8")
    env = {**gate_env, "PYTHONPATH": os.pathsep.join([str(tmp_path), env_with(patched_tree)["PYTHONPATH"]])}
    proc = subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", "check", _DEFAULT_REGISTRATION, "--format", "json", "--no-timings"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.stdout, proc.stderr[-3000:]
    data = json.loads(proc.stdout)
    assert Path(data["sglang"]["path"]).resolve() == patched_tree.resolve()
    rows = {r["target"].rsplit(".", 1)[1]: r for r in data["results"]}
    algorithm = rows["CustomSpecAlgo"]
    assert algorithm["protocol"] == "SpecAlgorithm"
    assert algorithm["verdict"] == "pass", algorithm
    assert set(algorithm["checkers"].values()) == {"pass"}, algorithm
    assert set(algorithm["checkers"]) >= {"runtime", "replay", "mypy", "pyright"}
    assert proc.returncode == 0, [r for r in data["results"] if r["verdict"] != "pass"]

# -- pp_proxy_tensors, statically -----------------------------------------------------------

_PIPELINE_PROBE = '''\
from spec_protocols import SupportsGrammarOverlap, SupportsPipelineProxy
from sglang.srt.speculative.frozen_kv_mtp_worker_v2 import FrozenKVMTPWorkerV2
from sglang.srt.speculative.ngram_worker import NGRAMWorker
from sglang.srt.speculative.uno_worker_v2 import UnoWorkerV2


def uno(worker: UnoWorkerV2) -> SupportsPipelineProxy:
    return worker


def frozen(worker: FrozenKVMTPWorkerV2) -> SupportsPipelineProxy:
    return worker


def canary(worker: NGRAMWorker) -> SupportsGrammarOverlap:
    return worker  # E: NGRAM takes no grammar_barrier, so the classes were really read
'''
def test_uno_and_frozen_kv_mtp_take_pp_proxy_tensors(patched_tree: Path, tmp_path: Path) -> None:
    """0004, as pyright sees it (UNO does not import on CPU; frozen-KV MTP is
    also checked at runtime inside the patched sglang)."""
    (tmp_path / "probe.py").write_text(_PIPELINE_PROBE, encoding="utf-8")
    extra = [str(patched_tree), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({"pythonVersion": "3.11", "extraPaths": extra}))
    pyright = Path(sys.executable).parent / "pyright"
    proc = subprocess.run(
        [str(pyright), "--pythonpath", sys.executable, "--outputjson", "probe.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    errors = [d for d in json.loads(proc.stdout)["generalDiagnostics"] if d["severity"] == "error"]
    lines = {d["range"]["start"]["line"] + 1: d["message"].splitlines()[0] for d in errors}
    canary = _PIPELINE_PROBE.splitlines().index("    return worker  # E: NGRAM takes no grammar_barrier, so the classes were really read") + 1
    assert set(lines) == {canary}, lines
