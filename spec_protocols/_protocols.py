"""The protocols: what sglang's scheduler and base classes call on a worker.

Every member below comes from a call site in sglang 0.5.23; its docstring names
it and :data:`CALL_SITES` records it for ``spec-protocols explain``. Line
numbers refer to the files of the sglang 0.5.23 wheel (``sglang/srt/...``).

Three rules shape the signatures:

* A parameter that every caller passes by keyword is keyword-only here. A
  worker may still accept it positionally (a keyword-only protocol parameter
  is satisfied by a positional-or-keyword one), but a worker may not rename it.
* A parameter that every caller passes positionally is positional-only here
  (the ``/``), so a worker may name it as it likes.
* A method whose result no caller reads returns ``None``, not ``object``:
  a coroutine is an ``object``, so ``-> object`` would let an ``async def``
  implementation pass, and its body would never run. (The gate holds such a
  result to ``object`` and refuses a coroutine or a generator function on
  a line of its own, which a plain annotation cannot: see ``ReleaseTerms.discarded``.)

Where the real workers legitimately differ, the difference is a separate,
optional *capability* protocol (:class:`SupportsGrammarOverlap`,
:class:`SupportsPipelineProxy`) rather than ``*args: Any, **kwargs: Any``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, TypeVar

from typing_extensions import Protocol, runtime_checkable

from spec_protocols._releases import SGLANG_0_5_19, SGLANG_0_5_20, SGLANG_0_5_21, SGLANG_0_5_22
from spec_protocols._sglang_types import (
    BaseTokenToKVPoolAllocator,
    DraftParallelLayout,
    GenerationBatchResult,
    HiCacheDraftPlan,
    LoadGroup,
    MemoryPoolConfig,
    ModelRunner,
    PPProxyTensors,
    ReqToTokenPool,
    ScheduleBatch,
    ServerArgs,
    TpModelWorker,
)

__all__ = [
    "CALL_SITES",
    "DraftWorker",
    "DraftWorkerFactory",
    "InjectableDraftWorker",
    "SpecAlgorithm",
    "SpecWorker",
    "SpecWorkerFactory",
    "SupportsDraftModelRunners",
    "SupportsGrammarOverlap",
    "SupportsPipelineProxy",
    "SupportsRequestFinished",
    "WorkerClassFactory",
]

#: What the scheduler passes as ``on_publish``: a callback taking the new
#: sequence-length tensor (``functools.partial(future_map.publish, indices)``,
#: scheduler.py:4690). Its argument is a ``torch.Tensor``; it is spelled
#: ``...`` because torch is not a dependency of the protocols.
PublishCallback = Callable[..., object]

#: What the scheduler passes as ``grammar_barrier`` (scheduler.py:4699):
#: ``Scheduler._advance_pending_grammar``, a bound method the worker calls.
GrammarBarrier = Callable[..., object]


@runtime_checkable
class DraftWorker(Protocol):
    """A draft-model worker, as ``BaseSpecWorker`` drives it.

    Both kinds of draft worker that sglang 0.5.23 uses satisfy it: the
    ``EagleDraftWorkerBase`` subclasses (EAGLE, standalone, multi-layer EAGLE,
    frozen-KV MTP) and a plain ``TpModelWorker`` (DFlash, DSpark, and any class
    injected through ``build_draft_tp_worker(draft_worker_cls=...)``).

    The members are exactly those that ``BaseSpecWorker``'s defaults call or
    read on ``self.draft_worker`` for every algorithm
    (``sglang/srt/speculative/base_spec_worker.py``). ``draft_runners`` is
    deliberately absent: ``BaseSpecWorker.weight_update_runners`` reads it, but
    ``TpModelWorker`` has no such member, so DFlash and DSpark override
    ``weight_update_runners`` instead. Requiring it would reject a real draft
    worker.
    """

    def alloc_memory_pool(
        self,
        *,
        memory_pool_config: MemoryPoolConfig | None,
        req_to_token_pool: ReqToTokenPool | None,
        token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator | None,
    ) -> None:
        """Allocate (or adopt) the draft's KV pools.

        Called by ``BaseSpecWorker.alloc_memory_pool`` (base_spec_worker.py:363)
        with all three keywords, each its own argument (None by default
        there). Keyword-only because that is how it is called, and no default
        required, since no call omits one;
        ``EagleDraftWorkerBase.alloc_memory_pool(**kwargs)`` and
        ``TpModelWorker.alloc_memory_pool(memory_pool_config=None, ...)`` both
        accept it.
        """
        ...

    def init_attention_backends(self) -> None:
        """Build the draft's attention backends.

        Called with no arguments by ``BaseSpecWorker.init_attention_backends``
        (base_spec_worker.py:373).
        """
        ...

    def init_cuda_graphs(self) -> None:
        """Capture the draft's CUDA graphs.

        Called with no arguments by ``BaseSpecWorker.init_cuda_graphs``
        (base_spec_worker.py:377). ``TpModelWorker`` takes an optional
        ``capture_decode_cuda_graph``; that is compatible.
        """
        ...

    @property
    def graph_memory_usage(self) -> Mapping[str, float]:
        """Graph-capture memory by phase, in GB.

        Read by ``BaseSpecWorker.graph_memory_usage`` (base_spec_worker.py:217).
        """
        ...

    @property
    def graph_time_usage(self) -> Mapping[str, float]:
        """Graph-capture time by phase, in seconds.

        Read by ``BaseSpecWorker.graph_time_usage`` (base_spec_worker.py:228).
        """
        ...

    @property
    def weight_load_time(self) -> float:
        """Seconds spent loading the draft's weights.

        Read by ``BaseSpecWorker.weight_load_time`` (base_spec_worker.py:238).
        """
        ...

    @property
    def preloaded_weights_bytes(self) -> int:
        """Bytes of draft weights loaded before the KV pools are sized.

        Read by ``BaseSpecWorker.preloaded_weights_bytes`` (base_spec_worker.py:247).
        """
        ...


@runtime_checkable
class InjectableDraftWorker(DraftWorker, Protocol):
    """A draft worker that ``build_draft_tp_worker`` can build: a
    :class:`DraftWorker` whose ``model_runner`` it reads.

    Right after construction, ``build_draft_tp_worker`` reads
    ``draft_worker.model_runner`` (and stores it as ``draft_worker.draft_runner``,
    an attribute it sets itself) in every supported release
    (speculative/draft_worker_common.py). ``TpModelWorker`` has it.
    """

    @property
    def model_runner(self) -> ModelRunner:
        """The draft model's runner. Read by ``build_draft_tp_worker`` on what it built."""
        ...


_W_co = TypeVar("_W_co", bound=InjectableDraftWorker, covariant=True)


class DraftWorkerFactory(Protocol[_W_co]):
    """A class (or any callable) that ``build_draft_tp_worker`` can construct.

    ``sglang.srt.speculative.draft_worker_common.build_draft_tp_worker`` calls
    ``draft_worker_cls(...)`` with exactly these keywords (sglang 0.5.22 and
    0.5.23; 0.5.21 passes no ``load_group``, 0.5.19 and 0.5.20 pass ``ps`` and
    neither ``random_seed`` nor ``load_group``: the gate checks each release's
    own keywords). sglang types the parameter ``type[TpModelWorker]``, which
    accepts any subclass whatever its ``__init__`` takes; this protocol makes
    checkers compare the constructor itself. The type parameter is what the
    call builds, an :class:`InjectableDraftWorker`, so a custom class's type
    reaches the caller of :func:`spec_protocols.build_draft_tp_worker`.

    All parameters are keyword-only because the call site passes them by
    keyword. A class may accept more (with defaults), never fewer.
    """

    def __call__(
        self,
        *,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        is_draft_worker: bool,
        random_seed: int | None,
        load_group: LoadGroup,
        context_length: int | None,
        draft_attention_backend: str | None,
    ) -> _W_co: ...


@runtime_checkable
class SpecWorker(Protocol):
    """A speculative-decoding worker, as sglang's scheduler drives it.

    The scheduler builds one with ``SpeculativeAlgorithm.create_worker(...)``
    (:class:`SpecWorkerFactory`) and stores it as ``Scheduler.draft_worker``; in
    speculative mode it is also ``Scheduler.model_worker``. Every member here is
    read or called there, or in the scheduler's components, for every
    algorithm, in the releases its branch names: the members come from each
    release's own call sites (``spec-protocols contract`` extracts them; call
    sites below are sglang 0.5.23's, under ``sglang/srt/``). What the scheduler
    reaches only for one algorithm, only behind ``getattr``/``hasattr``, or only
    for ``BaseSpecWorker`` instances (``note_request_finished``) is not part of
    it, and neither is ``target_worker``/``draft_worker``: no call site reads
    them; ``BaseSpecWorker``'s own defaults do (:class:`SpecWorkerBase` has
    them too).

    Subclass :class:`spec_protocols.SpecWorkerBase` (or sglang's
    ``BaseSpecWorker``) to inherit defaults for everything but
    :meth:`forward_batch_generation`.
    """

    def alloc_memory_pool(
        self,
        *,
        memory_pool_config: MemoryPoolConfig | None,
        req_to_token_pool: ReqToTokenPool,
        token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator,
    ) -> None:
        """Allocate the draft's KV pools, sharing the target's token pools.

        Called by ``Scheduler.init_memory_pools`` with all three keywords, in
        every supported release (0.5.23: managers/scheduler.py:1106, its only
        caller): keyword-only for that reason, and with no default, since no
        call omits one. The values are what it passes: the target model
        runner's ``memory_pool_config`` (Optional) and
        ``TpModelWorker.get_memory_pool()``'s pair. NGRAM's
        ``alloc_memory_pool(**kwargs)`` satisfies it, and so does a signature
        with defaults.
        """
        ...

    def init_hicache_draft_plan(self) -> None:
        """Decide how the draft's KV is backed up by hierarchical caching.

        Called by ``Scheduler.init_memory_pools`` right after
        :meth:`alloc_memory_pool`.
        """
        ...

    def init_attention_backends(self) -> None:
        """Build attention backends. Called by ``Scheduler.init_all_attention_backends``."""
        ...

    def init_cuda_graphs(self) -> None:
        """Capture CUDA graphs. Called by ``Scheduler.init_all_cuda_graphs``."""
        ...

    def clear_cache_pool(self) -> None:
        """Reset draft-side caches on a cache flush. Called by ``Scheduler.flush_cache``."""
        ...

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: PublishCallback | None = ...,
    ) -> GenerationBatchResult:
        """Run one speculative step (draft, verify, draft-extend) on a batch.

        Called by ``Scheduler.run_batch``: ``(batch, on_publish=...)`` under
        overlap scheduling and ``(batch)`` otherwise. ``batch`` is always
        positional, so it is positional-only here; ``on_publish`` is always a
        keyword. The two keywords that only some paths pass are capability
        protocols: :class:`SupportsGrammarOverlap` (``grammar_barrier``, for
        grammar-overlap algorithms) and :class:`SupportsPipelineProxy`
        (``pp_proxy_tensors``, on the path without overlap scheduling).
        """
        ...

    def on_verify_complete_cpu(self, num_correct_drafts_per_req: list[int], /, *, batch_size: int) -> None:
        """Hook called on every speculative decode batch, once verify's accept
        counts are on the CPU.

        Called by ``SchedulerBatchResultProcessor._resolve_spec_v2_tokens``
        (managers/scheduler_components/batch_result_processor.py) as
        ``(counts, batch_size=...)`` in every supported release: the list
        positionally, ``batch_size`` always by keyword. ``BaseSpecWorker`` and
        :class:`SpecWorkerBase` make it a no-op.
        """
        ...

    @property
    def graph_memory_usage(self) -> Mapping[str, float]:
        """Draft graph-capture memory by phase. Read by ``Scheduler.emit_metrics_constants``."""
        ...

    @property
    def graph_time_usage(self) -> Mapping[str, float]:
        """Draft graph-capture time by phase. Read by ``Scheduler.init_startup_timing_summary``."""
        ...

    @property
    def weight_load_time(self) -> float:
        """Seconds spent loading draft weights. Read by ``Scheduler.init_startup_timing_summary``."""
        ...

    @property
    def preloaded_weights_bytes(self) -> int:
        """Draft weight bytes loaded before KV sizing. Read by ``Scheduler.init_target_memory_pool``."""
        ...

    @property
    def hicache_draft_plan(self) -> HiCacheDraftPlan | None:
        """The plan made by :meth:`init_hicache_draft_plan`. Read by ``Scheduler.__init__`` and
        ``Scheduler.init_memory_pools``, which hand it on to
        ``kv_cache_builder`` (``hicache_draft_plan: Optional[HiCacheDraftPlan]``,
        ``prepare_hicache_staging(draft_plan: Optional[HiCacheDraftPlan])``):
        ``None`` (no draft plan) is a value sglang takes."""
        ...

    @property
    def primary_draft_kv_pool(self) -> object:
        """The draft KV pool that disaggregation transfers, or ``None``.

        Read by ``Scheduler.init_disaggregation``; the scheduler only passes it on.
        """
        ...

    @property
    def last_shared_read_runner(self) -> ModelRunner:
        """The runner whose read-done event the scheduler's WAR barrier waits on.

        Read by ``Scheduler._apply_war_barrier`` (and, from 0.5.23, the
        disaggregation prefill mixin).
        """
        ...

    if not SGLANG_0_5_19:

        def prewarm_sampling(self) -> object:
            """Warm the sampler before serving; the result is unused.

            Called by ``Scheduler`` at start-up from sglang 0.5.20 on
            (managers/scheduler.py: ``self.draft_worker.prewarm_sampling()``,
            a statement): sglang discards the value, so any return type
            conforms (sglang's own return ``SamplingPrewarmResult``, a plugin's
            may return ``None``). An ``async def`` would also type-check as
            ``object``; the runtime and replay checkers read the function
            itself and fail it.
            """
            ...

    if not (SGLANG_0_5_19 or SGLANG_0_5_20):

        def weight_update_runners(self) -> Iterable[tuple[str, ModelRunner]]:
            """``(role, runner)`` pairs that weight updates apply to.

            Called by ``WeightUpdater._select_runners``
            (scheduler_components/weight_updater.py) from sglang 0.5.21 on, which
            does ``runners += ...``, so any iterable of pairs works.
            """
            ...

    if not (SGLANG_0_5_19 or SGLANG_0_5_20 or SGLANG_0_5_21 or SGLANG_0_5_22):

        @property
        def draft_parallel_layout(self) -> DraftParallelLayout | None:
            """The draft's parallel layout, passed to the target's pool allocation.

            Read by ``Scheduler`` from sglang 0.5.23 on. Read-only here:
            ``BaseSpecWorker`` declares it as a class variable and
            ``EAGLEWorkerV2`` as a property; a read-only protocol member
            accepts both.
            """
            ...

        @property
        def draft_swa_window(self) -> int:
            """Tokens back from the committed length that the draft reads in the
            target's sliding-window pool. Read by ``Scheduler.__init__`` from
            sglang 0.5.23 on."""
            ...


class SpecWorkerFactory(Protocol):
    """The constructor call sglang makes to build a speculative worker.

    ``Scheduler.maybe_init_draft_worker`` (managers/scheduler.py:1056-1064)
    asks the algorithm for its worker class (``create_worker``, which for a
    plugin returns whatever its registered factory returns) and calls it with
    exactly these keywords. A worker whose ``__init__`` renames or lacks one of
    them raises ``TypeError`` when the server starts; one that is abstract
    cannot be built at all. The gate checks every concrete spec worker's
    constructor against this call.

    Keyword-only because the call site passes them by keyword. A worker may
    accept more (with defaults), never fewer.
    """

    def __call__(
        self,
        *,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        target_worker: TpModelWorker,
    ) -> SpecWorker: ...


class WorkerClassFactory(Protocol):
    """The factory a plugin registers: ``SpeculativeAlgorithm.register(name, ...)(factory)``.

    ``CustomSpecAlgo.create_worker`` returns ``self.factory(server_args)``
    (speculative/spec_registry.py:152), one positional argument, and the
    scheduler builds what it returns (:class:`SpecWorkerFactory`). So the
    parameter is positional-only here (any name will do), and a factory that
    cannot take it positionally (``def f(*, server_args)``) raises
    ``TypeError`` when the server starts. What it returns is ``type``, as
    sglang's own ``WorkerFactory`` says: the gate checks each class a
    factory's returns name as a spec worker in its own row.
    """

    def __call__(self, server_args: ServerArgs, /) -> type: ...


@runtime_checkable
class SpecAlgorithm(Protocol):
    """The algorithm object: what sglang calls on ``spec_algorithm``.

    ``SpeculativeAlgorithm.from_string(name)`` returns a member of the enum
    ``SpeculativeAlgorithm`` for a built-in algorithm and, for a plugin's,
    the object ``register`` made: an instance of its ``spec_class``
    (``CustomSpecAlgo`` unless the registration passes one;
    speculative/spec_info.py ``from_string``, spec_registry.py
    ``register_algorithm``). The scheduler, the model runner, the batch
    processors, the overlap utilities and the server-argument hooks then
    call it as they call the enum, without an ``isinstance`` check. The
    members are exactly the enum's methods that sglang calls on it outside
    the enum and ``CustomSpecAlgo`` themselves (the gate re-reads them from
    each release's source; :data:`CALL_SITES` names where, in 0.5.23).

    ``CustomSpecAlgo`` lacks ``carries_draft_hidden_states``,
    ``create_future_map`` and ``need_topk`` in sglang 0.5.18 to 0.5.23, and
    ``Scheduler.__init__`` calls the first two unconditionally: a plugin
    registered with the default ``spec_class`` crashes at start-up. Pass a
    class that also derives from :class:`spec_protocols.SpecAlgorithmBase`.

    Every predicate takes no argument and is read as a ``bool``. Arguments
    that sglang passes positionally are positional-only here; those it
    passes by keyword are keyword-only. Parameters whose sglang type the
    stubs do not carry (``torch.device``, ``torch.Tensor``, ``FutureMap``)
    are ``Any``: torch is no dependency of the protocols, and a parameter
    typed ``object`` would reject an implementation that annotates the real
    type. A result the protocols cannot name is ``object``.
    """

    # -- the predicates: every dispatch on the algorithm ----------------------
    def is_some(self) -> bool:
        """Speculative mode on; called by overlap_utils.py (FutureMap._maybe_init_forward_bufs)."""
        ...

    def is_none(self) -> bool:
        """No speculative algorithm; the scheduler's, model runner's and batch processors' main test."""
        ...

    def is_speculative(self) -> bool:
        """Speculative mode on; scheduler and model runner."""
        ...

    def is_eagle(self) -> bool:
        """EAGLE family; scheduler, model runner, disaggregation."""
        ...

    def is_eagle3(self) -> bool:
        """EAGLE3; model runner (auxiliary hidden states)."""
        ...

    def is_frozen_kv_mtp(self) -> bool:
        """Frozen-KV MTP; model runner."""
        ...

    def is_dflash(self) -> bool:
        """DFlash; model runner, scheduler."""
        ...

    def is_dspark(self) -> bool:
        """DSpark; scheduler, batch processors."""
        ...

    def is_dflash_family(self) -> bool:
        """DFlash or DSpark; model runner, scheduler."""
        ...

    def is_standalone(self) -> bool:
        """Standalone draft model; model runner, scheduler."""
        ...

    def is_ngram(self) -> bool:
        """NGRAM; scheduler, memory sizing."""
        ...

    def supports_target_verify_for_draft(self) -> bool:
        """Whether the draft runs target-verify graphs; model runner."""
        ...

    def supports_mixed_chunk(self) -> bool:
        """Whether mixed chunked prefill may stay on; arg_groups/speculative_hook.py, validation_hook.py."""
        ...

    def supports_ragged_verify(self) -> bool:
        """Whether verify may carry per-request lengths; cuda graph runner."""
        ...

    def supports_grammar_overlap(self) -> bool:
        """Whether the overlap call adds ``grammar_barrier=``; scheduler.py run_batch."""
        ...

    def has_draft_kv(self) -> bool:
        """Whether the draft phase writes KV; mem_cache/allocation_sizing.py:52."""
        ...

    def carries_draft_hidden_states(self) -> bool:
        """Whether the PD transfer carries draft hidden states.

        Called unconditionally by ``Scheduler.init_disaggregation``
        (managers/scheduler.py:1540), from ``Scheduler.__init__``.
        ``CustomSpecAlgo`` lacks it (0.5.18-0.5.23).
        """
        ...

    def need_topk(self) -> bool:
        """Whether the overlap relay keeps top-k buffers.

        Called by ``FutureMap._maybe_init_forward_bufs``
        (managers/overlap_utils.py:381) once a decode payload arrives.
        ``CustomSpecAlgo`` lacks it (0.5.18-0.5.23).
        """
        ...

    if not SGLANG_0_5_19:

        def is_uno(self) -> bool:
            """UNO; model runner, scheduler, memory sizing (0.5.20+)."""
            ...

    if not (SGLANG_0_5_19 or SGLANG_0_5_20):

        def supports_prefill_shared_read_done(self) -> bool:
            """Whether target EXTEND has no later shared-buffer reader; runner_utils/shared_read_event.py (0.5.21+)."""
            ...

    # -- the calls with arguments -----------------------------------------------
    def create_future_map(
        self,
        device: Any,
        req_to_token_pool: ReqToTokenPool,
        /,
        *,
        needs_cpu_seq_lens: bool,
        needs_confidence_relay: bool,
    ) -> object:
        """The overlap scheduler's future map.

        Called unconditionally by ``Scheduler.init_overlap``
        (managers/scheduler.py:1681) as ``create_future_map(self.device,
        self.req_to_token_pool, needs_cpu_seq_lens=...,
        needs_confidence_relay=...)``, from ``Scheduler.__init__``.
        ``CustomSpecAlgo`` lacks it (0.5.18-0.5.23); the enum builds
        ``overlap_utils.FutureMap(device, self, req_to_token_pool, ...)``.
        """
        ...

    def build_disagg_draft_input(self, batch: ScheduleBatch, last_tokens_tensor: Any, future_map: Any, /) -> object:
        """The PD decode side's first draft input, or ``None``; disaggregation/decode_schedule_batch_mixin.py:146."""
        ...

    def handle_server_args(self, server_args: ServerArgs, /) -> None:
        """Per-algorithm server-argument changes; arg_groups/speculative_hook.py:278-284 (read, then called)."""
        ...

    def resolve_max_speculative_num_draft_tokens(self, server_args: ServerArgs, /) -> int | None:
        """The largest draft-token width the algorithm may use; arg_groups/overrides.py:1945."""
        ...

    def get_num_tokens_per_req_for_target_verify(self, num_draft_tokens: int, /, is_draft_worker: bool) -> int:
        """Tokens per request in target verify; speculative/spec_utils.py:107.

        ``is_draft_worker`` is positional-or-keyword: spec_utils passes it by
        position, the Ascend backend (hardware_backend/npu/attention/ascend_backend.py:395)
        by name, so its name is part of the contract.
        """
        ...

    def create_worker(self, server_args: ServerArgs, /) -> type | None:
        """The spec worker class the scheduler builds; managers/scheduler.py:1063 (Scheduler.maybe_init_draft_worker).

        ``type | None`` as the enum annotates it (``Optional[...]``: its
        ``NONE`` member asserts instead), so that sglang's own algorithm
        objects conform; ``CustomSpecAlgo``'s returns ``self.factory(server_args)``.
        """
        ...


@runtime_checkable
class SupportsGrammarOverlap(Protocol):
    """A worker that advances the grammar FSM inside verify.

    The scheduler adds ``grammar_barrier=`` to the overlap call of
    ``forward_batch_generation`` when the algorithm reports
    ``supports_grammar_overlap()`` (scheduler.py:4698). NGRAM's worker does not
    take it.
    """

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: PublishCallback | None = ...,
        grammar_barrier: GrammarBarrier | None = ...,
    ) -> GenerationBatchResult:
        """As :meth:`SpecWorker.forward_batch_generation`, plus ``grammar_barrier``."""
        ...


@runtime_checkable
class SupportsPipelineProxy(Protocol):
    """A worker that can run under pipeline parallelism.

    The scheduler's pipeline-parallel and non-overlap paths call
    ``forward_batch_generation(batch, pp_proxy_tensors=...)``
    (scheduler.py:4816, 4829). Uno's and frozen-KV MTP's workers do not take
    ``pp_proxy_tensors``; those paths would raise ``TypeError`` for them.
    """

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: PublishCallback | None = ...,
        pp_proxy_tensors: PPProxyTensors | None = ...,
    ) -> GenerationBatchResult:
        """As :meth:`SpecWorker.forward_batch_generation`, plus ``pp_proxy_tensors``."""
        ...


@runtime_checkable
class SupportsRequestFinished(Protocol):
    """A worker that wants to hear when a request finishes.

    sglang 0.5.23's batch-result processor calls
    ``draft_worker.note_request_finished(rid=..., natural_stop=...)`` for every
    finished request (batch_result_processor.py:1442), but only behind
    ``isinstance(draft_worker, BaseSpecWorker)``: a worker that conforms to
    :class:`SpecWorker` without that base never gets the hook. The sglang
    integration series (integrations/sglang/) guards the call with this
    protocol instead. ``BaseSpecWorker``'s default is a no-op; DSpark settles
    its block-accept estimator in it.

    ``isinstance`` against it is answered per class from a cache
    (:mod:`spec_protocols._isinstance_cache`): the guard runs for every
    finished request, so it must cost no more than the nominal check
    (benchmarks/isinstance_protocol.py).
    """

    def note_request_finished(self, *, rid: str, natural_stop: bool) -> None:
        """``rid`` finished; ``natural_stop`` is true for a matched stop token."""
        ...


@runtime_checkable
class SupportsDraftModelRunners(Protocol):
    """A worker whose draft model has runners of its own, with KV pools to size.

    After graph capture, sglang 0.5.23's scheduler resizes the KV pools for
    ``self.draft_worker._draft_model_runners()`` (scheduler.py:1176,
    ``Scheduler.init_model_worker``): a private ``BaseSpecWorker`` method,
    called on any worker. The sglang integration series makes it public as
    ``draft_model_runners()`` and calls it only on a worker with this
    capability; a worker without it has no draft runners to size (NGRAM's
    kind).
    """

    def draft_model_runners(self) -> Sequence[ModelRunner]:
        """The draft model's runners, in pool order; empty when the draft keeps no KV."""
        ...


#: The protocols a user may name by string (``spec-protocols explain NAME``,
#: ``assert_conforms(cls, "NAME")``), in the order error messages list them:
#: the two worker protocols, the draft factory, then the capabilities.
PROTOCOL_NAMES: Final[tuple[str, ...]] = (
    "SpecWorker",
    "DraftWorker",
    "DraftWorkerFactory",
    "SupportsGrammarOverlap",
    "SupportsPipelineProxy",
    "SupportsRequestFinished",
    "SupportsDraftModelRunners",
    "SpecAlgorithm",
)


#: Where each protocol member is called, in the sglang 0.5.23 source (the
#: newest supported release). ``spec-protocols explain`` prints these;
#: tests/slow/test_contract_coverage.py holds them to the contract extracted from
#: sglang 0.5.23's own source.
CALL_SITES: Final[Mapping[str, Mapping[str, str]]] = {
    "SpecWorker": {
        "alloc_memory_pool": "managers/scheduler.py:1106 (Scheduler.init_memory_pools)",
        "init_hicache_draft_plan": "managers/scheduler.py:1111 (Scheduler.init_memory_pools)",
        "init_attention_backends": "managers/scheduler.py:1117 (Scheduler.init_all_attention_backends)",
        "init_cuda_graphs": "managers/scheduler.py:1126 (Scheduler.init_all_cuda_graphs)",
        "clear_cache_pool": "managers/scheduler.py:5531 (Scheduler.flush_cache)",
        "forward_batch_generation": "managers/scheduler.py:4704,4870 (Scheduler.run_batch)",
        "on_verify_complete_cpu": "managers/scheduler_components/batch_result_processor.py:804 "
        "(SchedulerBatchResultProcessor._resolve_spec_v2_tokens)",
        "graph_memory_usage": "managers/scheduler.py:1294 (Scheduler.emit_metrics_constants)",
        "graph_time_usage": "managers/scheduler.py:757 (Scheduler.init_startup_timing_summary)",
        "weight_load_time": "managers/scheduler.py:749 (Scheduler.init_startup_timing_summary)",
        "preloaded_weights_bytes": "managers/scheduler.py:1088 (Scheduler.init_target_memory_pool)",
        "hicache_draft_plan": "managers/scheduler.py:594,1153 (Scheduler.__init__, Scheduler.init_model_worker)",
        "primary_draft_kv_pool": "managers/scheduler.py:1535 (Scheduler.init_disaggregation)",
        "last_shared_read_runner": "managers/scheduler.py:2017 (Scheduler._apply_war_barrier)",
        "prewarm_sampling": "managers/scheduler.py:1171 (Scheduler.init_model_worker; 0.5.20+)",
        "weight_update_runners": "managers/scheduler_components/weight_updater.py:184 (_select_runners; 0.5.21+)",
        "draft_parallel_layout": "managers/scheduler.py:1092 (Scheduler.init_target_memory_pool; 0.5.23+)",
        "draft_swa_window": "managers/scheduler.py:599 (Scheduler.__init__; 0.5.23+)",
    },
    "DraftWorker": {
        "alloc_memory_pool": "speculative/base_spec_worker.py:363 (BaseSpecWorker.alloc_memory_pool)",
        "init_attention_backends": "speculative/base_spec_worker.py:373",
        "init_cuda_graphs": "speculative/base_spec_worker.py:377",
        "graph_memory_usage": "speculative/base_spec_worker.py:217",
        "graph_time_usage": "speculative/base_spec_worker.py:228",
        "weight_load_time": "speculative/base_spec_worker.py:238",
        "preloaded_weights_bytes": "speculative/base_spec_worker.py:247",
    },
    "DraftWorkerFactory": {
        "__call__": "speculative/draft_worker_common.py:92 (build_draft_tp_worker)",
    },
    "InjectableDraftWorker": {
        "model_runner": "speculative/draft_worker_common.py:104 (build_draft_tp_worker, on what it built)",
    },
    "SpecWorkerFactory": {
        "__call__": "managers/scheduler.py:1056-1064 (Scheduler.maybe_init_draft_worker)",
    },
    # The first of each member's call sites (the scheduler's first, then the
    # managers', the model executor's...), read by the gate's algorithm-object
    # reader (gate/_contract/_extract/_algorithm_object.py), which lists them all.
    "SpecAlgorithm": {
        "is_some": "managers/overlap_utils.py:380 (FutureMap._maybe_init_forward_bufs; 4 sites)",
        "is_none": "managers/scheduler.py:1036 (Scheduler.maybe_init_draft_worker; 50 sites)",
        "is_speculative": "model_executor/model_runner.py:880 (ModelRunner.decode_num_tokens_per_req; 17 sites)",
        "is_eagle": "managers/mm_utils.py:831 (prepare_mm_inputs; 58 sites)",
        "is_eagle3": "model_executor/model_runner_components/spec_aux_hidden_state.py:185 (_resolve_eagle_aux_hidden_state; 8 sites)",
        "is_frozen_kv_mtp": "model_executor/runner/eager_runner.py:114 (EagerRunner.__init__; 7 sites)",
        "is_dflash": "managers/scheduler_components/internal_state.py:198 (SchedulerInternalStateController._validate_accept_threshold; 9 sites)",
        "is_dspark": "managers/scheduler.py:5036 (Scheduler._copy_result_to_cpu; 39 sites)",
        "is_dflash_family": "managers/scheduler.py:1231 (Scheduler.init_model_worker; 28 sites)",
        "is_standalone": "managers/overlap_utils.py:447 (FutureMap.make_staged_spec_input; 26 sites)",
        "is_ngram": "managers/scheduler.py:1066 (Scheduler.maybe_init_draft_worker; 11 sites)",
        "supports_target_verify_for_draft": "model_executor/runner/base_runner.py:512 (BaseRunner._dummy_run; 2 sites)",
        "supports_mixed_chunk": "arg_groups/speculative_hook.py:1108 (_handle_eagle_family; 2 sites)",
        "supports_ragged_verify": "model_executor/runner/decode_cuda_graph_runner.py:163 (ragged_verify_compact_graphs_enabled)",
        "supports_grammar_overlap": "managers/scheduler.py:4698 (Scheduler.run_batch; 2 sites)",
        "has_draft_kv": "mem_cache/allocation_sizing.py:52 (get_alloc_len_per_decode)",
        "carries_draft_hidden_states": "managers/scheduler.py:1540 (Scheduler.init_disaggregation)",
        "need_topk": "managers/overlap_utils.py:381 (FutureMap._maybe_init_forward_bufs)",
        "is_uno": "managers/scheduler.py:3152 (Scheduler._handle_generate_request; 8 sites)",
        "supports_prefill_shared_read_done": "model_executor/runner_utils/shared_read_event.py:31 (maybe_publish_prefill_shared_read_done)",
        "create_future_map": "managers/scheduler.py:1681 (Scheduler.init_overlap)",
        "build_disagg_draft_input": "disaggregation/decode_schedule_batch_mixin.py:146 (ScheduleBatchDisaggregationDecodeMixin.process_prebuilt)",
        "handle_server_args": "arg_groups/speculative_hook.py:278 (handle_speculative_decoding; 2 sites)",
        "resolve_max_speculative_num_draft_tokens": "arg_groups/overrides.py:1943 (max_speculative_num_draft_tokens)",
        "get_num_tokens_per_req_for_target_verify": "speculative/spec_utils.py:107 (resolve_num_tokens_per_req; 2 sites)",
        "create_worker": "managers/scheduler.py:1063 (Scheduler.maybe_init_draft_worker)",
    },
    "WorkerClassFactory": {
        "__call__": "speculative/spec_registry.py:152 (CustomSpecAlgo.create_worker: self.factory(server_args))",
    },
    "SupportsGrammarOverlap": {
        "forward_batch_generation": "managers/scheduler.py:4698-4704 (grammar_barrier=)",
    },
    "SupportsPipelineProxy": {
        "forward_batch_generation": "managers/scheduler.py:4816,4829 (pp_proxy_tensors=)",
    },
    "SupportsRequestFinished": {
        "note_request_finished": "managers/scheduler_components/batch_result_processor.py:1442 "
        "(SchedulerBatchResultProcessor._handle_finish_state_updated_req; behind isinstance BaseSpecWorker)",
    },
    "SupportsDraftModelRunners": {
        "draft_model_runners": "managers/scheduler.py:1176 (Scheduler.init_model_worker; "
        "the private _draft_model_runners() before the integration series)",
    },
}


# isinstance() on these protocols answers per class, from a cache; see
# spec_protocols/_isinstance_cache.py for what it keys on and when it resets.
from spec_protocols._isinstance_cache import install_isinstance_cache  # noqa: E402 - needs the classes above

install_isinstance_cache(
    DraftWorker,
    InjectableDraftWorker,
    SpecAlgorithm,
    SpecWorker,
    SupportsDraftModelRunners,
    SupportsGrammarOverlap,
    SupportsPipelineProxy,
    SupportsRequestFinished,
)
