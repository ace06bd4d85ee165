"""The runtime probe's check of a class as its registrations and sglang's
getattr hooks hold it (gate/_checkers/_runtime/_probe.py::_check), in
process, on classes made here."""

from __future__ import annotations

from typing import Any

from spec_protocols.gate._findings import message
from spec_protocols import SpecWorkerBase
from spec_protocols.gate._checkers._runtime._probe_channel import ProbeClass, ProbeRelease
from spec_protocols.gate._checkers._runtime._probe import _check
from spec_protocols.gate._contract import CallShape

SYNC = {"forward_batch_generation": (CallShape((1, 1), (), ("pp_proxy_tensors",)),)}


class SyncOnly(SpecWorkerBase):
    def forward_batch_generation(self, batch: Any, /, *, pp_proxy_tensors: Any = None) -> Any:
        return batch


class Misspelled(SpecWorkerBase):
    def forward_batch_generation(self, batch: Any, /, *, pp_proxy_tensor: Any = None) -> Any:
        return batch


def _forward(problems: list[Any]) -> list[str]:
    return [message(p) for p in problems if p.member == "forward_batch_generation"]


def test_a_synchronous_registration_is_held_to_the_synchronous_call() -> None:
    item = ProbeClass(0, "m", "SyncOnly", "m.SyncOnly", ("SpecWorker",), calls=SYNC)
    # The protocol's signature asks for on_publish=; the synchronous branch never passes it.
    assert _forward(_check(SyncOnly, "SpecWorker", False, ProbeRelease(), None)[0])
    assert _forward(_check(SyncOnly, "SpecWorker", False, ProbeRelease(), item)[0]) == []
    wrong = ProbeClass(0, "m", "Misspelled", "m.Misspelled", ("SpecWorker",), calls=SYNC)
    assert any("pp_proxy_tensors" in m for m in _forward(_check(Misspelled, "SpecWorker", False, ProbeRelease(), wrong)[0]))


def test_a_hook_the_class_defines_is_held_to_sglangs_call_and_iteration() -> None:
    class Hooks(SpecWorkerBase):
        def forward_batch_generation(self, batch: Any, /, *, on_publish: Any = None) -> Any:
            return batch

        def prepare_for_kv_cache_release(self) -> None:
            return None

        def spec_v2_attn_backends(self) -> tuple[object, ...]:
            return ()

    release = ProbeRelease(
        hook_calls={"SpecWorker": {"prepare_for_kv_cache_release": CallShape((1, 1), ())}},
        hook_iterated={"SpecWorker": ("spec_v2_attn_backends",)},
    )
    problems = {p.member: message(p) for p in _check(Hooks, "SpecWorker", False, release)[0]}
    assert "getattr and calls it" in problems["prepare_for_kv_cache_release"]
    assert "not iterable" in problems["spec_v2_attn_backends"]
    # A class that does not define a hook takes sglang's default: nothing to hold.
    assert not {"prepare_for_kv_cache_release", "spec_v2_attn_backends"} & {p.member for p in _check(SyncOnly, "SpecWorker", False, release)[0]}


def test_keywords_a_partial_binds_reach_the_constructor() -> None:
    class NeedsBlock(SpecWorkerBase):
        def __init__(self, *, server_args: Any, gpu_id: int, nccl_port: int, target_worker: Any, block_size: int) -> None:
            super().__init__(target_worker=target_worker)

        def forward_batch_generation(self, batch: Any, /, *, on_publish: Any = None) -> Any:
            return batch

    release = ProbeRelease(constructor_keywords=("server_args", "gpu_id", "nccl_port", "target_worker"))
    bare = ProbeClass(0, "m", "NeedsBlock", "m.NeedsBlock", ("SpecWorker",))
    bound = ProbeClass(0, "m", "NeedsBlock", "m.NeedsBlock", ("SpecWorker",), bound_keywords=("block_size",))
    assert any(p.member == "__init__" for p in _check(NeedsBlock, "SpecWorker", False, release, bare)[0])
    assert not any(p.member == "__init__" for p in _check(NeedsBlock, "SpecWorker", False, release, bound)[0])
