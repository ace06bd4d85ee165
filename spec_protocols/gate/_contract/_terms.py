"""What the gate checks for one sglang release: its contract, in the protocols' terms.

A :class:`~spec_protocols.gate._contract._release_contract.Contract` says what a
release's source does with a worker; the protocols say how each member must
look. :func:`release_terms` joins the two into the :class:`ReleaseTerms` that
the harness and the runtime checker work from:

* **Members.** A protocol member is checked when the release requires it
  (the scheduler reaches it on the serving path; for ``DraftWorker``,
  ``BaseSpecWorker``'s defaults do) and no exclusion covers it. A member the
  release does not call is not checked: that was every false failure of the
  gate on releases before 0.5.23.
* **The whole-protocol line** (``_p: SpecWorker = w``) is kept only when the
  protocol, pinned to the release, asks exactly what the release requires;
  otherwise it would fail a worker for a member the release never calls, or
  for the result of a call the release makes as a statement
  (:func:`discarded_values`: the harness holds such a result to ``object``).
* **Presence.** A release newer than this package may require a member no
  protocol defines: it is checked for presence (its signature is unknown).
* **Signatures.** The protocols write the newest supported release's
  signatures; a release they are not pinned to (one outside the range) calls
  some members otherwise (0.5.5: ``forward_batch_generation(batch)``, no
  ``on_publish=``; 0.5.12: ``on_verify_complete_cpu(counts)``, no
  ``batch_size=``). For such a release each checked method is held to the
  calls its own source makes (:func:`call_shapes`: the positionals it
  passes, the keywords it passes outright, each typed as the protocol types
  it), and the whole-protocol line is not checked.
* **Keywords.** The constructor call and ``draft_worker_cls``'s call take
  the release's own keywords (``ps`` until 0.5.20, ``load_group`` from
  0.5.22), read from its source: constants cannot pin a keyword set (mypy
  keeps the first definition of a conditional function, pyright the last).
* **Inherited needs.** A worker that keeps one of ``BaseSpecWorker``'s
  defaults inherits what that default does to the draft worker
  (``weight_update_runners`` reads ``draft_worker.draft_runners``):
  :func:`kept_default_needs`. A default that chooses its path by the
  algorithm (``_draft_model_runners``: ``is_ngram()``, ``is_dflash_family()``)
  is followed on its fall-through path for a plugin's worker: sglang runs a
  plugin registered through ``spec_registry`` under a ``CustomSpecAlgo``,
  whose built-in ``is_<algo>()`` predicates are all false, so the path no
  predicate opens is the one it takes (``tuple(draft_worker.draft_runners)``,
  which a ``TpModelWorker`` draft lacks: an AttributeError when the scheduler
  reads ``primary_draft_kv_pool`` at start). For a built-in worker (one that
  the release's ``create_worker`` returns) such a default is not followed:
  it takes its own algorithm's branch (DFlash and DSpark read
  ``draft_worker.model_runner``), which the gate does not evaluate.

A release whose construction of a plugin's spec worker the contract does not
hold (no constructor site: a release before the algorithm registry, or a tree
whose scheduler builds its workers some other way) has no terms: a worker
checked against it would be judged on members alone, with a constructor call
that sglang never makes. :func:`release_terms` refuses it, in one line that
names the supported range and the oldest release the gate reads.

The pin is the supported release the protocols' release branches are
evaluated for (:mod:`spec_protocols._releases`): the release itself, its
supported base for a pre- or post-release, ``None`` (the newest) outside the
supported range.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from spec_protocols._members import call_keywords, protocol_definitions
from spec_protocols._releases import NEWEST, OLDEST, OLDEST_READABLE, pinned_release, release_key
from spec_protocols.gate._contract._exclusions import excluded, excluded_at
from spec_protocols.gate._contract._release_contract import OVERLAP, SYNCHRONOUS, Contract, DefaultNeeds, Hook, HookUse, ServerFlag, Site, Use
from spec_protocols.gate._model import GateError, ProtocolName
from spec_protocols.gate._roles import CAPABILITIES

__all__ = [
    "OVERLAP",
    "SYNCHRONOUS",
    "CallShape",
    "DraftNeed",
    "HookTerm",
    "ReleaseTerms",
    "branch_shapes",
    "call_shapes",
    "flag_only",
    "flags_words",
    "hook_terms",
    "kept_default_needs",
    "nominal_hooks",
    "release_terms",
]


@dataclass(frozen=True, slots=True)
class DraftNeed:
    """A use of the draft worker that a worker inherits by keeping a default."""

    #: The checked member whose default the worker keeps (``weight_update_runners``).
    default: str
    #: What the default uses on the draft worker (``draft_runners``).
    member: str
    #: The defaults on the way, the kept one first (``primary_draft_kv_pool``,
    #: ``_draft_model_runners``), for messages.
    via: tuple[str, ...]
    site: Site
    #: The server flags the way passes behind (``DefaultNeeds.relies_on_flags``,
    #: and the use's own): the need is met only by a server that sets them.
    flags: tuple[ServerFlag, ...] = ()


@dataclass(frozen=True, slots=True)
class CallShape:
    """How a release calls one member, over every call of it that the run checks."""

    #: The fewest and the most positional arguments a call passes.
    positional: tuple[int, int]
    #: Keywords every call passes, in the order first met.
    keywords: tuple[str, ...]
    #: Keywords only some calls pass (or only under a condition), in the order first met.
    optional_keywords: tuple[str, ...] = ()
    #: Of those, the keywords every call that passes them passes a value
    #: statically certain not to be None (``on_publish=partial(...)``, the
    #: overlap branch of managers/scheduler.py ``Scheduler.run_batch``): the
    #: harness types them as the protocol does less ``None``. Any other keyword
    #: keeps the protocol's annotation, ``None`` included.
    never_none: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HookTerm:
    """A member sglang finds with ``getattr``/``hasattr`` (a hook), as a run
    holds a class that defines it: over every lookup of it in the release.

    A class that lacks the member is never held to it (sglang takes the
    default); one that defines it (in its own body or a base outside sglang)
    is held to what sglang does with the value: :attr:`call` (the calls'
    shape: ``prepare_for_kv_cache_release(req)``) and :attr:`iterated`
    (``spec_v2_attn_backends``, iterated by ``decide_needs_cpu_seq_lens``:
    a method is not iterable). A hook that is only tested, returned or has
    an attribute read asks nothing a type can say: :attr:`constrains` is
    false and no line is written for it.
    """

    #: The protocol of the class held to it: ``SpecWorker`` (receiver
    #: ``spec_worker``) or ``DraftWorker`` (the spec worker's draft worker).
    protocol: str
    member: str
    #: The first lookup's default, as written (``None``, ``()``); ``""`` for ``hasattr``.
    default: str
    #: Each lookup (file, function, line).
    sites: tuple[Site, ...]
    #: Everything done with the value, in site order.
    uses: tuple[HookUse, ...]
    #: How it is called, over every call (None: never called).
    call: CallShape | None = None
    #: Whether it is iterated (its elements are not typed: ``Iterable[object]``).
    iterated: bool = False
    #: The scheduler branch every lookup is on (:data:`OVERLAP` / :data:`SYNCHRONOUS`); ``""``: both.
    branch: str = ""
    #: Whether ``None`` is a value sglang handles: every lookup's default is
    #: ``None`` (``getattr(w, "x", None)``), so the code after it copes with
    #: ``None`` for every worker that lacks the member; a class that sets the
    #: member to ``None`` gets the same path.
    none_ok: bool = False

    @property
    def constrains(self) -> bool:
        return self.call is not None or self.iterated

    def expected(self) -> str:
        """What sglang does with it, in words, for a report's "expected" half."""
        where = self.sites[0]
        found = f"getattr(w, {self.member!r}, {self.default})" if self.default else f"hasattr(w, {self.member!r})"
        done: list[str] = []
        if self.call is not None:
            fewest, most = self.call.positional
            count = str(fewest) if fewest == most else f"{fewest}-{most}"
            keywords = ", ".join(f"{k}=" for k in (*self.call.keywords, *self.call.optional_keywords))
            done.append(f"called with {count} positional argument{'s' if most != 1 else ''}" + (f" and {keywords}" if keywords else ""))
        if self.iterated:
            done.append("iterated")
        return f"{self.protocol} hook {self.member}: sglang finds it with {found} ({where.file}:{where.function}) and it is {' and '.join(done)}"


@dataclass(frozen=True, slots=True)
class ReleaseTerms:
    """The members, keywords and needs one gate run checks."""

    #: The sglang release checked against; ``None``: no sglang was found.
    release: str | None
    #: The supported release the protocols are pinned to (see the module docstring).
    pin: str | None
    #: Protocol name -> the members checked, in the protocol's order.
    members: Mapping[str, tuple[str, ...]]
    #: The protocols whose whole-protocol line is checked.
    whole: frozenset[str]
    #: Members the release requires of a spec worker that no protocol defines.
    presence: tuple[str, ...] = ()
    #: The keywords of the call that builds a spec worker.
    constructor_keywords: tuple[str, ...] = ()
    #: The keywords build_draft_tp_worker passes draft_worker_cls; ``None``:
    #: the release cannot inject a draft worker class.
    draft_factory_keywords: tuple[str, ...] | None = ()
    #: The members build_draft_tp_worker assigns on the draft worker it built
    #: (``draft_worker.draft_runner = ...``, draft_worker_common.py), read
    #: from the contract's ``built_draft`` writes: the built object must let
    #: them be set (no read-only property, a ``__dict__`` or a slot).
    draft_factory_writes: tuple[str, ...] = ()
    #: BaseSpecWorker's defaults, by name, with what they need.
    defaults: Mapping[str, DefaultNeeds] = field(default_factory=dict[str, DefaultNeeds])
    #: The dotted names (defining module and class) of the release's built-in
    #: workers, those ``SpeculativeAlgorithm.create_worker`` returns.
    built_in: frozenset[str] = frozenset()
    #: Built-in worker -> the SpecWorker members (and presence-only ones) it
    #: never meets: every required use of each lies where ``create_worker``
    #: never sends it (another branch, or a path its own algorithm skips:
    #: 0.5.10's ``EAGLEWorkerV2`` and the draft pool read in the ``else`` of
    #: ``if supports_spec_v2() and self.enable_overlap:``). Held like a
    #: registration's ``RegisteredTerms.unreached``.
    built_in_unreached: Mapping[str, frozenset[str]] = field(default_factory=dict[str, frozenset[str]])
    #: Members the release calls on a spec worker only behind
    #: ``isinstance(w, BaseSpecWorker)`` -> the capability protocol that
    #: writes the call (``note_request_finished`` -> ``SupportsRequestFinished``).
    #: A BaseSpecWorker subclass always passes that guard, so what it writes
    #: for such a member is held to the call (see :func:`nominal_hooks`).
    nominal_hooks: Mapping[str, str] = field(default_factory=dict[str, str])
    #: What the reader of a report should know about the release checked.
    notes: tuple[str, ...] = ()
    #: For a release the protocols are not pinned to: protocol -> method ->
    #: how the release calls it (:func:`call_shapes`). A method here is held
    #: to those calls, not to the newest release's signature; empty for a
    #: supported release, whose pinned protocols are its calls.
    call_shapes: Mapping[str, Mapping[str, CallShape]] = field(default_factory=dict[str, Mapping[str, CallShape]])
    #: Protocol (``SpecWorker`` / ``DraftWorker``) -> member -> the hook sglang
    #: finds with ``getattr``/``hasattr`` on that worker (:class:`HookTerm`,
    #: :func:`hook_terms`). Only hooks a plugin's algorithm reaches (not under
    #: an algorithm predicate); the harness writes a line only for those that
    #: :attr:`HookTerm.constrains`, and only for a class that defines the member.
    hooks: Mapping[str, Mapping[str, HookTerm]] = field(default_factory=dict[str, Mapping[str, HookTerm]])
    #: Branch (:data:`OVERLAP`, :data:`SYNCHRONOUS`) -> SpecWorker member -> how
    #: the scheduler calls it on that branch (uses on neither branch count for
    #: both), for the members whose calls differ by branch
    #: (``forward_batch_generation``: ``on_publish=`` on the overlap branch,
    #: ``pp_proxy_tensors=`` on the synchronous one). Unlike
    #: :attr:`call_shapes`, no keyword exclusion applies: on the synchronous
    #: branch ``pp_proxy_tensors`` is passed to every plugin's worker. Which
    #: branches a registered algorithm takes: :meth:`branches_for`.
    branch_shapes: Mapping[str, Mapping[str, CallShape]] = field(default_factory=dict[str, Mapping[str, CallShape]])
    #: The registration keyword that selects the branches (``supports_overlap``;
    #: ``None``: no such flag, both branches apply), and its default in ``register``.
    overlap_flag: str | None = None
    overlap_flag_default: bool = False
    #: SpecWorker member -> the one scheduler branch (:data:`OVERLAP` /
    #: :data:`SYNCHRONOUS`) that every required use of it is on
    #: (``last_shared_read_runner``: read only by the overlap loops' WAR
    #: barrier, ``Scheduler._apply_war_barrier``): a registration whose
    #: algorithm never runs that branch is not held to it
    #: (``RegisteredTerms.unreached``). Members used on both are absent.
    branch_only: Mapping[str, str] = field(default_factory=dict[str, str])
    #: The same members -> their use sites ("managers/scheduler.py:2017
    #: (Scheduler._apply_war_barrier)"), for the words of a finding.
    branch_sites: Mapping[str, tuple[str, ...]] = field(default_factory=dict[str, tuple[str, ...]])
    #: SpecWorker member -> the server flags behind each of its required uses
    #: (one tuple per use, all of whose flags hold there), for the members
    #: every required use of which sits behind at least one
    #: (``model_runner`` in 0.5.4.post2: read only in ``init_disaggregation``'s
    #: decode and prefill branches). A worker is held to them as to any
    #: required member (a server may set the flag), but a finding names the
    #: flags, and a registration whose ``validate_server_args`` refuses them
    #: (the replay calls it) is not held to them. Members used elsewhere too are absent.
    flag_only: Mapping[str, tuple[tuple[ServerFlag, ...], ...]] = field(default_factory=dict[str, tuple[tuple[ServerFlag, ...], ...]])
    #: ``SpecAlgorithm`` member -> where the release calls it on the algorithm
    #: object (``managers/scheduler.py:1540 (Scheduler.init_disaggregation)``),
    #: scheduler sites first: what a problem of a registration's ``spec_class``
    #: names. Empty without a contract (the protocol's ``CALL_SITES`` stand in).
    algorithm_sites: Mapping[str, tuple[str, ...]] = field(default_factory=dict[str, tuple[str, ...]])
    #: Protocol (``SpecWorker`` / ``DraftWorker``) -> the members the release
    #: calls only as statements (``self.draft_worker.init_cuda_graphs()``;
    #: :attr:`Use.value_used` false at every call, and no other use): any
    #: return will do, so the harness holds their result to ``object``, not
    #: to the protocol's ``None`` (see :func:`discarded_values`).
    discarded: Mapping[str, frozenset[str]] = field(default_factory=dict[str, frozenset[str]])

    def branches_for(self, registration: Mapping[str, object]) -> frozenset[str]:
        """The scheduler branches an algorithm registered with ``registration``
        (the keywords of ``SpeculativeAlgorithm.register(name, **registration)``,
        as literals) takes: the flag false (or absent, with a false default)
        -> :data:`SYNCHRONOUS` only (its ``create_worker`` refuses overlap
        scheduling, so ``enable_overlap`` is false wherever it runs); true, not
        a literal, or no flag in the release -> both."""
        if self.overlap_flag is None:
            return frozenset({OVERLAP, SYNCHRONOUS})
        value = registration.get(self.overlap_flag, self.overlap_flag_default)
        if value is False:
            return frozenset({SYNCHRONOUS})
        return frozenset({OVERLAP, SYNCHRONOUS})

    def path_words(self, member: str) -> str:
        """Where sglang uses ``member`` when that is one scheduler branch only,
        in words for a finding (``""`` otherwise): the loops, the sites, and
        the registration that rules the branch out."""
        branch = self.branch_only.get(member)
        flags = self.flag_only.get(member)
        said = ""
        if flags is not None:
            said = f" (used only with {flags_words(flags)}; a registration whose validate_server_args refuses that is not held to it)"
        if branch is None:
            return said
        sites = ", ".join(self.branch_sites.get(member, ()))
        if branch == OVERLAP:
            ruled = f"; an algorithm registered with {self.overlap_flag}=False never runs them" if self.overlap_flag else ""
            return f" (used only on the overlap event loops: {sites}{ruled})" + said
        return f" (used only on the synchronous event loops, with --disable-overlap-schedule: {sites})" + said

    def shapes_on(self, branches: frozenset[str]) -> Mapping[str, CallShape]:
        """SpecWorker member -> how the scheduler calls it when only ``branches``
        run (:meth:`branches_for`): a single branch's :attr:`branch_shapes`;
        empty for both branches (the protocols' signatures, which take every
        call of both, stand)."""
        if len(branches) != 1:
            return {}
        (branch,) = branches
        return self.branch_shapes.get(branch, {})

    def checked(self, protocol: str) -> tuple[str, ...]:
        """The members of ``protocol`` checked (every member of a protocol the contract does not narrow)."""
        found = self.members.get(protocol)
        return found if found is not None else tuple(m.name for m in protocol_definitions(protocol, self.pin))


def _draft_needs(contract: Contract) -> frozenset[str]:
    """What BaseSpecWorker's defaults use on the draft worker on every path."""
    return frozenset(
        u.member
        for d in contract.defaults
        for u in d.needs
        if u.receiver == "draft_worker" and u.classification == "required"
    )


def discarded_values(contract: Contract) -> dict[str, frozenset[str]]:
    """Protocol -> the members whose value the release never uses: every use
    of the member on that receiver is a call made as a statement.

    The spec worker's members are read from the scheduler's side, the draft
    worker's from ``BaseSpecWorker``'s defaults. A member also read as a value
    anywhere (``hasattr``, an attribute read, a call whose result is kept) is
    not discarded. What the protocols say stays the protocols' own (a plain
    ``x: DraftWorker = w`` still wants ``None``, which refuses an ``async
    def``); the gate's harness holds these results to ``object`` and checks
    on a line of its own that the member's call runs its body (no coroutine
    function, no generator function).
    """
    receivers = {
        ProtocolName.SPEC_WORKER: [u for u in contract.spec_worker if u.receiver == "spec_worker"],
        ProtocolName.DRAFT_WORKER: [u for d in contract.defaults for u in d.needs if u.receiver == "draft_worker"],
    }
    found: dict[str, frozenset[str]] = {}
    for protocol, uses in receivers.items():
        kept = {u.member for u in uses if u.kind != "call" or u.value_used}
        found[protocol] = frozenset(u.member for u in uses if u.member not in kept)
    return found


def _narrower_than_used(protocol: str, pin: str | None, members: tuple[str, ...], discarded: frozenset[str]) -> bool:
    """Whether the protocol types the result of one of ``members`` that the
    release discards as anything but ``object``: then the protocol asks more
    than the release does, and its whole-protocol line would fail a worker
    sglang runs."""
    return any(
        m.name in discarded and not m.is_property and not m.returns_object
        for m in protocol_definitions(protocol, pin)
        if m.name in members
    )


def nominal_hooks(contract: Contract) -> dict[str, str]:
    """The spec-worker members ``contract`` uses only behind
    ``isinstance(..., BaseSpecWorker)``, each with the capability protocol
    (``Supports...``) that defines it; a member no capability defines has no
    signature to check and is left out."""
    hooks: dict[str, str] = {}
    for use in contract.spec_worker:
        if use.classification != "isinstance" or use.receiver != "spec_worker" or use.member in hooks:
            continue
        for capability in CAPABILITIES:
            if any(m.name == use.member for m in protocol_definitions(capability)):
                hooks[use.member] = capability
                break
    return hooks


def _shape(uses: list[Use], release: str | None, member: str) -> CallShape:
    """One call shape over ``uses`` (calls of ``member``): a keyword every call
    passes is required, one only some calls pass is optional.

    Left out, as the protocols leave them out of a supported release's
    members: a keyword an exclusion covers (``pp_proxy_tensors``), and one a
    call adds to its ``**kwargs`` only under a condition (``grammar_barrier``,
    only for an algorithm that ``supports_grammar_overlap()``), which the
    protocols model as a capability a worker may have, not a requirement.
    ``release`` None: no exclusion applies (a branch's own shape)."""
    every: list[str] | None = None
    seen: list[str] = []
    for use in uses:
        passed = [k for k in use.keywords if release is None or excluded(member, release, keyword=k) is None]
        every = passed if every is None else [k for k in every if k in passed]
        seen.extend(k for k in passed if k not in seen)
    always = tuple(every or ())
    counts = [use.positional for use in uses]
    certain = tuple(
        k for k in seen if all(k in use.never_none for use in uses if k in (*use.keywords, *use.conditional_keywords))
    )
    return CallShape((min(counts), max(counts)), always, tuple(k for k in seen if k not in always), certain)


def call_shapes(contract: Contract, members: Mapping[str, tuple[str, ...]], hooks: Mapping[str, str]) -> dict[str, dict[str, CallShape]]:
    """How ``contract``'s release calls each checked method: the spec worker's
    from the scheduler side, the draft worker's from ``BaseSpecWorker``'s
    defaults, each nominal hook (under its capability protocol) from the
    calls behind ``isinstance(w, BaseSpecWorker)``.

    Only calls the run holds the worker to count: ``required`` ones (for a
    hook, those under the ``isinstance`` guard). A member the release reads
    but never calls has no shape (its protocol signature stands)."""
    release = contract.release
    found: dict[str, dict[str, list[Use]]] = {}

    def add(protocol: str, use: Use) -> None:
        found.setdefault(protocol, {}).setdefault(use.member, []).append(use)

    for use in contract.spec_worker:
        if use.receiver != "spec_worker" or use.kind != "call":
            continue
        if use.classification == "required" and use.member in members.get(ProtocolName.SPEC_WORKER, ()):
            add(ProtocolName.SPEC_WORKER, use)
        elif use.classification == "isinstance" and use.member in hooks:
            add(hooks[use.member], use)
    for default in contract.defaults:
        for use in default.needs:
            if (
                use.receiver == "draft_worker"
                and use.kind == "call"
                and use.classification == "required"
                and use.member in members.get(ProtocolName.DRAFT_WORKER, ())
            ):
                add(ProtocolName.DRAFT_WORKER, use)
    return {
        protocol: {member: _shape(uses, release, member) for member, uses in by_member.items()}
        for protocol, by_member in found.items()
    }


#: The receivers of a hook -> the protocol of the class that answers the lookup.
_HOOK_PROTOCOLS: Mapping[str, str] = {
    "spec_worker": ProtocolName.SPEC_WORKER,
    "spec_worker.draft_worker": ProtocolName.DRAFT_WORKER,
    "draft_worker": ProtocolName.DRAFT_WORKER,
}


def _hook_call(uses: tuple[HookUse, ...]) -> CallShape | None:
    """One shape over a hook's calls: a keyword every call passes is required, one some pass optional."""
    calls = [u for u in uses if u.kind == "call"]
    if not calls:
        return None
    counts = [u.positional for u in calls]
    every = [k for k in calls[0].keywords if all(k in u.keywords for u in calls)]
    seen = list(dict.fromkeys(k for u in calls for k in u.keywords))
    return CallShape((min(counts), max(counts)), tuple(every), tuple(k for k in seen if k not in every))


def hook_terms(hooks: tuple[Hook, ...]) -> dict[str, dict[str, HookTerm]]:
    """The hooks a plugin's worker meets (see :attr:`ReleaseTerms.hooks`), one
    :class:`HookTerm` per protocol and member over all its lookups. A lookup
    under an algorithm predicate or an ``isinstance`` guard is left out."""
    grouped: dict[tuple[str, str], list[Hook]] = {}
    for hook in hooks:
        protocol = _HOOK_PROTOCOLS.get(hook.receiver)
        if protocol is None or hook.classification not in ("guarded", "private", "required"):
            continue
        grouped.setdefault((protocol, hook.member), []).append(hook)
    found: dict[str, dict[str, HookTerm]] = {}
    for (protocol, member), lookups in grouped.items():
        uses = tuple(u for h in lookups for u in h.uses)
        branches = {h.branch for h in lookups}
        found.setdefault(protocol, {})[member] = HookTerm(
            protocol=protocol,
            member=member,
            default=next((h.default for h in lookups if h.default), ""),
            sites=tuple(h.site for h in lookups),
            uses=uses,
            call=_hook_call(uses),
            iterated=any(u.kind == "iterate" for u in uses),
            branch=branches.pop() if len(branches) == 1 else "",
            none_ok=all(h.default == "None" for h in lookups),
        )
    return found


def branch_shapes(contract: Contract, members: tuple[str, ...]) -> dict[str, dict[str, CallShape]]:
    """:attr:`ReleaseTerms.branch_shapes`: for each of ``members`` (the spec
    worker's checked members) that some required call makes on one branch
    only, its shape on each branch (that branch's calls and those on both);
    a member whose two shapes are the same is left out."""
    calls = [
        u
        for u in contract.spec_worker
        if u.receiver == "spec_worker" and u.kind == "call" and u.classification == "required" and u.member in members
    ]
    branched = {u.member for u in calls if u.branch}
    found: dict[str, dict[str, CallShape]] = {}
    for branch in (OVERLAP, SYNCHRONOUS):
        for member in sorted(branched):
            uses = [u for u in calls if u.member == member and u.branch in ("", branch)]
            if uses:
                # No keyword exclusion: the branch's own keywords (pp_proxy_tensors) are the point.
                found.setdefault(branch, {})[member] = _shape(uses, None, member)
    return _told_apart(found)


def branch_only(contract: Contract, members: tuple[str, ...]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """:attr:`ReleaseTerms.branch_only` and :attr:`ReleaseTerms.branch_sites`:
    each of ``members`` whose required uses all lie on one scheduler branch
    (their own ``if``, or a function only that branch's event loop runs),
    with that branch and the uses' sites."""
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    for member in members:
        uses = _holding_uses(contract, member)
        branches = {u.branch for u in uses}
        if len(branches) == 1 and "" not in branches:
            sites = tuple(dict.fromkeys(f"{u.site.file}:{u.site.line} ({u.site.function})" for u in uses))
            found[member] = (branches.pop(), sites)
    return found


def flag_only(contract: Contract, members: tuple[str, ...]) -> dict[str, tuple[tuple[ServerFlag, ...], ...]]:
    """:attr:`ReleaseTerms.flag_only`: each of ``members`` whose required
    uses all sit behind a server flag, with each use's flags."""
    found: dict[str, tuple[tuple[ServerFlag, ...], ...]] = {}
    for member in members:
        uses = _holding_uses(contract, member)
        if uses and all(u.flags for u in uses):
            found[member] = tuple(dict.fromkeys(u.flags for u in uses))
    return found


def flags_words(ways: tuple[tuple[ServerFlag, ...], ...]) -> str:
    """Where a member is used, in a server's flags: each way's flags (all of
    them) joined by "and", the ways by "or" (``--disaggregation-mode decode
    or --disaggregation-mode prefill``)."""
    return " or ".join(dict.fromkeys(" and ".join(f.words() for f in flags) for flags in ways))


def _holding_uses(contract: Contract, member: str) -> list[Use]:
    """The required uses of ``member`` on a spec worker that hold a worker to
    it: those no exclusion leaves out (of the member, or of their function)."""
    return [
        u
        for u in contract.uses_of(member)
        if u.receiver == "spec_worker"
        and u.classification == "required"
        and excluded_at(member, u.site.function, contract.release) is None
    ]


def built_in_unreached(contract: Contract, members: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """:attr:`ReleaseTerms.built_in_unreached`: for each built-in worker whose
    reach was read, the ``members`` every required use of which it never meets."""
    found: dict[str, frozenset[str]] = {}
    for worker in contract.built_in_workers:
        if not worker.reach:
            continue
        never = frozenset(
            member
            for member in members
            if (uses := _holding_uses(contract, member))
            and not any(worker.reaches(u) for u in uses)
        )
        if never:
            found[worker.dotted] = never
    return found


def _told_apart(found: dict[str, dict[str, CallShape]]) -> dict[str, dict[str, CallShape]]:
    """``found`` less the members called alike on both branches (0.5.10's
    ``(batch)`` on each), which tell no branch apart."""
    overlap, synchronous = found.get(OVERLAP, {}), found.get(SYNCHRONOUS, {})
    alike = {m for m, shape in overlap.items() if synchronous.get(m) == shape}
    kept = {branch: {m: s for m, s in by_member.items() if m not in alike} for branch, by_member in found.items()}
    return {branch: by_member for branch, by_member in kept.items() if by_member}


def release_terms(contract: Contract | None) -> ReleaseTerms:
    """The terms of a run against ``contract`` (``None``: no sglang source was
    found; the protocols of the newest supported release, whole)."""
    if contract is None:
        protocols = (ProtocolName.SPEC_WORKER, ProtocolName.DRAFT_WORKER, ProtocolName.SPEC_ALGORITHM)
        return ReleaseTerms(
            release=None,
            pin=None,
            members={p: tuple(m.name for m in protocol_definitions(p)) for p in protocols},
            whole=frozenset(protocols),
            constructor_keywords=call_keywords(ProtocolName.SPEC_WORKER_FACTORY),
            draft_factory_keywords=call_keywords(ProtocolName.DRAFT_WORKER_FACTORY),
            notes=(
                f"no sglang found (none installed, no --sglang): checked against the protocols of the newest "
                f"supported release, {NEWEST}",
            ),
        )
    release = contract.release
    if contract.constructor_site is None:
        raise GateError(
            f"sglang {release} ({contract.source}): found no call that constructs a plugin's spec worker in its "
            "scheduler (SpeculativeAlgorithm.create_worker, or an algorithm registry's factory), so no worker can "
            f"be checked against it; supported: {OLDEST} to {NEWEST}, the oldest release the gate can read: "
            f"{OLDEST_READABLE}"
        )
    pin = pinned_release(release)
    required = {
        ProtocolName.SPEC_WORKER: {m for m in contract.required_members() if _holding_uses(contract, m)},
        ProtocolName.DRAFT_WORKER: {
            m for m in _draft_needs(contract) if excluded(m, release, receiver="draft_worker") is None
        },
    }
    if contract.algorithm is not None:
        # What the release calls on the algorithm object (a release read
        # before the gate read it, or without a plugin registry, holds none:
        # SpecAlgorithm is then not checked member by member).
        required[ProtocolName.SPEC_ALGORITHM] = {
            m for m in contract.algorithm.used() if excluded(m, release, receiver="spec_algorithm") is None
        }
    members: dict[str, tuple[str, ...]] = {}
    whole: set[str] = set()
    discarded = discarded_values(contract)
    for protocol, wanted in required.items():
        defined = [m.name for m in protocol_definitions(protocol, pin)]
        members[protocol] = tuple(name for name in defined if name in wanted)
        dropped = discarded.get(protocol, frozenset())
        if set(members[protocol]) == set(defined) and not _narrower_than_used(protocol, pin, members[protocol], dropped):
            whole.add(protocol)
    every_definition = {m.name for m in protocol_definitions(ProtocolName.SPEC_WORKER)}
    presence = tuple(sorted(required[ProtocolName.SPEC_WORKER] - every_definition))
    notes: list[str] = []
    hooks = nominal_hooks(contract)
    on_one = branch_only(contract, (*members[ProtocolName.SPEC_WORKER], *presence))
    shapes: dict[str, dict[str, CallShape]] = {}
    if pin is None:
        # The protocols hold the newest release's signatures; this release is
        # held to its own calls, and the whole-protocol line (those
        # signatures) is not checked.
        shapes = call_shapes(contract, members, hooks)
        whole = set()
        side = "before the oldest" if release_key(release) < release_key(OLDEST) else "after the newest"
        notes.append(
            f"sglang {release} is {side} supported release ({OLDEST} to {NEWEST}): checked against the contract "
            f"read from its own source ({len(required[ProtocolName.SPEC_WORKER])} members its scheduler calls)"
            + (f"; {', '.join(presence)}: no protocol defines it, checked for presence only" if presence else "")
        )
    return ReleaseTerms(
        release=release,
        pin=pin,
        members=members,
        whole=frozenset(whole),
        presence=presence,
        constructor_keywords=contract.constructor_keywords,
        draft_factory_keywords=contract.draft_factory_keywords,
        draft_factory_writes=tuple(dict.fromkeys(u.member for u in contract.built_draft if u.kind == "write")),
        nominal_hooks=hooks,
        defaults={d.method: d for d in contract.defaults},
        built_in=frozenset(w.dotted for w in contract.built_in_workers),
        built_in_unreached=built_in_unreached(contract, (*members[ProtocolName.SPEC_WORKER], *presence)),
        notes=tuple(notes),
        call_shapes=shapes,
        hooks=hook_terms(contract.hooks),
        branch_shapes=branch_shapes(contract, members[ProtocolName.SPEC_WORKER]),
        branch_only={m: branch for m, (branch, _) in on_one.items()},
        branch_sites={m: sites for m, (_, sites) in on_one.items()},
        flag_only=flag_only(contract, (*members[ProtocolName.SPEC_WORKER], *presence)),
        overlap_flag=contract.overlap_flag,
        overlap_flag_default=contract.overlap_flag_default,
        algorithm_sites=_algorithm_sites(contract),
        discarded=discarded,
    )


def _algorithm_sites(contract: Contract) -> dict[str, tuple[str, ...]]:
    """``SpecAlgorithm`` member -> its call sites in the release, the
    scheduler's first (it runs at start-up), then by file and line."""
    if contract.algorithm is None:
        return {}
    sites: dict[str, tuple[str, ...]] = {}
    for member in contract.algorithm.used():
        found = sorted(contract.algorithm.sites_of(member), key=lambda s: (not s.file.startswith("managers/scheduler"), s.file, s.line))
        sites[member] = tuple(f"{s.file}:{s.line} ({s.function})" for s in found)
    return sites


#: The defaults' receivers, which a default "relies on" but which are not defaults to follow.
_RECEIVERS = frozenset({"draft_worker", "target_worker"})


def kept_default_needs(
    terms: ReleaseTerms, overrides: frozenset[str], worker: str, unreached: frozenset[str] = frozenset()
) -> tuple[DraftNeed, ...]:
    """What ``worker`` (a dotted class name), a BaseSpecWorker subclass that
    defines ``overrides`` (below BaseSpecWorker), inherits from the defaults
    it keeps, for the checked members: each use of the draft worker on every
    path of a kept default, and of the kept defaults it relies on.

    "Every path" depends on the worker. A plugin's worker runs under a custom
    algorithm, for which every built-in ``is_<algo>()`` predicate is false: in
    a default that dispatches on the algorithm it takes the fall-through path,
    so the uses there (``required``) are its needs, those under a predicate
    (``algorithm``) and the defaults reached only under one are not. A built-in
    worker takes its own algorithm's branch, which is not evaluated here: such
    a default is not followed for it (which branch is in ``create_worker``,
    not in the worker's source). ``unreached``: members its registrations
    never reach (``RegisteredTerms.unreached``), whose defaults are not followed.
    """
    built_in = worker in terms.built_in
    found: list[DraftNeed] = []
    for member in terms.checked(ProtocolName.SPEC_WORKER):
        if member in overrides or member in unreached or member not in terms.defaults:
            continue
        seen: set[tuple[str, tuple[ServerFlag, ...]]] = set()

        def follow(name: str, via: tuple[str, ...], behind: tuple[ServerFlag, ...] = (), kept: str = member) -> None:
            if (name, behind) in seen:
                return  # (a default reached again behind other flags is followed again: those flags differ)
            seen.add((name, behind))
            default = terms.defaults.get(name)
            if default is None:
                return  # not a default
            if built_in and any(u.classification == "algorithm" for u in default.needs):
                return  # a built-in worker's own branch: not evaluated
            flagged = dict(default.relies_on_flags)
            for use in default.needs:
                if use.receiver == "draft_worker" and use.classification == "required":
                    found.append(DraftNeed(kept, use.member, via, use.site, tuple(dict.fromkeys((*behind, *use.flags)))))
            for relied in default.relies_on:
                if relied in _RECEIVERS or relied in overrides:
                    continue
                if relied in default.relies_on_algorithm and not built_in:
                    continue  # only under a predicate a plugin's algorithm never meets
                follow(relied, (*via, relied), tuple(dict.fromkeys((*behind, *flagged.get(relied, ())))))

        follow(member, (member,))
    unique: dict[tuple[str, str], DraftNeed] = {}
    for need in found:
        known = unique.get((need.default, need.member))
        if known is None or known.flags and not need.flags:
            unique[(need.default, need.member)] = need  # a way behind no flag says the most
    return tuple(unique.values())
