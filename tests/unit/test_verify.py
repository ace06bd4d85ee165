"""verify_conformance: one negative test per kind of mismatch, and the positives.

Small local protocols keep each case to the one concept it tests; the last
section runs the library's own protocols.
"""

from __future__ import annotations

import abc
import functools
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from typing_extensions import Protocol

from spec_protocols import (
    ConformanceProblem,
    ConformanceResult,
    DraftWorker,
    DraftWorkerFactory,
    SpecWorker,
    SpecWorkerBase,
    verify_conformance,
)
from tests.stand_ins import StandInDraft
from spec_protocols._verify import abstract_members


class Step(Protocol):
    """A method called as ``step(batch)`` and ``step(batch, on_publish=...)``; a property; an attribute."""

    def step(self, batch: object, /, *, on_publish: object = ...) -> None: ...

    @property
    def usage(self) -> int: ...

    counter: int


class AsyncStep(Protocol):
    async def run(self) -> None: ...


def kinds(result: ConformanceResult) -> list[tuple[str, str]]:
    return [(problem.member, problem.kind) for problem in result.problems]


class Good:
    counter = 0

    def step(self, batch: object, /, *, on_publish: object = None) -> None: ...

    @property
    def usage(self) -> int:
        return 1


# -- positives -------------------------------------------------------------


def test_a_conforming_class_has_no_problems() -> None:
    result = verify_conformance(Good, Step)
    assert result.ok
    assert result.problems == ()
    assert result.target == f"{__name__}.Good"
    assert result.protocol == "Step"
    assert str(result) == f"{__name__}.Good conforms to Step"


def test_wider_implementations_conform() -> None:
    # Positional-or-keyword where the protocol is positional-only or
    # keyword-only, extra optional parameters, *args/**kwargs, a plain
    # attribute or an annotation for a property, and a setter-less property
    # is not required for a read-only protocol property.
    class Wide:
        usage = 3
        counter: int

        def step(self, anything: object, on_publish: object = None, extra: int = 0, *a: Any, **k: Any) -> None: ...

    class Kwargs:
        usage: int
        counter = 1

        def step(self, *args: Any, **kwargs: Any) -> None: ...

    assert verify_conformance(Wide, Step).ok
    assert verify_conformance(Kwargs, Step).ok


def test_staticmethod_classmethod_and_callable_values_are_methods() -> None:
    class Static:
        counter = 0
        usage = 0

        @staticmethod
        def step(batch: object, /, *, on_publish: object = None) -> None: ...

    class Klass:
        counter = 0
        usage = 0

        @classmethod
        def step(cls, batch: object, on_publish: object = None) -> None: ...

    def free(batch: object, on_publish: object = None) -> None: ...

    class Partial:
        counter = 0
        usage = 0
        step = functools.partial(free)

    for cls in (Static, Klass, Partial):
        assert verify_conformance(cls, Step).ok, verify_conformance(cls, Step).format()


def test_staticmethod_and_classmethod_are_checked_by_their_call_shape() -> None:
    # What passes above passes because the call shape accepts the protocol's
    # calls; the same decorators with a shape that does not are reported.
    class StaticExtra:
        counter = 0
        usage = 0

        @staticmethod
        def step(batch: object, budget: int, /, *, on_publish: object = None) -> None: ...

    class StaticSelf:
        counter = 0
        usage = 0

        @staticmethod
        def step(self: object, batch: object, /, *, on_publish: object = None) -> None: ...

    class ClassRenamed:
        counter = 0
        usage = 0

        @classmethod
        def step(cls, batch: object, /, *, publish: object = None) -> None: ...

    class ClassNoCls:
        counter = 0
        usage = 0

        @classmethod
        def step(*args: Any, **kwargs: Any) -> None: ...

    assert [p.message for p in verify_conformance(StaticExtra, Step).problems] == [
        "extra required parameter 'budget': callers never pass it"
    ]
    # A staticmethod gets no self: a "self" parameter takes the batch, and
    # the batch parameter is then an extra one.
    assert kinds(verify_conformance(StaticSelf, Step)) == [("step", "signature")]
    assert "extra required parameter 'batch'" in verify_conformance(StaticSelf, Step).problems[0].message
    assert [p.message for p in verify_conformance(ClassRenamed, Step).problems] == [
        "keyword 'on_publish' cannot be passed: no such parameter and no **kwargs"
    ]
    assert verify_conformance(ClassNoCls, Step).ok


def test_partialmethod_is_a_method_with_its_real_signature() -> None:
    class Worker:
        counter = 0
        usage = 0

        def _step(self, batch: object, mode: str, on_publish: object = None) -> None: ...

        step = functools.partialmethod(_step, mode="fast")

    class Narrow:
        counter = 0
        usage = 0

        def _step(self, batch: object, mode: str) -> None: ...

        step = functools.partialmethod(_step, mode="fast")

    class OverStatic:
        counter = 0
        usage = 0

        @staticmethod
        def _step(batch: object, mode: str, on_publish: object = None) -> None: ...

        step = functools.partialmethod(_step, mode="fast")

    class OverClassmethod:
        counter = 0
        usage = 0

        @classmethod
        def _step(cls, batch: object, mode: str) -> None: ...

        step = functools.partialmethod(_step, mode="fast")

    assert verify_conformance(Worker, Step).ok, verify_conformance(Worker, Step).format()
    assert verify_conformance(OverStatic, Step).ok, verify_conformance(OverStatic, Step).format()
    assert kinds(verify_conformance(Narrow, Step)) == [("step", "signature")]
    assert "'on_publish'" in verify_conformance(Narrow, Step).problems[0].message
    assert [p.message for p in verify_conformance(OverClassmethod, Step).problems] == [
        "keyword 'on_publish' cannot be passed: no such parameter and no **kwargs"
    ]


def test_partialmethod_over_a_custom_descriptor_is_unverifiable_without_running_it() -> None:
    class Descriptor:
        def __get__(self, obj: object, owner: type | None = None) -> Any:
            raise AssertionError("the target's __get__ must not run")

    class Custom:
        counter = 0
        usage = 0
        step = functools.partialmethod(Descriptor())  # type: ignore[arg-type]

    result = verify_conformance(Custom, Step)
    assert kinds(result) == [("step", "unverifiable")]
    assert "without running its code" in result.problems[0].message


class Lifecycle(Protocol):
    def alloc(self) -> None: ...

    def runners(self) -> Iterator[int]: ...

    def stream(self) -> AsyncIterator[int]: ...

    async def fetch(self) -> int: ...


class GoodLifecycle:
    def alloc(self) -> None: ...

    def runners(self) -> Iterator[int]:
        yield 1

    async def stream(self) -> AsyncIterator[int]:
        yield 1

    async def fetch(self) -> int:
        return 1


def test_a_generator_where_a_plain_method_is_expected_is_reported() -> None:
    class GeneratorAlloc(GoodLifecycle):
        def alloc(self) -> Iterator[None]:  # type: ignore[override]
            yield None

    class AsyncGeneratorAlloc(GoodLifecycle):
        async def alloc(self) -> AsyncIterator[None]:  # type: ignore[override]
            yield None

    result = verify_conformance(GeneratorAlloc, Lifecycle)
    assert kinds(result) == [("alloc", "generator")]
    assert result.problems[0].message == (
        "is a generator function: calling it returns a generator and runs none of its body, "
        "but callers expect the call to do the work"
    )
    result = verify_conformance(AsyncGeneratorAlloc, Lifecycle)
    assert kinds(result) == [("alloc", "generator")]
    assert result.problems[0].message.startswith("is an async generator function: calling it returns an async generator")


def test_a_generator_conforms_where_the_protocol_returns_an_iterator() -> None:
    # weight_update_runners (-> Iterable) may be written as a generator; an
    # async generator is not a sync iterator, nor a coroutine.
    assert verify_conformance(GoodLifecycle, Lifecycle).ok, verify_conformance(GoodLifecycle, Lifecycle).format()

    class AsyncRunners(GoodLifecycle):
        async def runners(self) -> AsyncIterator[int]:  # type: ignore[override]
            yield 1

    class GeneratorFetch(GoodLifecycle):
        def fetch(self) -> Iterator[int]:  # type: ignore[override]
            yield 1

    assert kinds(verify_conformance(AsyncRunners, Lifecycle)) == [("runners", "generator")]
    result = verify_conformance(GeneratorFetch, Lifecycle)
    assert kinds(result) == [("fetch", "async")]
    assert result.problems[0].message.startswith("is a generator function, but the protocol method is async")


def test_an_evaluated_iterator_annotation_admits_a_generator_too() -> None:
    # This file's annotations are strings (from __future__ import
    # annotations); a protocol defined without it carries the objects.
    class Evaluated(Protocol):
        def runners(self) -> Iterator[int]: ...

        def alloc(self) -> None: ...

    Evaluated.runners.__annotations__["return"] = Iterator[int]
    Evaluated.alloc.__annotations__["return"] = None

    class Gen:
        def runners(self) -> Iterator[int]:
            yield 1

        def alloc(self) -> Iterator[None]:
            yield None

    assert kinds(verify_conformance(Gen, Evaluated)) == [("alloc", "generator")]


def test_generators_behind_staticmethod_classmethod_and_partialmethod_are_seen() -> None:
    def gen(self: object) -> Iterator[None]:
        yield None

    class Static(GoodLifecycle):
        @staticmethod
        def alloc() -> Iterator[None]:  # type: ignore[override]
            yield None

    class Klass(GoodLifecycle):
        @classmethod
        def alloc(cls) -> Iterator[None]:  # type: ignore[override]
            yield None

    class Partial(GoodLifecycle):
        alloc = functools.partialmethod(gen)  # type: ignore[assignment]

    for cls in (Static, Klass, Partial):
        assert kinds(verify_conformance(cls, Lifecycle)) == [("alloc", "generator")], cls


def test_spec_worker_forward_batch_generation_as_a_generator_fails() -> None:
    class LazyWorker(SpecWorkerBase):
        def forward_batch_generation(  # type: ignore[override]
            self, batch: object, /, *, on_publish: object = None
        ) -> Iterator[Any]:
            yield None

    result = verify_conformance(LazyWorker, SpecWorker)
    assert kinds(result) == [("forward_batch_generation", "generator")]


def test_abstract_members_reads_the_abc_set_statically() -> None:
    class Base(abc.ABC):
        @abc.abstractmethod
        def b(self) -> None: ...

        @abc.abstractmethod
        def a(self) -> None: ...

    class Concrete(Base):
        def a(self) -> None: ...

        def b(self) -> None: ...

    class Meta(abc.ABCMeta):
        def __getattr__(cls, name: str) -> Any:
            raise AssertionError("metaclass __getattr__ must not run")

    class Odd(metaclass=Meta):
        pass

    assert abstract_members(Base) == ("a", "b")
    assert abstract_members(Concrete) == ()
    assert abstract_members(Odd) == ()
    assert abstract_members(Good) == ()
    assert abstract_members(MinimalWorker) == ()


# -- one negative test per kind of mismatch ----------------------------------


def test_missing_member() -> None:
    class NoStep:
        counter = 0
        usage = 0

    result = verify_conformance(NoStep, Step)
    assert kinds(result) == [("step", "missing")]
    assert not result.ok


def test_method_where_the_protocol_has_a_property() -> None:
    class UsageIsMethod(Good):
        def usage(self) -> int:  # type: ignore[override]
            return 1

    result = verify_conformance(UsageIsMethod, Step)
    assert kinds(result) == [("usage", "kind")]
    assert "is a method" in result.problems[0].message


def test_property_where_the_protocol_has_a_method() -> None:
    class StepIsProperty(Good):
        @property
        def step(self) -> Any:  # type: ignore[override]
            return None

    result = verify_conformance(StepIsProperty, Step)
    assert kinds(result) == [("step", "kind")]
    assert "read-only property" in result.problems[0].message
    assert "the protocol has a method" in result.problems[0].message


def test_non_callable_value_where_the_protocol_has_a_method() -> None:
    class StepIsNone(Good):
        step = None  # type: ignore[assignment]

    assert kinds(verify_conformance(StepIsNone, Step)) == [("step", "kind")]


def test_read_only_property_where_the_protocol_has_a_settable_attribute() -> None:
    class CounterIsReadOnly(Good):
        @property
        def counter(self) -> int:  # type: ignore[override]
            return 0

    result = verify_conformance(CounterIsReadOnly, Step)
    assert kinds(result) == [("counter", "kind")]
    assert "callers may set" in result.problems[0].message


def test_read_only_property_where_the_protocol_has_a_settable_property() -> None:
    class Settable(Protocol):
        @property
        def budget(self) -> int: ...

        @budget.setter
        def budget(self, value: int) -> None: ...

    class ReadOnly:
        @property
        def budget(self) -> int:
            return 0

    class Plain:
        budget = 0

    assert kinds(verify_conformance(ReadOnly, Settable)) == [("budget", "kind")]
    assert verify_conformance(Plain, Settable).ok


def test_extra_required_positional_argument() -> None:
    class ExtraArg(Good):
        def step(self, batch: object, budget: int, /, *, on_publish: object = None) -> None: ...  # type: ignore[override]

    result = verify_conformance(ExtraArg, Step)
    assert kinds(result) == [("step", "signature")]
    assert "extra required parameter 'budget'" in result.problems[0].message


def test_extra_required_keyword() -> None:
    class ExtraKeyword(Good):
        def step(self, batch: object, /, *, on_publish: object = None, grammar: object) -> None: ...  # type: ignore[override]

    result = verify_conformance(ExtraKeyword, Step)
    assert kinds(result) == [("step", "signature")]
    assert "extra required parameter 'grammar'" in result.problems[0].message


def test_renamed_keyword_is_reported_by_both_names() -> None:
    class Renamed(Good):
        def step(self, batch: object, /, *, publish: object = None) -> None: ...  # type: ignore[override]

    result = verify_conformance(Renamed, Step)
    assert kinds(result) == [("step", "signature")]
    assert "keyword 'on_publish' cannot be passed" in result.problems[0].message

    class RenamedRequired(Good):
        def step(self, batch: object, /, *, publish: object) -> None: ...  # type: ignore[override]

    messages = [p.message for p in verify_conformance(RenamedRequired, Step).problems]
    assert any("'on_publish'" in m for m in messages)
    assert any("extra required parameter 'publish'" in m for m in messages)


def test_keyword_only_in_protocol_but_positional_only_in_implementation() -> None:
    class PositionalOnly(Good):
        def step(self, batch: object, on_publish: object = None, /) -> None: ...  # type: ignore[override]

    result = verify_conformance(PositionalOnly, Step)
    assert kinds(result) == [("step", "signature")]
    assert "positional-only" in result.problems[0].message
    assert "'on_publish'" in result.problems[0].message


def test_positional_in_protocol_but_keyword_only_in_implementation() -> None:
    class KeywordOnlyBatch(Good):
        def step(self, *, batch: object, on_publish: object = None) -> None: ...  # type: ignore[override]

    messages = [p.message for p in verify_conformance(KeywordOnlyBatch, Step).problems]
    assert any("'batch' is passed positionally" in m for m in messages)


def test_a_method_without_self_is_reported() -> None:
    class NoSelf(Good):
        def step() -> None: ...  # type: ignore[misc, override]

    result = verify_conformance(NoSelf, Step)
    assert kinds(result) == [("step", "signature")]
    assert "no parameter for self" in result.problems[0].message


def test_optional_in_protocol_must_be_optional_in_implementation() -> None:
    class RequiredPublish(Good):
        def step(self, batch: object, /, *, on_publish: object) -> None: ...  # type: ignore[override]

    result = verify_conformance(RequiredPublish, Step)
    assert kinds(result) == [("step", "signature")]
    assert "optional in the protocol" in result.problems[0].message


def test_sync_implementation_of_an_async_method() -> None:
    class Sync:
        def run(self) -> None: ...

    result = verify_conformance(Sync, AsyncStep)
    assert kinds(result) == [("run", "async")]
    assert "protocol method is async" in result.problems[0].message


def test_async_implementation_of_a_sync_method() -> None:
    class Async(Good):
        async def step(self, batch: object, /, *, on_publish: object = None) -> None: ...  # type: ignore[override]

    result = verify_conformance(Async, Step)
    assert kinds(result) == [("step", "async")]
    assert "callers never await it" in result.problems[0].message


def test_async_conforms_to_async() -> None:
    class Async:
        async def run(self) -> None: ...

    assert verify_conformance(Async, AsyncStep).ok


# -- __getattr__, instances, all problems at once ------------------------------


class Delegating:
    """Like sglang's DFlash/DSpark/Uno workers: everything else goes to the target."""

    counter = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(object(), name, lambda *a, **k: None)

    @property
    def usage(self) -> int:
        return 0


def test_getattr_never_supplies_a_member() -> None:
    result = verify_conformance(Delegating, Step)
    assert kinds(result) == [("step", "missing")]
    assert "__getattr__ does not count" in result.problems[0].message
    # Also for an instance, whose __getattr__ would answer for anything.
    assert kinds(verify_conformance(Delegating(), Step)) == [("step", "missing")]


def test_getattribute_override_is_not_consulted() -> None:
    class Liar(Good):
        def __getattribute__(self, name: str) -> Any:
            raise AssertionError("verify_conformance must not run __getattribute__")

    assert verify_conformance(Liar(), Step).ok


def test_instance_dict_counts_for_an_instance_not_for_the_class() -> None:
    class SetInInit:
        def __init__(self) -> None:
            self.counter = 0
            self.usage = 1
            self.step = lambda batch, on_publish=None: None

    assert verify_conformance(SetInInit(), Step).ok
    assert kinds(verify_conformance(SetInInit, Step)) == [
        ("step", "missing"),
        ("usage", "missing"),
        ("counter", "missing"),
    ]


def test_an_annotation_counts_for_a_class_but_not_for_an_instance_that_never_set_it() -> None:
    class OnlyAnnotated:
        counter: int
        usage: int

        def step(self, batch: object, /, *, on_publish: object = None) -> None: ...

    assert verify_conformance(OnlyAnnotated, Step).ok
    instance = OnlyAnnotated()
    assert kinds(verify_conformance(instance, Step)) == [("usage", "missing"), ("counter", "missing")]
    instance.usage = 1
    instance.counter = 2
    assert verify_conformance(instance, Step).ok


def test_instance_dict_does_not_override_a_property() -> None:
    class Shadow(Good):
        def __init__(self) -> None:
            # An instance value shadows a method (a non-data descriptor)...
            self.__dict__["step"] = 3
            # ...but not a property (a data descriptor): this one is never seen.
            self.__dict__["usage"] = lambda: 1

    assert kinds(verify_conformance(Shadow(), Step)) == [("step", "kind")]


def test_every_problem_is_reported_at_once_in_protocol_order() -> None:
    class Everything:
        @property
        def step(self) -> None: ...

        def usage(self) -> int:
            return 0

    result = verify_conformance(Everything, Step)
    assert kinds(result) == [("step", "kind"), ("usage", "kind"), ("counter", "missing")]
    text = result.format()
    assert text.splitlines()[0].endswith("does not conform to Step (3 problems):")
    for problem in result.problems:
        assert str(problem) in text
        assert problem.message in text


def test_multiple_signature_problems_on_one_member_are_all_reported() -> None:
    class Bad(Good):
        def step(self, batch: object, budget: int, /, *, publish: object, mode: str) -> None: ...  # type: ignore[override]

    messages = [p.message for p in verify_conformance(Bad, Step).problems]
    assert len(messages) == 4, messages
    assert sum("extra required parameter" in m for m in messages) == 3


def test_result_and_problem_are_frozen_values() -> None:
    class NoStep:
        counter = 0
        usage = 0

    first = verify_conformance(NoStep, Step)
    assert first == verify_conformance(NoStep, Step)
    with pytest.raises(AttributeError):
        first.problems = ()  # type: ignore[misc]
    problem = first.problems[0]
    assert isinstance(problem, ConformanceProblem)
    with pytest.raises(AttributeError):
        problem.kind = "kind"  # type: ignore[misc]


# -- odd shapes never crash -------------------------------------------------------


def test_unreadable_signature_is_unverifiable_not_a_crash() -> None:
    class Weird:
        counter = 0
        usage = 0
        step = len  # a C function: no bound self, but a signature exists

    class NoSignature:
        counter = 0
        usage = 0

        def step(self, batch: object, /, *, on_publish: object = None) -> None: ...

    def boom(self: object) -> None:
        raise RuntimeError("no signature for you")

    NoSignature.step.__signature__ = property(boom)  # type: ignore[attr-defined]
    assert all(p.kind in ("signature", "unverifiable") for p in verify_conformance(Weird, Step).problems)
    result = verify_conformance(NoSignature, Step)
    assert [p.kind for p in result.problems] == ["unverifiable"]


def test_c_type_against_a_callable_protocol_is_unverifiable() -> None:
    result = verify_conformance(dict, DraftWorkerFactory)
    assert [p.kind for p in result.problems] == ["unverifiable"]
    assert result.target == "builtins.dict"


def test_raising_properties_and_metaclasses_do_not_break_the_check() -> None:
    class Meta(type):
        def __getattr__(cls, name: str) -> Any:
            raise RuntimeError("metaclass __getattr__ must not run")

        @property
        def __signature__(cls) -> Any:
            raise RuntimeError("no")

    class Odd(metaclass=Meta):
        counter = 0

        @property
        def usage(self) -> int:
            raise RuntimeError("getter must not run")

    assert kinds(verify_conformance(Odd, Step)) == [("step", "missing")]
    assert not verify_conformance(Odd, DraftWorkerFactory).ok


def test_not_a_protocol_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="Protocol"):
        verify_conformance(Good, Good)


# -- the library's own protocols ----------------------------------------------------


class MinimalWorker(SpecWorkerBase):
    def forward_batch_generation(self, batch: object, /, *, on_publish: object = None) -> Any: ...


def test_spec_worker_base_subclass_conforms_to_spec_worker() -> None:
    assert verify_conformance(MinimalWorker, SpecWorker).ok
    assert verify_conformance(MinimalWorker(target_worker=object()), SpecWorker).ok


def test_spec_worker_without_on_publish_is_reported() -> None:
    class OldWorker(SpecWorkerBase):
        def forward_batch_generation(self, batch: object) -> Any:  # type: ignore[override]
            ...

    result = verify_conformance(OldWorker, SpecWorker)
    assert kinds(result) == [("forward_batch_generation", "signature")]
    assert "'on_publish'" in result.problems[0].message


def test_draft_worker_factory_checks_the_constructor() -> None:
    class Ctor:
        def __init__(
            self,
            server_args: object,
            gpu_id: int,
            nccl_port: int,
            is_draft_worker: bool = False,
            random_seed: int | None = None,
            load_group: object = None,
            context_length: int | None = None,
            draft_attention_backend: str | None = None,
            req_to_token_pool: object = None,
        ) -> None: ...

    class MissingKeywords:
        def __init__(self, server_args: object, gpu_id: int, nccl_port: int, tp_rank: int) -> None: ...

    assert verify_conformance(Ctor, DraftWorkerFactory).ok
    assert verify_conformance(Ctor, DraftWorkerFactory[Any]).ok
    messages = [p.message for p in verify_conformance(MissingKeywords, DraftWorkerFactory).problems]
    for keyword in ("is_draft_worker", "random_seed", "load_group", "context_length", "draft_attention_backend"):
        assert any(f"keyword {keyword!r} cannot be passed" in m for m in messages), keyword
    assert any("extra required parameter 'tp_rank'" in m for m in messages)


def test_draft_worker_protocol_rejects_a_target_style_init_cuda_graphs() -> None:
    class Draft(StandInDraft):
        def init_cuda_graphs(self, capture_decode_cuda_graph: bool) -> None: ...  # type: ignore[override]

    result = verify_conformance(Draft, DraftWorker)
    assert kinds(result) == [("init_cuda_graphs", "signature")]
    assert "'capture_decode_cuda_graph'" in result.problems[0].message


def test_callable_instance_is_checked_by_its_class_call_without_getattr() -> None:
    class Factory:
        def __call__(self, *, server_args: Any, gpu_id: int, nccl_port: int, is_draft_worker: bool,
                     random_seed: Any, load_group: Any, context_length: Any, draft_attention_backend: Any) -> Any: ...

        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"__getattr__({name!r}) must not run")

    class NotCallable:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"__getattr__({name!r}) must not run")

    assert verify_conformance(Factory(), DraftWorkerFactory).ok
    assert kinds(verify_conformance(NotCallable(), DraftWorkerFactory)) == [("__call__", "missing")]


def test_a_factory_function_is_checked_by_its_own_signature() -> None:
    def factory(*, server_args: Any, gpu_id: int, nccl_port: int, **rest: Any) -> Any: ...

    def too_narrow(*, server_args: Any) -> Any: ...

    assert verify_conformance(factory, DraftWorkerFactory).ok
    assert verify_conformance(factory, DraftWorkerFactory).target.endswith("factory")
    assert len(verify_conformance(too_narrow, DraftWorkerFactory).problems) == 7
