"""``SpecWorkerBase``: the thin default implementation of :class:`SpecWorker`.

It is the typed twin of the lifecycle that sglang 0.5.23 lifted into
``BaseSpecWorker`` (``sglang/srt/speculative/base_spec_worker.py``):

* ``target_worker`` / ``draft_worker`` are properties over declared fields
  (``BaseSpecWorker`` reads ``self._target_worker`` and ``self._draft_worker``
  without declaring them, 2 of its 25 pyright errors);
* ``alloc_memory_pool``, ``init_attention_backends`` and ``init_cuda_graphs``
  delegate to the draft worker when there is one, with the same arguments;
* ``clear_cache_pool`` is a no-op.

``tests/unit/test_base_equivalence.py`` drives this class and sglang's
``BaseSpecWorker`` with the same recording fakes and compares the calls.

The remaining :class:`SpecWorker` members get neutral defaults, so a subclass
has to write only :meth:`forward_batch_generation`. Two of them are knowingly
simpler than ``BaseSpecWorker``'s, and documented as such:
:meth:`init_hicache_draft_plan` plans no hierarchical-cache backup of the draft
KV, and :attr:`primary_draft_kv_pool` is ``None``. A worker that needs those
should subclass sglang's ``BaseSpecWorker`` (which also satisfies
:class:`SpecWorker`).

sglang 0.5.23 itself still tests for its nominal base in two places, so a
worker on this class misses them (docs/findings.md): the batch-result
processor calls ``note_request_finished`` only on ``BaseSpecWorker``
instances, and the scheduler's post-capture resize calls the private
``_draft_model_runners()``.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import TYPE_CHECKING

from typing_extensions import Protocol, runtime_checkable

from spec_protocols._protocols import DraftWorker, PublishCallback
from spec_protocols._sglang_types import (
    BaseTokenToKVPoolAllocator,
    DraftParallelLayout,
    GenerationBatchResult,
    HiCacheDraftPlan,
    MemoryPoolConfig,
    ModelRunner,
    ReqToTokenPool,
    SamplingPrewarmResult,
    ScheduleBatch,
    TpModelWorker,
)

__all__ = ["SpecWorkerBase", "WorkerNotInitializedError"]


class WorkerNotInitializedError(RuntimeError):
    """A :class:`SpecWorkerBase` field was read before the subclass set it.

    Deliberately not an ``AttributeError``: Python answers an ``AttributeError``
    raised inside a property by calling the class's ``__getattr__``, and the
    sglang workers that define one delegate to ``self.target_worker``, which
    would recurse instead of reporting the mistake.
    """

    #: What the gate's replay reads: sglang read a member the worker's
    #: constructor never set, a failure of the worker, not of the replay.
    read_before_set = True


@runtime_checkable
class _HasDraftRunners(Protocol):
    # EagleDraftWorkerBase.draft_runners (base_spec_worker.py:76)
    @property
    def draft_runners(self) -> list[ModelRunner]: ...


@runtime_checkable
class _HasModelRunner(Protocol):
    # TpModelWorker.model_runner (managers/tp_worker.py:533)
    @property
    def model_runner(self) -> ModelRunner: ...


class SpecWorkerBase(abc.ABC):
    """Default implementation of :class:`spec_protocols.SpecWorker`.

    Subclass it, set the target (and draft) worker in ``__init__``, and write
    :meth:`forward_batch_generation`::

        class MyWorker(SpecWorkerBase):
            def __init__(self, server_args, gpu_id, nccl_port, target_worker):
                super().__init__(target_worker=target_worker,
                                 draft_worker=build_my_draft(...))

            def forward_batch_generation(self, batch, /, *, on_publish=None):
                ...

    Setting ``self._target_worker`` / ``self._draft_worker`` directly works too
    (that is what sglang's own workers do with ``BaseSpecWorker``).
    """

    # Declared fields behind the two properties. _target_worker has no default
    # so that forgetting it is reported (see target_worker); _draft_worker
    # defaults to None, the "no draft model" case (NGRAM, Uno).
    _target_worker: TpModelWorker
    _draft_worker: DraftWorker | None = None

    # Set by alloc_memory_pool, as BaseSpecWorker.alloc_memory_pool does.
    req_to_token_pool: ReqToTokenPool | None = None
    token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator | None = None

    #: Read by the scheduler before the target's pools are allocated
    #: (scheduler.py:1092). A class-level default, as in ``BaseSpecWorker``,
    #: but deliberately not ``ClassVar``: pyright does not let a ``ClassVar``
    #: satisfy the instance member ``SpecWorker.draft_parallel_layout``, so a
    #: ``ClassVar`` here made every subclass fail ``SpecWorker`` under pyright.
    draft_parallel_layout: DraftParallelLayout | None = None

    def __init__(
        self,
        *,
        target_worker: TpModelWorker | None = None,
        draft_worker: DraftWorker | None = None,
    ) -> None:
        if target_worker is not None:
            self._target_worker = target_worker
        self._draft_worker = draft_worker

    # -- the two workers --------------------------------------------------

    @property
    def target_worker(self) -> TpModelWorker:
        """The target worker given to ``__init__`` (or set as ``self._target_worker``)."""
        # object.__getattribute__, not self._target_worker: a missing attribute
        # read the normal way falls through to the subclass's __getattr__, and
        # the sglang-style ones (DFlash, DSpark, Uno) read self.target_worker
        # there, which would recurse instead of raising the error below.
        try:
            worker: TpModelWorker = object.__getattribute__(self, "_target_worker")
        except AttributeError:
            name = type(self).__qualname__
            raise WorkerNotInitializedError(
                f"{name}.target_worker was read before it was set: pass "
                f"target_worker= to SpecWorkerBase.__init__ from {name}.__init__ "
                "(or assign self._target_worker there)"
            ) from None
        return worker

    @property
    def draft_worker(self) -> DraftWorker | None:
        """The draft worker, or ``None`` when the algorithm has no draft model."""
        return self._draft_worker

    # -- lifecycle: identical to BaseSpecWorker ---------------------------
    # These read self._draft_worker rather than the property: same value, one
    # attribute lookup less on a path benchmarks/bench_runtime.py measures.

    def alloc_memory_pool(
        self,
        memory_pool_config: MemoryPoolConfig | None = None,
        req_to_token_pool: ReqToTokenPool | None = None,
        token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator | None = None,
    ) -> None:
        """Hand the target's token pools to the draft worker, then keep them.

        Same parameters and calls as ``BaseSpecWorker.alloc_memory_pool``: the
        draft (if any) gets all three as keywords.
        """
        draft = self._draft_worker
        if draft is not None:
            draft.alloc_memory_pool(
                memory_pool_config=memory_pool_config,
                req_to_token_pool=req_to_token_pool,
                token_to_kv_pool_allocator=token_to_kv_pool_allocator,
            )
        self.req_to_token_pool = req_to_token_pool
        self.token_to_kv_pool_allocator = token_to_kv_pool_allocator

    def init_attention_backends(self) -> None:
        """Delegate to the draft worker's ``init_attention_backends()``, if any."""
        draft = self._draft_worker
        if draft is not None:
            draft.init_attention_backends()

    def init_cuda_graphs(self) -> None:
        """Delegate to the draft worker's ``init_cuda_graphs()``, if any."""
        draft = self._draft_worker
        if draft is not None:
            draft.init_cuda_graphs()

    def clear_cache_pool(self) -> None:
        """No-op: the scheduler clears the pools it shares with the target."""

    # -- the step ---------------------------------------------------------

    # Abstract at run time only. A structural check counts an abstract method
    # as present, and neither checker reports an abstract class where
    # @spec_worker_class is applied (mypy checks a class decorator's call with
    # its abstract-class check switched off; pyright has no such check), so a
    # subclass that never wrote this member passed both, and sglang's
    # construction raised TypeError. Unseen by the checkers, the member is
    # what it is on sglang's BaseSpecWorker, absent: a subclass without it
    # fails SpecWorker under mypy and pyright, at the decorator and at any
    # assignment. What that gives up: the checkers no longer hold a subclass's
    # signature to this one as an override (SpecWorker's protocol member, the
    # one sglang calls, still holds it), nor report `SpecWorkerBase(...)`.
    if not TYPE_CHECKING:

        @abc.abstractmethod
        def forward_batch_generation(
            self,
            batch: ScheduleBatch,
            /,
            *,
            on_publish: PublishCallback | None = None,
        ) -> GenerationBatchResult:
            """Run one speculative step. The one member every worker must write."""

    # -- neutral defaults for the rest of SpecWorker ----------------------

    @property
    def graph_memory_usage(self) -> Mapping[str, float]:
        """The draft worker's graph memory usage; empty without a draft."""
        draft = self._draft_worker
        return {} if draft is None else draft.graph_memory_usage

    @property
    def graph_time_usage(self) -> Mapping[str, float]:
        """The draft worker's graph capture time; empty without a draft."""
        draft = self._draft_worker
        return {} if draft is None else draft.graph_time_usage

    @property
    def weight_load_time(self) -> float:
        """The draft worker's weight load time; 0.0 without a draft (as ``BaseSpecWorker``)."""
        draft = self._draft_worker
        return 0.0 if draft is None else draft.weight_load_time

    @property
    def preloaded_weights_bytes(self) -> int:
        """The draft worker's preloaded bytes; 0 without a draft (as ``BaseSpecWorker``)."""
        draft = self._draft_worker
        return 0 if draft is None else draft.preloaded_weights_bytes

    @property
    def hicache_draft_plan(self) -> HiCacheDraftPlan:
        """The empty plan (mode ``NONE``): this base never backs up draft KV."""
        # Deferred import: building the plan object needs sglang, and only a
        # running sglang reads this property.
        from sglang.srt.speculative.base_spec_worker import HiCacheDraftPlan as Plan

        return Plan()

    def init_hicache_draft_plan(self) -> None:
        """No-op. ``BaseSpecWorker`` plans a hierarchical-cache backup here; this base does not."""

    @property
    def draft_swa_window(self) -> int:
        """0: the target's own sliding window covers what the draft reads (as ``BaseSpecWorker``)."""
        return 0

    @property
    def primary_draft_kv_pool(self) -> object:
        """``None``: no draft KV pool is offered for disaggregated transfer."""
        return None

    @property
    def last_shared_read_runner(self) -> ModelRunner:
        """The target's runner (as ``BaseSpecWorker``)."""
        return self.target_worker.model_runner

    def prewarm_sampling(self) -> SamplingPrewarmResult:
        """Warm the target's sampler (as ``BaseSpecWorker``)."""
        return self.target_worker.model_runner.prewarm_sampling()

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        """``[("draft", runner), ...]`` for the draft worker's runners; ``[]`` without a draft.

        ``BaseSpecWorker`` reads ``draft_runners``, which only
        ``EagleDraftWorkerBase`` has; a ``TpModelWorker`` draft contributes its
        ``model_runner`` instead, as DFlash's and DSpark's overrides do.
        """
        draft = self._draft_worker
        if draft is None:
            return []
        if isinstance(draft, _HasDraftRunners):
            return [("draft", runner) for runner in draft.draft_runners]
        if isinstance(draft, _HasModelRunner):
            return [("draft", draft.model_runner)]
        raise TypeError(
            f"{type(self).__qualname__}.weight_update_runners: the draft worker "
            f"{type(draft).__qualname__} has neither draft_runners nor model_runner; "
            "override weight_update_runners"
        )

    def on_verify_complete_cpu(self, num_correct_drafts_per_req: list[int], batch_size: int = 0) -> None:
        """No-op hook (as ``BaseSpecWorker``): called on every speculative decode
        batch once the accept counts are on the CPU. Override it to feed an
        adaptive controller without a GPU sync in the step."""

    def note_request_finished(self, *, rid: str, natural_stop: bool) -> None:
        """No-op hook (as ``BaseSpecWorker``)."""
