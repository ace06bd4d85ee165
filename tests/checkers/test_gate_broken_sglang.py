"""The broken-sglang corpus (issue 4, item 3; issue 5, item 6; issue 12, item 7).

Each case patches a *copy* of an sglang release in a temporary directory --
directories are real, files are symlinks to the originals except the patched
ones, which are real copies with one text replacement -- and runs the gate on
that copy. The gate must exit 1 and the JSON must name the broken class and
member with a ``fail`` from BOTH mypy and pyright. The original is never touched.

Two releases: the installed sglang (0.5.23; the copy goes first on the import
path, as a developer's patched checkout would) and 0.5.21, fetched into the
gate's cache and checked with ``--sglang COPY`` (the contract of 0.5.21, read
from the copy). A case runs on the releases that have what it breaks
(``Case.since``).

Cases touching different classes share one gate run (``corpus_run``); the
base-class case (f) changes every worker, so it gets its own run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests._sglang import defines_getattr

from integrations.series import mirror
from spec_protocols._releases import release_key
from spec_protocols.gate._contract import SglangSource

sglang = pytest.importorskip("sglang")


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
    #: The first release that has what the case breaks.
    since: str = "0.5.19"
    #: What mypy and pyright must say: ``fail``, or ``unverified`` where the
    #: class's ``__getattr__`` may supply the member on the instance (a
    #: construct neither checker can follow; never a pass, and the runtime
    #: checker, which reads the class with ``getattr_static``, fails it).
    static: str = "fail"


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
        since="0.5.21",
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
        since="0.5.23",
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
        since="0.5.20",
        static="unverified",
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

#: Spec workers that define on_verify_complete_cpu themselves (EAGLE, the two
#: that subclass it, and NGRAM; the same in 0.5.21 to 0.5.23).
OVERRIDES_ON_VERIFY_COMPLETE_CPU = {
    "sglang.srt.speculative.eagle_worker_v2.EAGLEWorkerV2",
    "sglang.srt.speculative.standalone_worker_v2.StandaloneWorkerV2",
    "sglang.srt.speculative.frozen_kv_mtp_worker_v2.FrozenKVMTPWorkerV2",
    "sglang.srt.speculative.ngram_worker.NGRAMWorker",
}

#: The releases the corpus runs on: the installed one, and one fetched.
INSTALLED = str(sglang.__version__)
FETCHED = "0.5.21"
RELEASES = (INSTALLED, FETCHED)

GATE_ARGS = ["check", "sglang.srt.speculative", "--checker", "mypy", "--checker", "pyright", "--format", "json", "--no-timings"]

#: (release, case key) -> {checker: verdict}, filled as the tests run; printed at the end.
DETECTION: dict[tuple[str, str], dict[str, str]] = {}


def _applies(case: Case, release: str) -> bool:
    return release_key(case.since) <= release_key(release)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Each test on each release; a case only on the releases that have what it breaks."""
    if "release" not in metafunc.fixturenames:
        return
    if "case" in metafunc.fixturenames:
        pairs = [(r, c) for r in RELEASES for c in CASES if _applies(c, r)]
        metafunc.parametrize(
            ("release", "case"), pairs, ids=[f"{r}-{c.key}" for r, c in pairs], indirect=["release"], scope="module"
        )
    else:
        metafunc.parametrize("release", RELEASES, indirect=True, scope="module")


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
                found: dict[str, Any] = item
                return found
        raise AssertionError(f"no result for {target} / {protocol}; got {[r['target'] for r in self.data['results']]}")


def _apply(tree: Path, patches: tuple[Patch, ...], release: str) -> None:
    for patch in patches:
        path = tree / patch.file
        text = path.read_text(encoding="utf-8")
        assert text.count(patch.old) >= patch.count, f"{patch.file}: {patch.old!r} not found in sglang {release}"
        text = text.replace(patch.old, patch.new, patch.count)
        path.unlink()  # replace the symlink with a real file, never write through it
        path.write_text(text, encoding="utf-8")


@dataclass(frozen=True)
class Release:
    """One release the corpus runs on: its version and its sglang package folder."""

    version: str
    package: Path
    installed: bool


@pytest.fixture(scope="module")
def release(request: pytest.FixtureRequest, sglang_release: Callable[[str], SglangSource]) -> Release:
    version: str = request.param
    if version == INSTALLED:
        return Release(version, SGLANG_DIR, installed=True)
    return Release(version, sglang_release(version).root / "sglang", installed=False)


@pytest.fixture(scope="session")
def gate_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = dict(os.environ)
    env["SPEC_PROTOCOLS_CACHE_DIR"] = str(tmp_path_factory.mktemp("gate-cache"))
    return env


@pytest.fixture(scope="session")
def make_copy(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Release, tuple[Patch, ...]], Path]:
    def make(name: str, release: Release, patches: tuple[Patch, ...] = ()) -> Path:
        # A mirror: real directories, symlinked files (a patched file is copied first, in _apply).
        tree = mirror(release.package, tmp_path_factory.mktemp(f"{name}-{release.version}"))
        _apply(tree, patches, release.version)
        return tree

    return make


def run_gate_on(tree: Path, release: Release, env: dict[str, str]) -> GateRun:
    """The gate on a copy: first on the import path for the installed release
    (as a patched checkout would be), ``--sglang COPY`` for a fetched one."""
    run_env = dict(env)
    args = list(GATE_ARGS)
    if release.installed:
        run_env["PYTHONPATH"] = os.pathsep.join([str(tree), *filter(None, [env.get("PYTHONPATH")])])
    else:
        args += ["--sglang", str(tree)]
    proc = subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", *args],
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
def clean_run(make_copy: Callable[..., Path], gate_env: dict[str, str], release: Release) -> tuple[Path, GateRun]:
    tree = make_copy("sglang-clean", release)
    return tree, run_gate_on(tree, release, gate_env)


@pytest.fixture(scope="module")
def corpus_run(make_copy: Callable[..., Path], gate_env: dict[str, str], release: Release) -> GateRun:
    patches = tuple(p for case in CASES if _applies(case, release.version) for p in case.patches)
    return run_gate_on(make_copy("sglang-broken", release, patches), release, gate_env)


@pytest.fixture(scope="module")
def base_run(make_copy: Callable[..., Path], gate_env: dict[str, str], release: Release) -> GateRun:
    return run_gate_on(make_copy("sglang-base-broken", release, BASE_CASE.patches), release, gate_env)


def test_copy_is_a_mirror(clean_run: tuple[Path, GateRun], release: Release) -> None:
    tree, _ = clean_run
    link = tree / SPEC / "ngram_worker.py"
    assert link.is_symlink() and link.resolve() == (release.package / "srt/speculative/ngram_worker.py").resolve()


def test_unpatched_copy_passes(clean_run: tuple[Path, GateRun], release: Release) -> None:
    tree, run = clean_run
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert run.data is not None
    assert run.data["sglang"]["release"] == release.version
    targets = {r["target"] for r in run.data["results"]}
    for case in CASES:
        if _applies(case, release.version) and not case.target.endswith(("BadDraft", "AbstractDraft")):
            assert case.target in targets
    for item in run.data["results"]:
        assert item["checkers"] == {"mypy": "pass", "pyright": "pass"}, item
        # The copy, not the original package, is what was checked.
        for problem in item["problems"]:
            assert str(tree) in (problem.get("file") or str(tree))


def _assert_detected(run: GateRun, case: Case, release: str) -> None:
    assert run.returncode == 1, run.stderr[-2000:]
    item = run.result(case.target, case.protocol)
    DETECTION[(release, case.key)] = dict(item["checkers"])
    assert item["verdict"] == case.static, item
    assert item["checkers"]["mypy"] == case.static, item
    assert item["checkers"]["pyright"] == case.static, item
    for checker in ("mypy", "pyright"):
        members = [p["member"] for p in item["problems"] if p["checker"] == checker]
        assert case.member in members, (checker, item["problems"])


def test_broken_copy_fails(corpus_run: GateRun, case: Case, release: Release) -> None:
    _assert_detected(corpus_run, case, release.version)


def test_base_default_removed(base_run: GateRun, release: Release) -> None:
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
        expected = "unverified" if defines_getattr(release.package.parent, item["target"]) else "fail"
        assert item["verdict"] == expected, item
        assert item["checkers"] == {"mypy": expected, "pyright": expected}, item
        for checker in ("mypy", "pyright"):
            members = {p["member"] for p in item["problems"] if p["checker"] == checker}
            assert members == {"on_verify_complete_cpu"}, (checker, item["problems"])
    failing = [v for t, v in table.items() if t not in OVERRIDES_ON_VERIFY_COMPLETE_CPU]
    DETECTION[(release.version, BASE_CASE.key)] = {
        checker: "fail" if all(v[checker] == "fail" for v in failing) else "pass" for checker in ("mypy", "pyright")
    }


def test_print_detection_table(capsys: pytest.CaptureFixture[str]) -> None:
    """Runs last in this module: the (release, case) x checker table (pytest -s shows it)."""
    rows = [f"{'release':8} {'case':36} {'mypy':8} pyright"]
    for release, key in sorted(DETECTION):
        verdicts = DETECTION[(release, key)]
        rows.append(f"{release:8} {key:36} {verdicts.get('mypy', '?'):8} {verdicts.get('pyright', '?')}")
    with capsys.disabled():
        print("\n" + "\n".join(rows))
