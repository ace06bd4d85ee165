"""A minimal spec worker on SpecWorkerBase and a minimal injected draft worker."""

from __future__ import annotations

from collections.abc import Mapping

from spec_protocols._base import SpecWorkerBase
from spec_protocols._protocols import DraftWorkerFactory, PublishCallback
from spec_protocols._sglang_types import (
    GenerationBatchResult,
    ModelRunner,
    ScheduleBatch,
    ServerArgs,
    TpModelWorker,
)

__all__ = ["ReferenceDraftWorker", "ReferenceSpecWorker", "build_reference_draft"]


class ReferenceDraftWorker:
    """A draft worker that owns no model: every lifecycle step is a no-op.

    It is structurally an ``InjectableDraftWorker`` (no base class) and its
    constructor takes every keyword ``build_draft_tp_worker`` passes, so it is
    also a ``DraftWorkerFactory``.
    """

    # Takes the keywords it uses; the rest of build_draft_tp_worker's call
    # (DraftWorkerFactory) is accepted and ignored: a class may accept more
    # than the call passes, never less.
    def __init__(self, *, server_args: ServerArgs, gpu_id: int, **_unused: object) -> None:
        self.server_args = server_args
        self.gpu_id = gpu_id

    def alloc_memory_pool(self, **_pools: object) -> None:
        """Nothing to allocate (any of the pools ``alloc_memory_pool`` is given)."""

    def init_attention_backends(self) -> None:
        """No attention backends."""

    def init_cuda_graphs(self) -> None:
        """No graphs."""

    @property
    def graph_memory_usage(self) -> Mapping[str, float]:
        return {}

    @property
    def graph_time_usage(self) -> Mapping[str, float]:
        return {}

    @property
    def weight_load_time(self) -> float:
        return 0.0

    @property
    def preloaded_weights_bytes(self) -> int:
        return 0

    @property
    def model_runner(self) -> ModelRunner:
        """``build_draft_tp_worker`` reads it on what it builds; this draft owns no model."""
        raise RuntimeError("ReferenceDraftWorker owns no model, hence no model runner")


def build_reference_draft(
    server_args: ServerArgs,
    *,
    draft_worker_cls: DraftWorkerFactory[ReferenceDraftWorker] = ReferenceDraftWorker,
) -> ReferenceDraftWorker:
    """Build the draft worker the way ``build_draft_tp_worker`` would (an injection site)."""
    return draft_worker_cls(
        server_args=server_args,
        gpu_id=0,
        nccl_port=0,
        is_draft_worker=True,
        random_seed=None,
        load_group=None,
        context_length=None,
        draft_attention_backend=None,
    )


class ReferenceSpecWorker(SpecWorkerBase):
    """A spec worker that proposes nothing: it runs the target's step as is.

    Its constructor takes the keywords sglang's scheduler passes
    (``SpecWorkerFactory``).
    """

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker, draft_worker=build_reference_draft(server_args))

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: PublishCallback | None = None,
    ) -> GenerationBatchResult:
        result = self.target_worker.forward_batch_generation(batch)
        if on_publish is not None:
            on_publish(batch.seq_lens)
        return result
