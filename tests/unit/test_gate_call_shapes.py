"""A release the protocols are not pinned to is held to its own calls (issue 18).

The protocols' signatures are the newest supported release's. For a release
outside the range, :func:`~spec_protocols.gate._contract._terms.release_terms`
records how its source calls each checked method (a
:class:`~spec_protocols.gate._contract._terms.CallShape`), and the harness
checks the method against that call: 0.5.5 calls
``forward_batch_generation(batch)``, so a worker for it need not take
``on_publish=``. The harness imports only the names its lines use (0.5.5's
``base_spec_worker`` has no ``HiCacheDraftPlan``).

Fast: synthetic trees and terms; the harness is built and compiled, never
checked (the real releases: tests/checkers/test_gate_outside_range.py).
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from spec_protocols._members import ProtocolMember
from spec_protocols.gate._contract import extract_contract, source_at
from spec_protocols.gate._contract._terms import CallShape, release_terms
from spec_protocols.gate._harness._lines import build_harness, protocol_members
from spec_protocols.gate._harness._protocol_source import as_called
from spec_protocols.gate._model import ClassRole, DiscoveredClass
from spec_protocols.gate._signatures import describe_function
from tests.unit.test_contract_registry import REGISTRY_SCHEDULER, write_release


def member(protocol: str, name: str) -> ProtocolMember:
    return next(m for m in protocol_members(protocol) if m.name == name)


def written(protocol: str, name: str, shape: CallShape) -> str:
    return describe_function(protocol, as_called(member(protocol, name), shape).node)


def test_a_method_is_written_as_the_release_calls_it() -> None:
    assert written("SpecWorker", "forward_batch_generation", CallShape((1, 1), ())) == (
        "SpecWorker.forward_batch_generation(self, batch: ScheduleBatch, /) -> GenerationBatchResult"
    )
    assert written("SpecWorker", "forward_batch_generation", CallShape((1, 1), (), ("on_publish",))) == (
        "SpecWorker.forward_batch_generation(self, batch: ScheduleBatch, /, *, on_publish: PublishCallback | None = ...)"
        " -> GenerationBatchResult"
    )
    assert written("SpecWorker", "on_verify_complete_cpu", CallShape((1, 1), ("batch_size",))) == (
        "SpecWorker.on_verify_complete_cpu(self, num_correct_drafts_per_req: list[int], /, *, batch_size: int) -> None"
    )


def test_what_the_protocol_does_not_name_is_any_and_what_some_calls_omit_has_a_default() -> None:
    text = written("SpecWorker", "forward_batch_generation", CallShape((0, 2), ("batch_id",)))
    assert text == (
        "SpecWorker.forward_batch_generation(self, batch: ScheduleBatch = ..., _arg1: Any = ..., /, *, batch_id: Any)"
        " -> GenerationBatchResult"
    )
    # A draft worker's parameter the protocol takes by position or keyword, passed by keyword.
    assert written("DraftWorker", "alloc_memory_pool", CallShape((0, 0), ("req_to_token_pool",))) == (
        "DraftWorker.alloc_memory_pool(self, *, req_to_token_pool: ReqToTokenPool | None) -> None"
    )


def test_an_unpinned_release_has_call_shapes_and_no_whole_protocol_line(tmp_path: Path) -> None:
    terms = release_terms(extract_contract(source_at(write_release(tmp_path / "old", REGISTRY_SCHEDULER))))
    assert terms.pin is None and not terms.whole
    shapes = terms.call_shapes["SpecWorker"]
    assert shapes["forward_batch_generation"] == CallShape((1, 1), ())
    assert shapes["clear_cache_pool"] == CallShape((0, 0), ())


def test_a_supported_release_keeps_the_protocols_signatures(tmp_path: Path) -> None:
    tree = write_release(tmp_path / "supported", REGISTRY_SCHEDULER, version="0.5.21")
    terms = release_terms(extract_contract(source_at(tree)))
    assert terms.pin == "0.5.21" and terms.call_shapes == {}


def _harness_for(terms_shapes: dict[str, dict[str, CallShape]]) -> str:
    cls = DiscoveredClass("plug.workers", "Spec", Path("/dev/null"), 1, frozenset({ClassRole.SPEC_WORKER}))
    terms = replace(
        release_terms(None),
        release="0.5.5",
        members={"SpecWorker": ("clear_cache_pool", "forward_batch_generation"), "DraftWorker": ()},
        whole=frozenset(),
        call_shapes=terms_shapes,
    )
    return build_harness([cls], terms=terms).text


def test_the_harness_checks_the_shape_and_imports_only_what_it_uses() -> None:
    text = _harness_for({"SpecWorker": {"forward_batch_generation": CallShape((1, 1), ()), "clear_cache_pool": CallShape((0, 0), ())}})
    compile(text, "spec_protocols_harness.py", "exec")
    callbacks = {n.name: n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name.startswith("_SpecWorker__")}
    assert set(callbacks) == {"_SpecWorker__clear_cache_pool", "_SpecWorker__forward_batch_generation"}
    call = callbacks["_SpecWorker__forward_batch_generation"].body[0]
    assert isinstance(call, ast.FunctionDef) and not call.args.kwonlyargs  # no on_publish
    # Names of members the run does not check are not imported.
    for name in ("HiCacheDraftPlan", "PublishCallback", "MemoryPoolConfig", "DraftParallelLayout"):
        assert name not in text, name
    imports = [line for line in text.splitlines() if line.startswith("from ")]
    assert any(line.endswith(" import GenerationBatchResult, ScheduleBatch, ServerArgs, TpModelWorker") for line in imports), imports


def test_without_shapes_the_harness_keeps_the_protocol_signature() -> None:
    text = _harness_for({})
    compile(text, "spec_protocols_harness.py", "exec")
    assert "on_publish: PublishCallback | None=..." in text
    assert "from spec_protocols._protocols import PublishCallback" in text.splitlines()
