"""A base for the suite's fake checkers: the identity every :class:`Checker` has, with neutral values.

A fake names itself and says what it reads (``name``, ``reads_harness``,
``imports_target``) and implements ``run``; the rest of the checker's
identity (its words' rank, no dialect, no pin, its version) comes from here,
so a fake keeps working when the interface gains a member with a default.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["FakeChecker"]


class FakeChecker:
    name = "fake"
    label = "a fake checker"
    rank = 0
    reads_harness = False
    imports_target = False
    dialect = None
    pin = None

    def version(self) -> str:
        return "fake"

    def distributed(self) -> bool:
        return False

    def warm(self, root: Path) -> FakeChecker:
        return self

    def close(self) -> None:
        pass
