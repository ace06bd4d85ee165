"""``@draft_worker_class`` makes both checkers judge an injected draft-worker class where it is defined.

sglang facts: ``build_draft_tp_worker`` (speculative/draft_worker_common.py)
calls the ``draft_worker_cls`` it is given as ``draft_worker_cls(server_args=,
gpu_id=, nccl_port=, is_draft_worker=True, random_seed=, load_group=,
context_length=, draft_attention_backend=)`` (0.5.22 and 0.5.23; 0.5.19-0.5.20
pass ``ps=`` and neither ``random_seed`` nor ``load_group``), reads
``.model_runner`` on what it built, and ``BaseSpecWorker``'s defaults then call
and read the ``DraftWorker`` members on it (``alloc_memory_pool(...)`` by
keyword, base_spec_worker.py:363; ``init_attention_backends()``, :373;
``weight_load_time``, :238, read). sglang types the parameter
``type[TpModelWorker]``, which accepts any subclass whatever its ``__init__``
takes.

As with ``@spec_worker_class`` (protocols_spec_worker_class.py), mypy reports
on the ``class`` line and pyright on the decorator line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, Generic, TypeVar

from sglang.srt.configs.load_config import LoadGroup
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.mem_cache.allocator import BaseTokenToKVPoolAllocator
from sglang.srt.mem_cache.memory_pool import ReqToTokenPool
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.model_executor.pool_configurator import MemoryPoolConfig
from sglang.srt.server_args import ServerArgs
from typing_extensions import assert_type

from spec_protocols import InjectableDraftWorker, draft_worker_class

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING

T = TypeVar("T")


# --- TpModelWorker subclasses: the decorator adds the constructor check ------


@draft_worker_class
class KeepsConstructor(TpModelWorker):
    pass


@draft_worker_class
class OwnKeywords(TpModelWorker):
    def __init__(
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
        num_layers: int = 1,
    ) -> None:
        super().__init__(server_args, gpu_id, nccl_port, is_draft_worker, random_seed=random_seed, load_group=load_group)


@draft_worker_class
class GenericDraft(KeepsConstructor, Generic[T]):
    def option(self) -> T:
        raise NotImplementedError


def decorated_classes_keep_their_types(server_args: ServerArgs) -> None:
    draft = KeepsConstructor(server_args, 0, 0)
    assert_type(draft, KeepsConstructor)
    as_injectable: InjectableDraftWorker = draft
    del as_injectable
    assert_type(GenericDraft[str](server_args, 0, 0).option(), str)


if TYPE_CHECKING_INVALID_USAGE:

    # sglang 0.5.19-0.5.20's call: requires ps=, and takes neither random_seed= nor load_group=.
    @draft_worker_class  # pyright: ignore[reportArgumentType, reportUntypedClassDecorator]
    class OldConstructor(TpModelWorker):  # type: ignore[type-var]
        def __init__(self, *, server_args: ServerArgs, gpu_id: int, nccl_port: int, is_draft_worker: bool, ps: object) -> None:
            super().__init__(server_args, gpu_id, nccl_port, is_draft_worker)

    # No is_draft_worker=, which build_draft_tp_worker always passes (True).
    @draft_worker_class  # pyright: ignore[reportArgumentType, reportUntypedClassDecorator]
    class NoIsDraftWorker(TpModelWorker):  # type: ignore[type-var]
        def __init__(
            self,
            *,
            server_args: ServerArgs,
            gpu_id: int,
            nccl_port: int,
            random_seed: int | None,
            load_group: LoadGroup,
            context_length: int | None,
            draft_attention_backend: str | None,
        ) -> None:
            super().__init__(server_args, gpu_id, nccl_port, random_seed=random_seed, load_group=load_group)


# --- a class with no base: the decorator checks every member -----------------


class _Built:
    # build_draft_tp_worker's call, and the members every case below shares.
    def __init__(
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
    ) -> None: ...

    def init_cuda_graphs(self) -> None: ...

    graph_memory_usage: Mapping[str, float] = {}
    graph_time_usage: Mapping[str, float] = {}
    preloaded_weights_bytes: int = 0


class _Allocates(_Built):
    def alloc_memory_pool(
        self,
        *,
        memory_pool_config: MemoryPoolConfig | None = None,
        req_to_token_pool: ReqToTokenPool | None = None,
        token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator | None = None,
    ) -> None: ...


@draft_worker_class
class DuckDraft(_Allocates):
    weight_load_time: float = 0.0

    def init_attention_backends(self) -> None: ...

    @property
    def model_runner(self) -> ModelRunner:
        raise NotImplementedError


if TYPE_CHECKING_INVALID_USAGE:

    # A wrong signature: a renamed keyword; BaseSpecWorker passes req_to_token_pool=.
    @draft_worker_class  # pyright: ignore[reportArgumentType, reportUntypedClassDecorator]
    class RenamedPoolKeyword(_Built):  # type: ignore[type-var]
        weight_load_time: float = 0.0

        def alloc_memory_pool(
            self,
            *,
            memory_pool_config: MemoryPoolConfig | None = None,
            req_pool: ReqToTokenPool | None = None,
            token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator | None = None,
        ) -> None: ...

        def init_attention_backends(self) -> None: ...

        @property
        def model_runner(self) -> ModelRunner:
            raise NotImplementedError

    # A missing member, the draft-specific one: build_draft_tp_worker reads
    # .model_runner on what it built.
    @draft_worker_class  # pyright: ignore[reportArgumentType, reportUntypedClassDecorator]
    class NoModelRunner(_Allocates):  # type: ignore[type-var]
        weight_load_time: float = 0.0

        def init_attention_backends(self) -> None: ...

    # A property where BaseSpecWorker calls a method: init_attention_backends().
    @draft_worker_class  # pyright: ignore[reportArgumentType, reportUntypedClassDecorator]
    class PropertyForMethod(_Allocates):  # type: ignore[type-var]
        weight_load_time: float = 0.0

        @property
        def init_attention_backends(self) -> None: ...

        @property
        def model_runner(self) -> ModelRunner:
            raise NotImplementedError

    # A method where BaseSpecWorker reads a value: weight_load_time.
    @draft_worker_class  # pyright: ignore[reportArgumentType, reportUntypedClassDecorator]
    class MethodForProperty(_Allocates):  # type: ignore[type-var]
        def weight_load_time(self) -> float:
            return 0.0

        def init_attention_backends(self) -> None: ...

        @property
        def model_runner(self) -> ModelRunner:
            raise NotImplementedError
