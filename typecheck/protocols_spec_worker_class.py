"""``@spec_worker_class`` makes both checkers judge a spec worker where it is defined.

sglang facts: ``Scheduler.maybe_init_draft_worker`` (managers/scheduler.py
~1056-1064) builds the plugin's worker as ``WorkerClass(server_args=,
gpu_id=, nccl_port=, target_worker=)``, and then calls and reads the
``SpecWorker`` members on it (``run_batch`` calls
``forward_batch_generation(batch, on_publish=...)`` under overlap scheduling;
``init_model_worker`` calls ``prewarm_sampling()`` from 0.5.20 on). sglang
types what a plugin's factory returns as a bare ``type``, so nothing checks
either half unless the class is decorated.

Where each checker reports a broken class: mypy on the ``class`` line
(``[type-var]``), pyright on the decorator line (``reportArgumentType``, plus
``reportUntypedClassDecorator`` in strict mode). Hence each negative case
carries its mypy ignore on the ``class`` line and its pyright ignore on the
decorator. Neither checker reports an abstract class here (mypy checks a
class decorator's call with its abstract-class check off, pyright has no such
check; see protocols_draft_worker_factory.py); the decorator keeps it
abstract, so its instantiation is still an error, and the gate rejects it.
The one abstract member of ``SpecWorkerBase``, ``forward_batch_generation``,
is abstract at run time only (spec_protocols/_base.py), so a subclass that
never writes it is reported here as a missing member (``NoForward``).
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Final, Generic, TypeVar

from sglang.srt.configs.draft_parallel import DraftParallelLayout
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.managers.utils import GenerationBatchResult
from sglang.srt.mem_cache.allocator import BaseTokenToKVPoolAllocator
from sglang.srt.mem_cache.memory_pool import ReqToTokenPool
from sglang.srt.model_executor.model_runner import ModelRunner, SamplingPrewarmResult
from sglang.srt.model_executor.pool_configurator import MemoryPoolConfig
from sglang.srt.server_args import ServerArgs
from sglang.srt.speculative.base_spec_worker import HiCacheDraftPlan
from typing_extensions import assert_type

from spec_protocols import SpecWorker, SpecWorkerBase, spec_worker_class

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING

T = TypeVar("T")


# --- a SpecWorkerBase subclass: the decorator adds the constructor check -----


@spec_worker_class
class Worker(SpecWorkerBase):
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)

    def forward_batch_generation(self, batch: ScheduleBatch, /, *, on_publish: object = None) -> GenerationBatchResult:
        raise NotImplementedError


@spec_worker_class
class KeywordOnlyWorker(Worker):
    # Keyword-only, with an extra option that has a default: sglang passes
    # its four keywords and no more.
    def __init__(
        self,
        *,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        target_worker: TpModelWorker,
        num_steps: int = 3,
    ) -> None:
        super().__init__(server_args, gpu_id, nccl_port, target_worker)


@spec_worker_class
class GenericWorker(Worker, Generic[T]):
    # Generic: the decorated name is still the generic class.
    def option(self) -> T:
        raise NotImplementedError


class _KindMeta(abc.ABCMeta):
    @property
    def kind(cls) -> str:
        return cls.__name__


@spec_worker_class
class MetaWorker(Worker, metaclass=_KindMeta):
    # A metaclass of its own: the decorated name keeps it.
    pass


@spec_worker_class
class AbstractWorker(Worker):
    # Not reported by either checker at the decorator (see the docstring).
    @abc.abstractmethod
    def draft(self) -> None: ...


def decorated_classes_keep_their_types(server_args: ServerArgs, target: TpModelWorker) -> None:
    worker = Worker(server_args, 0, 0, target)
    assert_type(worker, Worker)
    as_spec: SpecWorker = worker
    del as_spec
    assert_type(KeywordOnlyWorker(server_args=server_args, gpu_id=0, nccl_port=0, target_worker=target), KeywordOnlyWorker)
    generic = GenericWorker[int](server_args, 0, 0, target)
    assert_type(generic, GenericWorker[int])
    assert_type(generic.option(), int)
    assert_type(MetaWorker.kind, str)
    if TYPE_CHECKING_INVALID_USAGE:
        AbstractWorker(server_args, 0, 0, target)  # type: ignore[abstract]  # pyright: ignore[reportAbstractUsage]


# A constructor sglang cannot call: SpecWorkerBase's own, which takes only
# target_worker= and draft_worker= (the scheduler passes server_args= too).
if TYPE_CHECKING_INVALID_USAGE:

    @spec_worker_class  # pyright: ignore[reportArgumentType, reportUntypedClassDecorator]
    class InheritsBaseConstructor(SpecWorkerBase):  # type: ignore[type-var]
        def forward_batch_generation(
            self, batch: ScheduleBatch, /, *, on_publish: object = None
        ) -> GenerationBatchResult:
            raise NotImplementedError

    # sglang 0.5.19-0.5.20's constructor: requires ps=, which 0.5.23 no longer passes.
    @spec_worker_class  # pyright: ignore[reportArgumentType, reportUntypedClassDecorator]
    class OldConstructor(Worker):  # type: ignore[type-var]
        def __init__(
            self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker, ps: object
        ) -> None:
            super().__init__(server_args, gpu_id, nccl_port, target_worker)

    # The member every SpecWorkerBase subclass must write, not written: at run
    # time the class is abstract and the scheduler's construction raises
    # TypeError; to the checkers SpecWorkerBase does not declare it, so what
    # the class builds is no SpecWorker.
    @spec_worker_class  # pyright: ignore[reportArgumentType, reportUntypedClassDecorator]
    class NoForward(SpecWorkerBase):  # type: ignore[type-var]
        def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
            super().__init__(target_worker=target_worker)

    # A renamed keyword: the scheduler passes target_worker=, by name.
    @spec_worker_class  # pyright: ignore[reportArgumentType, reportUntypedClassDecorator]
    class RenamedKeyword(Worker):  # type: ignore[type-var]
        def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target: TpModelWorker) -> None:
            super().__init__(server_args, gpu_id, nccl_port, target)


# --- a class with no base: the decorator checks every member -----------------


class _Lifecycle:
    # Every SpecWorker member but the two the cases below vary
    # (forward_batch_generation and prewarm_sampling), plus the constructor.
    def __init__(self, *, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        self.target_worker = target_worker

    def alloc_memory_pool(
        self,
        *,
        memory_pool_config: MemoryPoolConfig | None = None,
        req_to_token_pool: ReqToTokenPool | None = None,
        token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator | None = None,
    ) -> None: ...
    def init_hicache_draft_plan(self) -> None: ...
    def init_attention_backends(self) -> None: ...
    def init_cuda_graphs(self) -> None: ...
    def clear_cache_pool(self) -> None: ...
    def on_verify_complete_cpu(self, num_correct_drafts_per_req: list[int], /, *, batch_size: int) -> None: ...
    def weight_update_runners(self) -> Iterable[tuple[str, ModelRunner]]:
        return ()

    graph_memory_usage: Mapping[str, float] = {}
    graph_time_usage: Mapping[str, float] = {}
    weight_load_time: float = 0.0
    preloaded_weights_bytes: int = 0
    primary_draft_kv_pool: object = None
    draft_parallel_layout: DraftParallelLayout | None = None
    draft_swa_window: int = 0

    @property
    def hicache_draft_plan(self) -> HiCacheDraftPlan:
        raise NotImplementedError

    @property
    def last_shared_read_runner(self) -> ModelRunner:
        raise NotImplementedError


@spec_worker_class
class DuckWorker(_Lifecycle):
    def forward_batch_generation(self, batch: ScheduleBatch, /, *, on_publish: object = None) -> GenerationBatchResult:
        raise NotImplementedError

    def prewarm_sampling(self) -> SamplingPrewarmResult:
        raise NotImplementedError


if TYPE_CHECKING_INVALID_USAGE:

    # A wrong signature: no on_publish=, which run_batch passes under overlap scheduling.
    @spec_worker_class  # pyright: ignore[reportArgumentType, reportUntypedClassDecorator]
    class NoOnPublish(_Lifecycle):  # type: ignore[type-var]
        def forward_batch_generation(self, batch: ScheduleBatch, /) -> GenerationBatchResult:
            raise NotImplementedError

        def prewarm_sampling(self) -> SamplingPrewarmResult:
            raise NotImplementedError

    # A missing member: prewarm_sampling, called at start-up from 0.5.20 on.
    @spec_worker_class  # pyright: ignore[reportArgumentType, reportUntypedClassDecorator]
    class NoPrewarm(_Lifecycle):  # type: ignore[type-var]
        def forward_batch_generation(
            self, batch: ScheduleBatch, /, *, on_publish: object = None
        ) -> GenerationBatchResult:
            raise NotImplementedError

    # A property where the scheduler calls a method: prewarm_sampling().
    @spec_worker_class  # pyright: ignore[reportArgumentType, reportUntypedClassDecorator]
    class PrewarmProperty(_Lifecycle):  # type: ignore[type-var]
        def forward_batch_generation(
            self, batch: ScheduleBatch, /, *, on_publish: object = None
        ) -> GenerationBatchResult:
            raise NotImplementedError

        @property
        def prewarm_sampling(self) -> SamplingPrewarmResult:
            raise NotImplementedError
