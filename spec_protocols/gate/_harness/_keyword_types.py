"""How the harness types a keyword of a call shape: the protocols' annotation, less ``None`` where the call never passes it.

:func:`~spec_protocols.gate._harness._protocol_source.as_called` types each
keyword of a call shape as the protocol annotates the parameter. The protocol
writes what every call may pass (``on_publish: PublishCallback | None``: a
call of either branch, or a caller of the protocol, may pass ``None``); a
branch whose call site passes a value statically certain not to be ``None``
(the overlap branch's ``on_publish=partial(...)``, managers/scheduler.py
``Scheduler.run_batch``; :attr:`CallShape.never_none`) asks only for the rest:
a worker that takes ``on_publish: PublishCallback`` takes that call. The
annotation keeps every other member: a worker whose parameter is not of the
type the value has still fails.

A keyword the member's own protocol does not declare takes the annotation of
the capability protocol that declares it on the same member
(:func:`capability_annotations`): the synchronous branch's
``pp_proxy_tensors=pp_proxy_tensors`` (``Scheduler.run_batch``, a name that is
``None`` without pipeline parallelism) is typed ``PPProxyTensors | None`` as
``SupportsPipelineProxy`` writes it, not ``Any``.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping
from functools import cache

from spec_protocols._members import protocol_definitions
from spec_protocols.gate._roles import CAPABILITIES

__all__ = ["capability_annotations", "without_none"]


@cache
def capability_annotations(member: str) -> Mapping[str, ast.expr]:
    """Keyword -> its annotation in the first capability protocol (``Supports...``)
    that declares it on ``member`` (``pp_proxy_tensors`` on ``forward_batch_generation``:
    ``SupportsPipelineProxy``)."""
    found: dict[str, ast.expr] = {}
    for capability in CAPABILITIES:
        for definition in protocol_definitions(capability):
            if definition.name != member or definition.is_property:
                continue
            for parameter in definition.node.args.kwonlyargs:
                if parameter.annotation is not None:
                    found.setdefault(parameter.arg, parameter.annotation)
    return found


def _is_none(node: ast.expr) -> bool:
    return (isinstance(node, ast.Constant) and node.value is None) or (isinstance(node, ast.Name) and node.id == "NoneType")


def _members(node: ast.expr) -> list[ast.expr] | None:
    """The members of a union annotation (``A | B``, ``Union[A, B]``, ``Optional[A]``); None: not a union."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _members(node.left), _members(node.right)
        return [*(left or [node.left]), *(right or [node.right])]
    if isinstance(node, ast.Subscript):
        name = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", None)
        if name == "Optional":
            return [node.slice, ast.Constant(value=None)]
        if name == "Union":
            return list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    return None


def without_none(annotation: ast.expr) -> ast.expr:
    """``annotation`` less its ``None`` member (a copy); itself where it has none, or nothing else."""
    members = _members(annotation)
    if members is None:
        return annotation
    kept = [m for m in members if not _is_none(m)]
    if not kept or len(kept) == len(members):
        return annotation
    union = copy.deepcopy(kept[0])
    for member in kept[1:]:
        union = ast.BinOp(left=union, op=ast.BitOr(), right=copy.deepcopy(member))
    return union
