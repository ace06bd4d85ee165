"""``DraftWorkerFactory`` checks an injected draft-worker class by its constructor.

sglang fact: ``build_draft_tp_worker`` calls ``draft_worker_cls(server_args=...,
gpu_id=..., nccl_port=..., is_draft_worker=True, random_seed=..., load_group=...,
context_length=..., draft_attention_backend=...)`` (draft_worker_common.py:92)
but types the parameter ``type[TpModelWorker]``, which accepts any subclass
whatever its ``__init__`` takes. Through ``DraftWorkerFactory`` both checkers
compare the constructor itself: ``TpModelWorker`` and a subclass that keeps its
keywords are accepted; a subclass whose ``__init__`` cannot take them is not.

Abstract classes (measured with mypy 2.4.1 and pyright 1.1.414): mypy rejects
an abstract class only for a ``type[T]`` parameter with a type variable
(``[type-abstract]``), not for ``type[TpModelWorker]`` (sglang's own
annotation) and not for a ``DraftWorkerFactory``; pyright accepts it
everywhere. Neither checker catches it here, so ``validate_draft_worker_cls``
rejects it at runtime, before anything is allocated.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Final

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.server_args import ServerArgs

from spec_protocols import DraftWorkerFactory

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


class KeepsKeywords(TpModelWorker):
    pass


class OwnKeywords(TpModelWorker):
    def __init__(
        self,
        *,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        is_draft_worker: bool,
        random_seed: int | None,
        load_group: object,
        context_length: int | None,
        draft_attention_backend: str | None,
        extra_option: bool = False,
    ) -> None: ...


class OldConstructor(TpModelWorker):
    # Misses random_seed, load_group, context_length, draft_attention_backend
    # and needs tp_rank, which build_draft_tp_worker never passes.
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, tp_rank: int) -> None: ...


class AbstractDraft(TpModelWorker, abc.ABC):
    @abc.abstractmethod
    def draft(self) -> None: ...


tp: DraftWorkerFactory[TpModelWorker] = TpModelWorker
keeps: DraftWorkerFactory[KeepsKeywords] = KeepsKeywords
own: DraftWorkerFactory[OwnKeywords] = OwnKeywords
# Not caught statically by either checker (see the docstring).
abstract: DraftWorkerFactory[AbstractDraft] = AbstractDraft

if TYPE_CHECKING_INVALID_USAGE:
    old: DraftWorkerFactory[OldConstructor] = OldConstructor  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
