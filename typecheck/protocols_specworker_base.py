"""A SpecWorkerBase subclass that writes forward_batch_generation is a SpecWorker.

sglang fact: sglang 0.5.23 lifted the worker lifecycle into
``BaseSpecWorker`` defaults (sglang/srt/speculative/base_spec_worker.py), so a
worker writes only ``forward_batch_generation``. ``SpecWorkerBase`` is the
typed twin; both checkers must see its subclasses as ``SpecWorker``, and must
not see one as ``SupportsGrammarOverlap`` / ``SupportsPipelineProxy`` unless it
takes ``grammar_barrier`` / ``pp_proxy_tensors`` (scheduler.py:4698, 4816).

``forward_batch_generation`` is abstract in ``SpecWorkerBase`` at run time
only, so to both checkers a subclass that does not write it is no
``SpecWorker`` (a missing member), as sglang's ``BaseSpecWorker`` subclasses
are: an abstract method would count as present, and the class would pass.

Guards a real regression: ``SpecWorkerBase.draft_parallel_layout`` was once a
``ClassVar``, which pyright (not mypy) refuses for the protocol's instance
member, so no subclass was a ``SpecWorker`` under pyright.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.utils import GenerationBatchResult
from sglang.srt.model_executor.forward_batch_info import PPProxyTensors

from spec_protocols import SpecWorker, SpecWorkerBase, SupportsGrammarOverlap, SupportsPipelineProxy

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


class MinimalWorker(SpecWorkerBase):
    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: object = None
    ) -> GenerationBatchResult:
        raise NotImplementedError


class PipelineWorker(SpecWorkerBase):
    # Takes both optional keywords, as EAGLEWorkerV2 does.
    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: object = None,
        grammar_barrier: object = None,
        pp_proxy_tensors: PPProxyTensors | None = None,
    ) -> GenerationBatchResult:
        raise NotImplementedError


def minimal(worker: MinimalWorker) -> None:
    as_spec: SpecWorker = worker
    del as_spec
    if TYPE_CHECKING_INVALID_USAGE:
        no_grammar: SupportsGrammarOverlap = worker  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        no_pp: SupportsPipelineProxy = worker  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        del no_grammar, no_pp


def pipeline(worker: PipelineWorker) -> None:
    as_spec: SpecWorker = worker
    grammar: SupportsGrammarOverlap = worker
    pp: SupportsPipelineProxy = worker
    del as_spec, grammar, pp


class NoForwardWorker(SpecWorkerBase):
    # Everything inherited, the one member every worker must write left out.
    pass


def no_forward(worker: NoForwardWorker) -> None:
    if TYPE_CHECKING_INVALID_USAGE:
        as_spec: SpecWorker = worker  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        del as_spec
