"""``explain``: every member of a protocol with its signature, sglang call site and default."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typing_extensions import get_protocol_members

from spec_protocols import CALL_SITES, DRAFT_WORKER_CTOR_KEYWORDS, DraftWorker, SpecWorker
from spec_protocols.gate._explanation import PROTOCOL_NAMES, explain
from spec_protocols.gate._model import GateError


def _block(text: str, member: str) -> str:
    """The lines ``explain`` printed for one member (its signature up to the blank line)."""
    for block in text.split("\n\n"):
        head = block.strip().splitlines()[0] if block.strip() else ""
        if head.startswith((f"{member}:", f"def {member}(")):
            return block
    raise AssertionError(f"no block for {member!r} in:\n{text}")


@pytest.mark.parametrize("name", PROTOCOL_NAMES)
def test_every_member_is_listed_with_its_call_site(name: str) -> None:
    import spec_protocols

    text = explain(name)
    members = get_protocol_members(getattr(spec_protocols, name))
    assert members, name
    for member in members:
        block = _block(text, member)
        assert f"called at: sglang/srt/{CALL_SITES[name][member]}" in block


def test_members_come_in_protocol_definition_order() -> None:
    text = explain("SpecWorker")
    positions = [text.index(f"\n  {m}:") if f"\n  {m}:" in text else text.index(f"def {m}(") for m in
                 ("alloc_memory_pool", "forward_batch_generation", "on_verify_complete_cpu",
                  "graph_memory_usage", "weight_update_runners", "draft_swa_window")]
    assert positions == sorted(positions)


def test_method_signature_keeps_markers_and_annotations_as_written() -> None:
    block = _block(explain("SpecWorker"), "forward_batch_generation")
    # Positional-only batch, keyword-only on_publish, annotation text not evaluated.
    assert "batch: ScheduleBatch,\n      /,\n      *,\n      on_publish: PublishCallback | None = ...," in block
    assert ") -> GenerationBatchResult" in block
    assert "self" not in block.split("kind:")[0]


def test_short_signature_is_one_line() -> None:
    block = _block(explain("SpecWorker"), "init_cuda_graphs")
    assert block.strip().splitlines()[0] == "def init_cuda_graphs() -> None"


def test_property_is_rendered_as_read_only_attribute() -> None:
    block = _block(explain("SpecWorker"), "last_shared_read_runner")
    assert block.strip().splitlines()[0] == "last_shared_read_runner: ModelRunner"
    assert "kind:      read-only property" in block


def test_default_column_reflects_spec_worker_base() -> None:
    text = explain("SpecWorker")
    assert "default:   none: abstract in SpecWorkerBase" in _block(text, "forward_batch_generation")
    assert "default:   yes (SpecWorkerBase.clear_cache_pool)" in _block(text, "clear_cache_pool")
    # A class variable counts as a default too.
    assert "default:   yes (SpecWorkerBase.draft_parallel_layout)" in _block(text, "draft_parallel_layout")


def test_capability_protocol_has_no_default() -> None:
    block = _block(explain("SupportsGrammarOverlap"), "forward_batch_generation")
    assert "grammar_barrier: GrammarBarrier | None = ..." in block
    assert "default:   none" in block


def test_draft_side_protocols_do_not_claim_spec_worker_base_defaults() -> None:
    text = explain("DraftWorker")
    for member in get_protocol_members(DraftWorker):
        assert "default:   n/a" in _block(text, member)


def test_factory_lists_every_constructor_keyword_as_keyword_only() -> None:
    block = _block(explain("DraftWorkerFactory"), "__call__")
    star = block.index("*,")
    for keyword in DRAFT_WORKER_CTOR_KEYWORDS:
        assert block.index(f"{keyword}: ") > star, keyword


def test_unknown_protocol_is_a_one_line_gate_error() -> None:
    with pytest.raises(GateError) as info:
        explain("Specworker")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("unknown protocol 'Specworker'; choose from ")
    for name in PROTOCOL_NAMES:
        assert name in message


def test_spec_worker_header_names_the_protocol() -> None:
    assert explain("SpecWorker").startswith("SpecWorker: ")
    assert len(get_protocol_members(SpecWorker)) == explain("SpecWorker").count("called at:")


def test_explain_imports_neither_sglang_nor_torch() -> None:
    code = (
        "import sys; from spec_protocols.gate._explanation import explain; explain('SpecWorker');"
        "print(sorted(m for m in ('sglang', 'torch') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_what_sglang_does_with_the_forward_result_is_read_from_the_release() -> None:
    """Issue 31, item 1: the overlap loop's reads and stores of forward_batch_generation's result, with their sites."""
    from spec_protocols.gate._contract import resolve_sglang
    from spec_protocols.gate._explanation import result_uses

    source = resolve_sglang(None)
    if source is None:
        pytest.skip("no sglang source installed here")
    text = result_uses(source.root / "sglang" / "srt", source.release)
    assert text.startswith(f"What sglang {source.release} does with what forward_batch_generation returns")
    lines = text.splitlines()
    # The scheduler sets batch.spec_info to the result's draft input, then reads and stores on it.
    reads = [line for line in lines if line.strip().startswith("reads batch_result.next_draft_input ")]
    assert any("sglang/srt/managers/scheduler.py:" in line and "is_none() is false" in line for line in reads), reads
    assert any(line.strip().startswith("stores batch_result.next_draft_input.future_indices ") for line in lines)
    assert any(line.strip().startswith("reads batch_result.copy_to_cpu ") for line in lines)


def test_a_release_without_the_overlap_branch_says_so(tmp_path: Path) -> None:
    from spec_protocols.gate._explanation import result_uses

    srt = tmp_path / "sglang" / "srt"
    (srt / "managers").mkdir(parents=True)
    (srt / "managers" / "scheduler.py").write_text("class Scheduler:\n    def run_batch(self, batch):\n        return None\n", encoding="utf-8")
    assert "nothing read from its source" in result_uses(srt, "9.9.9")


def test_the_command_adds_the_result_section_for_spec_worker_only() -> None:
    def explained(*args: str) -> str:
        ran = subprocess.run([sys.executable, "-m", "spec_protocols.gate._cli", "explain", *args], capture_output=True, text=True, check=False)
        assert ran.returncode == 0, ran.stderr
        return ran.stdout

    assert "does with what forward_batch_generation returns" in explained("SpecWorker")
    assert "forward_batch_generation returns" not in explained("DraftWorker")
