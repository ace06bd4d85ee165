"""The scheduler's optional hooks are capabilities a worker opts into by having them.

sglang fact: sglang 0.5.23's batch-result processor calls
``draft_worker.note_request_finished(rid=..., natural_stop=...)``
(managers/scheduler_components/batch_result_processor.py:1442), and the
scheduler sizes KV pools for the draft's runners
(managers/scheduler.py:1176, through the private ``_draft_model_runners()``).
The integration series (integrations/sglang/) guards both with
``SupportsRequestFinished`` and ``SupportsDraftModelRunners``. Both checkers
must accept a worker that has the hook with the call site's signature, and
reject one that takes ``rid`` positionally only or returns no runners.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from sglang.srt.model_executor.model_runner import ModelRunner

from spec_protocols import SupportsDraftModelRunners, SupportsRequestFinished

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


class Hooked:
    def note_request_finished(self, *, rid: str, natural_stop: bool) -> None:
        del rid, natural_stop

    def draft_model_runners(self) -> tuple[ModelRunner, ...]:
        return ()


class PositionalHook:
    # The call site passes rid= and natural_stop= by keyword.
    def note_request_finished(self, rid: str, natural_stop: bool, /) -> None:
        del rid, natural_stop


class NoRunners:
    def draft_model_runners(self) -> None:
        return None


def hooked(worker: Hooked) -> Sequence[ModelRunner]:
    finished: SupportsRequestFinished = worker
    finished.note_request_finished(rid="r", natural_stop=True)
    runners: SupportsDraftModelRunners = worker
    return runners.draft_model_runners()


def rejected(positional: PositionalHook, none: NoRunners) -> None:
    if TYPE_CHECKING_INVALID_USAGE:
        finished: SupportsRequestFinished = positional  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        runners: SupportsDraftModelRunners = none  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        del finished, runners
