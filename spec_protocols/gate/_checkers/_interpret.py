"""Reading the harness: the verdict core, one for every static checker.

Each static adapter turns its checker's own output into :class:`Diagnostic`
values (a harness line, or an injection site, with the message and code).
:func:`interpret` turns those into verdicts, identically for every static
checker (what its codes and words mean is its dialect), using the line tags of the harness (see
:mod:`spec_protocols.gate._harness._lines`): it decides, per check, a verdict
and typed findings (:class:`~spec_protocols.gate._findings.Finding`), worded
apart (:func:`spec_protocols.gate._findings.message`).
What an error on each line means is the role's (:mod:`spec_protocols.gate._roles`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from spec_protocols.gate._checkers._class_diagnostics import class_findings, unmodelled
from spec_protocols.gate._checkers._dialect import Dialect
from spec_protocols.gate._checkers._said import indented, plain, summary
from spec_protocols.gate._checkers._said import reasons as said_reasons
from spec_protocols.gate._findings import BodyDiagnostics, ClassDiagnostic, Finding, Got, Wrong, change, message
from spec_protocols.gate._harness import SITE_FUNCTION, ClassRegions, Harness, LineKind, LineTag, SiteShadow
from spec_protocols.gate._model import Check, CheckerOutcome, ClassRole, DiscoveredClass, InjectionSite, Problem, Verdict
from spec_protocols.gate._roles import policy_for

__all__ = ["Diagnostic", "Judgement", "interpret"]

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
    #: For a diagnostic in the plugin's own source (a module that defines a
    #: checked class): that file, resolved; ``line`` is its line there.
    file: Path | None = None


@dataclass(frozen=True, slots=True)
class Judgement:
    """The verdict core's answer for one check: the verdict, what was found
    (problems, blind spots), and the notes (never problems)."""

    verdict: Verdict
    findings: tuple[Finding | ClassDiagnostic, ...] = ()
    notes: tuple[Finding | BodyDiagnostics, ...] = ()


def _abstract_lines(diag: Diagnostic) -> tuple[str, ...]:
    """The lines of an "abstract class" error: mypy names the abstract
    members in its one line; pyright lists them under its headline."""
    lines = tuple(line.strip() for line in diag.message.strip().splitlines() if line.strip() not in ("", "..."))
    return lines or (diag.message.strip(),)


#: A name as the checkers quote one in their words ("name" or `name`).
_QUOTED = re.compile(r'"([^"]+)"|`([^`]+)`')


def _abstract_members(lines: Sequence[str], dialect: Dialect) -> tuple[tuple[str, ...], int]:
    """The abstract members an "abstract class" error names (its lines, as
    :func:`_abstract_lines` gives them), and how many more it leaves unnamed,
    read with the checker's :attr:`Dialect.abstract_names` and
    :attr:`Dialect.abstract_more`."""
    names: list[str] = []
    more = total = 0
    for line in lines:
        listed = dialect.abstract_names.search(line)
        if listed is not None:
            text = listed.group("names")
            names += [a or b for a, b in _QUOTED.findall(text)] or [text]
        unnamed = dialect.abstract_more.search(line)
        if unnamed is not None:
            found = unnamed.groupdict()
            more += int(found.get("more") or 0)
            total += int(found.get("total") or 0)
    named = tuple(dict.fromkeys(n.rpartition(".")[2] for n in names))
    return named, more or max(total - len(named), 0)


def _short(cls: DiscoveredClass | None) -> str | None:
    return cls.qualname.rpartition(".")[2] if cls is not None else None


def _got(cls: DiscoveredClass | None, member: str) -> Got:
    """What the class has for ``member`` (the "got" half of a message)."""
    if cls is None:
        return Got(member)
    found = cls.definition(member)
    return Got(member, found.text if found is not None else None, _short(cls), cls.overrides is not None)


# -- problems: a finding, located and worded ------------------------------------

#: Findings located at the class line, where what is missing belongs.
_AT_CLASS = frozenset({Wrong.MISSING, Wrong.ABSTRACT})
#: Findings whose words may hold the checker's (or the harness's) names:
#: those are replaced by what an author calls them.
_PLAIN = frozenset(
    {
        Wrong.ABSTRACT,
        Wrong.CONSTRUCTOR,
        Wrong.MISSING,
        Wrong.SIGNATURE,
        Wrong.TYPE,
        Wrong.BODY_NEVER_RUNS,
        Wrong.FACTORY,
        Wrong.MISMATCH,
        Wrong.PROTOCOL,
        Wrong.NEED,
        Wrong.SITE_BUILDS,
        Wrong.SITE_CALL,
    }
)
#: Blind spots: the checker could not see what it needed. Never a pass, never baselined.
_BLIND = frozenset(
    {
        Wrong.HARNESS_UNCHECKED,
        Wrong.NOT_IMPORTABLE,
        Wrong.CLASS_ANY,
        Wrong.MEMBER_ANY,
        Wrong.MEMBER_GRADUAL,
        Wrong.SITE_UNCHECKABLE,
        Wrong.SITE_NOT_IMPORTABLE,
        Wrong.SITE_ANY,
        Wrong.UNMODELLED,
    }
)


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


def _problem(
    finding: Finding | ClassDiagnostic, cls: DiscoveredClass | None, at: tuple[str, int] | None = None, dialect: Dialect | None = None
) -> Problem:
    """``finding`` as a problem: worded, and located at the member's own
    definition (or the class; ``at``: an injection site)."""
    if isinstance(finding, ClassDiagnostic):
        # The checker's own error, where it stands in the plugin's source.
        return Problem(finding.checker, finding.member, message(finding), str(finding.file), finding.line)
    file: str | None
    line: int | None
    file, line = at if at is not None else _where(cls, None if finding.wrong in _AT_CLASS else finding.member)
    text = message(finding)
    if finding.wrong in _PLAIN:
        text = plain(text)
    blind = finding.wrong in _BLIND
    return Problem(
        finding.checker,
        finding.member,
        text,
        file,
        line,
        unverified=blind,
        unmodelled=finding.wrong is Wrong.UNMODELLED,
        claim=_claim(finding, dialect),
        # A class the plugin did not write (sglang's default algorithm object, held for the
        # plugin's registration) is not where the change goes: the role's note says what to do.
        change=None if cls is not None and _not_the_plugins(cls) else change(finding),
    )


def _not_the_plugins(cls: DiscoveredClass) -> bool:
    return ClassRole.ALGORITHM in cls.roles and cls.module.partition(".")[0] == "sglang"


def _claim(finding: Finding, dialect: Dialect | None) -> str | None:
    """What a finding says that the instance sglang builds can settle (:attr:`Problem.claim`)."""
    if finding.claim is not None:
        return finding.claim
    if finding.wrong is Wrong.MISSING:
        return "exists"
    if finding.wrong in (Wrong.MEMBER_ANY, Wrong.MEMBER_GRADUAL):
        # A member this checker reads as Any: what it did not see (existence,
        # kind, call) the instance shows; its types another checker decides.
        return "seen"
    if finding.wrong is Wrong.CONSTRUCTOR:
        return "call"
    if finding.wrong in (Wrong.SIGNATURE, Wrong.MISMATCH, Wrong.FACTORY) and dialect is not None and finding.reasons:
        # Only where every reason is a call that does not bind: a type is no instance's to settle.
        if all(dialect.call_words.search(reason) for reason in finding.reasons):
            return "call"
    return None


def _problems(
    findings: Sequence[Finding | ClassDiagnostic],
    cls: DiscoveredClass | None,
    at: tuple[str, int] | None = None,
    dialect: Dialect | None = None,
) -> tuple[Problem, ...]:
    """Each finding as a problem, once: two lines may say the same thing."""
    seen: set[tuple[str | None, str]] = set()
    out: list[Problem] = []
    for problem in (_problem(f, cls, at, dialect) for f in findings):
        key = (problem.member, problem.message)
        if key not in seen:
            seen.add(key)
            out.append(problem)
    return tuple(out)


def _note(notes: Sequence[Finding | BodyDiagnostics]) -> str | None:
    """The notes of a check, in one line, each once."""
    text: str | None = None
    for note in notes:
        words = message(note)
        text = words if text is None or words in text else f"{text}; {words}"
    return text


# -- the verdict core ----------------------------------------------------------


def interpret(
    checker: str,
    dialect: Dialect,
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
      intentional base, in a role that excuses it) makes it a note instead.
    """
    by_line: dict[int, list[Diagnostic]] = {}
    by_site: dict[int, list[Diagnostic]] = {}
    in_source: list[Diagnostic] = []
    for diag in diagnostics:
        if diag.file is not None:
            in_source.append(diag)
        elif diag.site is not None:
            by_site.setdefault(diag.site[0], []).append(diag)
        else:
            by_line.setdefault(diag.line, []).append(diag)
    untagged = [d for line, ds in by_line.items() if line not in harness.tags for d in ds]
    if untagged:
        # An error outside every class's lines means the harness itself did
        # not check (an import of spec_protocols failed, say): nothing is verified.
        first = min(untagged, key=lambda d: d.line)
        blind = Finding(Wrong.HARNESS_UNCHECKED, checker, line=first.line, detail=summary(first.message))
        every = [*harness.checks, *(Check(s.target, _SITE_PROTOCOL) for s in (shadow.sites.values() if shadow else ()))]
        return CheckerOutcome(
            checker, {c: Verdict.UNVERIFIED for c in every}, {c: _problems([blind], None) for c in every}, seconds
        )
    judged = _judge_classes(checker, dialect, harness, by_line, in_source)
    if shadow is not None:
        judged.update(_judge_sites(checker, dialect, harness, shadow, by_line, by_site))
    verdicts = {check: j.verdict for check, (j, _, _) in judged.items()}
    problems = {check: _problems(j.findings, cls, at, dialect) for check, (j, cls, at) in judged.items()}
    notes = {check: note for check, (j, _, _) in judged.items() if (note := _note(j.notes)) is not None}
    return CheckerOutcome(checker, verdicts, problems, seconds, notes)


#: A judgement, with what locates its problems: the class, or an injection site's place.
_Located = tuple[Judgement, DiscoveredClass | None, tuple[str, int] | None]


def _judge_classes(
    checker: str,
    dialect: Dialect,
    harness: Harness,
    by_line: Mapping[int, Sequence[Diagnostic]],
    in_source: Sequence[Diagnostic] = (),
) -> dict[Check, _Located]:
    """Every class's checks, each class from its own lines: those of the
    harness, and its own in the plugin's source (``in_source``)."""
    tags_by_target: dict[str, list[tuple[int, LineTag]]] = {}
    for line, tag in sorted(harness.tags.items()):
        tags_by_target.setdefault(tag.target, []).append((line, tag))
    judged: dict[Check, _Located] = {}
    for target, tagged in tags_by_target.items():
        if all(t.kind is LineKind.SITE for _, t in tagged):
            continue
        cls = harness.classes.get(target)
        regions = harness.regions.get(target)
        own, counted = class_findings(checker, dialect, regions, in_source, _short(cls))
        judgements = judge_class(checker, dialect, tagged, by_line, target in harness.may_be_abstract, cls, regions)
        for check, judgement in judgements.items():
            judged[check] = (with_class_findings(judgement, own, counted), cls, None)
    return judged


def with_class_findings(judgement: Judgement, own: Sequence[ClassDiagnostic], counted: Sequence[BodyDiagnostics]) -> Judgement:
    """A check's judgement with what the checker says at the class's own lines
    (each a problem: the check fails) and its count of the rest (a note)."""
    verdict = Verdict.FAIL if own else judgement.verdict
    return Judgement(verdict, (*own, *judgement.findings), (*judgement.notes, *counted))


def _judge_sites(
    checker: str,
    dialect: Dialect,
    harness: Harness,
    shadow: SiteShadow,
    by_line: Mapping[int, Sequence[Diagnostic]],
    by_site: Mapping[int, Sequence[Diagnostic]],
) -> dict[Check, _Located]:
    """Every injection site, from the diagnostics inside its call (and the harness line importing its module)."""
    site_import_errors = {
        t.target: by_line[line] for line, t in harness.tags.items() if t.kind is LineKind.SITE and by_line.get(line)
    }
    judged: dict[Check, _Located] = {}
    for number, site in shadow.sites.items():
        judgement = judge_site(checker, dialect, site, by_site.get(number, []), site_import_errors.get(site.target), shadow)
        judged[Check(site.target, _SITE_PROTOCOL)] = (judgement, None, (str(site.file), site.line))
    return judged


def judge_class(
    checker: str,
    dialect: Dialect,
    tagged: Sequence[tuple[int, LineTag]],
    by_line: Mapping[int, Sequence[Diagnostic]],
    may_be_abstract: bool,
    cls: DiscoveredClass | None = None,
    regions: ClassRegions | None = None,
) -> dict[Check, Judgement]:
    """A class's checks, from the diagnostics on its own lines (``tagged``);
    ``regions``: what its source shows no checker models (see
    :func:`~spec_protocols.gate._checkers._class_diagnostics.unmodelled`)."""
    checks = sorted({t.check for _, t in tagged if t.check is not None})

    def errors(kind: LineKind) -> list[tuple[int, Diagnostic]]:
        return [(line, d) for line, t in tagged if t.kind is kind for d in by_line.get(line, [])]

    import_errors = errors(LineKind.IMPORT)
    if import_errors or not errors(LineKind.CANARY_CLASS):
        if import_errors:
            line, first = import_errors[0]
            blind = Finding(Wrong.NOT_IMPORTABLE, checker, line=line, detail=summary(first.message))
        else:
            blind = Finding(Wrong.CLASS_ANY, checker)
        return {check: Judgement(Verdict.UNVERIFIED, (blind,)) for check in checks}
    # A silent instance canary: the class has a __getattr__.
    has_getattr = not errors(LineKind.CANARY_INSTANCE)
    judged: dict[Check, Judgement] = {}
    for check in checks:
        judge = _CheckJudge(checker, dialect, check, cls, has_getattr, regions)
        judge.read_all([(line, t) for line, t in tagged if t.check == check], by_line, may_be_abstract)
        judged[check] = judge.judgement()
    return judged


#: What an error on a member line says is wrong, by the line's kind.
_WRONG_OF_LINE: Mapping[LineKind, Wrong] = {
    LineKind.MEMBER_SIGNATURE: Wrong.SIGNATURE,
    LineKind.MEMBER_TYPE: Wrong.TYPE,
    LineKind.FACTORY: Wrong.FACTORY,
}


class _CheckJudge:
    """The findings of one check, read line by line; :meth:`judgement` decides."""

    def __init__(
        self,
        checker: str,
        dialect: Dialect,
        check: Check,
        cls: DiscoveredClass | None,
        has_getattr: bool,
        regions: ClassRegions | None = None,
    ) -> None:
        self.checker = checker
        self.dialect = dialect
        self.regions = regions
        self.check = check
        self.cls = cls
        self.has_getattr = has_getattr
        self.short = _short(cls)
        #: Member problems, in line order.
        self.found: list[Finding] = []
        #: What the whole-protocol line says (kept only when nothing else does).
        self.whole: list[Finding] = []
        #: What the factory line says (kept only when the constructor line says nothing).
        self.factory: list[Finding] = []
        self.notes: list[Finding] = []
        #: (member, canary kind) -> whether the canary fired.
        self.canaries: dict[tuple[str | None, LineKind], bool] = {}
        #: A dropped result's lines (LineKind.MEMBER_DEFERRED): member ->
        #: (line, tag, whether it errored); and whether its MEMBER_RESULT
        #: canary did (a silent one: the result is Any, and says nothing).
        self.deferred: dict[str, tuple[int, LineTag, bool]] = {}
        self.result_typed: dict[str, bool] = {}
        #: The constructor line's errors that are not "abstract", with its line and expected call.
        self.constructor: list[tuple[int, Diagnostic]] = []
        self.constructor_expected: str | None = None
        self.abstract_base = False
        #: The protocol's own words for each member, for the whole-protocol line.
        self.expected: dict[str, str] = {}
        #: The members held to their presence only (no protocol defines them).
        self.presence_only: frozenset[str] = frozenset()

    def read_all(
        self, mine: Sequence[tuple[int, LineTag]], by_line: Mapping[int, Sequence[Diagnostic]], may_be_abstract: bool
    ) -> None:
        construction = [d for line, t in mine if t.kind in (LineKind.CONSTRUCTOR, LineKind.ABSTRACT) for d in by_line.get(line, [])]
        if any(self.abstract(d) for d in construction) and policy_for(self.check.protocol).may_be_abstract(may_be_abstract):
            # An intentional base: sglang builds its subclasses, not it.
            self.abstract_base = True
            self.notes.append(Finding(Wrong.ABSTRACT_BASE, self.checker))
        self.expected = {t.member: t.expected for _, t in mine if t.member is not None and t.expected is not None}
        self.presence_only = frozenset(t.member for _, t in mine if t.kind is LineKind.MEMBER_PRESENT and t.member)
        for line, tag in mine:
            self.read(line, tag, by_line.get(line, []))

    def read(self, line: int, tag: LineTag, diags: Sequence[Diagnostic]) -> None:
        if tag.kind in (LineKind.MEMBER_ANY, LineKind.MEMBER_GRADUAL):
            self.canaries[(tag.member, tag.kind)] = bool(diags)
        elif tag.kind is LineKind.MEMBER_DEFERRED:
            self.deferred[tag.member or ""] = (line, tag, bool(diags))
        elif tag.kind is LineKind.MEMBER_RESULT:
            self.result_typed[tag.member or ""] = bool(diags)
        elif tag.kind is LineKind.NEEDS_ANY:
            if not diags:
                # The members the class defines were checked; only what
                # its kept defaults need of the draft worker could not be.
                self.notes.append(Finding(Wrong.DRAFT_WORKER_ANY, self.checker, tag.member, line, detail=tag.need))
        else:
            for diag in diags:
                self.read_error(line, tag, diag)

    def read_error(self, line: int, tag: LineTag, diag: Diagnostic) -> None:
        kind = tag.kind
        if kind is LineKind.MEMBER and (
            not self.has_getattr
            or "instance-only attribute" in diag.message
            or (self.cls is not None and tag.member in self.cls.instance_attributes)
        ):
            # The class object: authoritative only for a class with
            # __getattr__ (otherwise the instance lines decide, and an
            # attribute set in __init__ is legitimately absent from the
            # class object). mypy says so outright for instance-only
            # attributes; for pyright, the gate reads the __init__s. Such an
            # attribute is declared, so the instance lines check it, not
            # __getattr__.
            return
        if kind in (LineKind.CONSTRUCTOR, LineKind.ABSTRACT):
            self.read_construction(line, tag, diag)
        elif kind is LineKind.PROTOCOL:
            self.whole.extend(self.protocol_findings(line, diag))
        elif kind is LineKind.NEEDS:
            reasons = said_reasons(indented(diag.message), None, self.dialect) or [summary(diag.message)]
            self.found.append(Finding(Wrong.NEED, self.checker, tag.member, line, tuple(reasons), detail=tag.need, claim=tag.claim))
        else:
            (self.factory if kind is LineKind.FACTORY else self.found).append(self.member_finding(line, tag, diag))

    def abstract(self, diag: Diagnostic) -> bool:
        """Whether ``diag`` says an abstract class is instantiated."""
        return self.dialect.abstract.says(diag.code, diag.message)

    def read_construction(self, line: int, tag: LineTag, diag: Diagnostic) -> None:
        if self.abstract_base or (tag.kind is LineKind.ABSTRACT and not self.abstract(diag)):
            return
        if self.abstract(diag):
            # What is missing is an implementation in the class: each member
            # the checker names, with what sglang calls where it is one of
            # the protocol's (the problem stays __init__'s: the construction
            # is what raises).
            said = _abstract_lines(diag)
            names, more = _abstract_members(said, self.dialect)
            unnamed = f" and {more} more" if more else ""
            expected = "; expected ".join(self.expected[n] for n in names if n in self.expected) or None
            detail = f"{', '.join(names)}{unnamed}" if names else None
            self.found.append(
                Finding(Wrong.ABSTRACT, self.checker, tag.member, line, said, expected=expected, detail=detail)
            )
        else:
            self.constructor.append((line, diag))
            self.constructor_expected = tag.expected

    def member_finding(self, line: int, tag: LineTag, diag: Diagnostic) -> Finding:
        """One diagnostic on a member line (or the factory line), as what the
        call site needs and what the class has."""
        member = tag.member or ""
        if self.dialect.missing.says(diag.code, diag.message):
            return Finding(Wrong.MISSING, self.checker, member, line, expected=tag.expected, subject=self.short)
        reasons = tuple(said_reasons(indented(diag.message), self.short, self.dialect))
        wrong = _WRONG_OF_LINE.get(tag.kind, Wrong.MISMATCH)
        return Finding(wrong, self.checker, member, line, reasons, tag.expected, _got(self.cls, member), self.short)

    def protocol_findings(self, line: int, diag: Diagnostic) -> list[Finding]:
        """The whole-protocol line, kept when no member line said anything: the
        members pyright names under it, each with its own reasons; or one
        finding about the class when the checker names none (mypy)."""
        lines = indented(diag.message)
        found: list[Finding] = []
        for n, (indent, text) in enumerate(lines):
            header = self.dialect.member_header.match(text)
            if header is None:
                continue
            member = header.group("member")
            nested: list[tuple[int, str]] = []
            for inner, inner_text in lines[n + 1 :]:
                if inner <= indent:
                    break
                nested.append((inner, inner_text))
            expected = self.expected.get(member)
            if header.group("what") == "is not present":
                found.append(Finding(Wrong.MISSING, self.checker, member, line, expected=expected, subject=self.short))
            else:
                reasons = tuple(said_reasons(nested, self.short, self.dialect))
                found.append(Finding(Wrong.MISMATCH, self.checker, member, line, reasons, expected, _got(self.cls, member), self.short))
        return found or [Finding(Wrong.PROTOCOL, self.checker, None, line, detail=self.check.protocol)]

    def construction_findings(self) -> list[Finding]:
        """The constructor line's one problem for the call, or else the factory line's.

        The factory line compares the whole constructor with the
        protocol's call, and the constructor's own line names each
        keyword the call cannot pass, plainly: the factory line would
        repeat it. (What it alone says, that the class does not build an
        InjectableDraftWorker, it says once the call is fixed.) Each
        keyword the call cannot take is a reason, and the constructor it
        meets is the one "got".
        """
        if not self.constructor:
            return list(self.factory)
        reasons = [
            r for _, d in self.constructor for r in (said_reasons(indented(d.message), None, self.dialect) or [summary(d.message)])
        ]
        line = self.constructor[0][0]
        return [
            Finding(
                Wrong.CONSTRUCTOR,
                self.checker,
                "__init__",
                line,
                tuple(dict.fromkeys(reasons)),
                self.constructor_expected,
                _got(self.cls, "__init__"),
            )
        ]

    def blind_members(self, failing: set[str | None]) -> list[Finding]:
        """A silent member canary: the member is Any (or its signature
        ``(...) -> Any``) to the checker, unless it fails anyway."""
        blind: list[Finding] = []
        for (member, kind), fired in self.canaries.items():
            if fired or member in failing or any(f.member == member for f in blind):
                continue
            wrong = Wrong.MEMBER_ANY if kind is LineKind.MEMBER_ANY else Wrong.MEMBER_GRADUAL
            blind.append(Finding(wrong, self.checker, member))
        return blind

    def never_run(self) -> list[Finding]:
        """The members whose result sglang drops that return a coroutine or a
        generator (their body never runs): their ``_Deferring`` line was
        silent while their result is typed (not Any)."""
        return [
            Finding(Wrong.BODY_NEVER_RUNS, self.checker, member, line, expected=tag.expected, got=_got(self.cls, member), subject=self.short)
            for member, (line, tag, errored) in self.deferred.items()
            if not errored and self.result_typed.get(member, False)
        ]

    def judgement(self) -> Judgement:
        # The whole-protocol line repeats what the member lines say; keep it
        # only when it is the sole evidence (it then names no member).
        found = [*self.found, *self.never_run(), *self.construction_findings()] or self.whole
        # What comes from a construct the checker cannot model is a blind spot.
        found = unmodelled(found, self.cls, self.regions, self.presence_only)
        failing = [f for f in found if f.wrong is not Wrong.UNMODELLED]
        gaps = [f for f in found if f.wrong is Wrong.UNMODELLED]
        blind = unmodelled(self.blind_members({f.member for f in found}), self.cls, self.regions, self.presence_only)
        verdict = Verdict.FAIL if failing else Verdict.UNVERIFIED if gaps or blind else Verdict.PASS
        return Judgement(verdict, (*failing, *gaps, *blind), tuple(self.notes))


def _site_findings(checker: str, dialect: Dialect, site: InjectionSite, diagnostics: Sequence[Diagnostic]) -> list[Finding]:
    """The diagnostics on a site's call, in the terms of the site: what
    ``build_draft_tp_worker`` would do with ``draft_worker_cls``. The call's
    own errors (a keyword it cannot take) are one finding: one call fails."""
    found: list[Finding] = []
    call: list[str] = []
    for diag in diagnostics:
        builds = dialect.site_builds.search(diag.message)
        reasons = said_reasons(indented(diag.message), None, dialect)
        if builds is not None and SITE_FUNCTION in diag.message:
            # "read as X" repeats what it builds.
            kept = tuple(r for r in reasons if not r.startswith("read as"))
            found.append(Finding(Wrong.SITE_BUILDS, checker, "__call__", diag.line, kept, subject=site.text, detail=builds.group("built")))
        else:
            call += reasons or [summary(diag.message)]
    if call:
        found.insert(0, Finding(Wrong.SITE_CALL, checker, "__call__", reasons=tuple(dict.fromkeys(call)), subject=site.text))
    return found


def judge_site(
    checker: str,
    dialect: Dialect,
    site: InjectionSite,
    diagnostics: Sequence[Diagnostic],
    import_errors: Sequence[Diagnostic] | None,
    shadow: SiteShadow,
) -> Judgement:
    """An injection site, from the diagnostics inside its rewritten call."""
    if site.target in shadow.unverifiable:
        why = Finding(Wrong.SITE_UNCHECKABLE, checker, subject=site.text, detail=shadow.unverifiable[site.target])
        return Judgement(Verdict.UNVERIFIED, (why,))
    if import_errors:
        why = Finding(Wrong.SITE_NOT_IMPORTABLE, checker, subject=site.text, detail=summary(import_errors[0].message))
        return Judgement(Verdict.UNVERIFIED, (why,))
    failures = [d for d in diagnostics if d.site is not None and not d.site[1]]
    if failures:
        return Judgement(Verdict.FAIL, tuple(_site_findings(checker, dialect, site, failures)))
    if any(d.site is not None and d.site[1] for d in diagnostics):
        return Judgement(Verdict.PASS)
    return Judgement(Verdict.UNVERIFIED, (Finding(Wrong.SITE_ANY, checker, subject=site.text),))
