"""The stubbed ``build_draft_tp_worker``: keyword-only, and loose about the class it builds.

sglang facts (sglang 0.5.23, sglang/srt/speculative/draft_worker_common.py):
- ``build_draft_tp_worker`` is keyword-only; it returns a ``DraftWorkerBundle``
  (a frozen ``msgspec.Struct``) whose ``draft_worker`` is a ``TpModelWorker``.
- ``draft_worker_cls`` is typed ``type[TpModelWorker]``: a subclass whose
  ``__init__`` cannot take the eight keywords that the function passes is
  still accepted. This looseness is what ``spec_protocols.DraftWorkerFactory``
  closes; the positive case below records it, so a stub that tightened the
  parameter would be noticed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from sglang.srt.configs.model_config import ModelConfig
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.server_args import ServerArgs
from sglang.srt.speculative.draft_worker_common import DraftWorkerBundle, build_draft_tp_worker
from typing_extensions import assert_type

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


class NoKeywords(TpModelWorker):
    def __init__(self) -> None: ...


def build(server_args: ServerArgs, config: ModelConfig) -> None:
    bundle = build_draft_tp_worker(
        server_args=server_args,
        gpu_id=0,
        nccl_port=0,
        target_model_config=config,
        algo_label="DFLASH",
        random_seed=None,
    )
    assert_type(bundle, DraftWorkerBundle)
    assert_type(bundle.draft_worker, TpModelWorker)
    assert_type(bundle.resolved_attention_backend, str)
    # Accepted by sglang's annotation, although the call would raise TypeError.
    build_draft_tp_worker(
        server_args=server_args,
        gpu_id=0,
        nccl_port=0,
        target_model_config=config,
        algo_label="X",
        draft_worker_cls=NoKeywords,
    )

    if TYPE_CHECKING_INVALID_USAGE:
        build_draft_tp_worker(server_args, 0, 0, config, "X")  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]
        bundle.draft_worker = TpModelWorker(server_args, 0, 0)  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
