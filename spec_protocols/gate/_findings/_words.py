"""The words of a finding: the message of a problem, or a note.

The verdict core decides (:class:`Finding`: what is wrong, which member, the
checker's reasons, the expected and the got parts); this module says it. A
problem says what the call site needs (the protocol's member, as
``_protocols.py`` writes it: ``expected``), what the class has (its own def,
as its file writes it: ``got``), and the checker's own reasons::

    LEAD: REASON; REASON; expected EXPECTED; got GOT

leaving out what is unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import singledispatch

from spec_protocols.gate._findings._values import AnyFinding, BodyDiagnostics, ClassDiagnostic, Finding, Got, ReplayFinding, RuntimeFinding, Wrong
from spec_protocols.gate._model import ABSTRACT_BASE_NOTE

__all__ = ["change", "compose", "got_text", "message"]


def compose(lead: str, reasons: Sequence[str], expected: str | None, got: str | None) -> str:
    """``lead: reasons; expected E; got G``, leaving out what is unknown."""
    text = f"{lead}: {'; '.join(reasons)}" if reasons else lead
    if expected:
        text += f"; expected {expected}"
    if got:
        text += f"; got {got}"
    return text


def got_text(got: Got | None) -> str | None:
    """What the class has for the member: its definition as written, or that it has none."""
    if got is None:
        return None
    if got.owner is None:
        return f"no {got.member} the gate could read"
    if got.definition is not None:
        return got.definition
    bases = "" if got.bases_read else ", nor does a base the gate could read"
    return f"no {got.member} ({got.owner} does not define one{bases})"


def message(finding: AnyFinding) -> str:
    """The words of ``finding``: a problem's message, or a note."""
    return _words(finding)


@singledispatch
def _words(finding: object) -> str:
    raise TypeError(f"no words for {type(finding).__name__}")


@_words.register
def _(finding: Finding) -> str:
    return _PHRASES[finding.wrong](finding)


@_words.register
def _(f: ClassDiagnostic) -> str:
    """The checker's own words at the class's own line, with its code.

    Only the words: the problem carries the checker, the member and the
    file and line, and every report shows them beside the message (a
    message that named them again read "pyright: __init__ (f.py:57):
    pyright reports at __init__ (line 57): ...")."""
    code = f" [{f.code}]" if f.code else ""
    return f"{'; '.join(f.lines)}{code}"


@_words.register
def _(f: BodyDiagnostics) -> str:
    errors = "error" if f.count == 1 else "errors"
    return (
        f"{f.checker} reports {f.count} {errors} inside this class's method bodies (or about an attribute "
        "another class lacks): the author's own type-check, not a verdict"
    )


@_words.register
def _(f: RuntimeFinding) -> str:
    """The runtime checker's problem: the verification's words, tagged with its category and where sglang meets it."""
    return _RUNTIME_PHRASES[f.kind](f)


@_words.register
def _(f: ReplayFinding) -> str:
    """The replay's finding: what happened, where sglang met it, where in the plugin."""
    at = f" ({f.site})" if f.site else ""
    where = f" at {f.where}" if f.where else ""
    return f"{_REPLAY_LEADS[f.kind]}{at}: {f.said}{where}"


#: How each kind of replay finding begins.
_REPLAY_LEADS: Mapping[str, str] = {
    "registration": "registering it as sglang does raises",
    "factory": "create_worker cannot get a class from the registered factory",
    "constructor": "the scheduler's constructor call cannot construct it",
    "raised": "building or using it as sglang does raises at sglang's boundary",
    "missing": "the instance sglang builds has no such member",
    "kind": "on the instance sglang builds, it is of the wrong kind",
    "signature": "on the instance sglang builds, it cannot take sglang's call",
    "async": "on the instance sglang builds, it is async where sglang does not await it",
    "generator": "on the instance sglang builds, it is a generator function where sglang wants the call to do the work",
    "draft": "build_draft_tp_worker cannot build the draft worker class it was given",
    "stopped": "the replay stopped before sglang's calls (not a failure: another checker decides)",
    "result": "what it returns lacks what sglang does with it",
}


def _verification(f: RuntimeFinding) -> str:
    where = {"member": "", "constructor": "constructor: ", "hook": "sglang finds it with getattr and calls it: "}
    lead = f"{f.capability}: " if f.context == "capability" else where[f.context]
    return f"[{f.category}] {lead}{f.said}"


_RUNTIME_PHRASES: Mapping[str, Callable[[RuntimeFinding], str]] = {
    "verification": _verification,
    "worded": lambda f: f.said,
    "import": lambda f: f.said,
    "note": lambda f: f"({f.said})",
    "abstract": lambda f: compose(f"abstract class: sglang cannot instantiate it; implement {f.said}", (), f.expected or None, None),
    "call": lambda f: f"(the constructor is {f.said}; sglang calls it with {f.passed})",
    "iterated_method": lambda f: (
        "[kind] is a method, but sglang finds it with getattr and iterates it (a method is not iterable): make it "
        "a property or an attribute"
    ),
    "presence": lambda f: "[missing] the sglang release checked calls it, and the class does not define it",
}


def _composed(lead: str) -> Callable[[Finding], str]:
    def phrase(f: Finding) -> str:
        return compose(lead, f.reasons, f.expected, got_text(f.got))

    return phrase


def _missing(f: Finding) -> str:
    lead = f"missing: {f.subject} has no {f.member}" if f.subject else "missing"
    return compose(lead, (), f.expected, None)


def _abstract(f: Finding) -> str:
    """The abstract members to write (``detail``), each protocol member's
    signature as sglang calls it (``expected``); where the checker's words
    named none, its own lines (mypy says it in one, pyright lists them under
    its headline, and the headline is what says "abstract")."""
    if f.detail is None:
        first, *rest = f.reasons
        return f"{first}: {'; '.join(rest)}" if rest else first
    lead = f"abstract class: sglang cannot instantiate it; implement {f.detail}"
    return compose(lead, (), f.expected, None)


def _written(f: Finding) -> str | None:
    """How the class writes the member: ``"async"``, ``"def"`` (a generator,
    or a method returning an iterator), or None where the gate read no definition."""
    definition = f.got.definition if f.got is not None else None
    if not definition:
        return None
    return "async" if definition.startswith("async ") else "def"


def _never_run_lead(f: Finding) -> str:
    written = _written(f)
    if written == "async":
        return "async where sglang does not await it: the call makes a coroutine and its body never runs"
    if written == "def":
        return "a generator where sglang drops the result: the call makes a generator and its body never runs"
    return "returns a coroutine or a generator where sglang drops the result: its body never runs"


def _need(f: Finding) -> str:
    """A problem of a kept BaseSpecWorker default, in the words of that default."""
    said = "; ".join(f.reasons)
    if f.member == "draft_worker":
        return f"BaseSpecWorker's defaults, which this class keeps, read the draft worker as {f.detail}: {said}"
    return f"{f.detail}: {said}"


def _draft_worker_any(f: Finding) -> str:
    """Why the checker could not check the draft worker's side of the kept
    defaults, and what to annotate so that it can."""
    if f.detail == "draft_worker":
        where = "the class's draft_worker property has no return type it can read"
        fix = "annotate it (-> YourDraftWorker | None; -> None for a worker with no draft model)"
    else:
        where = "self._draft_worker is untyped where the class sets it"
        fix = "annotate it where it is set (self._draft_worker: YourDraftWorker | None = ...)"
    return (
        f"{f.checker} sees this class's draft worker as Any ({where}), so what the BaseSpecWorker defaults it keeps "
        f"use of the draft worker (e.g. draft_runners) is not checked by {f.checker}: {fix}"
    )


def _unmodelled(f: Finding) -> str:
    lead = f"{f.checker} cannot check {f.member}" if f.member else f"{f.checker} cannot check how this class is built"
    said = f" (it says: {'; '.join(f.reasons)})" if f.reasons else ""
    return f"{lead}: {f.detail}{said}; another checker decides"


_PHRASES: Mapping[Wrong, Callable[[Finding], str]] = {
    Wrong.HARNESS_UNCHECKED: lambda f: f"{f.checker} could not check the harness (line {f.line}: {f.detail})",
    Wrong.NOT_IMPORTABLE: lambda f: f"{f.checker} could not import it: {f.detail}",
    Wrong.CLASS_ANY: lambda f: (
        f"{f.checker} sees this class as Any/Unknown (an untyped or unresolved import or base class), "
        "so nothing about it can be verified"
    ),
    Wrong.ABSTRACT: _abstract,
    Wrong.CONSTRUCTOR: _composed("the constructor cannot take the call sglang makes"),
    Wrong.MISSING: _missing,
    Wrong.SIGNATURE: _composed("signature does not match"),
    Wrong.TYPE: _composed("type does not match"),
    Wrong.BODY_NEVER_RUNS: lambda f: compose(_never_run_lead(f), (), f.expected, got_text(f.got)),
    Wrong.FACTORY: _composed("build_draft_tp_worker cannot use it as draft_worker_cls"),
    Wrong.MISMATCH: _composed("does not match"),
    Wrong.PROTOCOL: lambda f: (
        f"does not satisfy {f.detail}, and {f.checker} names no member; see spec-protocols explain {f.detail}"
    ),
    Wrong.NEED: _need,
    Wrong.MEMBER_ANY: lambda f: (
        f"{f.checker} sees {f.member} as Any (annotated Any, or wrapped by an untyped decorator): "
        "nothing about it can be verified"
    ),
    Wrong.MEMBER_GRADUAL: lambda f: (
        f"{f.checker} sees {f.member}'s signature as (...) -> Any (a decorator typed Callable[..., Any], "
        "or unannotated *args/**kwargs and result): it accepts any call, so nothing about it can be verified"
    ),
    Wrong.DRAFT_WORKER_ANY: _draft_worker_any,
    Wrong.ABSTRACT_BASE: lambda f: ABSTRACT_BASE_NOTE,
    Wrong.SITE_UNCHECKABLE: lambda f: f"{f.checker} cannot check {f.subject}: {f.detail}",
    Wrong.SITE_NOT_IMPORTABLE: lambda f: f"{f.checker} could not import the module of {f.subject}: {f.detail}",
    Wrong.SITE_BUILDS: lambda f: compose(
        f'draft_worker_cls={f.subject} builds "{f.detail}", which is not a DraftWorker', f.reasons, None, None
    ),
    Wrong.SITE_CALL: lambda f: compose(f"build_draft_tp_worker's call of draft_worker_cls={f.subject} fails", f.reasons, None, None),
    Wrong.UNMODELLED: _unmodelled,
    Wrong.SITE_ANY: lambda f: (
        f"{f.checker} sees {f.subject} (or what it builds) as Any, so what it builds cannot be verified; "
        "annotate it, e.g. as DraftWorkerFactory[YourDraftWorker]"
    ),
}


# -- what to change, in words --------------------------------------------------

#: The findings whose fix is read off the expected and the got signature.
_SIGNATURE_WRONGS = frozenset({Wrong.CONSTRUCTOR, Wrong.SIGNATURE, Wrong.FACTORY, Wrong.TYPE, Wrong.MISMATCH})


def change(finding: AnyFinding) -> str | None:
    """What to change in the class, in words (``rename gpu to gpu_id``), where
    the finding says it plainly enough: a missing member, the abstract members
    to write, or a signature whose expected and got halves differ by name,
    default or annotation. None where it does not (the checker's reasons
    then say it)."""
    if not isinstance(finding, Finding):
        return None
    if finding.wrong is Wrong.MISSING and finding.member:
        # The message shows the expected signature already: said once.
        return f"define {finding.member}" + (" with the expected signature" if finding.expected else "")
    if finding.wrong is Wrong.ABSTRACT and finding.detail:
        return f"implement {finding.detail}"
    if finding.wrong is Wrong.BODY_NEVER_RUNS and finding.member:
        written = _written(finding)
        if written == "async":
            return f"make {finding.member} a plain def (sglang calls it without await)"
        if written == "def":
            return f"make {finding.member} do its work when called: no yield (sglang never iterates what it returns)"
    if finding.wrong in _SIGNATURE_WRONGS and finding.expected and finding.got is not None and finding.got.definition:
        return _signature_change(finding.expected, finding.got.definition)
    return None


@dataclass(frozen=True, slots=True)
class _Param:
    name: str
    annotation: str | None
    has_default: bool
    by_keyword: bool


def _parameters(described: str) -> tuple[list[_Param], bool] | None:
    """``Owner.name(PARAMS) -> R`` (as ``describe_function`` writes it) as its
    parameters after the first (``self``), and whether it takes ``**kwargs``;
    None where it does not parse."""
    start = described.find("(")
    if start < 0:
        return None
    try:
        tree = ast.parse(f"def f{described[start:]}: ...")
    except SyntaxError:
        return None
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef):
        return None
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [False] * (len(positional) - len(args.defaults)) + [True] * len(args.defaults)
    params = [
        _Param(a.arg, ast.unparse(a.annotation) if a.annotation else None, d, a not in args.posonlyargs)
        for a, d in zip(positional, defaults, strict=True)
    ][1:]
    params += [
        _Param(a.arg, ast.unparse(a.annotation) if a.annotation else None, d is not None, True)
        for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    ]
    return params, args.kwarg is not None


def _signature_change(expected: str, got: str) -> str | None:
    """The changes that make ``got`` take the calls ``expected`` describes:
    a parameter renamed (one missing, one extra), parameters to add, extra
    required ones to give a default or remove, defaults to add, annotations
    to write as expected."""
    wanted, got_params = _parameters(expected), _parameters(got)
    if wanted is None or got_params is None:
        return None
    (exp, _), (have, takes_kwargs) = wanted, got_params
    names = {p.name for p in have}
    exp_names = {p.name for p in exp}
    missing = [p.name for p in exp if p.name not in names and not takes_kwargs]
    extra = [p.name for p in have if not p.has_default and p.name not in exp_names]
    steps: list[str] = []
    if len(missing) == 1 and len(extra) == 1:
        steps.append(f"rename {extra[0]} to {missing[0]}")
    else:
        if missing:
            steps.append(f"accept {_listed(missing)}")
        if extra:
            steps.append(f"give {_listed(extra)} a default, or remove {'it' if len(extra) == 1 else 'them'}")
    by_name = {p.name: p for p in have}
    for p in exp:
        mine = by_name.get(p.name)
        if mine is None:
            continue
        if p.has_default and not mine.has_default:
            steps.append(f"give {p.name} a default")
        if p.annotation and mine.annotation and not _union_parts(p.annotation) <= _union_parts(mine.annotation):
            # A parameter that takes more than the call passes is fine: only
            # one that leaves out part of what is passed needs a new annotation.
            steps.append(f"annotate {p.name} as {p.annotation}")
    return "; ".join(steps) or None


def _union_parts(annotation: str) -> frozenset[str]:
    """The members of an annotation written as a ``|`` union, as text."""
    return frozenset(part.strip() for part in annotation.split("|"))


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
