"""The algorithm object: ``SpecAlgorithm`` against what sglang 0.5.23 calls on ``spec_algorithm``, both ways.

* the contract's reader (``_extract/_algorithm_object.py``) finds the calls
  the issue names where they are (``carries_draft_hidden_states`` in
  ``Scheduler.init_disaggregation``, ``create_future_map`` in
  ``Scheduler.init_overlap``, ``need_topk`` in overlap_utils), and what
  ``CustomSpecAlgo`` lacks;
* every member a call site uses is in the protocol (or excluded, with its
  reason), and every protocol member has a call site; the protocol's
  ``CALL_SITES`` are sites the reader found;
* the stubs' ``_AlgorithmObject`` (register's ``spec_class`` type) is the protocol, member for member;
* ``SpecAlgorithmBase`` mixed into ``CustomSpecAlgo`` conforms, and builds the
  future map as the enum does.

The installed sglang is 0.5.23 (the pinned release); its source is read, never imported,
except by the runtime test, which is marked.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
import types
from pathlib import Path

import pytest

from spec_protocols import CALL_SITES, SpecAlgorithm, SpecAlgorithmBase, verify_conformance
from spec_protocols._members import protocol_members
from spec_protocols.gate._contract import AlgorithmObject, Contract
from spec_protocols.gate._contract._coverage import coverage_gaps
from spec_protocols.gate._contract._extract._algorithm_object import algorithm_object
from spec_protocols.gate._contract._extract._tree import ReleaseTree
from tests._paths import REPO_ROOT
from tests._sglang import sglang_class

_SPEC = importlib.util.find_spec("sglang")
if _SPEC is None or not _SPEC.submodule_search_locations:
    pytest.skip("sglang is not installed", allow_module_level=True)
SGLANG_ROOT = Path(next(iter(_SPEC.submodule_search_locations))).parent

#: What the scheduler calls and CustomSpecAlgo does not define (sglang 0.5.18-0.5.23).
LACKED = {"carries_draft_hidden_states", "create_future_map", "need_topk"}


@pytest.fixture(scope="module")
def algorithm() -> AlgorithmObject:
    found = algorithm_object(ReleaseTree(SGLANG_ROOT))
    assert found is not None
    return found


def _sites(algorithm: AlgorithmObject, member: str) -> set[tuple[str, str]]:
    return {(s.file, s.function) for s in algorithm.sites_of(member)}


def test_the_reader_finds_the_start_up_calls_and_what_the_default_lacks(algorithm: AlgorithmObject) -> None:
    assert ("managers/scheduler.py", "Scheduler.init_disaggregation") in _sites(algorithm, "carries_draft_hidden_states")
    assert ("managers/scheduler.py", "Scheduler.init_overlap") in _sites(algorithm, "create_future_map")
    assert ("managers/overlap_utils.py", "FutureMap._maybe_init_forward_bufs") in _sites(algorithm, "need_topk")
    (call,) = [u for u in algorithm.uses if u.member == "create_future_map"]
    assert call.positional == 2 and set(call.keywords) == {"needs_cpu_seq_lens", "needs_confidence_relay"}
    lacked = {m for m in algorithm.used() if m not in algorithm.default_members}
    # get_platform_worker_cls: excluded (reached only for EAGLE/EAGLE3 by name).
    assert lacked - {"get_platform_worker_cls"} == LACKED


def test_the_protocol_and_the_release_agree_both_ways(algorithm: AlgorithmObject) -> None:
    contract = Contract("0.5.23", str(SGLANG_ROOT), (), (), (), None, None, None, algorithm=algorithm)
    gaps = [g for g in coverage_gaps(contract) if g.protocol == "SpecAlgorithm"]
    assert gaps == []
    # And the check bites: a member the release never calls, a call the protocol lacks.
    narrowed = AlgorithmObject(algorithm.members, tuple(u for u in algorithm.uses if u.member != "need_topk"), ())
    lacking = [str(g) for g in coverage_gaps(Contract("0.5.23", "", (), (), (), None, None, None, algorithm=narrowed))]
    assert any("SpecAlgorithm.need_topk: the protocol requires it" in g for g in lacking)


def test_call_sites_name_sites_the_reader_found(algorithm: AlgorithmObject) -> None:
    assert set(CALL_SITES["SpecAlgorithm"]) == set(protocol_members(SpecAlgorithm))
    for member, written in CALL_SITES["SpecAlgorithm"].items():
        file_line, _, function = written.partition(" (")
        file, _, line = file_line.partition(":")
        found = {(s.file, s.line, s.function) for s in algorithm.sites_of(member)}
        assert (file, int(line), function.split(";")[0].rstrip(")")) in found, (member, written)


def test_the_stubs_type_spec_class_with_the_protocol() -> None:
    stub = REPO_ROOT / "stubs" / "sglang" / "srt" / "speculative" / "spec_info.pyi"
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    (proto,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "_AlgorithmObject"]
    members = {f.name for f in proto.body if isinstance(f, ast.FunctionDef)}
    assert members == set(protocol_members(SpecAlgorithm))


def test_the_base_builds_the_future_map_as_the_enum_does(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[tuple[object, ...]] = []
    fake = types.ModuleType("sglang.srt.managers.overlap_utils")
    fake.FutureMap = lambda *args: built.append(args) or "future map"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sglang.srt.managers.overlap_utils", fake)

    class Predicates(SpecAlgorithmBase):
        def is_eagle(self) -> bool:
            return True

        def is_standalone(self) -> bool:
            return False

    algorithm = Predicates()
    pool = object()
    assert algorithm.create_future_map("cpu", pool, needs_cpu_seq_lens=False, needs_confidence_relay=True) == "future map"
    assert built == [("cpu", algorithm, pool, False, True)]
    # The predicates, as the enum derives them.
    assert algorithm.carries_draft_hidden_states() and algorithm.need_topk()


@pytest.mark.sglang_runtime
def test_custom_spec_algo_lacks_the_members_and_the_base_gives_them() -> None:
    custom = sglang_class("sglang.srt.speculative.spec_registry", "CustomSpecAlgo")
    assert {p.member for p in verify_conformance(custom, SpecAlgorithm).problems} == LACKED
    mixed = type("Mixed", (SpecAlgorithmBase, custom), {})
    assert verify_conformance(mixed, SpecAlgorithm).problems == ()
    assert isinstance(mixed(name="MIXED", factory=lambda server_args: object), SpecAlgorithm)
    enum = sglang_class("sglang.srt.speculative.spec_info", "SpeculativeAlgorithm")
    assert verify_conformance(enum, SpecAlgorithm).problems == ()
