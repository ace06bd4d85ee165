"""The pool and config types that the worker constructors take.

sglang facts (sglang 0.5.23):
- ``LoadGroup`` is ``Union["GroupCoordinator", _DefaultLoadGroup, None]`` and
  ``TpModelWorker``/``ModelRunner`` default it to ``_DEFAULT_LOAD_GROUP``
  (configs/load_config.py).
- ``MemoryPoolConfig`` is a dataclass whose only required field is
  ``max_total_num_tokens`` (model_executor/pool_configurator.py).
- ``DraftParallelLayout`` is a frozen, keyword-only ``msgspec.Struct``
  (configs/draft_parallel.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from sglang.srt.configs.draft_parallel import DraftParallelLayout
# sglang has no public name for the default load group; the workers import
# this private one too.
from sglang.srt.configs.load_config import _DEFAULT_LOAD_GROUP, LoadGroup  # pyright: ignore[reportPrivateUsage]
from sglang.srt.model_executor.pool_configurator import MemoryPoolConfig
from typing_extensions import assert_type

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING

default_group: LoadGroup = _DEFAULT_LOAD_GROUP
no_group: LoadGroup = None

config = MemoryPoolConfig(max_total_num_tokens=1024)
assert_type(config.max_running_requests, int | None)
layout = DraftParallelLayout(tp_group=None, attn_tp_size=1)
assert_type(layout.local_dp, bool)

if TYPE_CHECKING_INVALID_USAGE:
    MemoryPoolConfig()  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]
    DraftParallelLayout(None, 1)  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]
    layout.attn_tp_size = 2  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
