"""Draft-worker injection: a typed, validated ``build_draft_tp_worker``.

sglang 0.5.23 lets a speculative worker build its draft model with a class of
its choosing: ``build_draft_tp_worker(..., draft_worker_cls=...)``
(``sglang/srt/speculative/draft_worker_common.py``). sglang types the
parameter ``type[TpModelWorker]``, which accepts any subclass whatever its
constructor takes, and returns a ``DraftWorkerBundle`` whose ``draft_worker``
is a ``TpModelWorker``, so the injected class's own type is lost.

This module fixes both ends:

* :func:`build_draft_tp_worker` takes a :class:`DraftWorkerFactory` ``[W]``
  (checked by the constructor, statically) and returns a
  :class:`TypedDraftWorkerBundle` ``[W]``, so the caller gets ``W`` back;
* :func:`validate_draft_worker_cls` checks the class at runtime, before any
  GPU memory is allocated, and reports every problem at once.

Nothing here imports sglang until :func:`build_draft_tp_worker` is called.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from typing_extensions import Protocol, TypeVar

from spec_protocols._members import call_keywords
from spec_protocols._protocols import DraftWorkerFactory, InjectableDraftWorker
from spec_protocols._sglang_types import LoadGroup, ModelConfig, ModelRunner, ServerArgs, TpModelWorker
from spec_protocols._verify import abstract_members, describe_target, verify_call, verify_conformance

__all__ = [
    "DRAFT_WORKER_CTOR_KEYWORDS",
    "TypedDraftWorkerBundle",
    "build_draft_tp_worker",
    "validate_draft_worker_cls",
]

#: The keywords sglang's ``build_draft_tp_worker`` passes to
#: ``draft_worker_cls(...)`` (draft_worker_common.py:92), in call order. An
#: injected class's constructor must accept every one of them by name. Read
#: from :class:`DraftWorkerFactory`'s ``__call__``, their one definition.
DRAFT_WORKER_CTOR_KEYWORDS: Final[tuple[str, ...]] = call_keywords(DraftWorkerFactory)

# The module whose build_draft_tp_worker we delegate to; imported on first call.
_SGLANG_MODULE: Final = "sglang.srt.speculative.draft_worker_common"

_W_co = TypeVar("_W_co", covariant=True)
_W = TypeVar("_W", bound=InjectableDraftWorker, default=TpModelWorker)
_C = TypeVar("_C")


class TypedDraftWorkerBundle(Protocol[_W_co]):
    """A read-only, typed view of sglang's ``DraftWorkerBundle``.

    sglang's bundle (a frozen ``msgspec.Struct``) declares ``draft_worker`` as
    ``TpModelWorker``; this view carries the class that was actually injected,
    so ``build_draft_tp_worker(draft_worker_cls=MyDraft, ...).draft_worker`` is
    a ``MyDraft`` to a checker. The object at runtime is sglang's own bundle.
    """

    @property
    def draft_worker(self) -> _W_co:
        """The draft worker, an instance of the injected class."""
        ...

    @property
    def draft_model_runner(self) -> ModelRunner:
        """``draft_worker.model_runner``; sglang also stores it as ``draft_worker.draft_runner``."""
        ...

    # A torch.nn.Module at runtime; typed object because torch is not a
    # dependency of this library and callers only pass it on.
    @property
    def draft_model(self) -> object:
        """The draft model (``draft_model_runner.model``)."""
        ...

    @property
    def resolved_attention_backend(self) -> str:
        """The attention backend the draft worker was built with."""
        ...


def _signature_words(cls: type) -> str:
    try:
        return str(inspect.signature(cls))
    except Exception:
        return "(signature unreadable)"


@dataclass(frozen=True)
class DraftClassProblem:
    """One problem :func:`draft_worker_cls_problems` found, with the member it concerns.

    ``member`` is ``"__init__"`` for what breaks the construction (an abstract
    class, a constructor that cannot take sglang's call), the
    :class:`~spec_protocols.DraftWorker` member for what breaks the instances,
    and ``None`` when the object is not a class at all. ``message`` is the
    line :func:`validate_draft_worker_cls` prints.
    """

    member: str | None
    message: str


def draft_worker_cls_problems(
    cls: object, keywords: Sequence[str] | None = None
) -> tuple[list[DraftClassProblem], list[str]]:
    """What :func:`validate_draft_worker_cls` would report: ``(problems, notes)``.

    ``keywords``: the keywords the constructor must take, when they are not
    :class:`DraftWorkerFactory`'s (the gate passes those of the sglang release
    it checks). The gate's runtime checker reads these directly rather than
    parsing the ``TypeError`` text, so each problem keeps the member it is
    about. The notes (the constructor's signature) explain the constructor
    problems.
    """
    problems: list[DraftClassProblem] = []
    notes: list[str] = []
    # type()/issubclass() and describe_target(), never isinstance() or repr():
    # both would run code of an arbitrary object (__class__, __repr__).
    if not issubclass(type(cls), type):
        problems.append(DraftClassProblem(None, f"not a class: got {describe_target(cls)}; pass the class itself"))
    else:
        klass = cast(type, cls)
        # Read statically: getattr(klass, "__abstractmethods__") would run a
        # metaclass __getattr__ on a class that has none.
        abstract = abstract_members(klass)
        if abstract:
            problems.append(
                DraftClassProblem("__init__", f"abstract class: it cannot be instantiated; implement {', '.join(abstract)}")
            )
        ctor = (
            verify_conformance(klass, DraftWorkerFactory).problems
            if keywords is None
            else verify_call(klass, keywords, member="__init__")
        )
        problems.extend(DraftClassProblem("__init__", f"constructor: {problem.message}") for problem in ctor)
        if ctor:
            notes.append(f"the constructor is {describe_target(klass)}{_signature_words(klass)}")
        instances = verify_conformance(klass, InjectableDraftWorker)
        problems.extend(
            DraftClassProblem(problem.member, f"instances would not satisfy InjectableDraftWorker: {problem}")
            for problem in instances.problems
        )
    return problems, notes


def validate_draft_worker_cls(cls: _C) -> _C:
    """Check a class for ``build_draft_tp_worker(draft_worker_cls=...)``; return it unchanged.

    Runs before anything is allocated, and raises ``TypeError`` listing every
    problem at once:

    * ``cls`` is not a class;
    * it is abstract (the abstract methods are named);
    * its constructor cannot accept one of :data:`DRAFT_WORKER_CTOR_KEYWORDS`
      (each such keyword is named), or has a required parameter the call
      would leave unfilled (each is named);
    * its instances would not satisfy :class:`~spec_protocols.InjectableDraftWorker`:
      the :class:`~spec_protocols.DraftWorker` members ``BaseSpecWorker``
      relies on, and the ``model_runner`` ``build_draft_tp_worker`` reads
      (each member problem is listed).

    :func:`spec_protocols.build_draft_tp_worker` calls it; plugin authors can
    call it at import time to fail early.
    """
    problems, notes = draft_worker_cls_problems(cls)
    if problems:
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        lines = [f"{describe_target(cls)} cannot be used as draft_worker_cls ({count}):"]
        lines.extend(f"  - {problem.message}" for problem in problems)
        lines.extend(f"  ({note})" for note in notes)
        raise TypeError("\n".join(lines))
    return cls


class _Default:
    """The marker for "not given": sglang's own default applies."""

    def __repr__(self) -> str:
        return "<sglang's default>"


_NOT_GIVEN_MARKER: Final = _Default()
# The same marker, typed to fit any parameter's default. draft_worker_cls
# defaults to the marker under its own type instead: a checker then finds
# nothing to infer the class from when the argument is left out, and the
# bundle's class falls back to _W's default, sglang's TpModelWorker.
_NOT_GIVEN: Any = _NOT_GIVEN_MARKER


def build_draft_tp_worker(
    *,
    server_args: ServerArgs,
    gpu_id: int,
    nccl_port: int,
    target_model_config: ModelConfig,
    algo_label: str,
    attention_backend_override: str | None = _NOT_GIVEN,
    draft_worker_cls: DraftWorkerFactory[_W] | _Default = _NOT_GIVEN_MARKER,
    random_seed: int | None = _NOT_GIVEN,
    load_group: LoadGroup = _NOT_GIVEN,
) -> TypedDraftWorkerBundle[_W]:
    """Build a draft worker with sglang's ``build_draft_tp_worker``, typed by the injected class.

    Without ``draft_worker_cls`` the result is a
    ``TypedDraftWorkerBundle[TpModelWorker]`` (sglang's default class). With
    one, it is validated first (:func:`validate_draft_worker_cls`, so a bad
    class fails before anything is allocated) and the result is a
    ``TypedDraftWorkerBundle[ThatClass]``.

    Then sglang's own function (``draft_worker_common.build_draft_tp_worker``)
    is imported and called with exactly the arguments given: an optional
    argument left out is not passed at all, so sglang's own defaults
    (``TpModelWorker``, its default load group, ``None``) apply.
    """
    kwargs: dict[str, object] = {
        "server_args": server_args,
        "gpu_id": gpu_id,
        "nccl_port": nccl_port,
        "target_model_config": target_model_config,
        "algo_label": algo_label,
    }
    if draft_worker_cls is not _NOT_GIVEN:
        validate_draft_worker_cls(draft_worker_cls)
    optional: dict[str, object] = {
        "attention_backend_override": attention_backend_override,
        "draft_worker_cls": draft_worker_cls,
        "random_seed": random_seed,
        "load_group": load_group,
    }
    kwargs.update((name, value) for name, value in optional.items() if value is not _NOT_GIVEN)
    # Deferred import: sglang (and torch) load only when a worker is built.
    # Typed through this function's own signature, not through sglang's.
    sglang_module: Any = importlib.import_module(_SGLANG_MODULE)
    return cast("TypedDraftWorkerBundle[_W]", sglang_module.build_draft_tp_worker(**kwargs))
