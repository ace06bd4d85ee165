"""Static discovery (fast: no checker runs, no target imported)."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

from spec_protocols.gate._discovery._selection import discover
from spec_protocols.gate._model import ClassRole, Discovery, GateError
from spec_protocols.gate._discovery._targets import resolve_target

SPEC = "sglang.srt.speculative"
SPEC_WORKERS = {
    f"{SPEC}.eagle_worker_v2.EAGLEWorkerV2",
    f"{SPEC}.standalone_worker_v2.StandaloneWorkerV2",
    f"{SPEC}.multi_layer_eagle_worker_v2.MultiLayerEagleWorkerV2",
    f"{SPEC}.frozen_kv_mtp_worker_v2.FrozenKVMTPWorkerV2",
    f"{SPEC}.ngram_worker.NGRAMWorker",
    f"{SPEC}.dflash_worker_v2.DFlashWorkerV2",
    f"{SPEC}.dspark_components.dspark_worker_v2.DSparkWorkerV2",
    f"{SPEC}.uno_worker_v2.UnoWorkerV2",
}
DRAFT_WORKERS = {
    f"{SPEC}.eagle_worker_v2.EagleDraftWorker",
    f"{SPEC}.standalone_worker_v2.StandaloneDraftWorker",
    f"{SPEC}.multi_layer_eagle_worker_v2.MultiLayerEagleDraftWorker",
    f"{SPEC}.frozen_kv_mtp_worker_v2.FrozenKVMTPDraftWorker",
}
TP_MODEL_WORKER = "sglang.srt.managers.tp_worker.TpModelWorker"


def module_roles(found: Discovery) -> dict[str, frozenset[ClassRole]]:
    """Roles by dotted class path."""
    return {c.dotted: c.roles for c in found.classes}


@pytest.fixture(scope="module")
def sglang_discovery():
    if importlib.util.find_spec("sglang") is None:
        pytest.skip("sglang is not installed")
    before = set(sys.modules)
    found = discover([resolve_target(SPEC)])
    # Discovery reads source only: no sglang module got imported by it.
    assert not {m for m in set(sys.modules) - before if m.startswith("sglang.srt.speculative.")}
    return found


def test_sglang_workers(sglang_discovery) -> None:
    roles = module_roles(sglang_discovery)
    assert {c for c, r in roles.items() if ClassRole.SPEC_WORKER in r} == SPEC_WORKERS
    assert {c for c, r in roles.items() if ClassRole.DRAFT_WORKER in r} == DRAFT_WORKERS | {TP_MODEL_WORKER}
    assert set(roles) == SPEC_WORKERS | DRAFT_WORKERS | {TP_MODEL_WORKER}


def test_sglang_injection_sites(sglang_discovery) -> None:
    roles = module_roles(sglang_discovery)
    assert roles[TP_MODEL_WORKER] == frozenset({ClassRole.INJECTED, ClassRole.DRAFT_WORKER})
    assert all(ClassRole.INJECTED not in roles[c] for c in SPEC_WORKERS | DRAFT_WORKERS)
    (tp,) = [c for c in sglang_discovery.classes if c.dotted == TP_MODEL_WORKER]
    sites = {Path(s.rpartition(":")[0]).name for s in tp.injection_sites}
    # build_draft_tp_worker's default and DSparkWorkerV2.__init__'s default.
    assert {"draft_worker_common.py", "dspark_worker_v2.py"} <= sites


def test_sglang_bases_and_source_modules(sglang_discovery) -> None:
    by = {c.dotted: c for c in sglang_discovery.classes}
    assert by[f"{SPEC}.standalone_worker_v2.StandaloneWorkerV2"].bases[:2] == (
        f"{SPEC}.eagle_worker_v2.EAGLEWorkerV2",
        f"{SPEC}.base_spec_worker.BaseSpecWorker",
    )
    assert f"{SPEC}.base_spec_worker" in sglang_discovery.source_modules
    assert "sglang.srt.managers.tp_worker" in sglang_discovery.source_modules


# -- small fixture packages ---------------------------------------------------


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture
def fixture_pkg(tmp_path: Path) -> Path:
    _write(
        tmp_path,
        {
            "fpkg/__init__.py": "from .impl import ReexportedWorker\n",
            "fpkg/base.py": """
                from spec_protocols import SpecWorkerBase

                class MidBase(SpecWorkerBase):
                    pass
            """,
            "fpkg/impl.py": """
                from .base import MidBase

                class ReexportedWorker(MidBase):
                    pass
            """,
            "fpkg/sub/__init__.py": "",
            "fpkg/sub/child.py": """
                from fpkg import ReexportedWorker as Renamed
                from ..base import MidBase

                class ViaReexport(Renamed):
                    pass

                class ViaRelative(MidBase):
                    pass
            """,
            "fpkg/typing_only.py": """
                from __future__ import annotations
                from typing import TYPE_CHECKING

                if TYPE_CHECKING:
                    from sglang.srt.managers.tp_worker import TpModelWorker
                    from sglang.srt.speculative.base_spec_worker import EagleDraftWorkerBase as EDB

                class TypingOnlyDraft(TpModelWorker):
                    pass

                class AliasDraft(EDB):
                    pass
            """,
            "fpkg/nested.py": """
                import spec_protocols._base as b

                class Outer:
                    class InnerWorker(b.SpecWorkerBase):
                        pass
            """,
            "fpkg/inject.py": """
                class ParamDraft: ...
                class KwOnlyDraft: ...
                class AttrDraft: ...
                class AnnAttrDraft: ...
                class CallDraft: ...
                class NeverInjected: ...

                def build(x, draft_worker_cls=ParamDraft):
                    return draft_worker_cls

                def build_kw(*, draft_worker_cls=KwOnlyDraft):
                    return draft_worker_cls

                def forward(draft_worker_cls):
                    # forwarding a parameter is not an injection
                    return build(1, draft_worker_cls=draft_worker_cls)

                class Holder:
                    draft_worker_cls = AttrDraft

                class AnnHolder:
                    draft_worker_cls: type = AnnAttrDraft

                def make():
                    return build(2, draft_worker_cls=CallDraft)

                def not_a_class():
                    return build(3, draft_worker_cls=make())
            """,
            "fpkg/plain.py": "class Unrelated:\n    pass\n",
        },
    )
    return tmp_path / "fpkg"


def test_fixture_package(fixture_pkg: Path) -> None:
    roles = module_roles(discover([resolve_target(str(fixture_pkg))]))
    spec = {ClassRole.SPEC_WORKER}
    injected = {ClassRole.INJECTED, ClassRole.DRAFT_WORKER}
    assert roles == {
        "fpkg.base.MidBase": spec,
        "fpkg.impl.ReexportedWorker": spec,
        "fpkg.sub.child.ViaReexport": spec,
        "fpkg.sub.child.ViaRelative": spec,
        "fpkg.nested.Outer.InnerWorker": spec,
        "fpkg.typing_only.TypingOnlyDraft": {ClassRole.DRAFT_WORKER},
        "fpkg.typing_only.AliasDraft": {ClassRole.DRAFT_WORKER},
        "fpkg.inject.ParamDraft": injected,
        "fpkg.inject.KwOnlyDraft": injected,
        "fpkg.inject.AttrDraft": injected,
        "fpkg.inject.AnnAttrDraft": injected,
        "fpkg.inject.CallDraft": injected,
    }


def test_injection_sites_point_at_the_line(fixture_pkg: Path) -> None:
    found = discover([resolve_target(str(fixture_pkg))])
    by = {c.dotted: c for c in found.classes}
    (site,) = by["fpkg.inject.CallDraft"].injection_sites
    file, _, line = site.rpartition(":")
    assert Path(file).name == "inject.py"
    assert "draft_worker_cls=CallDraft" in Path(file).read_text().splitlines()[int(line) - 1]


def test_module_colon_class_narrows(fixture_pkg: Path) -> None:
    found = discover([resolve_target(f"{fixture_pkg / 'sub' / 'child.py'}:ViaRelative")])
    assert [c.dotted for c in found.classes] == ["fpkg.sub.child.ViaRelative"]


def test_module_colon_class_without_known_base_is_checked_as_spec_worker(tmp_path: Path) -> None:
    _write(tmp_path, {"structural.py": "class Duck:\n    def forward_batch_generation(self, batch): ...\n"})
    roles = module_roles(discover([resolve_target(f"{tmp_path / 'structural.py'}:Duck")]))
    assert roles == {"structural.Duck": {ClassRole.SPEC_WORKER}}


def test_search_roots_for_path_targets(fixture_pkg: Path) -> None:
    found = discover([resolve_target(str(fixture_pkg))])
    assert found.search_roots == (fixture_pkg.parent.resolve(),)


def test_discovery_never_imports(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "noisy.py": """
                import pathlib
                pathlib.Path(__file__).with_name("RAN").write_text("x")
                from spec_protocols import SpecWorkerBase

                class Noisy(SpecWorkerBase):
                    pass
            """
        },
    )
    found = discover([resolve_target(str(tmp_path / "noisy.py"))])
    assert [c.dotted for c in found.classes] == ["noisy.Noisy"]
    assert not (tmp_path / "RAN").exists()
    assert "noisy" not in sys.modules


@pytest.mark.parametrize(
    ("target", "fragment"),
    [
        ("no_such_pkg_zz", "no module named"),
        ("not a module", "not a module name"),
        ("os.path:1x", "not a class name"),
    ],
)
def test_resolve_errors(target: str, fragment: str) -> None:
    with pytest.raises(GateError, match=fragment):
        resolve_target(target)


def test_no_workers_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path, {"empty_mod.py": "X = 1\n"})
    with pytest.raises(GateError, match="no workers found"):
        discover([resolve_target(str(tmp_path / "empty_mod.py"))])


def test_cyclic_bases_terminate(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "cyc/__init__.py": "",
            "cyc/a.py": "from cyc.b import B\nclass A(B): pass\n",
            "cyc/b.py": "from cyc.a import A\nclass B(A): pass\n",
            "cyc/w.py": "from spec_protocols import SpecWorkerBase\nclass W(SpecWorkerBase): pass\n",
        },
    )
    roles = module_roles(discover([resolve_target(str(tmp_path / "cyc"))]))
    assert roles == {"cyc.w.W": {ClassRole.SPEC_WORKER}}


def test_the_releases_built_in_workers_are_spec_workers_whatever_their_bases(tmp_path: Path) -> None:
    """A release's create_worker returns a V1 worker deriving from TpModelWorker
    and an NGRAM worker deriving from nothing (0.5.10-0.5.12): given the
    release's built-in list, discovery holds both as spec workers."""
    _write(
        tmp_path,
        {
            "relpkg/__init__.py": "",
            "relpkg/v1.py": """
                from sglang.srt.managers.tp_worker import TpModelWorker

                class V1Worker(TpModelWorker):
                    pass
            """,
            "relpkg/ngram.py": "class NgramWorker:\n    pass\n",
        },
    )
    target = [resolve_target(str(tmp_path / "relpkg"))]
    built_in = {"relpkg.v1.V1Worker", "relpkg.ngram.NgramWorker"}
    assert module_roles(discover(target, built_in=built_in)) == {
        "relpkg.v1.V1Worker": {ClassRole.SPEC_WORKER, ClassRole.DRAFT_WORKER},
        "relpkg.ngram.NgramWorker": {ClassRole.SPEC_WORKER},
    }
    # Without the release's list, only the base says what a class is.
    assert module_roles(discover(target)) == {"relpkg.v1.V1Worker": {ClassRole.DRAFT_WORKER}}


def test_a_subclass_of_a_built_in_worker_is_a_spec_worker(tmp_path: Path) -> None:
    """A plugin deriving from the release's V1 EAGLEWorker (a TpModelWorker) is
    the scheduler's spec worker, as the class it extends is."""
    _write(
        tmp_path,
        {
            "subpkg/__init__.py": "",
            "subpkg/base.py": "from sglang.srt.managers.tp_worker import TpModelWorker\n\n\nclass V1Worker(TpModelWorker):\n    pass\n",
            "subpkg/mine.py": "from subpkg.base import V1Worker\n\n\nclass Mine(V1Worker):\n    pass\n",
        },
    )
    roles = module_roles(discover([resolve_target(str(tmp_path / "subpkg" / "mine.py"))], built_in={"subpkg.base.V1Worker"}))
    assert roles["subpkg.mine.Mine"] == {ClassRole.SPEC_WORKER, ClassRole.DRAFT_WORKER}


def test_a_base_the_sglang_read_does_not_have_is_recorded(tmp_path: Path) -> None:
    """A worker written for a release with V1 workers, read against one
    without them: picked (never "no workers found"), with the missing module."""
    _write(
        tmp_path,
        {
            "oldplug.py": "from sglang.srt.speculative.no_such_worker_module import GoneWorker\n\n\n"
            "class Mine(GoneWorker):\n    pass\n",
        },
    )
    found = discover([resolve_target(str(tmp_path / "oldplug.py"))])
    (cls,) = found.classes
    assert cls.roles == {ClassRole.SPEC_WORKER}
    assert cls.missing_bases == (
        ("sglang.srt.speculative.no_such_worker_module.GoneWorker", "sglang.srt.speculative.no_such_worker_module"),
    )
