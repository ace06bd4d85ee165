"""What an instance has that no class body defines: ``__init__``'s attributes and a delegating ``__getattr__`` (issue 27, item 4).

sglang 0.5.11's V1 ``DFlashWorker`` sets ``self.model_runner`` in
``__init__`` and hands every other name to ``self.target_worker`` (a
``TpModelWorker``, which sets ``model_config`` in a method its ``__init__``
calls). A static checker sees neither on the class object; sglang reads both
on the instance.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from spec_protocols.gate._discovery._delegation import delegation, instance_attributes
from spec_protocols.gate._discovery._source_index import SourceIndex

HELD = '''
class Base:
    def __init__(self):
        self.device = "cpu"


class Held(Base):
    def __init__(self):
        super().__init__()
        self._init_config()

    def _init_config(self):
        self.model_config = object()

    def forward(self):
        return None
'''

WORKER = '''
from held import Held


class Worker:
    def __init__(self, target_worker: Held):
        self.target_worker = target_worker
        self.model_runner = None

    def __getattr__(self, name):
        """Everything else is the target's."""
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.target_worker, name)


class WithDefault(Worker):
    def __getattr__(self, name):
        return getattr(self.target_worker, name, None)


class Untyped:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def __getattr__(self, name):
        return getattr(self.target_worker, name)


class ThroughProperty:
    @property
    def target(self) -> "Held":
        raise NotImplementedError

    def __getattr__(self, name):
        return getattr(self.target, name)
'''

NONE: frozenset[str] = frozenset()


def _index(tmp_path: Path) -> SourceIndex:
    for name, text in (("held", HELD), ("worker", WORKER)):
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    return SourceIndex([str(tmp_path)], NONE)


def test_instance_attributes_are_read_from_init_and_the_methods_it_calls(tmp_path: Path) -> None:
    index = _index(tmp_path)
    assert instance_attributes(index, "held.Held", NONE) == {"device", "model_config"}
    assert instance_attributes(index, "worker.Worker", NONE) == {"target_worker", "model_runner"}


def test_a_delegating_getattr_gives_what_the_held_class_has(tmp_path: Path) -> None:
    found = delegation(_index(tmp_path), "worker.Worker", NONE)
    assert found is not None
    assert (found.attribute, found.holds) == ("target_worker", "held.Held")
    assert {"model_config", "device", "forward"} <= found.members
    assert "model_runner" not in found.members


def test_a_property_s_annotation_names_the_held_class(tmp_path: Path) -> None:
    found = delegation(_index(tmp_path), "worker.ThroughProperty", NONE)
    assert found is not None and found.holds == "held.Held"


def test_what_cannot_be_read_is_no_delegation(tmp_path: Path) -> None:
    index = _index(tmp_path)
    # getattr with a default answers every name: nothing is shown present.
    assert delegation(index, "worker.WithDefault", NONE) is None
    # An attribute of no known class.
    assert delegation(index, "worker.Untyped", NONE) is None
    # No __getattr__ at all.
    assert delegation(index, "held.Held", NONE) is None
