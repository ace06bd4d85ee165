"""A half-edited module: the syntax error below is deliberate (the gate must note it, not abort)."""

from __future__ import annotations


def tune_draft_depth(acceptance_rate: float) -> int:
    if acceptance_rate > 0.8
        return 6
    return 3
