"""The runtime checker's construction reading (gate/_checkers/_runtime/_construction.py)
and what the probe finds at import (gate/_checkers/_runtime/_scan.py), on
classes made here: no sglang, no subprocess."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import sys
import types
from typing import Any

import pytest

import spec_protocols
from spec_protocols import verify_conformance
from spec_protocols.gate._checkers._runtime._construction import (
    blocked_store,
    construction_findings,
    factory_write_findings,
    init_chain,
)
from spec_protocols.gate._checkers._runtime._scan import classes_at_import, import_failure


class Base:
    """Stands in for an sglang base: read-only properties over private names."""

    def __init__(self) -> None:
        self._usage: dict[str, float] = {}

    @property
    def target_worker(self) -> object:
        return self._target

    @property
    def usage(self) -> dict[str, float]:
        return self._usage


# The base-never-runs check is about sglang's own bases.
Base.__module__ = "sglang.fake_base"


def test_a_read_only_property_blocks_a_store_and_a_setter_does_not() -> None:
    class Settable(Base):
        @property
        def target_worker(self) -> object:
            return self._target

        @target_worker.setter
        def target_worker(self, value: object) -> None:
            self._target = value

    assert "read-only property of sglang.fake_base.Base" in (blocked_store(Base, "target_worker") or "")
    assert blocked_store(Settable, "target_worker") is None
    assert blocked_store(Base, "anything_else") is None


def test_slots_all_the_way_down_block_every_other_name() -> None:
    class Slotted:
        __slots__ = ("_inner",)

    class SlottedOnADictClass(Base):
        __slots__ = ("_inner",)

    why = blocked_store(Slotted, "draft_runner") or ""
    assert "no __dict__" in why and "_inner" in why
    assert blocked_store(Slotted, "_inner") is None
    assert blocked_store(SlottedOnADictClass, "draft_runner") is None


def test_a_custom_setattr_is_not_second_guessed() -> None:
    class Custom(Base):
        def __setattr__(self, name: str, value: object) -> None:
            object.__setattr__(self, "_" + name, value)

    assert blocked_store(Custom, "target_worker") is None


def test_init_stores_through_super_and_named_base_calls() -> None:
    class Middle(Base):
        def __init__(self) -> None:
            Base.__init__(self)
            self.middle = 1

    class Leaf(Middle):
        def __init__(self, target: object) -> None:
            super().__init__()
            self.target_worker = target
            setattr(self, "named", 2)
            self.a, self.b = 1, 2

    chain = init_chain(Leaf)
    assert {"target_worker", "named", "a", "b", "middle", "_usage"} <= set(chain.stores)
    assert {Leaf, Middle, Base} <= chain.ran
    assert not chain.partial
    [finding] = construction_findings(Leaf, (), "the scheduler")
    assert finding.member == "__init__"
    assert "sets self.target_worker" in finding.message and "AttributeError when the scheduler constructs it" in finding.message


def test_a_dataclass_field_over_a_read_only_property_fails() -> None:
    @dataclasses.dataclass
    class Fields(Base):
        target_worker: Any
        width: int = 4

        def __post_init__(self) -> None:
            Base.__init__(self)

    @dataclasses.dataclass
    class InitVarOnly(Base):
        target_worker: dataclasses.InitVar[Any]

        def __post_init__(self, target_worker: Any) -> None:
            Base.__init__(self)
            self._target = target_worker

    messages = [f.message for f in construction_findings(Fields, ("usage",), "the scheduler")]
    assert len(messages) == 1 and "@dataclass generates" in messages[0] and "self.target_worker" in messages[0]
    assert construction_findings(InitVarOnly, ("usage",), "the scheduler") == []


def test_a_base_constructor_that_never_runs_fails_the_kept_members_that_read_its_attributes() -> None:
    @dataclasses.dataclass
    class NoBaseInit(Base):
        target_worker: dataclasses.InitVar[Any]

        def __post_init__(self, target_worker: Any) -> None:
            self._target = target_worker

    class OwnUsage(NoBaseInit):
        @property
        def usage(self) -> dict[str, float]:
            return {}

    [finding] = construction_findings(NoBaseInit, ("usage", "target_worker"), "the scheduler")
    assert finding.member == "usage" and "Base.__init__ never runs" in finding.message and "_usage" in finding.message
    # Not called by sglang, or overridden: nothing reads what the base would set.
    assert construction_findings(NoBaseInit, ("target_worker",), "the scheduler") == []
    assert construction_findings(OwnUsage, ("usage",), "the scheduler") == []


def test_a_constructor_that_hands_self_to_a_helper_stands_down() -> None:
    class Helper(Base):
        def __init__(self) -> None:
            self._setup()

        def _setup(self) -> None:
            Base.__init__(self)

    assert init_chain(Helper).partial
    assert construction_findings(Helper, ("usage",), "the scheduler") == []


def test_factory_writes_are_checked_on_the_built_class() -> None:
    class ReadOnlyRunner:
        @property
        def draft_runner(self) -> object:
            return None

    class Plain:
        pass

    [finding] = factory_write_findings(ReadOnlyRunner, ("draft_runner",))
    assert finding.member == "draft_runner" and "build_draft_tp_worker sets draft_worker.draft_runner" in finding.message
    assert factory_write_findings(Plain, ("draft_runner",)) == []


# -- verify_conformance: what sglang calls ----------------------------------------


def test_a_wraps_wrapper_is_judged_by_its_own_signature() -> None:
    def positional(fn: Any) -> Any:
        @functools.wraps(fn)
        def wrapper(self: Any, batch: Any) -> Any:
            return fn(self, batch)

        return wrapper

    class Wrapped(Base):
        @positional
        def forward_batch_generation(self, batch: Any, /, *, on_publish: Any = None, pp_proxy_tensors: Any = None) -> Any:
            return batch

    problems = [p for p in verify_conformance(Wrapped, spec_protocols.SpecWorker).problems if p.member == "forward_batch_generation"]
    assert any("on_publish" in p.message for p in problems), problems
    assert "on_publish" in str(inspect.signature(Wrapped.forward_batch_generation))  # what follow_wrapped shows


def test_a_callable_object_with_an_async_call_is_async() -> None:
    class AsyncCall:
        async def __call__(self) -> None:
            return None

    class Worker(Base):
        init_cuda_graphs = AsyncCall()

    kinds = {p.kind for p in verify_conformance(Worker, spec_protocols.SpecWorker).problems if p.member == "init_cuda_graphs"}
    assert kinds == {"async"}


def test_an_inherited_protocol_stub_is_not_an_implementation() -> None:
    class Explicit(spec_protocols.SpecWorker):
        def forward_batch_generation(self, batch: Any, /, *, on_publish: Any = None, pp_proxy_tensors: Any = None) -> Any:
            return batch

    problems = {p.member: p for p in verify_conformance(Explicit, spec_protocols.SpecWorker).problems}
    assert "forward_batch_generation" not in problems
    assert problems["preloaded_weights_bytes"].kind == "missing"
    assert "inherited from the protocol SpecWorker itself" in problems["preloaded_weights_bytes"].message
    # The protocol against itself has no stubs to blame.
    assert verify_conformance(spec_protocols.SpecWorker, spec_protocols.SpecWorker).ok


# -- what the import makes ----------------------------------------------------------


def test_classes_made_at_import_are_found_by_their_roots() -> None:
    module = types.ModuleType("plug_made")
    written = type("Written", (spec_protocols.SpecWorkerBase,), {"__module__": "plug_made"})
    made = type("Made", (written,), {"__module__": "plug_made"})
    explicit = type("Explicit", (spec_protocols.DraftWorker,), {"__module__": "plug_made"})
    # Imported from another module, which holds it: not this module's.
    other = types.ModuleType("plug_made_other")
    elsewhere = type("Elsewhere", (spec_protocols.SpecWorkerBase,), {"__module__": "plug_made_other"})
    other.__dict__["Elsewhere"] = elsewhere
    module.__dict__.update(Written=written, Made=made, Alias=made, Explicit=explicit, Elsewhere=elsewhere, Other=int)
    sys.modules["plug_made_other"] = other
    try:
        found = {f.qualname: f.protocols for f in classes_at_import(module, {id(written)})}
    finally:
        del sys.modules["plug_made_other"]
    assert found == {"Alias": ("SpecWorker",), "Explicit": ("DraftWorker",)}


def _raised(code: str, name: str) -> BaseException:
    try:
        exec(compile(code, f"<{name}>", "exec"), {"__name__": name})
    except BaseException as exc:  # noqa: BLE001
        return exc
    raise AssertionError("no exception")


@pytest.mark.parametrize(
    ("code", "fails"),
    [
        ("class M(type): pass\nclass A(metaclass=M): pass\nimport abc\nclass B(A, abc.ABC): pass\n", True),
        ("undefined_name\n", True),
        ("raise ImportError('no kernel')\n", False),
        ("raise RuntimeError('no GPU')\n", False),
        ("import json\njson.loads('{')\n", False),
    ],
)
def test_an_import_failure_of_the_modules_own_code_fails_it(code: str, fails: bool) -> None:
    assert import_failure(_raised(code, "plugmod.sub"), "plugmod.sub") is fails


def test_a_kept_sglang_member_that_stores_on_a_frozen_class_fails() -> None:
    class Stores(Base):
        def alloc(self, pool: object = None) -> None:
            self.pool = pool

    Stores.__module__ = "sglang.fake_base"

    @dataclasses.dataclass(frozen=True, eq=False)
    class Frozen(Stores):
        width: int = 1

    @dataclasses.dataclass(eq=False)
    class Thawed(Stores):
        width: int = 1

    [finding] = construction_findings(Frozen, ("alloc",), "the scheduler")
    assert finding.member == "alloc" and "frozen dataclass" in finding.message and "self.pool" in finding.message
    assert construction_findings(Thawed, ("alloc",), "the scheduler") == []
