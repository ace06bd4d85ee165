"""What a checker found, and how it is said: deciding apart from phrasing.

The verdict core (:mod:`spec_protocols.gate._checkers._interpret`) reads a
checker's diagnostics on the harness and decides, per check, a verdict and
:class:`Finding` values: what is wrong (:class:`Wrong`), with which member,
on which harness line, and the parts a message is made of (the checker's own
reasons, what the call site expects, what the class has: :class:`Got`).

``_values``  the findings themselves, plain frozen values
``_words``   :func:`message`: a finding's words (a problem's message, a note)

The vocabulary's stage, below every stage that decides: the checkers word
their findings with it and hand on problems, so that no stage reaches up to
the reports for words.
"""

from __future__ import annotations

from spec_protocols.gate._findings._values import (
    AnyFinding,
    BodyDiagnostics,
    ClassDiagnostic,
    Finding,
    Got,
    ReplayFinding,
    RuntimeFinding,
    Wrong,
)
from spec_protocols.gate._findings._words import change, compose, got_text, message

__all__ = [
    "AnyFinding",
    "BodyDiagnostics",
    "ClassDiagnostic",
    "Finding",
    "Got",
    "ReplayFinding",
    "RuntimeFinding",
    "Wrong",
    "change",
    "compose",
    "got_text",
    "message",
]
