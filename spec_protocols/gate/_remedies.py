"""One note per failing check whose role knows the fix: what is missing, where sglang calls it, what to do.

A class that lacks members its role's protocol requires gets one problem per
member from each checker; that is right for a worker, whose members the
author writes one by one. For a role whose fix is the same whatever is
missing (``RolePolicy.remedy``: a registration's algorithm object, where the
fix is to pass a ``spec_class`` that mixes in ``SpecAlgorithmBase``), the
reader also needs the whole story in one line: the missing members, each
with the release's call sites, the registrations that make the object, and
the fix. That line is a note of the result (never a problem: the checkers'
problems decide the verdict, and a baseline never accepts a note).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from spec_protocols._protocols import CALL_SITES
from spec_protocols.gate._contract import ReleaseTerms
from spec_protocols.gate._model import DiscoveredClass, Result, Verdict
from spec_protocols.gate._roles import policy_for

__all__ = ["with_remedies"]

#: How many call sites of one member the note names (the scheduler's first).
_SITES_SHOWN = 2


def with_remedies(
    results: Sequence[Result], classes: Mapping[str, DiscoveredClass], terms: ReleaseTerms
) -> list[Result]:
    """``results``, each failing one whose role has a remedy noted with it."""
    return [_noted(result, classes.get(result.check.target), terms) for result in results]


def _noted(result: Result, cls: DiscoveredClass | None, terms: ReleaseTerms) -> Result:
    try:
        role = policy_for(result.check.protocol)
    except KeyError:
        return result
    if role.remedy is None or result.verdict is not Verdict.FAIL or role.members is None:
        return result
    # What the checkers found missing (the claim every checker gives a
    # missing member), in the protocol's order.
    missing = {p.member for p in result.problems if p.claim == "exists" and p.member is not None}
    ordered = [m for m in terms.checked(role.members) if m in missing]
    if not ordered:
        return result
    release = f"sglang {terms.release}" if terms.release else "sglang"
    called = "; ".join(f"{m} ({_sites(role.members, m, terms)})" for m in ordered)
    sites = sorted({r.site for r in cls.registrations}) if cls is not None else []
    by = f" (the algorithm object of the registration{'s' if len(sites) > 1 else ''} at {', '.join(sites)})" if sites else ""
    short = result.check.target.rpartition(".")[2]
    note = f"{short}{by} lacks {', '.join(ordered)}, which {release} calls on it: {called}; fix: {role.remedy}"
    return replace(result, notes=(*result.notes, note))


def _sites(protocol: str, member: str, terms: ReleaseTerms) -> str:
    """Where the release calls ``member`` (read from its source), else where the pinned release does."""
    sites = terms.algorithm_sites.get(member) or (CALL_SITES.get(protocol, {}).get(member),)
    shown = [s for s in sites[:_SITES_SHOWN] if s]
    more = len(sites) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")
