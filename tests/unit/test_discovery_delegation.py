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


TRICKY = '''
from held import Held


class AllowList:
    def __init__(self, target_worker: Held):
        self.target_worker = target_worker

    def __getattr__(self, name):
        if name not in ("forward",):
            raise AttributeError(name)
        return getattr(self.target_worker, name)


class PrivateRefused:
    def __init__(self, target_worker: Held):
        self.target_worker = target_worker

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.target_worker, name)


class Rebound:
    def __init__(self, target_worker: Held):
        self.target_worker = target_worker
        self.target_worker = None

    def __getattr__(self, name):
        return getattr(self.target_worker, name)


class OverriddenLater:
    def __init__(self, target_worker: Held):
        self.target_worker = target_worker

    def __getattr__(self, name):
        return getattr(self.target_worker, name)

    def __getattr__(self, name):
        raise AttributeError(name)


class MethodNotProperty:
    def target(self) -> Held:
        raise NotImplementedError

    def __getattr__(self, name):
        return getattr(self.target, name)


class Nested:
    def __init__(self):
        def later():
            self.hidden = 1
        self.shown = 1
        if self:
            self.maybe = 1
        self.declared_only: int


class Conditional:
    def __init__(self, flag: bool):
        if flag:
            self.sometimes = 1
        self.always = 1


class HoldsConditional:
    def __init__(self, inner: Conditional):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)
'''


def _tricky(tmp_path: Path) -> SourceIndex:
    index = _index(tmp_path)
    (tmp_path / "tricky.py").write_text(textwrap.dedent(TRICKY), encoding="utf-8")
    return SourceIndex([str(tmp_path)], NONE)


def test_what_would_make_a_member_look_present_is_not_read_as_a_delegation(tmp_path: Path) -> None:
    """A guard other than a prefix test, a second store, a later __getattr__
    that wins, a plain method where a property is needed: no delegation."""
    index = _tricky(tmp_path)
    for name in ("AllowList", "Rebound", "OverriddenLater", "MethodNotProperty"):
        assert delegation(index, f"tricky.{name}", NONE) is None, name


def test_a_prefix_guard_keeps_those_names_out(tmp_path: Path) -> None:
    found = delegation(_tricky(tmp_path), "tricky.PrivateRefused", NONE)
    assert found is not None
    assert "forward" in found.members and "_init_config" not in found.members


def test_declared_is_not_certain(tmp_path: Path) -> None:
    """The checkers declare what any own store binds (a conditional one too,
    never one in a nested function, never a bare annotation); a delegate is
    credited only with what its __init__ certainly stores."""
    index = _tricky(tmp_path)
    assert instance_attributes(index, "tricky.Nested", NONE) == {"shown", "maybe"}
    found = delegation(index, "tricky.HoldsConditional", NONE)
    assert found is not None
    assert "always" in found.members and "sometimes" not in found.members
