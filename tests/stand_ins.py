"""Stand-ins the tests share, defined once.

``StandInDraft`` is the smallest draft worker that conforms: it satisfies
``InjectableDraftWorker`` and, since its constructor takes what
``build_draft_tp_worker`` passes, ``DraftWorkerFactory`` too. ``RecordingDraft`` is one that records
every lifecycle call with its arguments exactly as passed. Tests that need a
deviation subclass them and change the one member under test.
"""

from __future__ import annotations

from typing import Any


class StandInDraft:
    """A conforming draft worker with nothing behind it."""

    def __init__(
        self,
        server_args: Any = None,
        gpu_id: int = 0,
        nccl_port: int = 0,
        is_draft_worker: bool = False,
        random_seed: int | None = None,
        load_group: Any = None,
        context_length: int | None = None,
        draft_attention_backend: str | None = None,
    ) -> None:
        self.args = (server_args, gpu_id, nccl_port, is_draft_worker, random_seed, load_group)

    def alloc_memory_pool(
        self, memory_pool_config: Any = None, req_to_token_pool: Any = None, token_to_kv_pool_allocator: Any = None
    ) -> None: ...

    def init_attention_backends(self) -> None: ...

    def init_cuda_graphs(self, capture_decode_cuda_graph: bool = True) -> None: ...

    @property
    def graph_memory_usage(self) -> dict[str, float]:
        return {}

    @property
    def graph_time_usage(self) -> dict[str, float]:
        return {}

    @property
    def weight_load_time(self) -> float:
        return 0.0

    @property
    def preloaded_weights_bytes(self) -> int:
        return 0

    @property
    def model_runner(self) -> Any:
        """What build_draft_tp_worker reads on what it built."""
        return "model-runner"


class RecordingDraft(StandInDraft):
    """Records every lifecycle call, and reports fixed figures."""

    graph_memory_usage = {"decode": 1.5}  # type: ignore[assignment]  # a plain value where the base has a property
    graph_time_usage = {"decode": 0.25}  # type: ignore[assignment]
    weight_load_time = 3.0  # type: ignore[assignment]
    preloaded_weights_bytes = 42  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        # What EagleDraftWorkerBase has and a TpModelWorker lacks (tests delete it).
        self.draft_runners = ["runner-a", "runner-b"]

    def alloc_memory_pool(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append(("alloc_memory_pool", args, kwargs))

    def init_attention_backends(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append(("init_attention_backends", args, kwargs))

    def init_cuda_graphs(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append(("init_cuda_graphs", args, kwargs))

    def clear_cache_pool(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append(("clear_cache_pool", args, kwargs))
