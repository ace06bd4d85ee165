"""Every required use of every supported release is a protocol member or an exclusion (issue 12, item 2).

``coverage_gaps`` compares the protocols, pinned to a release, with the
contract read from that release's own source, both ways: a required use no
member covers (what the hand transcription did with on_verify_complete_cpu),
a member the release never calls (what failed every release before 0.5.23),
and a call the member's definition would not accept. The slow test holds each
supported release to zero gaps; the fast ones show that each kind of gap is
reported.

This module is the slow part; tests/unit/test_contract_coverage.py (fast, no checker) holds the rest.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from spec_protocols._releases import SUPPORTED_RELEASES
from spec_protocols.gate._contract import SglangSource, extract_contract
from spec_protocols.gate._contract._coverage import coverage_gaps

@pytest.mark.parametrize("release", SUPPORTED_RELEASES)
def test_a_supported_release_has_no_gap(release: str, sglang_release: Callable[[str], SglangSource]) -> None:
    contract = extract_contract(sglang_release(release))
    gaps = coverage_gaps(contract)
    assert gaps == [], "\n".join(map(str, gaps))


