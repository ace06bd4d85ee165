"""Class decorators that make a plain type checker judge a worker where it is defined.

Without them an author sees conformance only in the gate's report, or after
writing a conformance assignment by hand (``_: SpecWorkerFactory = MyWorker``):
sglang types what a plugin returns as a bare ``type``, so nothing in the
author's own code asks mypy or pyright the question. Decorating the class asks
it, in the IDE, as the author types::

    @spec_worker_class
    class MyWorker(SpecWorkerBase):
        ...

Each decorator is the identity at run time (it returns the class it is given,
untouched: no ``isinstance``, no inspection, nothing imported), and is typed
with a type variable bounded by the factory protocol of the call sglang makes:

* :func:`spec_worker_class`: bounded by :class:`SpecWorkerFactory`, the
  scheduler's ``WorkerClass(server_args=, gpu_id=, nccl_port=,
  target_worker=)`` (managers/scheduler.py, ``Scheduler.maybe_init_draft_worker``),
  which returns a :class:`SpecWorker`;
* :func:`draft_worker_class`: bounded by ``DraftWorkerFactory[InjectableDraftWorker]``,
  ``build_draft_tp_worker``'s ``draft_worker_cls(server_args=, gpu_id=, ...)``
  (speculative/draft_worker_common.py, ``build_draft_tp_worker``), which returns
  an :class:`InjectableDraftWorker` (a :class:`DraftWorker` with the
  ``model_runner`` that call reads on what it built).

A class object is callable with its constructor's signature and returns its
instance type, so one bound checks both halves: a constructor that cannot take
sglang's keywords, and an instance that does not satisfy the protocol
(a missing member, a wrong signature, a property where a method is called).
Because the parameter is a type variable and the result is that same
variable, the decorated name keeps the class's own type: its generics, its
abstract-ness (instantiating an abstract class is still reported where it is
instantiated), its metaclass and its constructor.

What each checker reports, and where (mypy 2.4.1, pyright 1.1.414; see
docs/authoring.md for the verbatim messages and typecheck/protocols_*_class.py
for every case):

* mypy: ``Value of type variable "_ConformingSpecWorker" of "spec_worker_class"
  cannot be "type[MyWorker]"  [type-var]``, on the ``class`` line. mypy says no
  more (it elaborates a protocol mismatch only for a plain argument or an
  assignment, never for a type variable's bound).
* pyright: ``Argument of type "type[MyWorker]" cannot be assigned to parameter
  "cls" ...  (reportArgumentType)``, on the decorator line, with the reason:
  the constructor's parameter it cannot match, or the protocol the instance
  does not satisfy (pyright stops elaborating at five levels, so the member is
  not named there; ``spec-protocols check`` names it). In strict mode pyright
  adds ``reportUntypedClassDecorator`` on the same line: a decorator call it
  could not evaluate leaves the class as it was.

An abstract class is reported by neither checker here: mypy checks a class
decorator's call with its abstract-class check (``[type-abstract]``) switched
off, whatever the parameter's type, and pyright has no check of an abstract
class given as a class object; ``spec-protocols check`` fails it, naming the
abstract members. :class:`SpecWorkerBase`'s own abstract member,
``forward_batch_generation``, is abstract at run time only, so a subclass
that does not write it is reported as a missing member, by both.

The members follow the release the protocols are pinned to
(``spec-protocols pin``), since the bound's return type is the pinned
:class:`SpecWorker`; the constructor keywords are the factory protocols' own,
the newest release's (a release that passes ``ps=``, 0.5.19 and 0.5.20, is
judged by the gate, which reads each release's call).
"""

from __future__ import annotations

from typing import TypeVar

from spec_protocols._protocols import DraftWorkerFactory, InjectableDraftWorker, SpecWorkerFactory

__all__ = ["draft_worker_class", "spec_worker_class"]

# The names appear in the checkers' messages ("Value of type variable
# "_ConformingSpecWorker" of "spec_worker_class" cannot be ..."), so they say
# what the class failed to be.
_ConformingSpecWorker = TypeVar("_ConformingSpecWorker", bound=SpecWorkerFactory)
_ConformingDraftWorker = TypeVar("_ConformingDraftWorker", bound=DraftWorkerFactory[InjectableDraftWorker])


def spec_worker_class(cls: _ConformingSpecWorker, /) -> _ConformingSpecWorker:
    """Mark ``cls`` as a speculative worker that sglang's scheduler constructs.

    At run time it returns ``cls`` itself and does nothing else. To mypy and
    pyright it is a check, reported at the class definition: that
    ``cls(server_args=..., gpu_id=..., nccl_port=..., target_worker=...)``
    type-checks, as ``Scheduler.maybe_init_draft_worker`` calls it
    (:class:`~spec_protocols.SpecWorkerFactory`), and that what it builds is a
    :class:`~spec_protocols.SpecWorker`: every member the scheduler calls or
    reads, with signatures that accept its calls. Subclass
    :class:`~spec_protocols.SpecWorkerBase` to inherit everything but
    ``forward_batch_generation``.

    ``spec-protocols check`` adds what no type checker sees: which member,
    the ``BaseSpecWorker`` defaults the class keeps, an abstract class (a
    member declared abstract and never written, other than
    ``SpecWorkerBase.forward_batch_generation``, which both checkers report
    as missing), and each release's own calls (docs/authoring.md).
    """
    return cls


def draft_worker_class(cls: _ConformingDraftWorker, /) -> _ConformingDraftWorker:
    """Mark ``cls`` as a draft-worker class that sglang's ``build_draft_tp_worker`` constructs.

    At run time it returns ``cls`` itself and does nothing else. To mypy and
    pyright it is a check, reported at the class definition: that
    ``cls(server_args=..., gpu_id=..., nccl_port=..., is_draft_worker=True,
    random_seed=..., load_group=..., context_length=...,
    draft_attention_backend=...)`` type-checks, as ``build_draft_tp_worker``
    calls the ``draft_worker_cls`` it is given
    (:class:`~spec_protocols.DraftWorkerFactory`), and that what it builds is
    an :class:`~spec_protocols.InjectableDraftWorker`: a
    :class:`~spec_protocols.DraftWorker` with the ``model_runner`` that
    ``build_draft_tp_worker`` reads right after construction. A subclass of
    sglang's ``TpModelWorker`` that keeps its constructor is one.

    For a draft worker that your own spec worker builds, with arguments of
    its own, sglang makes no constructor call: check it as a
    :class:`~spec_protocols.DraftWorker` instead (``draft: DraftWorker = MyDraft(...)``).
    """
    return cls
