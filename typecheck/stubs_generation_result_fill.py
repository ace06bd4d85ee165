"""Why a forward's result is held to sglang's reads by the replay, not by its type (issue 31, item 2).

sglang facts (sglang 0.5.23):
- ``TpModelWorker.forward_batch_generation`` returns a ``GenerationBatchResult``
  whose ``next_draft_input`` keeps its default, None (managers/utils.py).
- sglang's own spec workers fill that same object and return it
  (``batch_output.next_draft_input = ...``: speculative/eagle_worker_v2.py:1595,
  dspark_worker_v2.py:886), and on a rank without a draft return it unfilled
  (eagle_worker_v2.py:1574).
- On the overlap loop ``Scheduler.run_batch`` reads
  ``batch_result.next_draft_input.<attr>`` (managers/scheduler.py:4751-4755).

A store into an attribute changes no object's type, under mypy or pyright:
the result handed back unchanged and the one filled in place are the same
type, so no annotation of ``forward_batch_generation`` can pass the one and
fail the other. Making ``GenerationBatchResult`` generic in its draft input
(``GenerationBatchResult[None]`` for the target's) would instead make the
fill itself an error, failing the pattern sglang's own workers use. So the
stubs keep one type, and the replay checker (and ``assert_forward_result``)
holds the value a worker returns to the release's reads.
"""

from __future__ import annotations

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.managers.utils import GenerationBatchResult
from typing_extensions import assert_type


def handed_back(target: TpModelWorker, batch: ScheduleBatch) -> GenerationBatchResult:
    result = target.forward_batch_generation(batch)
    assert_type(result, GenerationBatchResult)
    return result


def filled(target: TpModelWorker, batch: ScheduleBatch, draft_input: object) -> GenerationBatchResult:
    result = target.forward_batch_generation(batch)
    result.next_draft_input = draft_input
    assert_type(result, GenerationBatchResult)  # the same type as handed_back's: the fill is invisible
    return result


built = GenerationBatchResult(next_draft_input=object())
assert_type(built, GenerationBatchResult)
