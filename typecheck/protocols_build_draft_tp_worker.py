"""``build_draft_tp_worker`` returns a bundle typed by the injected class.

sglang fact: sglang's ``build_draft_tp_worker`` returns a ``DraftWorkerBundle``
whose ``draft_worker`` is declared ``TpModelWorker`` (draft_worker_common.py),
so DSpark's custom draft class (``dspark_worker_v2``) is a ``TpModelWorker``
to a checker and its own members are invisible. The typed wrapper carries the
class through: omitted, it is ``TpModelWorker``; given, it is that class. A
class whose constructor cannot take the call is rejected at the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from sglang.srt.configs.model_config import ModelConfig
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.server_args import ServerArgs
from sglang.srt.speculative.draft_worker_common import DraftWorkerBundle
from typing_extensions import assert_type

from spec_protocols import TypedDraftWorkerBundle, build_draft_tp_worker

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


def sglang_bundle_is_the_default_view(bundle: DraftWorkerBundle) -> None:
    # What the wrapper returns at runtime is sglang's own bundle: it must
    # satisfy the view for sglang's default class, and no narrower one.
    view: TypedDraftWorkerBundle[TpModelWorker] = bundle
    del view
    if TYPE_CHECKING_INVALID_USAGE:
        narrower: TypedDraftWorkerBundle[MyDraft] = bundle  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        del narrower


class MyDraft(TpModelWorker):
    def my_draft_only_member(self) -> int:
        return 0


class NeedsRank(TpModelWorker):
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, tp_rank: int) -> None: ...


def build(server_args: ServerArgs, config: ModelConfig) -> None:
    default = build_draft_tp_worker(
        server_args=server_args, gpu_id=0, nccl_port=1, target_model_config=config, algo_label="EAGLE"
    )
    assert_type(default, TypedDraftWorkerBundle[TpModelWorker])
    assert_type(default.draft_worker, TpModelWorker)
    assert_type(default.draft_model_runner, ModelRunner)
    assert_type(default.resolved_attention_backend, str)

    custom = build_draft_tp_worker(
        server_args=server_args,
        gpu_id=0,
        nccl_port=1,
        target_model_config=config,
        algo_label="DSPARK",
        draft_worker_cls=MyDraft,
        random_seed=7,
    )
    assert_type(custom, TypedDraftWorkerBundle[MyDraft])
    assert_type(custom.draft_worker.my_draft_only_member(), int)

    if TYPE_CHECKING_INVALID_USAGE:
        build_draft_tp_worker(
            server_args=server_args,
            gpu_id=0,
            nccl_port=1,
            target_model_config=config,
            algo_label="X",
            draft_worker_cls=NeedsRank,  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
        )
        # The bundle is read-only.
        custom.draft_worker = MyDraft(server_args, 0, 1)  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
