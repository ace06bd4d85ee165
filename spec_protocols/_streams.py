"""``get_plan_stream``: the one copy of a helper sglang once had three of.

EAGLE, standalone and frozen-KV MTP each chose a planning stream the same way;
sglang 0.5.23 has it once, as ``sglang.srt.speculative.spec_utils.get_plan_stream``.
This is the same decision, importable without sglang: torch is imported only
when the flag is on, which only happens on a machine that runs a worker.
"""

from __future__ import annotations

import importlib
import os
import warnings
from contextlib import AbstractContextManager, nullcontext
from typing import Any

__all__ = ["PLAN_STREAM_ENV", "get_plan_stream", "plan_stream_enabled"]

#: The environment flag sglang reads (``envs.SGLANG_ENABLE_OVERLAP_PLAN_STREAM``,
#: an ``EnvBool`` defaulting to false).
PLAN_STREAM_ENV = "SGLANG_ENABLE_OVERLAP_PLAN_STREAM"

# sglang's EnvBool.parse accepts exactly these spellings, case-insensitively.
_TRUE = frozenset({"true", "1", "yes", "y"})
_FALSE = frozenset({"false", "0", "no", "n"})


def plan_stream_enabled() -> bool:
    """Whether :data:`PLAN_STREAM_ENV` asks for a separate planning stream.

    Parsed as sglang's ``EnvBool`` parses it: unset means false, and a value
    that is neither true nor false warns and falls back to false.
    """
    raw = os.environ.get(PLAN_STREAM_ENV)
    if raw is None:
        return False
    value = raw.lower()
    if value in _TRUE:
        return True
    if value not in _FALSE:
        warnings.warn(
            f'Invalid value for {PLAN_STREAM_ENV}: "{value}" is not a valid boolean value, '
            'using default "False"',
            stacklevel=2,
        )
    return False


# The stream is a torch.Stream (or a backend's subclass of it). It is typed Any
# on purpose: torch is not a dependency of this library, and callers use the
# stream's own methods (wait_stream, record_event) on it.
def get_plan_stream(device: str) -> tuple[Any, AbstractContextManager[Any]]:
    """Return ``(stream, context)`` for the draft-planning work of a worker.

    When :data:`PLAN_STREAM_ENV` is on: a new stream of ``device``'s backend and
    the context manager that makes it current. Otherwise ``(None, nullcontext())``,
    so callers can always write ``with ctx:``. Workers call it once in
    ``__init__`` (sglang 0.5.23: eagle_worker_v2.py:241, standalone_worker_v2.py:99,
    frozen_kv_mtp_worker_v2.py:752, multi_layer_eagle_worker_v2.py:202,
    uno_worker_v2.py:115).
    """
    if not plan_stream_enabled():
        return None, nullcontext()
    # Imported by name, and only here: only a machine that runs a worker gets
    # here, and the library type-checks where torch is not installed.
    torch = importlib.import_module("torch")
    device_module: Any = torch.get_device_module(device)
    stream = device_module.Stream()
    return stream, device_module.stream(stream)
