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

from spec_protocols.gate._harness._lines import SITE_FUNCTION, Harness, LineKind, LineTag
from spec_protocols.gate._harness._sites import SiteShadow
from spec_protocols.gate._model import ABSTRACT_BASE_NOTE, Check, CheckerOutcome, InjectionSite, Problem, Verdict

__all__ = ["Diagnostic", "interpret"]


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
        all_checks = [*harness.checks, *(Check(s.target, "DraftWorkerFactory") for s in (shadow.sites.values() if shadow else ()))]
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
        judged = _judge_class(checker, target, tagged, by_line, target in harness.may_be_abstract)
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
            check = Check(site.target, "DraftWorkerFactory")
            verdict, found = _judge_site(checker, site, by_site.get(number, []), site_import_errors.get(site.target), shadow)
            verdicts[check] = verdict
            problems[check] = found
    return CheckerOutcome(checker, verdicts, problems, seconds, notes)


def _judge_class(
    checker: str,
    target: str,
    tagged: Sequence[tuple[int, LineTag]],
    by_line: Mapping[int, Sequence[Diagnostic]],
    may_be_abstract: bool,
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
        return {check: (Verdict.UNVERIFIED, (Problem(checker, None, why, unverified=True),), None) for check in checks}
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
        abstract_base = bool(abstract) and may_be_abstract and check.protocol != "DraftWorkerFactory"
        if abstract_base:
            # An intentional base: sglang builds its subclasses, not it.
            note = ABSTRACT_BASE_NOTE
        for line, tag in mine:
            diags = by_line.get(line, [])
            if tag.kind in (LineKind.MEMBER_ANY, LineKind.MEMBER_GRADUAL):
                canaries[(tag.member, tag.kind)] = bool(diags)
                continue
            if tag.kind is LineKind.NEEDS_ANY:
                if not diags:
                    # The members the class defines were checked; only what
                    # its kept defaults need of the draft worker could not be.
                    note = _join(note, _needs_blind(checker))
                continue
            for diag in diags:
                message = _summary(diag.message)
                if tag.kind is LineKind.NEEDS:
                    message = _need_message(tag, message)
                if tag.kind is LineKind.MEMBER:
                    # The class object: authoritative only for a class with
                    # __getattr__ (otherwise the instance lines decide, and an
                    # attribute set in __init__ is legitimately absent from the
                    # class object). mypy says so outright for instance-only
                    # attributes.
                    if not has_getattr or "instance-only attribute" in message:
                        continue
                if tag.kind in (LineKind.CONSTRUCTOR, LineKind.ABSTRACT):
                    if abstract_base or (tag.kind is LineKind.ABSTRACT and not _is_abstract(diag)):
                        continue
                    message = _abstract_message(diag) if _is_abstract(diag) else message
                problem = Problem(checker, tag.member, message)
                (whole if tag.kind is LineKind.PROTOCOL else found).append(problem)
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
                blind.append(Problem(checker, member, what, unverified=True))
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


def _needs_blind(checker: str) -> str:
    return (
        f"{checker} sees this class's draft worker as Any: what the BaseSpecWorker defaults it keeps use of the "
        f"draft worker (e.g. draft_runners) is not checked by {checker}"
    )


def _join(first: str | None, second: str) -> str:
    return second if first is None or second in first else f"{first}; {second}"


def _site_message(message: str) -> str:
    """A diagnostic on a site's call, in the words of the site: what
    ``build_draft_tp_worker`` would do with ``draft_worker_cls``."""
    builds = re.search(rf'(?:Value of type variable "_W" of "{SITE_FUNCTION}_\d+" cannot be|Argument of type) (".*?")', message)
    if builds is not None and SITE_FUNCTION in message:
        return f"draft_worker_cls builds {builds.group(1)}, which is not a DraftWorker: {_summary(message)}"
    return f"build_draft_tp_worker's call of draft_worker_cls fails: {_summary(message)}"


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
        found = [Problem(checker, "__call__", _site_message(d.message), file, line) for d in failures]
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
