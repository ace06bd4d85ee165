"""The broken-sglang corpus (issue 4, item 3; issue 5, item 6).

Each case patches a *copy* of the installed sglang in a temporary directory --
directories are real, files are symlinks to the installed files except the
patched ones, which are real copies with one text replacement -- and runs the
gate with that copy first on the import path. The gate must exit 1 and the
JSON must name the broken class and member with a ``fail`` from BOTH mypy and
pyright. The installed package is never touched.

Cases touching different classes share one gate run (``corpus_run``); the
base-class case (f) changes every worker, so it gets its own run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

sglang = pytest.importorskip("sglang")

pytestmark = [pytest.mark.checkers, pytest.mark.slow]

SGLANG_DIR = Path(sglang.__file__).resolve().parent if sglang.__file__ else Path(list(sglang.__path__)[0]).resolve()
SPEC = "sglang/srt/speculative"


@dataclass(frozen=True)
class Patch:
    file: str  # relative to the directory holding sglang/
    old: str
    new: str
    count: int = 1  # how many occurrences to replace (the first ones)


@dataclass(frozen=True)
class Case:
    key: str
    what: str
    target: str  # dotted class path the gate must fail
    protocol: str
    member: str  # the member the JSON problem must name
    patches: tuple[Patch, ...]


BADDRAFT = '''

class BadDraft(TpModelWorker):
    """Injected draft worker whose constructor takes only server_args."""

    def __init__(self, server_args):
        self.server_args = server_args
'''

ABSTRACTDRAFT = '''

import abc as _abc


class AbstractDraft(TpModelWorker, _abc.ABC):
    """Injected draft worker class that is abstract."""

    @_abc.abstractmethod
    def must_implement(self) -> None: ...
'''

CASES: tuple[Case, ...] = (
    Case(
        "a_missing_member",
        "NGRAMWorker.forward_batch_generation renamed (BaseSpecWorker has no default)",
        "sglang.srt.speculative.ngram_worker.NGRAMWorker",
        "SpecWorker",
        "forward_batch_generation",
        (Patch(f"{SPEC}/ngram_worker.py", "def forward_batch_generation(", "def forward_batch_generation_renamed("),),
    ),
    Case(
        "b_extra_required_argument",
        "MultiLayerEagleWorkerV2.forward_batch_generation gains a required keyword",
        "sglang.srt.speculative.multi_layer_eagle_worker_v2.MultiLayerEagleWorkerV2",
        "SpecWorker",
        "forward_batch_generation",
        (
            Patch(
                f"{SPEC}/multi_layer_eagle_worker_v2.py",
                "        pp_proxy_tensors=None,\n    ):",
                "        pp_proxy_tensors=None,\n        *,\n        required_extra_flag,\n    ):",
            ),
        ),
    ),
    Case(
        "c_property_to_method",
        "EAGLEWorkerV2.draft_parallel_layout: @property removed",
        "sglang.srt.speculative.eagle_worker_v2.EAGLEWorkerV2",
        "SpecWorker",
        "draft_parallel_layout",
        (
            Patch(
                f"{SPEC}/eagle_worker_v2.py",
                "    @property\n    def draft_parallel_layout(self):",
                "    def draft_parallel_layout(self):",
            ),
        ),
    ),
    Case(
        "d_sync_to_async",
        "DFlashWorkerV2.clear_cache_pool made async",
        "sglang.srt.speculative.dflash_worker_v2.DFlashWorkerV2",
        "SpecWorker",
        "clear_cache_pool",
        (Patch(f"{SPEC}/dflash_worker_v2.py", "    def clear_cache_pool(self):", "    async def clear_cache_pool(self):"),),
    ),
    Case(
        "e_getattr_worker_missing_member",
        "UnoWorkerV2 (defines __getattr__): forward_batch_generation renamed",
        "sglang.srt.speculative.uno_worker_v2.UnoWorkerV2",
        "SpecWorker",
        "forward_batch_generation",
        (Patch(f"{SPEC}/uno_worker_v2.py", "def forward_batch_generation(", "def forward_batch_generation_renamed("),),
    ),
    Case(
        "g_injected_bad_constructor",
        "DSparkWorkerV2 injects BadDraft(TpModelWorker) whose __init__ takes only server_args",
        "sglang.srt.speculative.dspark_components.dspark_worker_v2.BadDraft",
        "DraftWorkerFactory",
        "__init__",
        (
            Patch(
                f"{SPEC}/dspark_components/dspark_worker_v2.py",
                "class DSparkWorkerV2(BaseSpecWorker):",
                BADDRAFT.lstrip("\n") + "\n\nclass DSparkWorkerV2(BaseSpecWorker):",
            ),
            Patch(
                f"{SPEC}/dspark_components/dspark_worker_v2.py",
                "draft_worker_cls: type[TpModelWorker] = TpModelWorker,",
                "draft_worker_cls: type[TpModelWorker] = BadDraft,",
            ),
        ),
    ),
    Case(
        "h_injected_abstract",
        "draft_worker_common.build_draft_tp_worker's default becomes an abstract AbstractDraft",
        "sglang.srt.speculative.draft_worker_common.AbstractDraft",
        "DraftWorkerFactory",
        "__init__",
        (
            Patch(
                f"{SPEC}/draft_worker_common.py",
                "def build_draft_tp_worker(",
                ABSTRACTDRAFT.lstrip("\n") + "\n\ndef build_draft_tp_worker(",
            ),
            Patch(
                f"{SPEC}/draft_worker_common.py",
                "draft_worker_cls: type[TpModelWorker] = TpModelWorker,",
                "draft_worker_cls: type[TpModelWorker] = AbstractDraft,",
            ),
        ),
    ),
    Case(
        "i_draft_worker_signature",
        "EagleDraftWorker.init_cuda_graphs gains a required parameter",
        "sglang.srt.speculative.eagle_worker_v2.EagleDraftWorker",
        "DraftWorker",
        "init_cuda_graphs",
        (Patch(f"{SPEC}/eagle_worker_v2.py", "    def init_cuda_graphs(self):", "    def init_cuda_graphs(self, required_flag):"),),
    ),
)

BASE_CASE = Case(
    "f_base_default_removed",
    "BaseSpecWorker.on_verify_complete_cpu deleted (called on every speculative decode batch): "
    "every worker that does not override it fails",
    "sglang.srt.speculative.dflash_worker_v2.DFlashWorkerV2",  # one of several; see test_base_default_removed
    "SpecWorker",
    "on_verify_complete_cpu",
    (
        Patch(
            f"{SPEC}/base_spec_worker.py",
            "    def on_verify_complete_cpu(\n",
            "    def _on_verify_complete_cpu_removed(\n",
        ),
    ),
)

#: Spec workers that define on_verify_complete_cpu themselves in 0.5.23 (EAGLE,
#: and the two that subclass it, and NGRAM).
OVERRIDES_ON_VERIFY_COMPLETE_CPU = {
    "sglang.srt.speculative.eagle_worker_v2.EAGLEWorkerV2",
    "sglang.srt.speculative.standalone_worker_v2.StandaloneWorkerV2",
    "sglang.srt.speculative.frozen_kv_mtp_worker_v2.FrozenKVMTPWorkerV2",
    "sglang.srt.speculative.ngram_worker.NGRAMWorker",
}

GATE_ARGS = ["check", "sglang.srt.speculative", "--checker", "mypy", "--checker", "pyright", "--format", "json", "--no-timings"]

#: case key -> {checker: verdict}, filled as the tests run; printed at the end.
DETECTION: dict[str, dict[str, str]] = {}


@dataclass
class GateRun:
    returncode: int
    stdout: str
    stderr: str
    data: dict[str, Any] | None

    def result(self, target: str, protocol: str) -> dict[str, Any]:
        assert self.data is not None, self.stderr
        for item in self.data["results"]:
            if item["target"] == target and item["protocol"] == protocol:
                return item
        raise AssertionError(f"no result for {target} / {protocol}; got {[r['target'] for r in self.data['results']]}")


def _copy_tree(dest: Path) -> Path:
    """Mirror the installed sglang under dest/sglang: real directories, symlinked files."""
    root = dest / "sglang"
    for dirpath, dirnames, filenames in os.walk(SGLANG_DIR):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        rel = Path(dirpath).relative_to(SGLANG_DIR)
        (root / rel).mkdir(parents=True, exist_ok=True)
        for name in filenames:
            (root / rel / name).symlink_to(Path(dirpath) / name)
    return dest


def _apply(tree: Path, patches: tuple[Patch, ...]) -> None:
    for patch in patches:
        path = tree / patch.file
        text = path.read_text(encoding="utf-8")
        assert text.count(patch.old) >= patch.count, f"{patch.file}: {patch.old!r} not found in sglang {sglang.__version__}"
        text = text.replace(patch.old, patch.new, patch.count)
        path.unlink()  # replace the symlink with a real file, never write through it
        path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="session")
def gate_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = dict(os.environ)
    env["SPEC_PROTOCOLS_CACHE_DIR"] = str(tmp_path_factory.mktemp("gate-cache"))
    return env


@pytest.fixture(scope="session")
def make_copy(tmp_path_factory: pytest.TempPathFactory):
    def make(name: str, patches: tuple[Patch, ...] = ()) -> Path:
        tree = _copy_tree(tmp_path_factory.mktemp(name))
        _apply(tree, patches)
        return tree

    return make


def run_gate_on(tree: Path, env: dict[str, str]) -> GateRun:
    run_env = dict(env)
    run_env["PYTHONPATH"] = os.pathsep.join([str(tree), *filter(None, [env.get("PYTHONPATH")])])
    proc = subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", *GATE_ARGS],
        cwd=tree,
        env=run_env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError:
        data = None
    return GateRun(proc.returncode, proc.stdout, proc.stderr, data)


@pytest.fixture(scope="module")
def clean_run(make_copy, gate_env) -> tuple[Path, GateRun]:
    tree = make_copy("sglang-clean")
    return tree, run_gate_on(tree, gate_env)


@pytest.fixture(scope="module")
def corpus_run(make_copy, gate_env) -> GateRun:
    patches = tuple(p for case in CASES for p in case.patches)
    return run_gate_on(make_copy("sglang-broken", patches), gate_env)


@pytest.fixture(scope="module")
def base_run(make_copy, gate_env) -> GateRun:
    return run_gate_on(make_copy("sglang-base-broken", BASE_CASE.patches), gate_env)


def test_copy_is_a_mirror(clean_run: tuple[Path, GateRun]) -> None:
    tree, _ = clean_run
    link = tree / SPEC / "ngram_worker.py"
    assert link.is_symlink() and link.resolve() == (SGLANG_DIR / "srt/speculative/ngram_worker.py")


def test_unpatched_copy_passes(clean_run: tuple[Path, GateRun]) -> None:
    tree, run = clean_run
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert run.data is not None
    targets = {r["target"] for r in run.data["results"]}
    for case in CASES:
        if not case.target.endswith(("BadDraft", "AbstractDraft")):
            assert case.target in targets
    for item in run.data["results"]:
        assert item["checkers"] == {"mypy": "pass", "pyright": "pass"}, item
        # The copy, not the installed package, is what was checked.
        for problem in item["problems"]:
            assert str(tree) in (problem.get("file") or str(tree))


def _assert_detected(run: GateRun, case: Case) -> None:
    assert run.returncode == 1, run.stderr[-2000:]
    item = run.result(case.target, case.protocol)
    DETECTION[case.key] = dict(item["checkers"])
    assert item["verdict"] == "fail", item
    assert item["checkers"]["mypy"] == "fail", item
    assert item["checkers"]["pyright"] == "fail", item
    for checker in ("mypy", "pyright"):
        members = [p["member"] for p in item["problems"] if p["checker"] == checker]
        assert case.member in members, (checker, item["problems"])


@pytest.mark.parametrize("case", CASES, ids=[c.key for c in CASES])
def test_broken_copy_fails(corpus_run: GateRun, case: Case) -> None:
    _assert_detected(corpus_run, case)


def test_base_default_removed(base_run: GateRun) -> None:
    assert base_run.returncode == 1, base_run.stderr[-2000:]
    assert base_run.data is not None
    spec_workers = [r for r in base_run.data["results"] if r["protocol"] == "SpecWorker"]
    assert len(spec_workers) == 8
    table: dict[str, dict[str, str]] = {}
    for item in spec_workers:
        table[item["target"]] = item["checkers"]
        if item["target"] in OVERRIDES_ON_VERIFY_COMPLETE_CPU:
            assert item["checkers"] == {"mypy": "pass", "pyright": "pass"}, item
            continue
        assert item["verdict"] == "fail", item
        assert item["checkers"] == {"mypy": "fail", "pyright": "fail"}, item
        for checker in ("mypy", "pyright"):
            members = {p["member"] for p in item["problems"] if p["checker"] == checker}
            assert members == {"on_verify_complete_cpu"}, (checker, item["problems"])
    DETECTION[BASE_CASE.key] = {
        "mypy": "fail" if all(v["mypy"] == "fail" for t, v in table.items() if t not in OVERRIDES_ON_VERIFY_COMPLETE_CPU) else "pass",
        "pyright": "fail" if all(v["pyright"] == "fail" for t, v in table.items() if t not in OVERRIDES_ON_VERIFY_COMPLETE_CPU) else "pass",
    }


def test_print_detection_table(capsys: pytest.CaptureFixture[str]) -> None:
    """Runs last in this module: the case x checker table (pytest -s shows it)."""
    rows = [f"{'case':36} {'mypy':8} pyright"]
    for key in sorted(DETECTION):
        rows.append(f"{key:36} {DETECTION[key].get('mypy', '?'):8} {DETECTION[key].get('pyright', '?')}")
    with capsys.disabled():
        print("\n" + "\n".join(rows))
