"""A registered factory that returns a function building the class (``Registration.builder``)."""

from __future__ import annotations

from pathlib import Path

from spec_protocols.gate._discovery import discover, resolve_target
from spec_protocols.gate._harness import built_by

SOURCE = '''\
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm


class Worker(BaseSpecWorker):
    def __init__(self, target_worker, size):
        super().__init__()


def _build(*, server_args, gpu_id, nccl_port, target_worker):
    return Worker(target_worker, 3)


@SpeculativeAlgorithm.register("X")
def _factory(server_args):
    return {returned}
'''


def _registrations(tmp_path: Path, returned: str) -> tuple[str | None, ...]:
    file = tmp_path / "builder_plugin.py"
    file.write_text(SOURCE.format(returned=returned))
    # The registration's algorithm object (sglang's CustomSpecAlgo) is checked too; the worker is the one asked about.
    (cls,) = [c for c in discover([resolve_target(str(file), [])]).classes if c.qualname == "Worker"]
    return (built_by(cls), *(r.builder for r in cls.registrations))


def test_the_function_a_factory_returns_builds_the_class(tmp_path: Path) -> None:
    assert _registrations(tmp_path, "_build") == ("builder_plugin._build", "builder_plugin._build")


def test_a_factory_returning_the_class_has_no_builder(tmp_path: Path) -> None:
    assert _registrations(tmp_path, "Worker") == (None, None)
