"""The hooks' flow walker and the branch tags, on small synthetic sglang trees (no checker, no real release).

Each test writes a made-up release (``9.9.9``): sglang's own ``speculative/``
modules copied from the installed sglang (what the extractor reads of them:
the algorithm enum, ``BaseSpecWorker``, ``build_draft_tp_worker``, the
registry) and a ``managers/scheduler.py`` of the test's own, whose member
names no real release uses: the extractor finds hooks by what the code does
(``getattr``/``hasattr`` with the value followed), never by a list of names.
"""

from __future__ import annotations

import importlib.util
import shutil
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from spec_protocols.gate._contract import Contract, extract_contract, source_at
from spec_protocols.gate._contract._release_contract import OVERLAP, SYNCHRONOUS, Hook
from spec_protocols.gate._contract._terms import CallShape, branch_shapes, hook_terms, release_terms
from spec_protocols.gate._harness._lines import LineKind, build_harness
from spec_protocols.gate._harness._protocol_source import hook_protocol, hooks_held
from spec_protocols.gate._model import ClassRole, DiscoveredClass, ProtocolName

_SPEC = importlib.util.find_spec("sglang")
if _SPEC is None or not _SPEC.submodule_search_locations:
    pytest.skip("sglang is not installed (its speculative/ modules seed the synthetic trees)", allow_module_level=True)
SGLANG = Path(next(iter(_SPEC.submodule_search_locations)))
COPIED = ("spec_info.py", "spec_registry.py", "base_spec_worker.py", "draft_worker_common.py")

HEAD = """\
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.managers.helpers import iterate_all, keep


class Scheduler:
"""

HELPERS = """\
def iterate_all(items, *, label=""):
    return [item for item in items if item is not None]


def keep(value):
    return value
"""


def contract_of(tmp_path: Path, body: str) -> Contract:
    package = tmp_path / "sglang"
    (package / "srt" / "speculative").mkdir(parents=True)
    (package / "srt" / "managers").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "version.py").write_text('__version__ = "9.9.9"\n')
    for name in COPIED:
        source = SGLANG / "srt" / "speculative" / name
        if source.is_file():
            shutil.copy(source, package / "srt" / "speculative" / name)
    (package / "srt" / "managers" / "helpers.py").write_text(HELPERS)
    scheduler = HEAD + textwrap.indent(textwrap.dedent(body), "    ")
    (package / "srt" / "managers" / "scheduler.py").write_text(scheduler)
    return extract_contract(source_at(tmp_path))


def hook(contract: Contract, member: str) -> Hook:
    (found,) = [h for h in contract.hooks if h.member == member]
    return found


def test_a_getattr_bound_to_a_local_is_followed_to_its_call(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def retire(self, req, why):
            on_retire = getattr(self.draft_worker, "on_retire", None)
            if on_retire is not None:
                on_retire(req, reason=why)
        """,
    )
    found = hook(contract, "on_retire")
    assert (found.receiver, found.lookup, found.default, found.classification) == ("spec_worker", "getattr-default", "None", "guarded")
    assert [u.kind for u in found.uses] == ["test", "call"]
    call = found.uses[1]
    assert (call.positional, call.keywords, call.site.function) == (1, ("reason",), "Scheduler.retire")
    term = hook_terms(contract.hooks)[ProtocolName.SPEC_WORKER]["on_retire"]
    assert term.call == CallShape((1, 1), ("reason",)) and not term.iterated and term.constrains


def test_iterated_directly_through_a_builtin_and_in_a_callee_by_position_and_keyword(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def start(self):
            for pool in getattr(self.model_worker, "side_pools", ()):
                pool.reset()
            names = tuple(getattr(self.draft_worker, "stage_names", []))
            iterate_all(getattr(self.draft_worker, "stages", []))
            iterate_all(items=getattr(self.draft_worker, "more_stages", []))
        """,
    )
    for member in ("side_pools", "stage_names", "stages", "more_stages"):
        assert [u.kind for u in hook(contract, member).uses] == ["iterate"], member
    assert hook(contract, "stages").uses[0].site.function == "iterate_all"
    assert hook(contract, "stage_names").uses[0].detail == "tuple"


def test_hasattr_then_a_call_and_values_that_ask_nothing(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def flush(self):
            if hasattr(self.draft_worker, "drain"):
                self.draft_worker.drain(1, 2)
            label = getattr(self.draft_worker, "label", "none")
            keep(label or "none")
        """,
    )
    drain = hook(contract, "drain")
    assert drain.lookup == "hasattr" and [(u.kind, u.positional) for u in drain.uses] == [("call", 2)]
    label = hook(contract, "label")
    assert {u.kind for u in label.uses} <= {"test", "value"}
    terms = hook_terms(contract.hooks)[ProtocolName.SPEC_WORKER]
    assert not terms["label"].constrains and terms["drain"].call == CallShape((2, 2), ())


def test_a_hook_under_an_algorithm_predicate_is_not_a_plugins(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def tune(self):
            if self.spec_algorithm.is_eagle():
                fn = getattr(self.draft_worker, "tune_eagle", None)
                if fn is not None:
                    fn()
        """,
    )
    assert hook(contract, "tune_eagle").classification == "algorithm"
    assert "tune_eagle" not in hook_terms(contract.hooks).get(ProtocolName.SPEC_WORKER, {})


def test_the_spec_workers_own_draft_worker_is_the_draft_worker_protocols(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def timers(self, timer):
            dw = getattr(self.draft_worker, "draft_worker", None)
            if dw is not None:
                for runner in getattr(dw, "runner_list", []):
                    runner.timer = timer
        """,
    )
    assert hook(contract, "runner_list").receiver == "spec_worker.draft_worker"
    assert hook_terms(contract.hooks)[ProtocolName.DRAFT_WORKER]["runner_list"].iterated


def test_calls_are_tagged_with_the_scheduler_branch(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def run_batch(self, batch, proxy):
            if self.enable_overlap:
                result = self.model_worker.forward_batch_generation(batch, on_publish=None)
            else:
                result = self.model_worker.forward_batch_generation(batch, pp_proxy_tensors=proxy)
            self.draft_worker.clear_cache_pool()
            return result
        """,
    )
    branches = {u.keywords: u.branch for u in contract.spec_worker if u.member == "forward_batch_generation"}
    assert branches == {("on_publish",): OVERLAP, ("pp_proxy_tensors",): SYNCHRONOUS}
    assert {u.branch for u in contract.spec_worker if u.member == "clear_cache_pool"} == {""}
    shapes = branch_shapes(contract, ("forward_batch_generation", "clear_cache_pool"))
    assert shapes[SYNCHRONOUS] == {"forward_batch_generation": CallShape((1, 1), ("pp_proxy_tensors",))}
    assert shapes[OVERLAP] == {"forward_batch_generation": CallShape((1, 1), ("on_publish",))}


def test_the_registration_flag_and_which_branches_it_selects(tmp_path: Path) -> None:
    contract = contract_of(tmp_path, "def noop(self):\n    self.draft_worker.clear_cache_pool()\n")
    if not (SGLANG / "srt" / "speculative" / "spec_registry.py").is_file():
        pytest.skip("the installed sglang has no spec_registry")
    assert (contract.overlap_flag, contract.overlap_flag_default) == ("supports_overlap", False)
    terms = replace(release_terms(None), overlap_flag=contract.overlap_flag, overlap_flag_default=contract.overlap_flag_default)
    assert terms.branches_for({}) == {SYNCHRONOUS}
    assert terms.branches_for({"supports_overlap": False}) == {SYNCHRONOUS}
    assert terms.branches_for({"supports_overlap": True}) == {OVERLAP, SYNCHRONOUS}
    assert replace(terms, overlap_flag=None).branches_for({"supports_overlap": False}) == {OVERLAP, SYNCHRONOUS}


def test_the_harness_holds_a_class_that_defines_a_hook_to_its_capability_protocol(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def retire(self, req):
            fn = getattr(self.model_worker, "on_retire", None)
            if callable(fn):
                fn(req)
            iterate_all(getattr(self.model_worker, "side_pools", ()))
        """,
    )
    terms = replace(release_terms(None), hooks=hook_terms(contract.hooks))
    spec = terms.hooks[ProtocolName.SPEC_WORKER]
    assert hook_protocol(spec["on_retire"]).splitlines()[1].strip() == "def __call__(self, _a0: Any, /) -> object: ..."
    assert hook_protocol(spec["side_pools"]).splitlines()[1].strip() == "def __iter__(self) -> _HookIterator: ..."
    assert [t.member for t in hooks_held(terms, ProtocolName.SPEC_WORKER, frozenset({"on_retire"}))] == ["on_retire"]
    assert hooks_held(terms, ProtocolName.SPEC_WORKER, None) == []
    cls = DiscoveredClass(
        "plugin", "W", Path("plugin.py"), 1, frozenset({ClassRole.SPEC_WORKER}), overrides=frozenset({"on_retire", "side_pools"})
    )
    harness = build_harness([cls], terms=terms)
    hooked = {t.member: t.kind for t in harness.tags.values() if t.member in ("on_retire", "side_pools")}
    assert hooked == {"on_retire": LineKind.MEMBER_GRADUAL, "side_pools": LineKind.MEMBER_ANY}
    # The lookup defaults to None: sglang's code copes with None, so a class may set the hook to None.
    assert "        _hk0_SpecWorker: _Hook_SpecWorker__on_retire = _hk0_SpecWorker_v" in harness.text.splitlines()
    assert "    _hk1_SpecWorker: _Hook_SpecWorker__side_pools = w.side_pools" in harness.text.splitlines()
    assert "class _Hook_SpecWorker__side_pools(Protocol):" in harness.text.splitlines()
    lacking = replace(cls, overrides=frozenset())
    assert "w.on_retire" not in build_harness([lacking], terms=terms).text
