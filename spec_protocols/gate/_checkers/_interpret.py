"""Reading the harness: what the two static checkers share.

Each static adapter turns its checker's own output into :class:`Diagnostic`
values (a harness line, or an injection site, with the message and code).
:func:`interpret` turns those into verdicts, identically for mypy and
pyright, using the line tags of the harness (see
:mod:`spec_protocols.gate._harness._lines`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from spec_protocols.gate._harness import SITE_FUNCTION, Harness, LineKind, LineTag, SiteShadow
from spec_protocols.gate._model import (
    ABSTRACT_BASE_NOTE,
    Check,
    CheckerOutcome,
    ClassRole,
    DiscoveredClass,
    InjectionSite,
    Problem,
    Verdict,
)
from spec_protocols.gate._roles import policy_for

__all__ = ["Diagnostic", "interpret"]

#: An injection site is checked as an injected class is.
_SITE_PROTOCOL = ClassRole.INJECTED.protocol


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One error from a checker: on a harness line, or (``site`` set) inside
    the rewritten call of an injection site in a shadow module."""

    line: int
    message: str
    code: str | None = None
    #: For a diagnostic in a shadow module: (site number, is the canary).
    site: tuple[int, bool] | None = None


def _summary(message: str) -> str:
    """A checker's message in one line: its innermost line.

    pyright nests the reason under a headline that names the harness's own
    types ("Type ... is not assignable to declared type "_SpecWorker__..."",
    then, indented, "Missing keyword parameter "extra""); the innermost line
    is the one that tells the reader what to fix. mypy's messages are one line.
    """
    # pyright ends a long explanation with a bare "..." line: skip it.
    lines = [line.strip() for line in message.strip().splitlines() if line.strip() not in ("", "...")]
    return lines[-1] if lines else message.strip()


#: The error codes with which the checkers report instantiating an abstract class.
_ABSTRACT_CODES = frozenset({"abstract", "reportAbstractUsage"})


def _is_abstract(diag: Diagnostic) -> bool:
    return diag.code in _ABSTRACT_CODES or "abstract class" in diag.message


def _abstract_message(diag: Diagnostic) -> str:
    """mypy names the abstract members in its one line; pyright lists them
    under its headline, and the headline is what says "abstract"."""
    lines = [line.strip() for line in diag.message.strip().splitlines() if line.strip() not in ("", "...")]
    if len(lines) > 1:
        return f"{lines[0]}: {'; '.join(lines[1:])}"
    return lines[0] if lines else diag.message.strip()


# -- messages an author can act on ---------------------------------------------
#
# A problem says what the call site needs (the protocol's member, as
# _protocols.py writes it: the line tag's ``expected``), what the class has
# (its own def, as its file writes it: discovery's MemberDefinition), and the
# checker's own reason, stripped of the harness's names. The checkers' own
# headlines compare harness variables ("_SpecWorker__forward_batch_generation",
# "DraftWorkerFactory[InjectableDraftWorker]"), so they are never shown as
# they are; what they say about the member itself is kept.

#: The names the harness generates, and what to call them instead.
_HARNESS_NAMES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b_([A-Z]\w*?)__(\w+)\b"), r"\1.\2"),  # a member's callback protocol
    (re.compile(rf"\b{SITE_FUNCTION}_\d+(?:_canary)?\b"), "build_draft_tp_worker"),
    (re.compile(r"\b_m\d+\."), ""),  # a module alias
)

#: A checker's headline: "the value's type is not the variable's". Its
#: source type is what the checker read; its target, a harness name.
_HEADLINE = re.compile(
    r'^(?:Type "(?P<pyright>.*)" is not assignable to (?:declared )?type ".*"'
    r'|Incompatible types in assignment \(expression has type "(?P<mypy>.*)", variable has type ".*"\)'
    r'|Argument (?:1 to ".*" has incompatible type "(?P<mypy_arg>.*)"; expected ".*"'
    r'|of type "(?P<pyright_arg>.*)" cannot be assigned to parameter ".*" of type ".*" in function ".*"))$'
)
#: pyright's wrapper "X is incompatible with protocol P": its reasons are nested under it.
_PROTOCOL_WRAPPER = re.compile(r'^".*" is incompatible with protocol ".*"$')
#: pyright names a member of the protocol under the wrapper, then nests its reasons.
_MEMBER_HEADER = re.compile(r'^"(?P<member>\w+)" (?P<what>is not present|is an incompatible type|is invariant.*|is not a .*)$')

#: The error codes with which the checkers report a member that does not exist.
_MISSING_CODES = frozenset({"attr-defined", "reportAttributeAccessIssue"})


def _plain(text: str) -> str:
    """``text`` without a name the harness made up."""
    for pattern, replacement in _HARNESS_NAMES:
        text = pattern.sub(replacement, text)
    return text


def _indented(message: str) -> list[tuple[int, str]]:
    return [
        (len(line) - len(line.lstrip()), line.strip())
        for line in message.strip("\n").splitlines()
        if line.strip() not in ("", "...")
    ]


def _reasons(lines: Sequence[tuple[int, str]], cls: str | None) -> list[str]:
    """The checker's own reasons in ``lines`` (one diagnostic, indented as the
    checker nests them): the shallowest lines below its headlines and
    protocol wrappers, where pyright says what differs ("Missing keyword
    parameter "on_publish"", "Extra parameter "x""); deeper lines only
    restate them. Without any, what the checker read the member as."""
    rest = [(i, t) for i, t in lines if not _HEADLINE.match(t) and not _PROTOCOL_WRAPPER.match(t)]
    if rest:
        top = min(i for i, _ in rest)
        return list(dict.fromkeys(_plain(t) for i, t in rest if i == top))
    for _, text in lines:
        match = _HEADLINE.match(text)
        read = next((g for g in match.groups() if g), None) if match else None
        # "read as MyWorker" (or "type[MyWorker]") only repeats the class.
        if read is not None and read not in (cls, f"type[{cls}]"):
            return [f'read as "{_plain(read)}"']
    return []


def _missing(diag: Diagnostic) -> bool:
    return diag.code in _MISSING_CODES or bool(re.search(r"has no attribute|Cannot access attribute", diag.message))


def _compose(lead: str, reasons: Sequence[str], expected: str | None, got: str | None) -> str:
    """``lead: reasons; expected E; got G``, leaving out what is unknown."""
    text = f"{lead}: {'; '.join(reasons)}" if reasons else lead
    if expected:
        text += f"; expected {expected}"
    if got:
        text += f"; got {got}"
    return text


def _got(cls: DiscoveredClass | None, member: str) -> str:
    """What the class has for ``member``: its definition as written, or that it has none."""
    if cls is None:
        return f"no {member} the gate could read"
    found = cls.definition(member)
    if found is not None:
        return found.text
    short = cls.qualname.rpartition(".")[2]
    bases = "" if cls.overrides is not None else ", nor does a base the gate could read"
    return f"no {member} ({short} does not define one{bases})"


def _where(cls: DiscoveredClass | None, member: str | None) -> tuple[str | None, int | None]:
    """The member's own file and def line (an inherited member's in its base);
    the class line when the class defines no such member, which is where it
    belongs."""
    if cls is None:
        return None, None
    found = cls.definition(member)
    if found is not None:
        return str(found.file), found.line
    return str(cls.file), cls.line


def _located(checker: str, cls: DiscoveredClass | None, member: str | None, message: str, *, at_class: bool = False) -> Problem:
    file, line = _where(cls, None if at_class else member)
    return Problem(checker, member, _plain(message), file, line)


def _member_problem(checker: str, tag: LineTag, diag: Diagnostic, cls: DiscoveredClass | None) -> Problem:
    """One diagnostic on a member line (or the factory line), as what the
    call site needs and what the class has."""
    member = tag.member or ""
    short = cls.qualname.rpartition(".")[2] if cls is not None else None
    if _missing(diag):
        lead = f"missing: {short} has no {member}" if short else "missing"
        return _located(checker, cls, member, _compose(lead, [], tag.expected, None), at_class=True)
    lead = {
        LineKind.MEMBER_SIGNATURE: "signature does not match",
        LineKind.MEMBER_TYPE: "type does not match",
        LineKind.FACTORY: "build_draft_tp_worker cannot use it as draft_worker_cls",
    }.get(tag.kind, "does not match")
    reasons = _reasons(_indented(diag.message), short)
    return _located(checker, cls, member, _compose(lead, reasons, tag.expected, _got(cls, member)))


def _protocol_problems(
    checker: str,
    check: Check,
    diag: Diagnostic,
    cls: DiscoveredClass | None,
    expected: Mapping[str, str],
) -> list[Problem]:
    """The whole-protocol line, kept when no member line said anything: the
    members pyright names under it, each with its own reasons; or one
    problem about the class when the checker names none (mypy)."""
    lines = _indented(diag.message)
    short = cls.qualname.rpartition(".")[2] if cls is not None else None
    found: list[Problem] = []
    for n, (indent, text) in enumerate(lines):
        header = _MEMBER_HEADER.match(text)
        if header is None:
            continue
        member = header.group("member")
        nested: list[tuple[int, str]] = []
        for inner, inner_text in lines[n + 1 :]:
            if inner <= indent:
                break
            nested.append((inner, inner_text))
        if header.group("what") == "is not present":
            lead = f"missing: {short} has no {member}" if short else "missing"
            found.append(_located(checker, cls, member, _compose(lead, [], expected.get(member), None), at_class=True))
        else:
            message = _compose("does not match", _reasons(nested, short), expected.get(member), _got(cls, member))
            found.append(_located(checker, cls, member, message))
    if found:
        return found
    lead = f"does not satisfy {check.protocol}, and {checker} names no member; see spec-protocols explain {check.protocol}"
    return [_located(checker, cls, None, lead)]


def interpret(
    checker: str,
    harness: Harness,
    diagnostics: Sequence[Diagnostic],
    *,
    seconds: float = 0.0,
    shadow: SiteShadow | None = None,
) -> CheckerOutcome:
    """Verdicts for every check of the harness (and every injection site) from
    one checker's diagnostics.

    Each class is judged from its own lines only, so one class (or a module
    that cannot be imported) never changes another's verdict. Per class:

    * an error on its import lines: ``unverified`` (the checker cannot see it);
    * a silent class-object canary: ``unverified`` (the class is ``Any``);
    * per member: an error on its lines is a problem; a silent member canary
      means the member is ``Any`` or its signature ``(...) -> Any`` to this
      checker, and the member is ``unverified`` (a blind spot, never a pass);
    * the constructor line: an error is a problem of ``__init__``, except that
      "cannot instantiate abstract class" on a class that may be abstract (an
      intentional base) makes it a note instead.
    """
    by_line: dict[int, list[Diagnostic]] = {}
    by_site: dict[int, list[Diagnostic]] = {}
    for diag in diagnostics:
        if diag.site is not None:
            by_site.setdefault(diag.site[0], []).append(diag)
        else:
            by_line.setdefault(diag.line, []).append(diag)

    verdicts: dict[Check, Verdict] = {}
    problems: dict[Check, tuple[Problem, ...]] = {}
    notes: dict[Check, str] = {}
    untagged = [d for line, ds in by_line.items() if line not in harness.tags for d in ds]
    if untagged:
        # An error outside every class's lines means the harness itself did
        # not check (an import of spec_protocols failed, say): nothing is verified.
        first = min(untagged, key=lambda d: d.line)
        detail = f"{checker} could not check the harness (line {first.line}: {_summary(first.message)})"
        all_checks = [*harness.checks, *(Check(s.target, _SITE_PROTOCOL) for s in (shadow.sites.values() if shadow else ()))]
        return CheckerOutcome(
            checker,
            {c: Verdict.UNVERIFIED for c in all_checks},
            {c: (Problem(checker, None, detail, unverified=True),) for c in all_checks},
            seconds,
        )

    tags_by_target: dict[str, list[tuple[int, LineTag]]] = {}
    for line, tag in sorted(harness.tags.items()):
        tags_by_target.setdefault(tag.target, []).append((line, tag))

    for target, tagged in tags_by_target.items():
        if all(t.kind is LineKind.SITE for _, t in tagged):
            continue
        judged = _judge_class(checker, tagged, by_line, target in harness.may_be_abstract, harness.classes.get(target))
        for check, (verdict, found, note) in judged.items():
            verdicts[check] = verdict
            problems[check] = found
            if note is not None:
                notes[check] = note

    if shadow is not None:
        site_import_errors = {
            t.target: by_line[line] for line, t in harness.tags.items() if t.kind is LineKind.SITE and by_line.get(line)
        }
        for number, site in shadow.sites.items():
            check = Check(site.target, _SITE_PROTOCOL)
            verdict, found = _judge_site(checker, site, by_site.get(number, []), site_import_errors.get(site.target), shadow)
            verdicts[check] = verdict
            problems[check] = found
    return CheckerOutcome(checker, verdicts, problems, seconds, notes)


def _judge_class(
    checker: str,
    tagged: Sequence[tuple[int, LineTag]],
    by_line: Mapping[int, Sequence[Diagnostic]],
    may_be_abstract: bool,
    cls: DiscoveredClass | None = None,
) -> dict[Check, tuple[Verdict, tuple[Problem, ...], str | None]]:
    checks = sorted({t.check for _, t in tagged if t.check is not None})

    def errors(kind: LineKind) -> list[Diagnostic]:
        return [d for line, t in tagged if t.kind is kind for d in by_line.get(line, [])]

    def fired(kind: LineKind) -> bool:
        return bool(errors(kind))

    import_errors = errors(LineKind.IMPORT)
    if import_errors or not fired(LineKind.CANARY_CLASS):
        why = (
            f"{checker} could not import it: {_summary(import_errors[0].message)}"
            if import_errors
            else f"{checker} sees this class as Any/Unknown (an untyped or unresolved import or base class), "
            "so nothing about it can be verified"
        )
        file, line = _where(cls, None)
        return {check: (Verdict.UNVERIFIED, (Problem(checker, None, why, file, line, unverified=True),), None) for check in checks}
    has_getattr = not fired(LineKind.CANARY_INSTANCE)

    judged: dict[Check, tuple[Verdict, tuple[Problem, ...], str | None]] = {}
    for check in checks:
        mine = [(line, t) for line, t in tagged if t.check == check]
        found: list[Problem] = []
        whole: list[Problem] = []
        blind: list[Problem] = []
        note: str | None = None
        canaries: dict[tuple[str | None, LineKind], bool] = {}
        construction = [d for line, t in mine if t.kind in (LineKind.CONSTRUCTOR, LineKind.ABSTRACT) for d in by_line.get(line, [])]
        abstract = [d for d in construction if _is_abstract(d)]
        abstract_base = bool(abstract) and policy_for(check.protocol).may_be_abstract(may_be_abstract)
        if abstract_base:
            # An intentional base: sglang builds its subclasses, not it.
            note = ABSTRACT_BASE_NOTE
        # The protocol's own words for each member, for the whole-protocol line.
        expected = {t.member: t.expected for _, t in mine if t.member is not None and t.expected is not None}
        constructor: list[Diagnostic] = []
        factory: list[Problem] = []
        constructor_expected: str | None = None
        for line, tag in mine:
            diags = by_line.get(line, [])
            if tag.kind in (LineKind.MEMBER_ANY, LineKind.MEMBER_GRADUAL):
                canaries[(tag.member, tag.kind)] = bool(diags)
                continue
            if tag.kind is LineKind.NEEDS_ANY:
                if not diags:
                    # The members the class defines were checked; only what
                    # its kept defaults need of the draft worker could not be.
                    note = _join(note, _needs_blind(checker, tag.need))
                continue
            for diag in diags:
                if tag.kind is LineKind.MEMBER:
                    # The class object: authoritative only for a class with
                    # __getattr__ (otherwise the instance lines decide, and an
                    # attribute set in __init__ is legitimately absent from the
                    # class object). mypy says so outright for instance-only
                    # attributes.
                    if not has_getattr or "instance-only attribute" in diag.message:
                        continue
                if tag.kind in (LineKind.CONSTRUCTOR, LineKind.ABSTRACT):
                    if abstract_base or (tag.kind is LineKind.ABSTRACT and not _is_abstract(diag)):
                        continue
                    if _is_abstract(diag):
                        # What is missing is an implementation in the class.
                        found.append(_located(checker, cls, tag.member, _abstract_message(diag), at_class=True))
                    else:
                        constructor.append(diag)
                        constructor_expected = tag.expected
                    continue
                if tag.kind is LineKind.PROTOCOL:
                    whole.extend(_protocol_problems(checker, check, diag, cls, expected))
                elif tag.kind is LineKind.NEEDS:
                    reasons = _reasons(_indented(diag.message), None) or [_summary(diag.message)]
                    found.append(_located(checker, cls, tag.member, _need_message(tag, "; ".join(reasons))))
                else:
                    problem = _member_problem(checker, tag, diag, cls)
                    (factory if tag.kind is LineKind.FACTORY else found).append(problem)
        if not constructor:
            found.extend(factory)
        else:
            # The factory line compares the whole constructor with the
            # protocol's call, and the constructor's own line names each
            # keyword the call cannot pass, plainly: the factory line would
            # repeat it. (What it alone says, that the class does not build an
            # InjectableDraftWorker, it says once the call is fixed.)
            # One problem for the call: each keyword it cannot take is a
            # reason, and the constructor it meets is the one "got".
            reasons = [r for d in constructor for r in (_reasons(_indented(d.message), None) or [_summary(d.message)])]
            message = _compose(
                "the constructor cannot take the call sglang makes",
                list(dict.fromkeys(reasons)),
                constructor_expected,
                _got(cls, "__init__"),
            )
            found.append(_located(checker, cls, "__init__", message))
        failing = {p.member for p in found}
        for (member, kind), was_fired in canaries.items():
            if was_fired or member in failing:
                continue
            what = (
                f"{checker} sees {member} as Any (annotated Any, or wrapped by an untyped decorator): "
                "nothing about it can be verified"
                if kind is LineKind.MEMBER_ANY
                else f"{checker} sees {member}'s signature as (...) -> Any (a decorator typed Callable[..., Any], "
                "or unannotated *args/**kwargs and result): it accepts any call, so nothing about it can be verified"
            )
            if not any(p.member == member for p in blind):
                file, line = _where(cls, member)
                blind.append(Problem(checker, member, what, file, line, unverified=True))
        # The whole-protocol line repeats what the member lines say; keep it
        # only when it is the sole evidence (it then names no member).
        result = found or whole
        if result:
            verdict = Verdict.FAIL
        elif blind:
            verdict = Verdict.UNVERIFIED
        else:
            verdict = Verdict.PASS
        judged[check] = (verdict, tuple(_dedupe([*result, *blind])), note)
    return judged


def _need_message(tag: LineTag, message: str) -> str:
    """A problem of a kept BaseSpecWorker default, in the words of that default."""
    if tag.member == "draft_worker":
        return f"BaseSpecWorker's defaults, which this class keeps, read the draft worker as {tag.need}: {message}"
    return f"{tag.need}: {message}"


def _needs_blind(checker: str, source: str | None) -> str:
    """Why ``checker`` could not check the draft worker's side of the kept
    defaults, and what to annotate so that it can."""
    if source == "draft_worker":
        where = "the class's draft_worker property has no return type it can read"
        fix = "annotate it (-> YourDraftWorker | None; -> None for a worker with no draft model)"
    else:
        where = "self._draft_worker is untyped where the class sets it"
        fix = "annotate it where it is set (self._draft_worker: YourDraftWorker | None = ...)"
    return (
        f"{checker} sees this class's draft worker as Any ({where}), so what the BaseSpecWorker defaults it keeps "
        f"use of the draft worker (e.g. draft_runners) is not checked by {checker}: {fix}"
    )


def _join(first: str | None, second: str) -> str:
    return second if first is None or second in first else f"{first}; {second}"


#: What a site's call builds, as the checkers name it when it is no DraftWorker.
_SITE_BUILDS = re.compile(
    rf'(?:Value of type variable "_W" of "{SITE_FUNCTION}_\d+" cannot be|Argument 1 to "{SITE_FUNCTION}_\d+" has incompatible type'
    rf'|Argument of type) "(?P<built>.*?)"'
)


def _site_messages(site: InjectionSite, diagnostics: Sequence[Diagnostic]) -> list[str]:
    """The diagnostics on a site's call, in the words of the site: what
    ``build_draft_tp_worker`` would do with ``draft_worker_cls``. The call's
    own errors (a keyword it cannot take) are one message: one call fails."""
    messages: list[str] = []
    call: list[str] = []
    for diag in diagnostics:
        builds = _SITE_BUILDS.search(diag.message)
        reasons = _reasons(_indented(diag.message), None)
        if builds is not None and SITE_FUNCTION in diag.message:
            lead = f'draft_worker_cls={site.text} builds "{builds.group("built")}", which is not a DraftWorker'
            # "read as X" repeats what it builds.
            messages.append(_compose(lead, [r for r in reasons if not r.startswith("read as")], None, None))
        else:
            call += reasons or [_summary(diag.message)]
    if call:
        lead = f"build_draft_tp_worker's call of draft_worker_cls={site.text} fails"
        messages.insert(0, _compose(lead, list(dict.fromkeys(call)), None, None))
    return [_plain(m) for m in messages]


def _judge_site(
    checker: str,
    site: InjectionSite,
    diagnostics: Sequence[Diagnostic],
    import_errors: Sequence[Diagnostic] | None,
    shadow: SiteShadow,
) -> tuple[Verdict, tuple[Problem, ...]]:
    file, line = str(site.file), site.line

    def blind(why: str) -> tuple[Verdict, tuple[Problem, ...]]:
        return Verdict.UNVERIFIED, (Problem(checker, None, why, file, line, unverified=True),)

    if site.target in shadow.unverifiable:
        return blind(f"{checker} cannot check {site.text}: {shadow.unverifiable[site.target]}")
    if import_errors:
        return blind(f"{checker} could not import the module of {site.text}: {_summary(import_errors[0].message)}")
    failures = [d for d in diagnostics if d.site is not None and not d.site[1]]
    if failures:
        found = [Problem(checker, "__call__", m, file, line) for m in _site_messages(site, failures)]
        return Verdict.FAIL, tuple(_dedupe(found))
    if any(d.site is not None and d.site[1] for d in diagnostics):
        return Verdict.PASS, ()
    return blind(
        f"{checker} sees {site.text} (or what it builds) as Any, so what it builds cannot be verified; "
        "annotate it, e.g. as DraftWorkerFactory[YourDraftWorker]"
    )


def _dedupe(problems: list[Problem]) -> list[Problem]:
    seen: set[tuple[str | None, str]] = set()
    out: list[Problem] = []
    for p in problems:
        key = (p.member, p.message)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out
