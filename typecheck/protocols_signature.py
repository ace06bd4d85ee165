"""A member whose parameters do not accept sglang's calls is a type error.

sglang facts:
- ``BaseSpecWorker.alloc_memory_pool`` calls the draft's
  ``alloc_memory_pool(memory_pool_config=..., req_to_token_pool=...,
  token_to_kv_pool_allocator=...)`` by keyword (base_spec_worker.py:363), so a
  renamed keyword fails;
- it calls ``init_cuda_graphs()`` with no argument (base_spec_worker.py:377):
  ``FrozenKVMTPDraftWorker.init_cuda_graphs()`` and
  ``TpModelWorker.init_cuda_graphs(capture_decode_cuda_graph=True)`` are both
  fine, an extra *required* parameter is not;
- the batch-result processor calls ``note_request_finished(rid=...,
  natural_stop=...)`` by keyword (batch_result_processor.py:1442), so
  positional-only parameters fail.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from typing_extensions import Protocol

from spec_protocols import DraftWorker

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


class _Reads:
    # The read-only members every variant below shares.
    def init_attention_backends(self) -> None: ...

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


class TargetStyle(_Reads):
    # TpModelWorker's shape: positional-or-keyword, optional extras.
    def alloc_memory_pool(
        self,
        memory_pool_config: object = None,
        req_to_token_pool: object = None,
        token_to_kv_pool_allocator: object = None,
        *,
        draft_parallel_layout: object = None,
    ) -> None: ...

    def init_cuda_graphs(self, capture_decode_cuda_graph: bool = True) -> None: ...


class RenamedKeyword(_Reads):
    def alloc_memory_pool(
        self, *, memory_pool_config: object = None, req_pool: object = None, token_to_kv_pool_allocator: object = None
    ) -> None: ...

    def init_cuda_graphs(self) -> None: ...


class ExtraRequired(_Reads):
    def alloc_memory_pool(self, **kwargs: object) -> None: ...

    def init_cuda_graphs(self, capture_decode_cuda_graph: bool) -> None: ...


class Finisher(Protocol):
    def note_request_finished(self, *, rid: str, natural_stop: bool) -> None: ...


class KeywordFinisher:
    def note_request_finished(self, rid: str, natural_stop: bool) -> None: ...


class PositionalFinisher:
    def note_request_finished(self, rid: str, natural_stop: bool, /) -> None: ...


def check(
    target_style: TargetStyle,
    renamed: RenamedKeyword,
    extra: ExtraRequired,
    keyword: KeywordFinisher,
    positional: PositionalFinisher,
) -> None:
    ok_draft: DraftWorker = target_style
    ok_finisher: Finisher = keyword
    del ok_draft, ok_finisher
    if TYPE_CHECKING_INVALID_USAGE:
        bad_rename: DraftWorker = renamed  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        bad_extra: DraftWorker = extra  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        bad_positional: Finisher = positional  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        del bad_rename, bad_extra, bad_positional
