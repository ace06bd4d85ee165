"""The replay's stand-ins for sglang's side of the boundary: what the scheduler hands a worker, with no GPU and no model.

Each is made from sglang's own classes, so that what the plugin does with it
fails where it would fail on the real object:

* the server arguments are a real ``ServerArgs`` for the plugin's algorithm
  (``model_path="dummy"``, the CPU), resolved and published as the
  scheduler's process publishes them, where the release has that step;
* the target worker is ``create_autospec(TpModelWorker, instance=True)``,
  given the instance attributes ``TpModelWorker``'s source assigns: a
  method called with arguments the real one refuses raises, a member the
  real class lacks is missing;
* ``TpModelWorker.__init__``, the one sglang constructor a plugin's draft
  worker runs (through ``build_draft_tp_worker``, which itself runs as it is),
  is replaced by one that binds its arguments exactly as the real one does
  and assigns what the real one assigns (parameters as given, the rest stand-ins),
  without loading a model.

Everything else of sglang runs as it is; what it cannot do on a CPU raises,
and the replay stops there (:mod:`._boundary`).
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast
from unittest import mock

from spec_protocols.gate._source import assigned

__all__ = ["Standins", "assigned_attributes", "bind_or_raise"]

#: What the scheduler passes for constructor keywords that are plain numbers (ranks, a port).
_NUMBERS = {"gpu_id": 0, "tp_rank": 0, "pp_rank": 0, "dp_rank": 0, "moe_ep_rank": 0, "attn_cp_rank": 0, "nccl_port": 29500}


@functools.lru_cache(maxsize=None)
def assigned_attributes(cls: type) -> frozenset[str]:
    """Every ``self.NAME`` the source of ``cls`` and its sglang bases assigns, in any method."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if not getattr(klass, "__module__", "").startswith("sglang."):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        names.update(_self_targets(tree))
    return frozenset(names)


def _self_targets(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        for target in assigned(node):
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Attribute) and isinstance(leaf.value, ast.Name) and leaf.value.id == "self":
                    yield leaf.attr


def _parameters_assigned(init: Callable[..., object]) -> dict[str, str]:
    """``self.NAME = PARAMETER`` in an ``__init__``: NAME -> PARAMETER."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(init)))
    except (OSError, TypeError, SyntaxError):
        return {}
    params = set(inspect.signature(init).parameters)
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in params:
            for target in node.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                    found[target.attr] = node.value.id
    return found


class Standins:
    """The stand-ins of one replay, and the patches they need (undone by :meth:`restore`)."""

    def __init__(self) -> None:
        from sglang.srt.managers.tp_worker import TpModelWorker

        self.tp_worker_class: type = TpModelWorker
        self._restore: list[Callable[[], None]] = []
        self.notes: list[str] = []
        self._patch_tp_worker_init()

    # -- what a stand-in is -----------------------------------------------------

    @staticmethod
    def files() -> frozenset[str]:
        """The files the stand-ins' own code runs from (this module)."""
        return frozenset({str(Path(__file__).resolve())})

    @staticmethod
    def is_standin(obj: object) -> bool:
        return isinstance(obj, mock.NonCallableMock)

    @staticmethod
    def real_has(obj: object, name: str) -> bool:
        """Whether the sglang class ``obj`` stands for has ``name``."""
        spec = getattr(obj, "_spec_class", None)
        if not isinstance(spec, type):
            return True  # a lenient stand-in: never the plugin's fault
        return hasattr(spec, name) or name in assigned_attributes(spec) or name in getattr(spec, "__dataclass_fields__", {})

    # -- the server arguments ---------------------------------------------------

    def server_args(self, algorithm: str | None, *, overlap: bool) -> Any:
        """A real ``ServerArgs`` for ``algorithm`` on the CPU (overlap scheduling as the algorithm runs)."""
        from sglang.srt.server_args import ServerArgs

        wanted: dict[str, object] = {"model_path": "dummy", "device": "cpu", "disable_overlap_schedule": not overlap}
        server_args_class: Any = ServerArgs
        fields = _field_names(server_args_class)
        if "speculative_algorithm" in fields:
            wanted["speculative_algorithm"] = algorithm
        given = {k: v for k, v in wanted.items() if k in fields}
        try:
            args: Any = server_args_class(**given)
        except Exception as error:  # noqa: BLE001 - a release whose arguments do not build on a CPU
            self.notes.append(f"ServerArgs(...) raised {type(error).__name__}: {error}")
            raise
        self._publish(args)
        return args

    def _publish(self, args: Any) -> None:
        """Resolve and publish the arguments where the release reads them from a runtime context (0.5.23)."""
        try:
            runtime_context: Any = importlib.import_module("sglang.srt.runtime_context")
        except ImportError:
            return
        try:
            resolve = getattr(args, "resolve_once", None)
            if callable(resolve):
                resolve()
            runtime_context.get_context().set_server_args(args)
        except Exception as error:  # noqa: BLE001 - what then reads the context raises inside sglang: the replay stops there
            self.notes.append(f"publishing the server arguments raised {type(error).__name__}: {error}")

    # -- the target worker ------------------------------------------------------

    def target_worker(self, args: Any) -> Any:
        """The target worker sglang passes a spec worker: an autospec of ``TpModelWorker`` with its instance attributes."""
        target = mock.create_autospec(self.tp_worker_class, instance=True)
        for name in sorted(assigned_attributes(self.tp_worker_class)):
            if not hasattr(self.tp_worker_class, name):
                setattr(target, name, mock.MagicMock(name=f"target_worker.{name}"))
        target.server_args = args
        return target

    def target_result(self) -> Any:
        """What the target worker's ``forward_batch_generation`` returns: a real
        ``GenerationBatchResult`` built as ``TpModelWorker`` builds its own
        (managers/tp_worker.py), so ``next_draft_input`` is None."""
        from sglang.srt.managers.utils import GenerationBatchResult

        made: Any = GenerationBatchResult(
            logits_output=mock.MagicMock(name="logits_output"), next_token_ids=mock.MagicMock(name="next_token_ids"), can_run_cuda_graph=False
        )
        return made

    def schedule_batch(self, spec_algorithm: object) -> Any:
        """The batch the scheduler hands ``forward_batch_generation``: an autospec of
        ``ScheduleBatch`` with its dataclass fields and the attributes its source
        assigns, and the registration's algorithm object as ``spec_algorithm``."""
        from sglang.srt.managers.schedule_batch import ScheduleBatch

        batch: Any = mock.create_autospec(ScheduleBatch, instance=True)
        names = set(assigned_attributes(ScheduleBatch)) | set(getattr(ScheduleBatch, "__dataclass_fields__", {}))
        for name in sorted(names):
            if not hasattr(ScheduleBatch, name):
                setattr(batch, name, mock.MagicMock(name=f"batch.{name}"))
        batch.spec_algorithm = spec_algorithm
        return batch

    def keyword(self, name: str, args: Any, target: Any) -> object:
        """What the scheduler passes for constructor keyword ``name``."""
        if name == "server_args":
            return args
        if name == "target_worker":
            return target
        if name in _NUMBERS:
            return _NUMBERS[name]
        return mock.MagicMock(name=name)

    # -- TpModelWorker.__init__ -------------------------------------------------

    def _patch_tp_worker_init(self) -> None:
        cls = self.tp_worker_class
        real: Callable[..., None] = cls.__dict__["__init__"]
        signature = inspect.signature(real)
        from_parameters = _parameters_assigned(real)
        others = sorted(assigned_attributes(cls) - set(from_parameters))
        qualname = f"{cls.__qualname__}.__init__"

        def standin_init(self: Any, *args: object, **kwargs: object) -> None:
            bound = bind_or_raise(signature, qualname, self, *args, **kwargs)
            bound.apply_defaults()
            for name, parameter in from_parameters.items():
                _set(self, name, bound.arguments[parameter])
            for name in others:
                own = cast("type[object]", type(self))
                member: object = inspect.getattr_static(own, name, None)
                if name not in vars(self) and not isinstance(member, property):
                    _set(self, name, mock.MagicMock(name=f"{type(self).__name__}.{name}"))

        standin_init.__signature__ = signature  # type: ignore[attr-defined]
        standin_init.__qualname__ = qualname
        setattr(cls, "__init__", standin_init)  # noqa: B010 - a method replaced on sglang's class, undone by restore()
        self._restore.append(lambda: setattr(cls, "__init__", real))

    def restore(self) -> None:
        while self._restore:
            self._restore.pop()()


def bind_or_raise(signature: inspect.Signature, qualname: str, *args: object, **kwargs: object) -> inspect.BoundArguments:
    """``signature`` bound to the call, or the ``TypeError`` CPython raises for a
    call that does not bind, with the callee named (``X.f() missing ...``):
    how a stand-in's callable refuses what the real one refuses."""
    try:
        return signature.bind(*args, **kwargs)
    except TypeError as error:
        raise TypeError(f"{qualname}() {error}") from None


def _set(obj: object, name: str, value: object) -> None:
    try:
        setattr(obj, name, value)
    except (AttributeError, TypeError):
        pass  # a read-only member of a subclass: its own business


def _field_names(cls: Any) -> set[str]:
    """The keywords ``cls(...)`` takes (a dataclass's fields, a struct's, a plain ``__init__``'s)."""
    try:
        return {name for name, p in inspect.signature(cls).parameters.items() if p.kind is not inspect.Parameter.VAR_KEYWORD}
    except (TypeError, ValueError):
        return set()
