"""Do the protocols say what a release's own source does? Both ways.

*Covered*: every ``required`` use in a release's contract is a member of the
protocol the use concerns, as pinned to that release (``SpecWorker`` for the
scheduler's uses, ``InjectableDraftWorker`` for what ``build_draft_tp_worker``
reads on what it built), whose definition accepts the call as made (as many
positional arguments, every keyword), or it is an entry of the exclusion
table (:mod:`~spec_protocols.gate._contract._exclusions`). The hand
transcription missed ``on_verify_complete_cpu``: this check would not have.

*Precise*: every member the pinned protocol requires is used by the release;
otherwise the gate would fail workers over a member the release never calls
(what happened to every release before 0.5.23).

Both hold for the algorithm object too: ``SpecAlgorithm`` against the uses of
``spec_algorithm`` (:attr:`Contract.algorithm`), both ways.

And for the newest supported release, the constructor keyword sets of
``SpecWorkerFactory`` and ``DraftWorkerFactory`` are the release's own (older
releases' keyword sets are data the gate reads from their contracts).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from spec_protocols._members import ProtocolMember, call_keywords, protocol_definitions
from spec_protocols._releases import NEWEST
from spec_protocols.gate._contract._exclusions import excluded
from spec_protocols.gate._contract._release_contract import Contract, Site, Use
from spec_protocols.gate._model import ProtocolName

__all__ = ["Gap", "coverage_gaps"]

_SPEC = ProtocolName.SPEC_WORKER


@dataclass(frozen=True, slots=True)
class Gap:
    """One way in which the protocols and a release's contract disagree: a
    use no member covers (not covered), or a member no use asks for (not precise)."""

    release: str
    protocol: str
    member: str
    problem: str
    sites: tuple[Site, ...] = ()

    def __str__(self) -> str:
        where = "; ".join(f"{s.file}:{s.line} ({s.function})" for s in self.sites[:3])
        return f"sglang {self.release}: {self.protocol}.{self.member}: {self.problem}" + (f" [{where}]" if where else "")


def _parameters(member: ProtocolMember) -> tuple[int, set[str], bool, bool]:
    """(positional capacity, names a keyword can fill, has *args, has **kwargs), self excluded."""
    args = member.node.args
    by_keyword = args.args if args.posonlyargs else args.args[1:]  # self is the first of one of them
    positional = [*args.posonlyargs[1:], *args.args] if args.posonlyargs else by_keyword
    keywords = {a.arg for a in [*by_keyword, *args.kwonlyargs]}
    return len(positional), keywords, args.vararg is not None, args.kwarg is not None


def _call_gaps(release: str, protocol: str, member: ProtocolMember, use: Use) -> Iterable[str]:
    if member.is_property:
        if use.kind == "call":
            yield "called, but the protocol has a property"
        return
    if use.kind != "call":
        return  # a method read without a call (passed on) needs nothing more
    capacity, keywords, var_args, var_kwargs = _parameters(member)
    if use.positional > capacity and not var_args:
        yield f"called with {use.positional} positional argument(s); the protocol's definition takes {capacity}"
    for keyword in use.keywords:
        if keyword in keywords or var_kwargs or excluded(use.member, release, receiver=use.receiver, keyword=keyword):
            continue
        yield f"called with {keyword}=, which the protocol's definition does not take"


def _covered(contract: Contract, release: str, protocol: str, uses: Iterable[Use]) -> list[Gap]:
    members = {m.name: m for m in protocol_definitions(protocol, release)}
    gaps: list[Gap] = []
    by_member: dict[str, list[Use]] = {}
    for use in uses:
        if use.classification == "required" and use.kind != "write":
            by_member.setdefault(use.member, []).append(use)
    for name, member_uses in sorted(by_member.items()):
        sites = tuple(sorted(u.site for u in member_uses))
        if excluded(name, release, receiver=member_uses[0].receiver):
            continue
        member = members.get(name)
        if member is None:
            gaps.append(Gap(release, protocol, name, "required by the release, neither a member nor excluded", sites))
            continue
        problems = sorted({p for use in member_uses for p in _call_gaps(release, protocol, member, use)})
        gaps.extend(Gap(release, protocol, name, problem, sites) for problem in problems)
    # Writes: the object must accept them; a write no member models must be excluded.
    for use in uses:
        if use.classification == "required" and use.kind == "write" and use.member not in members:
            if not excluded(use.member, release, receiver=use.receiver):
                gaps.append(Gap(release, protocol, use.member, "written by the release, neither a member nor excluded", (use.site,)))
    return gaps


def _precise(contract: Contract, release: str) -> list[Gap]:
    used = contract.required_members()
    return [
        Gap(release, _SPEC, m.name, "the protocol requires it, but the release never calls it on the serving path")
        for m in protocol_definitions(_SPEC, release)
        if m.name not in used
    ]


def _algorithm(contract: Contract, release: str) -> list[Gap]:
    """``SpecAlgorithm`` against the algorithm object's uses, both ways."""
    algorithm = contract.algorithm
    if algorithm is None:
        return []
    protocol = ProtocolName.SPEC_ALGORITHM
    gaps = _covered(contract, release, protocol, algorithm.uses)
    used = set(algorithm.used())
    gaps += [
        Gap(release, protocol, m.name, "the protocol requires it, but the release never calls it on the algorithm object")
        for m in protocol_definitions(protocol, release)
        if m.name not in used
    ]
    return gaps


def _factories(contract: Contract, release: str) -> list[Gap]:
    if release != NEWEST:
        return []
    gaps: list[Gap] = []
    spec, draft = ProtocolName.SPEC_WORKER_FACTORY, ProtocolName.DRAFT_WORKER_FACTORY
    if set(contract.constructor_keywords) != set(call_keywords(spec)):
        gaps.append(Gap(release, spec, "__call__", f"the release constructs workers with {contract.constructor_keywords}"))
    if contract.draft_factory_keywords is not None and set(contract.draft_factory_keywords) != set(call_keywords(draft)):
        gaps.append(Gap(release, draft, "__call__", f"the release passes draft_worker_cls {contract.draft_factory_keywords}"))
    return gaps


def coverage_gaps(contract: Contract, release: str | None = None) -> list[Gap]:
    """Every disagreement between the protocols (pinned to ``release``,
    default: the contract's) and ``contract``; empty when they agree."""
    release = release or contract.release
    gaps = _covered(contract, release, _SPEC, contract.spec_worker)
    gaps += _covered(contract, release, ProtocolName.INJECTABLE_DRAFT_WORKER, contract.built_draft)
    gaps += _precise(contract, release)
    gaps += _algorithm(contract, release)
    gaps += _factories(contract, release)
    return gaps

