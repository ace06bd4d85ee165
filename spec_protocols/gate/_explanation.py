"""``spec-protocols explain NAME``: what a protocol asks of a worker, member by member.

For each member of the protocol it prints the signature (as written in
``spec_protocols/_protocols.py``: annotations are shown as their source text,
never evaluated, so nothing from sglang or torch is imported), the sglang call
site it was derived from (:data:`spec_protocols.CALL_SITES`), and whether
:class:`spec_protocols.SpecWorkerBase` supplies a default.

The default column answers the question a worker author asks: "if I subclass
``SpecWorkerBase``, must I write this?". It applies to the protocols a *spec*
worker satisfies (``SpecWorker`` and the two capability protocols). A draft
worker (``DraftWorker``) or a draft-worker class (``DraftWorkerFactory``) never
subclasses ``SpecWorkerBase``, so for those the column says what supplies the
member instead.

For ``SpecWorker``, given a release's source (:func:`result_uses`), it also
says what sglang does with what ``forward_batch_generation`` returns on the
overlap loop: each attribute of the result (and of its draft input) read or
stored, at its line, under its conditions, read from that release's
``run_batch`` with ``ast`` (the replay checker holds a returned value to the
same list), and, from that release's contract, what it does with every
required member's value (:func:`member_value_uses`).
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import spec_protocols
from spec_protocols import CALL_SITES, SpecAlgorithmBase, SpecWorkerBase
from spec_protocols._members import protocol_members
from spec_protocols._protocols import PROTOCOL_NAMES
from spec_protocols.gate._model import GateError, ProtocolName
from spec_protocols.gate._roles import CAPABILITIES

if TYPE_CHECKING:
    from spec_protocols.gate._checkers._replay._result import Use
    from spec_protocols.gate._contract import SglangSource

__all__ = ["PROTOCOL_NAMES", "explain", "member_value_uses", "result_uses"]

# Protocols a spec worker satisfies (SpecWorker and the capabilities):
# SpecWorkerBase's defaults are relevant.
_SPEC_SIDE: Final = frozenset({ProtocolName.SPEC_WORKER, *CAPABILITIES})

# What supplies the members of the draft-side protocols, in words.
_DRAFT_SIDE_DEFAULT: Final[Mapping[str, str]] = {
    ProtocolName.DRAFT_WORKER: "n/a (a draft worker is not a SpecWorkerBase); "
    "sglang's TpModelWorker and EagleDraftWorkerBase provide it",
    ProtocolName.DRAFT_WORKER_FACTORY: "n/a (a draft-worker class is not a SpecWorkerBase); "
    "TpModelWorker.__init__ accepts these keywords, a subclass's __init__ must too",
}

_WIDTH: Final = 88


def _protocol(name: str) -> type[Any]:
    if name not in PROTOCOL_NAMES:
        raise GateError(f"unknown protocol {name!r}; choose from {', '.join(PROTOCOL_NAMES)}")
    protocol: type[Any] = getattr(spec_protocols, name)
    return protocol


def _annotation(value: object) -> str:
    # With ``from __future__ import annotations`` every annotation is the
    # string as written; anything else (a protocol built without it) is
    # rendered the way typing would print it.
    if isinstance(value, str):
        return value
    return inspect.formatannotation(value)


def _default(value: object) -> str:
    return "..." if value is Ellipsis else repr(value)


def _parameters(func: Callable[..., object]) -> list[str]:
    """Each parameter as source text, with ``/`` and ``*`` markers, ``self`` dropped."""
    signature = inspect.signature(func, eval_str=False)
    params = list(signature.parameters.values())[1:]  # drop self
    rendered: list[str] = []
    star_written = False
    for index, param in enumerate(params):
        if param.kind is param.KEYWORD_ONLY and not star_written:
            rendered.append("*")
            star_written = True
        if param.kind is param.VAR_POSITIONAL:
            star_written = True
        prefix = "*" if param.kind is param.VAR_POSITIONAL else "**" if param.kind is param.VAR_KEYWORD else ""
        text = prefix + param.name
        if param.annotation is not param.empty:
            text += f": {_annotation(param.annotation)}"
        if param.default is not param.empty:
            text += f" = {_default(param.default)}"
        rendered.append(text)
        is_last_positional_only = param.kind is param.POSITIONAL_ONLY and (
            index + 1 == len(params) or params[index + 1].kind is not param.POSITIONAL_ONLY
        )
        if is_last_positional_only:
            rendered.append("/")
    return rendered


def _return(func: Callable[..., object]) -> str:
    annotation = inspect.signature(func, eval_str=False).return_annotation
    return "" if annotation is inspect.Signature.empty else f" -> {_annotation(annotation)}"


def _signature(protocol: type[Any], member: str) -> str:
    """``name: Type`` for a property or attribute, ``def name(...) -> R`` for a method."""
    value = inspect.getattr_static(protocol, member)
    if isinstance(value, property):
        getter = value.fget
        returns = _return(getter).removeprefix(" -> ") if getter is not None else "object"
        writable = "" if value.fset is None else "  (settable)"
        return f"{member}: {returns}{writable}"
    if callable(value):
        params = _parameters(value)
        returns = _return(value)
        one_line = f"def {member}({', '.join(params)}){returns}"
        if len(one_line) <= _WIDTH - 4:
            return one_line
        inner = "".join(f"\n    {param}," for param in params)
        return f"def {member}({inner}\n){returns}"
    annotations: Mapping[str, object] = getattr(protocol, "__annotations__", {})
    return f"{member}: {_annotation(annotations.get(member, 'object'))}"


def _kind(protocol: type[Any], member: str) -> str:
    value = inspect.getattr_static(protocol, member)
    if isinstance(value, property):
        return "read-only property" if value.fset is None else "property"
    return "method" if callable(value) else "attribute"


def _base_default(member: str, *, capability: bool) -> str:
    """Where ``SpecWorkerBase`` defines ``member`` (non-abstract), or why it does not.

    A *capability* protocol (``Supports...``) is optional: a worker without
    the member simply lacks the capability, so "must define it" would be wrong.
    """
    for klass in SpecWorkerBase.__mro__:
        if klass is object:
            continue
        if member in vars(klass):
            value = vars(klass)[member]
            target = value.fget if isinstance(value, property) else value
            if getattr(target, "__isabstractmethod__", False):
                return f"none: abstract in {klass.__name__}, every worker must write it"
            return f"yes ({klass.__name__}.{member})"
    if capability:
        return "none: optional; a worker has this capability when it defines it"
    return "none: every worker must define it"


def _algorithm_default(member: str) -> str:
    """Who gives an algorithm object ``member``: ``SpecAlgorithmBase`` for what
    sglang's ``CustomSpecAlgo`` lacks, else ``CustomSpecAlgo`` itself."""
    if member in vars(SpecAlgorithmBase):
        return f"yes (SpecAlgorithmBase.{member}; sglang's CustomSpecAlgo lacks it)"
    return "sglang's CustomSpecAlgo (a spec_class derives from it)"


def _first_line(doc: str | None) -> str:
    return inspect.cleandoc(doc or "").split("\n\n", 1)[0].replace("\n", " ")


def explain(protocol_name: str) -> str:
    """Describe every member of a protocol: signature, sglang call site, default.

    ``protocol_name`` is one of :data:`PROTOCOL_NAMES`. Called by the
    ``spec-protocols explain NAME`` command, which prints the result. An
    unknown name raises :class:`~spec_protocols.gate._model.GateError` (the
    CLI's exit status 2). Imports neither sglang nor torch.
    """
    protocol = _protocol(protocol_name)
    call_sites = CALL_SITES.get(protocol_name, {})
    lines = [f"{protocol_name}: {_first_line(protocol.__doc__)}", ""]
    if protocol_name in _SPEC_SIDE:
        lines.append("Default = what a subclass of spec_protocols.SpecWorkerBase inherits.")
        lines.append("")
    for member in protocol_members(protocol):
        lines.append(textwrap.indent(_signature(protocol, member), "  "))
        lines.append(f"      kind:      {_kind(protocol, member)}")
        lines.append(f"      called at: sglang/srt/{call_sites.get(member, '(no call site recorded)')}")
        default = (
            _base_default(member, capability=protocol_name != ProtocolName.SPEC_WORKER)
            if protocol_name in _SPEC_SIDE
            else _algorithm_default(member)
            if protocol_name == ProtocolName.SPEC_ALGORITHM
            else _DRAFT_SIDE_DEFAULT[protocol_name]
        )
        lines.append(f"      default:   {default}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def result_uses(srt: Path, release: str) -> str:
    """What the release under ``srt`` (``.../sglang/srt``) does with ``forward_batch_generation``'s result, a line per use."""
    from spec_protocols.gate._checkers._replay._result import overlap_result_uses

    uses = overlap_result_uses(srt)
    head = f"What sglang {release} does with what forward_batch_generation returns (Scheduler.run_batch, the overlap loop):"
    if not uses:
        return f"{head}\n  nothing read from its source: this release's run_batch has no overlap branch that uses it\n"
    lines = [head]
    for use in uses:
        lines.append(f"  {use.words()}  (sglang/srt/{use.site}{_when(use)})")
    lines.append("  A result that lacks one of the reads fails at its first batch; assert_forward_result checks a real one.")
    return "\n".join(lines) + "\n"


def member_value_uses(source: SglangSource) -> str:
    """What the release ``source`` does with each required spec worker
    member's value (a call's result, a read), a line per member, from its
    contract (:attr:`~spec_protocols.gate._contract.Use.value_uses`)."""
    from spec_protocols.gate._contract import extract_contract
    from spec_protocols.gate._contract._contract_formats import value_words

    head = f"What sglang {source.release} does with each member's value (every call's result, every read):"
    try:
        contract = extract_contract(source)
    except GateError as exc:
        return f"{head}\n  not read: {exc}\n"
    lines = [head]
    for member, uses in contract.required_uses().items():
        values = [v for u in uses for v in u.value_uses]
        if all(u.kind == "call" and not u.value_used for u in uses):
            said = "dropped (a call made as a statement: any return type will do)"
        else:
            said = value_words(values)
        first = min((v.site for v in values), default=uses[0].site)
        lines.append(f"  {member}: {said}  (sglang/srt/{first.file}:{first.line})")
    return "\n".join(lines) + "\n"


def _when(use: Use) -> str:
    """``, when ...`` for a use that happens under conditions."""
    said: list[str] = []
    for condition in use.conditions:
        value = ".".join(("batch_result", *condition.path))
        words = {
            "none": f"{value} is None",
            "not_none": f"{value} is not None",
            "predicate": f"the algorithm's {condition.name}() is true",
            "not_predicate": f"the algorithm's {condition.name}() is false",
        }[condition.kind]
        said.append(words)
    return f", when {' and '.join(said)}" if said else ""
