"""The steps of an upgrade, kind by kind, read from the two releases' terms.

Each reader compares one thing the two releases' terms hold (the
constructor's keywords, the members required, how they are called, the kept
defaults' needs, the draft factory's keywords, the hooks) and returns a
:class:`Draft` for each change: what changed, what to do, where B makes the
call, and which problems of which checks it accounts for. Which classes it
concerns and what the gate said of them is :func:`~spec_protocols.gate._upgrade._build.build_plan`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from spec_protocols._members import protocol_definitions
from spec_protocols.gate._contract import CallShape, HookTerm, ReleaseTerms, Site, call_shapes, kept_default_needs
from spec_protocols.gate._model import DiscoveredClass, ProtocolName
from spec_protocols.gate._signatures import describe_function
from spec_protocols.gate._upgrade._plan import ReleaseSide, StepKind

__all__ = ["BASE_SPEC_WORKER", "INIT", "INJECTION", "Draft", "Sides", "drafts"]

#: The class whose defaults a spec worker keeps (sglang/srt/speculative/base_spec_worker.py).
BASE_SPEC_WORKER = "sglang.srt.speculative.base_spec_worker.BaseSpecWorker"
#: The member a problem about a constructor names.
INIT = "__init__"
#: What the gate's own problem on a spec worker whose constructor injects a
#: failing draft class is about (see ``_build._member_of``).
INJECTION = "draft_worker_cls"

_SPEC = ProtocolName.SPEC_WORKER
_DRAFT = ProtocolName.DRAFT_WORKER
_FACTORY = ProtocolName.DRAFT_WORKER_FACTORY


@dataclass(frozen=True, slots=True)
class Draft:
    """A step before the classes are read: what changed, what an author does
    about it, and which of B's problems it accounts for (:attr:`claims`); the
    plan's :class:`~spec_protocols.gate._upgrade._plan.Step` is made from it
    once the classes it concerns are read."""

    kind: StepKind
    subject: str
    change: str
    action: str
    #: The protocols of the checks it concerns -> the members of their problems it accounts for.
    claims: Mapping[str, frozenset[str]]
    site: str = ""
    expected: str = ""
    #: The classes it concerns (dotted name -> what the plan knows of it);
    #: ``None``: every class checked against one of :attr:`claims`' protocols.
    concerned: Mapping[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Sides:
    before: ReleaseSide
    after: ReleaseSide
    classes: Mapping[str, DiscoveredClass] = field(default_factory=dict[str, DiscoveredClass])
    #: Dotted name -> what the class's own methods store on ``self`` (``_classes.instance_attributes``).
    attributes: Mapping[str, frozenset[str]] = field(default_factory=dict[str, frozenset[str]])

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


def _removal(sides: Sides, member: str, what: str) -> str:
    """What to do with ``member`` once ``what`` (B no longer calls it, or looks it up):
    keep it where B's own ``BaseSpecWorker`` defaults still read it on ``self``."""
    for default in sides.after.contract.defaults:
        if any(u.receiver == "self" and u.member == member for u in default.needs):
            return f"keep it: {sides.b}'s BaseSpecWorker.{default.method} still reads self.{member}"
    return f"{what}: it may be removed (keep it while the plugin also supports {sides.a}, or if your own code uses it)"


def _keeps_defaults(cls: DiscoveredClass | None) -> bool:
    return cls is not None and BASE_SPEC_WORKER in cls.bases and cls.overrides is not None


def _defining(sides: Sides, protocol: str, member: str) -> dict[str, str]:
    """The classes checked against ``protocol`` that define ``member``."""
    found: dict[str, str] = {}
    for target in sides.checked(protocol):
        if _defines(sides.classes.get(target), member):
            found[target] = "defines it"
        elif member in sides.attributes.get(target, frozenset()):
            found[target] = "sets it on self"
    return found


# -- the steps, kind by kind ---------------------------------------------------------


def _only_in(these: Iterable[str], those: Iterable[str]) -> list[str]:
    """``these`` that are not among ``those``, in their own order: what one
    release's keywords or members have that the other's lack."""
    other = set(those)
    return [name for name in these if name not in other]


def _keyword_words(
    sides: Sides, before: Sequence[str], after: Sequence[str], drop: Callable[[list[str]], str], accept: Callable[[list[str]], str]
) -> tuple[str, str]:
    """What changed in a call's keywords from A (``before``) to B (``after``),
    in words, and what an author does about it: ``drop`` words it for the
    keywords B no longer passes, ``accept`` for those it newly passes."""
    removed, added = _only_in(before, after), _only_in(after, before)
    change: list[str] = []
    action: list[str] = []
    if removed:
        change.append(f"{sides.b} no longer passes {_keywords(removed)} ({sides.a} did)")
        action.append(drop(removed))
    if added:
        change.append(f"{sides.b} newly passes {_keywords(added)}")
        action.append(accept(added))
    return "; ".join(change), "; ".join(action)


def _constructor(sides: Sides) -> list[Draft]:
    before, after = sides.before.terms.constructor_keywords, sides.after.terms.constructor_keywords

    def drop(removed: list[str]) -> str:
        it, them = ("it", "it") if len(removed) == 1 else ("each", "them")
        return (
            f"drop {', '.join(removed)} from __init__, or give {it} a default ({removed[0]}=None) to keep {sides.a} "
            f"working, and stop passing {them} on (what __init__ calls is checked against {sides.b}'s source too)"
        )

    change, action = _keyword_words(
        sides, before, after, drop, lambda added: f"accept {', '.join(added)} in __init__ (a keyword parameter, or **kwargs)"
    )
    if not change:
        return []
    return [
        Draft(
            StepKind.CONSTRUCTOR,
            "the scheduler's call that constructs the spec worker",
            change,
            action,
            {_SPEC: frozenset({INIT})},
            site=_where(sides.after.contract.constructor_site),
            expected=f"WorkerClass({_keywords(after)})",
        )
    ]


def _kept_notes(sides: Sides, member: str) -> dict[str, str]:
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
            uses = "".join(f", which uses draft_worker.{n.member} at {n.site.file}:{n.site.line}" for n in needs[:1])
            notes[target] = f"keeps BaseSpecWorker's{uses}"
        else:
            notes[target] = ""
    return notes


def _new_members(sides: Sides) -> list[Draft]:
    found: list[Draft] = []
    for protocol in (_SPEC, _DRAFT):
        for member in _only_in(sides.after.terms.checked(protocol), sides.before.terms.checked(protocol)):
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
                Draft(
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
    found.extend(
        Draft(
            StepKind.NEW_MEMBER,
            f"{_SPEC}.{member}",
            f"{sides.b} requires it; {sides.a} did not; no protocol of this package defines it",
            "define it (the gate checks it for presence only: its signature is unknown)",
            {_SPEC: frozenset({member})},
            site=_member_site(sides.after, _SPEC, member),
        )
        for member in _only_in(sides.after.terms.presence, sides.before.terms.presence)
    )
    return found


def _inherited_needs(sides: Sides) -> list[Draft]:
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
        Draft(
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


def _calls(side: ReleaseSide, protocol: str) -> Mapping[str, CallShape]:
    """How ``side``'s release calls each checked member of ``protocol``, from its own call sites."""
    return call_shapes(side.contract, side.terms.members, side.terms.nominal_hooks).get(protocol, {})


def _signatures(sides: Sides) -> list[Draft]:
    """Members both releases call, called otherwise on B (the positionals, the keywords passed)."""
    found: list[Draft] = []
    for protocol in (_SPEC, _DRAFT):
        before = set(sides.before.terms.checked(protocol))
        old_calls, new_calls = _calls(sides.before, protocol), _calls(sides.after, protocol)
        for member in sides.after.terms.checked(protocol):
            old, new = old_calls.get(member), new_calls.get(member)
            if member not in before or old is None or new is None or old == new:
                continue
            found.append(
                Draft(
                    StepKind.SIGNATURE,
                    f"{protocol}.{member}",
                    f"{sides.a} calls it with {_shape_words(old)}; {sides.b} with {_shape_words(new)}",
                    f"take the call {sides.b} makes (what only {sides.a} passes may stay optional, to support both)",
                    {protocol: frozenset({member})},
                    site=_member_site(sides.after, protocol, member),
                    expected=_expected(sides.after.terms, protocol, member),
                )
            )
    return found + _branch_signatures(sides)


def _branch_signatures(sides: Sides) -> list[Draft]:
    """Members the scheduler calls otherwise on one of its branches (overlap, synchronous) on B than on A."""
    found: list[Draft] = []
    old_shapes, new_shapes = sides.before.terms.branch_shapes, sides.after.terms.branch_shapes
    for branch in sorted(set(old_shapes) | set(new_shapes)):
        old, new = old_shapes.get(branch, {}), new_shapes.get(branch, {})
        for member in sorted(set(old) | set(new)):
            if old.get(member) == new.get(member):
                continue
            same = "makes the same call on both branches"
            before = f"calls it with {_shape_words(old[member])}" if member in old else same
            expected = _shape_words(new[member]) if member in new else ""
            after = f"calls it with {expected}" if expected else same
            found.append(
                Draft(
                    StepKind.SIGNATURE,
                    f"{_SPEC}.{member} on the scheduler's {branch} branch",
                    f"{sides.a} {before}; {sides.b} {after}",
                    "take the call of every branch your registration runs (supports_overlap=False: the synchronous one)",
                    {_SPEC: frozenset({member})},
                    expected=f"called with {expected}" if expected else "",
                )
            )
    return found


def _dropped(sides: Sides) -> list[Draft]:
    found: list[Draft] = []
    for protocol in (_SPEC, _DRAFT):
        after = set(sides.after.terms.checked(protocol)) | set(sides.after.terms.presence if protocol == _SPEC else ())
        dropped = _only_in(sides.before.terms.checked(protocol), after)
        if protocol == _SPEC:
            dropped += _only_in(sides.before.terms.presence, after)
        for member in dropped:
            found.append(
                Draft(
                    StepKind.DROPPED_MEMBER,
                    f"{protocol}.{member}",
                    f"{sides.b} no longer calls it ({sides.a} did, {_member_site(sides.before, protocol, member)})",
                    _removal(sides, member, f"{sides.b} no longer calls it"),
                    {protocol: frozenset({member})},
                    concerned=_defining(sides, protocol, member),
                )
            )
    return found


def _draft_factory(sides: Sides) -> list[Draft]:
    before, after = sides.before.terms.draft_factory_keywords, sides.after.terms.draft_factory_keywords
    injected = {t: "" for t in sides.checked(_FACTORY)}
    # The spec workers whose constructor builds an injected class: its failing
    # the call fails them too (the gate's own problem on their SpecWorker check).
    for target in list(injected):
        cls = sides.classes.get(target)
        for injector in cls.injected_by if cls is not None else ():
            injected.setdefault(injector, f"injects {target}")
    claims: dict[str, frozenset[str]] = {_FACTORY: frozenset({INIT}), _DRAFT: frozenset({INIT}), _SPEC: frozenset({INJECTION})}
    found: list[Draft] = []
    if after is None and before is not None:
        found.append(
            Draft(
                StepKind.DRAFT_FACTORY,
                "build_draft_tp_worker(draft_worker_cls=...)",
                f"{sides.b}'s build_draft_tp_worker takes no draft_worker_cls: a draft worker class cannot be injected",
                "build the draft worker another way on this release",
                claims,
                concerned=injected,
            )
        )
    elif after is not None and before is not None and before != after:
        change, action = _keyword_words(
            sides,
            before,
            after,
            lambda removed: f"drop {', '.join(removed)} from the draft class's __init__ (or give it a default) and stop passing it on",
            lambda added: f"accept {', '.join(added)} (keyword parameters, or **kwargs) and pass on what the base class takes",
        )
        found.append(
            Draft(
                StepKind.DRAFT_FACTORY,
                "build_draft_tp_worker's call of draft_worker_cls",
                change,
                action,
                claims,
                site=_where(sides.after.contract.draft_factory_site),
                expected=f"draft_worker_cls({_keywords(after)})",
                concerned=injected,
            )
        )
    found.extend(
        Draft(
            StepKind.DRAFT_FACTORY,
            f"build_draft_tp_worker sets draft_worker.{member}",
            f"{sides.b} sets {member} on the draft worker it built; {sides.a} did not",
            f"let {member} be set (no read-only property; a __dict__ or a slot)",
            {_FACTORY: frozenset({member})},
            concerned=injected,
        )
        for member in _only_in(sides.after.terms.draft_factory_writes, sides.before.terms.draft_factory_writes)
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
    return f"{found} in {where.file} {where.function}" + (f", and {' and '.join(done)}" if done else "")


def _hook_key(hook: HookTerm) -> tuple[object, ...]:
    return (hook.call, hook.iterated, hook.none_ok, hook.branch, hook.constrains)


def _hook(sides: Sides, protocol: str, member: str, old: HookTerm | None, new: HookTerm | None) -> Draft | None:
    concerned = _defining(sides, protocol, member)
    subject = f"{protocol} hook {member}"
    if new is not None and old is None:
        return Draft(
            StepKind.HOOK,
            subject,
            f"{sides.b} looks it up: {_hook_words(new)}; {sides.a} did not",
            "a class that defines it is held to what sglang does with it; one that does not is not asked",
            {protocol: frozenset({member})},
            site=_where(new.sites[0]),
            concerned=concerned,
        )
    if new is None and old is not None:
        return Draft(
            StepKind.HOOK,
            subject,
            f"{sides.b} no longer looks it up ({sides.a}: {_hook_words(old)})",
            _removal(sides, member, "sglang no longer looks it up"),
            {protocol: frozenset({member})},
            concerned=concerned,
        )
    if new is not None and old is not None and _hook_key(old) != _hook_key(new):
        return Draft(
            StepKind.HOOK,
            subject,
            f"{sides.a}: {_hook_words(old)}; {sides.b}: {_hook_words(new)}",
            f"make it fit what {sides.b} does with it",
            {protocol: frozenset({member})},
            site=_where(new.sites[0]),
            concerned=concerned,
        )
    return None


def _hooks(sides: Sides) -> list[Draft]:
    found: list[Draft] = []
    old_hooks, new_hooks = sides.before.terms.hooks, sides.after.terms.hooks
    for protocol in (_SPEC, _DRAFT):
        old, new = old_hooks.get(protocol, {}), new_hooks.get(protocol, {})
        for member in [*new, *_only_in(old, new)]:
            draft = _hook(sides, protocol, member, old.get(member), new.get(member))
            if draft is not None:
                found.append(draft)
    return found + _capabilities(sides)


def _capabilities(sides: Sides) -> list[Draft]:
    """Members called only behind ``isinstance(w, BaseSpecWorker)``, and the flag that picks a branch."""
    found: list[Draft] = []
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
            Draft(
                StepKind.HOOK,
                f"{_SPEC} capability {member}",
                change,
                (
                    f"a BaseSpecWorker subclass that defines it is held to {new[member]}"
                    if member in new
                    else _removal(sides, member, f"{sides.b} no longer calls it")
                ),
                {_SPEC: frozenset({member})},
                concerned=_defining(sides, _SPEC, member),
            )
        )
    before = (sides.before.terms.overlap_flag, sides.before.terms.overlap_flag_default)
    after = (sides.after.terms.overlap_flag, sides.after.terms.overlap_flag_default)
    if before != after:
        found.append(
            Draft(
                StepKind.HOOK,
                "the registration flag that picks the scheduler's branch",
                f"{sides.a}: {before[0] or 'none'} (default {before[1]}); {sides.b}: {after[0] or 'none'} (default {after[1]})",
                "check what your SpeculativeAlgorithm.register(...) passes",
                {_SPEC: frozenset({"forward_batch_generation"})},
            )
        )
    return found


def drafts(sides: Sides) -> list[Draft]:
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
