"""The stubs declare no ``__getattr__`` on a class: a member that sglang lacks is an error.

sglang fact: ``DFlashWorkerV2``, ``DSparkWorkerV2`` and ``UnoWorkerV2`` define
``__getattr__``, and with it they satisfy every protocol under mypy (see
SGLANG_FACTS.md). The stubbed classes (``TpModelWorker``, ``ModelRunner``,
``BaseSpecWorker``, ``ServerArgs``) must not: a catch-all would make every
protocol check against them vacuous. Unknown members must stay errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.server_args import ServerArgs
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


def unknown_members(
    tp: TpModelWorker, runner: ModelRunner, spec: BaseSpecWorker, args: ServerArgs
) -> None:
    if TYPE_CHECKING_INVALID_USAGE:
        tp.no_such_member  # type: ignore[attr-defined]  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]
        runner.no_such_member  # type: ignore[attr-defined]  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]
        spec.no_such_member  # type: ignore[attr-defined]  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]
        args.no_such_member  # type: ignore[attr-defined]  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]
