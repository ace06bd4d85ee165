"""Reference workers: the gate's embedded default when sglang is not installed.

They show the smallest conforming shapes, import no sglang or torch at
runtime, and are checked by ``spec-protocols check`` with no TARGET on a
machine without sglang (and by the test suite everywhere).
"""

from __future__ import annotations

from spec_protocols.reference.workers import ReferenceDraftWorker, ReferenceSpecWorker, build_reference_draft

__all__ = ["ReferenceDraftWorker", "ReferenceSpecWorker", "build_reference_draft"]
