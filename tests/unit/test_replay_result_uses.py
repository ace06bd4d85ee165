"""What the replay holds a spec worker's overlap-loop result to, read from sglang 0.5.23's own source.

The uses are extracted from ``Scheduler.run_batch`` (managers/scheduler.py),
not listed by hand; these tests pin the extraction to the reads that crash a
worker handing back the target's result (scheduler.py:4751-4755) and to the
relay of the draft input (managers/overlap_utils.py), and they fail when a
listed read is no longer found in the release's source.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from spec_protocols.gate._checkers._replay._result import Use, judge, overlap_result_uses

_SPEC = importlib.util.find_spec("sglang")
if _SPEC is None or _SPEC.origin is None:
    pytest.skip("sglang is not installed", allow_module_level=True)
if importlib.metadata.version("sglang") != "0.5.23":
    pytest.skip("these line numbers are sglang 0.5.23's", allow_module_level=True)
SRT = Path(_SPEC.origin).parent / "srt"


def _uses() -> tuple[Use, ...]:
    return overlap_result_uses(SRT)


def _sites(path: tuple[str, ...], attr: str, *, store: bool = False) -> set[str]:
    """Where the release makes a use (every site: a read may be made in several places)."""
    found = {u.site for u in _uses() if u.path == path and u.attr == attr and u.store == store}
    assert found, f"run_batch's overlap branch no longer {'stores' if store else 'reads'} {'.'.join(('batch_result', *path, attr))}"
    return found


def test_the_draft_input_reads_of_run_batch() -> None:
    """``batch.spec_info = batch_result.next_draft_input``, then reads and stores on it (scheduler.py:4751-4755)."""
    assert "managers/scheduler.py:4752" in _sites((), "next_draft_input")
    assert {"managers/scheduler.py:4754", "managers/overlap_utils.py:199"} <= _sites(("next_draft_input",), "dsa_topk_indices")
    assert "managers/scheduler.py:4753" in _sites(("next_draft_input",), "future_dsa_topk_indices_available", store=True)
    assert "managers/scheduler.py:4756" in _sites(("next_draft_input",), "future_indices", store=True)


def test_the_result_reads_and_the_relay() -> None:
    """``extra_keep_alive_refs``, ``delay_sample_func``, ``copy_done``; ``RelayPayload.from_draft_input`` reads the draft input."""
    assert "managers/scheduler.py:4712" in _sites((), "extra_keep_alive_refs")
    assert "managers/scheduler.py:4732" in _sites((), "delay_sample_func")
    assert "managers/scheduler.py:4731" in _sites((), "copy_done", store=True)
    relay = {u.attr for u in _uses() if u.path == ("next_draft_input",) and u.site.startswith("managers/overlap_utils.py")}
    assert {"bonus_tokens", "topk_p", "topk_index", "hidden_states", "dsa_topk_indices"} <= relay


@dataclass
class _Result:
    """A GenerationBatchResult as far as run_batch's overlap branch uses it."""

    next_draft_input: object = None
    extra_keep_alive_refs: object = None
    delay_sample_func: object = None
    copy_done: object = None
    future_indices: object = None
    next_token_ids: object = None
    has_sampled_token_ids: bool = True

    def copy_to_cpu(self) -> None: ...


@dataclass
class _DraftInput:
    bonus_tokens: object = None
    topk_p: object = None
    topk_index: object = None
    hidden_states: object = None
    dsa_topk_indices: object = None
    future_indices: object = None
    future_dsa_topk_indices_available: bool = False


@dataclass
class _Bare:
    hidden_states: object = None
    extra: list[object] = field(default_factory=list[object])


def _custom(name: str) -> bool:
    return False  # CustomSpecAlgo: is_none(), is_ngram() are False


def test_the_targets_result_fails_at_scheduler_read() -> None:
    verdict = judge(_Result(), _uses(), _custom)
    assert verdict.failed is not None
    assert verdict.said.startswith("managers/scheduler.py:4754 reads batch_result.next_draft_input.dsa_topk_indices")
    assert "is None" in verdict.said


def test_a_filled_draft_input_passes() -> None:
    assert judge(_Result(next_draft_input=_DraftInput()), _uses(), _custom).failed is None


def test_a_draft_input_lacking_a_relayed_field_fails_at_the_relay() -> None:
    verdict = judge(_Result(next_draft_input=_Bare()), _uses(), _custom)
    assert verdict.failed is not None and verdict.failed.site.startswith("managers/overlap_utils.py")
    assert "lacks" in verdict.said


def test_assert_forward_result_holds_a_result_to_the_installed_release() -> None:
    """The pytest helper reads the same uses from the installed sglang (located, not imported)."""
    from spec_protocols.pytest_plugin import assert_forward_result

    with pytest.raises(AssertionError, match=r"batch_result\.next_draft_input is None, and sglang uses it: managers/scheduler\.py:4754"):
        assert_forward_result(_Result())
    assert_forward_result(_Result(next_draft_input=_DraftInput()))
