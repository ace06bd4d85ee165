"""A ``@draft_worker_class`` draft worker (a ``TpModelWorker`` subclass) whose constructor renames ``gpu_id``.

Nothing in this file injects it as ``draft_worker_cls``: the decorator
(spelled by its private path, ``spec_protocols._class_decorators``) is the
author's word that ``build_draft_tp_worker`` constructs it, with
``draft_worker_cls(server_args=, gpu_id=, nccl_port=, is_draft_worker=True,
...)`` (speculative/draft_worker_common.py). Its ``__init__`` calls the
keyword ``device_id``, so that call raises ``TypeError`` when the server
starts. Everything else is ``TpModelWorker``'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sglang.srt.managers.tp_worker import TpModelWorker

from spec_protocols._class_decorators import draft_worker_class

if TYPE_CHECKING:
    from sglang.srt.server_args import ServerArgs


# expect: decorated_draft_renamed.DeviceIdDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
# expect: decorated_draft_renamed.DeviceIdDraft DraftWorkerFactory fail runtime=fail mypy=fail pyright=fail member=__init__
@draft_worker_class
class DeviceIdDraft(TpModelWorker):
    """A draft model worker that calls its GPU ``device_id``."""

    def __init__(self, server_args: ServerArgs, device_id: int, **kwargs: Any) -> None:
        super().__init__(server_args=server_args, gpu_id=device_id, **kwargs)
