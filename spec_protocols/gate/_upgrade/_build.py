"""Building the upgrade plan: two releases' contracts and terms, and the gate's report on each.

What changed is read from the two releases' own terms (never a list kept by
hand): the keywords the scheduler constructs a spec worker with
(``Scheduler.maybe_init_draft_worker``), the members each release requires,
how it calls them, what ``BaseSpecWorker``'s defaults need of the draft
worker, the keywords ``build_draft_tp_worker`` passes ``draft_worker_cls``,
the hooks sglang finds by name. Each change becomes a step for the classes of
TARGET it concerns; the gate's report on B says which of them must change: a
problem on B about the step's member, in a check of the step's protocol, is
the step's. A problem the report on A has too (the same words, line numbers
aside) is not the upgrade's: the class already failed there, and it stays in
:attr:`UpgradePlan.remaining`, with every problem no step accounts for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from spec_protocols._members import protocol_definitions
from spec_protocols.gate._contract import CallShape, Contract, HookTerm, ReleaseTerms, Site, kept_default_needs
from spec_protocols.gate._model import Check, DiscoveredClass, GateReport, Problem, ProtocolName, Result, Verdict
from spec_protocols.gate._signatures import describe_function
from spec_protocols.gate._verdicts import injected_fails_words
from spec_protocols.gate._upgrade._plan import ClassStep, FailingCheck, PlanProblem, Step, StepKind, UpgradePlan

__all__ = ["ReleaseSide", "build_plan"]

#: The class whose defaults a spec worker keeps (sglang/srt/speculative/base_spec_worker.py).
BASE_SPEC_WORKER = "sglang.srt.speculative.base_spec_worker.BaseSpecWorker"
#: The member a problem about a constructor names.
INIT = "__init__"
#: What the gate's own problem on a spec worker whose constructor injects a
#: failing draft class is about (:func:`_member_of`).
INJECTION = "draft_worker_cls"
_INJECTED_HEAD, _, _INJECTED_TAIL = injected_fails_words(["\0"]).partition("\0")

_SPEC = ProtocolName.SPEC_WORKER
_DRAFT = ProtocolName.DRAFT_WORKER
_FACTORY = ProtocolName.DRAFT_WORKER_FACTORY


@dataclass(frozen=True, slots=True)
class ReleaseSide:
    """One release of an upgrade: what its source asks, and what the gate said of TARGET on it."""

    contract: Contract
    terms: ReleaseTerms
    report: GateReport

    @property
    def release(self) -> str:
        return self.contract.release


@dataclass(frozen=True, slots=True)
class _Draft:
    """A step before the classes are read: what changed, and which problems it accounts for."""

    kind: StepKind
    subject: str
    change: str
    action: str
    #: The protocols of the checks it concerns -> the members of their problems it accounts for.
    claims: Mapping[str, frozenset[str]]
    site: str = ""
    expected: str = ""
    #: The classes it concerns (dotted name -> what the plan knows of it);
    #: ``None``: every class checked against :attr:`protocols`.
    concerned: Mapping[str, str] | None = None


@dataclass(frozen=True, slots=True)
class _Sides:
    before: ReleaseSide
    after: ReleaseSide
    classes: Mapping[str, DiscoveredClass] = field(default_factory=dict[str, DiscoveredClass])

    @property
    def a(self) -> str:
        return self.before.release

    @property
    def b(self) -> str:
        return self.after.release

    def checked(self, protocol: str) -> list[str]:
        """Dotted names of the classes checked against ``protocol`` on B."""
        return sorted({r.check.target for r in self.after.report.results if r.check.protocol == protocol})


def _where(site: Site | None) -> str:
    return "" if site is None else f"{site.file}:{site.line} ({site.function})"


def _keywords(names: Iterable[str]) -> str:
    return ", ".join(f"{name}=" for name in names) or "no keyword"


def _shape_words(shape: CallShape) -> str:
    fewest, most = shape.positional
    count = str(fewest) if fewest == most else f"{fewest} to {most}"
    words = f"{count} positional argument{'' if most == 1 else 's'}"
    if shape.keywords:
        words += f", {_keywords(shape.keywords)}"
    if shape.optional_keywords:
        words += f" (sometimes {_keywords(shape.optional_keywords)})"
    return words


def _expected(terms: ReleaseTerms, protocol: str, member: str) -> str:
    """How ``terms``' release wants ``member``: the call its source makes (a
    release the protocols are not pinned to), else the protocol's definition
    pinned to it."""
    shape = terms.call_shapes.get(protocol, {}).get(member)
    if shape is not None:
        return f"called with {_shape_words(shape)}"
    for definition in protocol_definitions(protocol, terms.pin):
        if definition.name == member:
            return describe_function(protocol, definition.node)
    return ""


def _member_site(side: ReleaseSide, protocol: str, member: str) -> str:
    """Where ``side``'s release makes the use that requires ``member``."""
    if protocol == _SPEC:
        uses = [u for u in side.contract.uses_of(member) if u.receiver == "spec_worker" and u.classification == "required"]
        return _where(uses[0].site) if uses else ""
    for default in side.contract.defaults:
        for use in default.needs:
            if use.receiver == "draft_worker" and use.member == member and use.classification == "required":
                return f"{_where(use.site)}, in BaseSpecWorker.{default.method}"
    return ""


def _defines(cls: DiscoveredClass | None, member: str) -> bool:
    """Whether the class (or a base of its own, below sglang) defines ``member``."""
    if cls is None:
        return False
    if cls.overrides is not None:
        return member in cls.overrides
    return any(d.name == member and not d.owner.startswith("sglang.") for d in cls.members)


def _keeps_defaults(cls: DiscoveredClass | None) -> bool:
    return cls is not None and BASE_SPEC_WORKER in cls.bases and cls.overrides is not None


def _defining(sides: _Sides, protocol: str, member: str) -> dict[str, str]:
    """The classes checked against ``protocol`` that define ``member``."""
    return {t: "defines it" for t in sides.checked(protocol) if _defines(sides.classes.get(t), member)}


# -- the steps, kind by kind ---------------------------------------------------------


def _constructor(sides: _Sides) -> list[_Draft]:
    before, after = sides.before.terms.constructor_keywords, sides.after.terms.constructor_keywords
    removed = [k for k in before if k not in after]
    added = [k for k in after if k not in before]
    if not removed and not added:
        return []
    change: list[str] = []
    action: list[str] = []
    if removed:
        change.append(f"{sides.b} no longer passes {_keywords(removed)} ({sides.a} did)")
        first = removed[0]
        action.append(
            f"drop {', '.join(removed)} from __init__, or give {'it' if len(removed) == 1 else 'each'} a default "
            f"({first}=None) to keep {sides.a} working, and stop passing {'it' if len(removed) == 1 else 'them'} on "
            f"(what __init__ calls is checked against {sides.b}'s source too)"
        )
    if added:
        change.append(f"{sides.b} newly passes {_keywords(added)}")
        action.append(f"accept {', '.join(added)} in __init__ (a keyword parameter, or **kwargs)")
    return [
        _Draft(
            StepKind.CONSTRUCTOR,
            "the scheduler's call that constructs the spec worker",
            "; ".join(change),
            "; ".join(action),
            {_SPEC: frozenset({INIT})},
            site=_where(sides.after.contract.constructor_site),
            expected=f"WorkerClass({_keywords(after)})",
        )
    ]


def _kept_notes(sides: _Sides, member: str) -> dict[str, str]:
    """For each spec worker of TARGET: whether it defines ``member`` or keeps
    ``BaseSpecWorker``'s, and what that default uses of the draft worker on B."""
    notes: dict[str, str] = {}
    for target in sides.checked(_SPEC):
        cls = sides.classes.get(target)
        if _defines(cls, member):
            notes[target] = "defines it"
        elif cls is not None and _keeps_defaults(cls):
            assert cls.overrides is not None
            needs = [n for n in kept_default_needs(sides.after.terms, cls.overrides, target) if n.default == member]
            uses = "".join(f", which uses draft_worker.{n.member} ({_where(n.site)})" for n in needs[:1])
            notes[target] = f"keeps BaseSpecWorker's{uses}"
        else:
            notes[target] = ""
    return notes


def _new_members(sides: _Sides) -> list[_Draft]:
    found: list[_Draft] = []
    for protocol in (_SPEC, _DRAFT):
        before = set(sides.before.terms.checked(protocol))
        for member in sides.after.terms.checked(protocol):
            if member in before:
                continue
            if protocol == _SPEC:
                action = (
                    "define it as expected; a BaseSpecWorker subclass inherits sglang's default, which is enough "
                    "unless the gate says what the default needs"
                )
                concerned: Mapping[str, str] | None = _kept_notes(sides, member)
            else:
                action = f"the draft worker must have it: {sides.b}'s BaseSpecWorker defaults use it"
                concerned = None
            found.append(
                _Draft(
                    StepKind.NEW_MEMBER,
                    f"{protocol}.{member}",
                    f"{sides.b} requires it; {sides.a} did not",
                    action,
                    {protocol: frozenset({member})},
                    site=_member_site(sides.after, protocol, member),
                    expected=_expected(sides.after.terms, protocol, member),
                    concerned=concerned,
                )
            )
    for member in sides.after.terms.presence:
        if member not in sides.before.terms.presence:
            found.append(
                _Draft(
                    StepKind.NEW_MEMBER,
                    f"{_SPEC}.{member}",
                    f"{sides.b} requires it; {sides.a} did not; no protocol of this package defines it",
                    "define it (the gate checks it for presence only: its signature is unknown)",
                    {_SPEC: frozenset({member})},
                    site=_member_site(sides.after, _SPEC, member),
                )
            )
    return found


def _inherited_needs(sides: _Sides) -> list[_Draft]:
    """Needs of the draft worker that a kept default has on B and not on A,
    for a default both releases call (a new member's are in its own step)."""
    called_before = set(sides.before.terms.checked(_SPEC))
    grouped: dict[tuple[str, str], tuple[str, dict[str, str]]] = {}
    for target in sides.checked(_SPEC):
        cls = sides.classes.get(target)
        if cls is None or not _keeps_defaults(cls):
            continue
        assert cls.overrides is not None
        had = {(n.default, n.member) for n in kept_default_needs(sides.before.terms, cls.overrides, target)}
        for need in kept_default_needs(sides.after.terms, cls.overrides, target):
            key = (need.default, need.member)
            if key in had or need.default not in called_before:
                continue
            through = f" (through {', '.join(need.via[1:])})" if len(need.via) > 1 else ""
            entry = grouped.setdefault(key, (_where(need.site) + through, {}))
            entry[1][target] = f"keeps BaseSpecWorker.{need.default}"
    return [
        _Draft(
            StepKind.INHERITED_NEED,
            f"BaseSpecWorker.{default} -> draft_worker.{member}",
            f"{sides.b}'s BaseSpecWorker.{default} uses draft_worker.{member}; {sides.a}'s did not",
            f"override {default} in the worker, or give the draft worker {member}",
            {_SPEC: frozenset({default})},
            site=site,
            concerned=concerned,
        )
        for (default, member), (site, concerned) in grouped.items()
    ]


def _signatures(sides: _Sides) -> list[_Draft]:
    found: list[_Draft] = []
    for protocol in (_SPEC, _DRAFT):
        before = set(sides.before.terms.checked(protocol))
        for member in sides.after.terms.checked(protocol):
            old, new = _expected(sides.before.terms, protocol, member), _expected(sides.after.terms, protocol, member)
            if member in before and old != new:
                found.append(
                    _Draft(
                        StepKind.SIGNATURE,
                        f"{protocol}.{member}",
                        f"{sides.a}: {old}; {sides.b}: {new}",
                        f"take the call {sides.b} makes (keep {sides.a}'s as optional to support both)",
                        {protocol: frozenset({member})},
                        site=_member_site(sides.after, protocol, member),
                        expected=new,
                    )
                )
    return found + _branch_signatures(sides)


def _branch_signatures(sides: _Sides) -> list[_Draft]:
    """Members the scheduler calls otherwise on one of its branches (overlap, synchronous) on B than on A."""
    found: list[_Draft] = []
    old_shapes, new_shapes = sides.before.terms.branch_shapes, sides.after.terms.branch_shapes
    for branch in sorted(set(old_shapes) | set(new_shapes)):
        old, new = old_shapes.get(branch, {}), new_shapes.get(branch, {})
        for member in sorted(set(old) | set(new)):
            if old.get(member) == new.get(member):
                continue
            before = _shape_words(old[member]) if member in old else "the same on both branches"
            after = _shape_words(new[member]) if member in new else "the same on both branches"
            found.append(
                _Draft(
                    StepKind.SIGNATURE,
                    f"{_SPEC}.{member} on the scheduler's {branch} branch",
                    f"{sides.a} calls it with {before}; {sides.b} with {after}",
                    "take the call of every branch your registration runs (supports_overlap=False: the synchronous one)",
                    {_SPEC: frozenset({member})},
                    expected=after,
                )
            )
    return found


def _dropped(sides: _Sides) -> list[_Draft]:
    found: list[_Draft] = []
    for protocol in (_SPEC, _DRAFT):
        after = set(sides.after.terms.checked(protocol)) | set(sides.after.terms.presence if protocol == _SPEC else ())
        dropped = [m for m in sides.before.terms.checked(protocol) if m not in after]
        if protocol == _SPEC:
            dropped += [m for m in sides.before.terms.presence if m not in after]
        for member in dropped:
            found.append(
                _Draft(
                    StepKind.DROPPED_MEMBER,
                    f"{protocol}.{member}",
                    f"{sides.b} no longer calls it ({sides.a} did, {_member_site(sides.before, protocol, member)})",
                    f"it may be removed (keep it while the plugin also supports {sides.a}, or if your own code uses it)",
                    {protocol: frozenset({member})},
                    concerned=_defining(sides, protocol, member),
                )
            )
    return found


def _draft_factory(sides: _Sides) -> list[_Draft]:
    before, after = sides.before.terms.draft_factory_keywords, sides.after.terms.draft_factory_keywords
    injected = {t: "" for t in sides.checked(_FACTORY)}
    # The spec workers whose constructor builds an injected class: its failing
    # the call fails them too (the gate's own problem on their SpecWorker check).
    for target in list(injected):
        cls = sides.classes.get(target)
        for injector in cls.injected_by if cls is not None else ():
            injected.setdefault(injector, f"injects {target}")
    claims = {_FACTORY: frozenset({INIT}), _DRAFT: frozenset({INIT}), _SPEC: frozenset({INJECTION})}
    found: list[_Draft] = []
    if after is None and before is not None:
        found.append(
            _Draft(
                StepKind.DRAFT_FACTORY,
                "build_draft_tp_worker(draft_worker_cls=...)",
                f"{sides.b}'s build_draft_tp_worker takes no draft_worker_cls: a draft worker class cannot be injected",
                "build the draft worker another way on this release",
                claims,
                concerned=injected,
            )
        )
    elif after is not None and before is not None and before != after:
        removed = [k for k in before if k not in after]
        added = [k for k in after if k not in before]
        change: list[str] = []
        action: list[str] = []
        if removed:
            change.append(f"{sides.b} no longer passes {_keywords(removed)} ({sides.a} did)")
            action.append(f"drop {', '.join(removed)} from the draft class's __init__ (or give it a default) and stop passing it on")
        if added:
            change.append(f"{sides.b} newly passes {_keywords(added)}")
            action.append(f"accept {', '.join(added)} (keyword parameters, or **kwargs) and pass on what the base class takes")
        found.append(
            _Draft(
                StepKind.DRAFT_FACTORY,
                "build_draft_tp_worker's call of draft_worker_cls",
                "; ".join(change),
                "; ".join(action),
                claims,
                site=_where(sides.after.contract.draft_factory_site),
                expected=f"draft_worker_cls({_keywords(after)})",
                concerned=injected,
            )
        )
    for member in sides.after.terms.draft_factory_writes:
        if member not in sides.before.terms.draft_factory_writes:
            found.append(
                _Draft(
                    StepKind.DRAFT_FACTORY,
                    f"build_draft_tp_worker sets draft_worker.{member}",
                    f"{sides.b} sets {member} on the draft worker it built; {sides.a} did not",
                    f"let {member} be set (no read-only property; a __dict__ or a slot)",
                    {_FACTORY: frozenset({member})},
                    concerned=injected,
                )
            )
    return found


def _hook_words(hook: HookTerm) -> str:
    """How sglang finds the hook, where, and what it does with it."""
    where = hook.sites[0]
    found = f"getattr(w, {hook.member!r}, {hook.default})" if hook.default else f"hasattr(w, {hook.member!r})"
    done: list[str] = []
    if hook.call is not None:
        done.append(f"calls it with {_shape_words(hook.call)}")
    if hook.iterated:
        done.append("iterates it")
    return f"{found} ({where.file}: {where.function})" + (f", and {' and '.join(done)}" if done else "")


def _hook_key(hook: HookTerm) -> tuple[object, ...]:
    return (hook.call, hook.iterated, hook.none_ok, hook.branch, hook.constrains)


def _hook(sides: _Sides, protocol: str, member: str, old: HookTerm | None, new: HookTerm | None) -> _Draft | None:
    concerned = _defining(sides, protocol, member)
    subject = f"{protocol} hook {member}"
    if new is not None and old is None:
        return _Draft(
            StepKind.HOOK,
            subject,
            f"{sides.b} looks it up: {_hook_words(new)}; {sides.a} did not",
            "a class that defines it is held to what sglang does with it; one that does not is not asked",
            {protocol: frozenset({member})},
            site=_where(new.sites[0]),
            concerned=concerned,
        )
    if new is None and old is not None:
        return _Draft(
            StepKind.HOOK,
            subject,
            f"{sides.b} no longer looks it up ({sides.a}: {_hook_words(old)})",
            f"sglang no longer reads it: it may be removed (keep it while the plugin also supports {sides.a}, or if your own code uses it)",
            {protocol: frozenset({member})},
            concerned=concerned,
        )
    if new is not None and old is not None and _hook_key(old) != _hook_key(new):
        return _Draft(
            StepKind.HOOK,
            subject,
            f"{sides.a}: {_hook_words(old)}; {sides.b}: {_hook_words(new)}",
            f"make it fit what {sides.b} does with it",
            {protocol: frozenset({member})},
            site=_where(new.sites[0]),
            concerned=concerned,
        )
    return None


def _hooks(sides: _Sides) -> list[_Draft]:
    found: list[_Draft] = []
    old_hooks, new_hooks = sides.before.terms.hooks, sides.after.terms.hooks
    for protocol in (_SPEC, _DRAFT):
        old, new = old_hooks.get(protocol, {}), new_hooks.get(protocol, {})
        for member in [*new, *(m for m in old if m not in new)]:
            draft = _hook(sides, protocol, member, old.get(member), new.get(member))
            if draft is not None:
                found.append(draft)
    return found + _capabilities(sides)


def _capabilities(sides: _Sides) -> list[_Draft]:
    """Members called only behind ``isinstance(w, BaseSpecWorker)``, and the flag that picks a branch."""
    found: list[_Draft] = []
    old, new = sides.before.terms.nominal_hooks, sides.after.terms.nominal_hooks
    for member in sorted(set(old) | set(new)):
        if old.get(member) == new.get(member):
            continue
        change = (
            f"{sides.b} calls it on a BaseSpecWorker ({new[member]}); {sides.a} did not"
            if member in new
            else f"{sides.b} no longer calls it ({sides.a}: {old[member]})"
        )
        found.append(
            _Draft(
                StepKind.HOOK,
                f"{_SPEC} capability {member}",
                change,
                f"a BaseSpecWorker subclass that defines it is held to {new[member]}" if member in new else "it may be removed",
                {_SPEC: frozenset({member})},
                concerned=_defining(sides, _SPEC, member),
            )
        )
    before = (sides.before.terms.overlap_flag, sides.before.terms.overlap_flag_default)
    after = (sides.after.terms.overlap_flag, sides.after.terms.overlap_flag_default)
    if before != after:
        found.append(
            _Draft(
                StepKind.HOOK,
                "the registration flag that picks the scheduler's branch",
                f"{sides.a}: {before[0] or 'none'} (default {before[1]}); {sides.b}: {after[0] or 'none'} (default {after[1]})",
                "check what your SpeculativeAlgorithm.register(...) passes",
                {_SPEC: frozenset({"forward_batch_generation"})},
            )
        )
    return found


# -- the plan ------------------------------------------------------------------------


def _line_free(message: str) -> str:
    """A message without its line numbers: the same problem on A and B reads alike."""
    return re.sub(r"\blines? \d+(-\d+)?\b|:\d+\b", "", message)


def _member_of(problem: Problem) -> str:
    """What ``problem`` is about, for a step to account for it: its member,
    or :data:`INJECTION` for the gate's problem on a class that injects a
    draft worker class failing ``DraftWorkerFactory``."""
    if problem.member is None and problem.checker == "gate":
        if problem.message.startswith(_INJECTED_HEAD) and problem.message.endswith(_INJECTED_TAIL):
            return INJECTION
    return problem.member or ""


def _plan_problem(problem: Problem) -> PlanProblem:
    return PlanProblem(problem.checker, problem.member or "", problem.message)


class _Pool:
    """B's problems, each accounted for by at most one step; those A had too are never a step's."""

    def __init__(self, after: GateReport, before: GateReport) -> None:
        self.results = sorted(after.results, key=lambda r: (r.check.target, r.check.protocol))
        on_a = {
            (r.check, p.checker, p.member, _line_free(p.message)) for r in before.results for p in r.problems
        }
        self.free: dict[Check, list[Problem]] = {
            r.check: [
                p
                for p in r.problems
                if not p.unverified and (r.check, p.checker, p.member, _line_free(p.message)) not in on_a
            ]
            for r in self.results
        }
        self.claimed: set[tuple[Check, Problem]] = set()

    def claim(self, check: Check, members: frozenset[str]) -> tuple[Problem, ...]:
        taken = tuple(p for p in self.free.get(check, ()) if _member_of(p) in members)
        self.free[check] = [p for p in self.free.get(check, ()) if p not in taken]
        self.claimed.update((check, p) for p in taken)
        return taken

    def remaining(self) -> tuple[FailingCheck, ...]:
        """Every check that fails on B with a problem no step took (or none at all to take)."""
        found: list[FailingCheck] = []
        for result in self.results:
            if result.verdict is Verdict.PASS:
                continue
            left = [p for p in result.problems if (result.check, p) not in self.claimed]
            if left or not any(check == result.check for check, _ in self.claimed):
                found.append(_failing(result, left))
        return tuple(found)


def _failing(result: Result, problems: Sequence[Problem]) -> FailingCheck:
    return FailingCheck(
        result.check.target, result.check.protocol, result.verdict.value, tuple(_plan_problem(p) for p in problems)
    )


def _drafts(sides: _Sides) -> list[_Draft]:
    """Every change between the releases, in the order of :class:`StepKind`."""
    return [
        *_constructor(sides),
        *_new_members(sides),
        *_inherited_needs(sides),
        *_signatures(sides),
        *_dropped(sides),
        *_draft_factory(sides),
        *_hooks(sides),
    ]


def build_plan(before: ReleaseSide, after: ReleaseSide, classes: Sequence[DiscoveredClass] = ()) -> UpgradePlan:
    """What TARGET must change to pass on ``after``'s release, having been checked on ``before``'s.

    ``classes``: what discovery found of TARGET on B (which members each class
    defines, which ``BaseSpecWorker`` defaults it keeps); without it, a step
    about a member a class may define concerns no class, and a kept default's
    needs are not named."""
    sides = _Sides(before, after, {c.dotted: c for c in classes})
    pool = _Pool(after.report, before.report)
    steps: list[Step] = []
    unconcerned: list[str] = []
    for draft in _drafts(sides):
        class_steps: list[ClassStep] = []
        for result in pool.results:
            check = result.check
            members = draft.claims.get(check.protocol)
            if members is None or (draft.concerned is not None and check.target not in draft.concerned):
                continue
            taken = pool.claim(check, members)
            note = draft.concerned.get(check.target, "") if draft.concerned is not None else ""
            class_steps.append(
                ClassStep(check.target, check.protocol, bool(taken), tuple(_plan_problem(p) for p in taken), note)
            )
        if class_steps:
            steps.append(
                Step(draft.kind, draft.subject, draft.change, draft.action, draft.site, draft.expected, tuple(class_steps))
            )
        else:
            unconcerned.append(f"{draft.subject}: {draft.change}")
    return UpgradePlan(
        source=before.release,
        destination=after.release,
        targets=after.report.targets,
        checkers=after.report.checkers,
        failing_on_source=tuple(
            _failing(r, r.problems)
            for r in sorted(before.report.results, key=lambda r: (r.check.target, r.check.protocol))
            if r.verdict is not Verdict.PASS
        ),
        steps=tuple(steps),
        remaining=pool.remaining(),
        passes_on_destination=after.report.ok,
        unconcerned=tuple(unconcerned),
    )
