"""Every required use of every supported release is a protocol member or an exclusion (issue 12, item 2).

``coverage_gaps`` compares the protocols, pinned to a release, with the
contract read from that release's own source, both ways: a required use no
member covers (what the hand transcription did with on_verify_complete_cpu),
a member the release never calls (what failed every release before 0.5.23),
and a call the member's definition would not accept. The slow test holds each
supported release to zero gaps; the fast ones show that each kind of gap is
reported.

This module is the fast part; tests/slow/test_contract_coverage.py (slow, no checker) holds the rest.
"""

from __future__ import annotations

from spec_protocols._members import protocol_definitions
from spec_protocols._releases import SUPPORTED_RELEASES
from spec_protocols.gate._contract import Contract, Site, Use
from spec_protocols.gate._contract._coverage import coverage_gaps
from spec_protocols.gate._contract._exclusions import EXCLUSIONS, excluded

SITE = Site("managers/scheduler.py", "Scheduler.run_batch", 1)


def _contract(release: str, uses: list[Use]) -> Contract:
    return Contract(
        release=release,
        source="<synthetic>",
        spec_worker=tuple(uses),
        defaults=(),
        constructor_keywords=("server_args", "gpu_id", "nccl_port", "target_worker"),
        constructor_site=SITE,
        draft_factory_keywords=None,
        draft_factory_site=None,
    )


def _reads(release: str) -> list[Use]:
    """A read of every member the pinned protocol has: a contract with no gap."""
    return [Use(m.name, "spec_worker", "read", "required", SITE) for m in protocol_definitions("SpecWorker", release)]


def test_the_synthetic_baseline_has_no_gap() -> None:
    assert coverage_gaps(_contract("0.5.21", _reads("0.5.21"))) == []


def test_a_required_use_no_member_covers_is_a_gap() -> None:
    """What the hand transcription did with on_verify_complete_cpu."""
    gaps = coverage_gaps(_contract("0.5.21", [*_reads("0.5.21"), Use("brand_new_hook", "spec_worker", "call", "required", SITE)]))
    assert [(g.member, g.problem) for g in gaps] == [("brand_new_hook", "required by the release, neither a member nor excluded")]


def test_a_guarded_use_is_no_gap() -> None:
    guarded = Use("optional_hook", "spec_worker", "call", "guarded", SITE, reason="getattr(w, 'optional_hook', None)")
    assert coverage_gaps(_contract("0.5.21", [*_reads("0.5.21"), guarded])) == []


def test_a_member_the_release_never_calls_is_a_gap() -> None:
    uses = [u for u in _reads("0.5.21") if u.member != "clear_cache_pool"]
    gaps = coverage_gaps(_contract("0.5.21", uses))
    assert [(g.member, g.problem) for g in gaps] == [
        ("clear_cache_pool", "the protocol requires it, but the release never calls it on the serving path")
    ]


def test_a_call_the_definition_would_refuse_is_a_gap() -> None:
    uses = [u for u in _reads("0.5.21") if u.member != "clear_cache_pool"]
    uses.append(Use("clear_cache_pool", "spec_worker", "call", "required", SITE, positional=1, keywords=("hard",)))
    problems = sorted(g.problem for g in coverage_gaps(_contract("0.5.21", uses)))
    assert problems == [
        "called with 1 positional argument(s); the protocol's definition takes 0",
        "called with hard=, which the protocol's definition does not take",
    ]


def test_every_exclusion_has_a_reason_and_applies_somewhere() -> None:
    for entry in EXCLUSIONS:
        assert len(entry.reason) > 40, entry
        # A release read from its own source counts too (0.5.12: the function-scoped model_runner entry).
        assert any(entry.applies_to(r) for r in ("0.5.12", "0.5.18", *SUPPORTED_RELEASES)), entry
    assert excluded("model_runner", "0.5.23") is not None
    assert excluded("update_weights_from_disk", "0.5.21") is None
