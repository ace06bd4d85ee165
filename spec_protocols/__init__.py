"""Protocol-typed contracts for sglang's speculative-decoding workers.

``SpecWorker`` and ``DraftWorker`` describe how sglang 0.5.23's scheduler and
``BaseSpecWorker`` call a worker; ``SpecWorkerBase`` is the thin default
implementation; ``DraftWorkerFactory``, ``validate_draft_worker_cls`` and
``build_draft_tp_worker`` type and check draft-worker-class injection;
``verify_conformance`` checks a class at runtime, signatures included. The
``spec-protocols`` command (``spec_protocols.gate``) checks whole packages with
mypy, pyright and the runtime checker.

Importing this package imports neither torch nor sglang.
"""

from __future__ import annotations

from spec_protocols._base import SpecWorkerBase, WorkerNotInitializedError
from spec_protocols._isinstance_cache import clear_isinstance_cache
from spec_protocols._injection import (
    DRAFT_WORKER_CTOR_KEYWORDS,
    TypedDraftWorkerBundle,
    build_draft_tp_worker,
    validate_draft_worker_cls,
)
from spec_protocols._protocols import (
    CALL_SITES,
    DraftWorker,
    DraftWorkerFactory,
    SpecWorker,
    SupportsGrammarOverlap,
    SupportsPipelineProxy,
)
from spec_protocols._streams import get_plan_stream
from spec_protocols._verify import ConformanceResult, Problem, verify_conformance

__all__ = [
    "CALL_SITES",
    "DRAFT_WORKER_CTOR_KEYWORDS",
    "ConformanceResult",
    "DraftWorker",
    "DraftWorkerFactory",
    "Problem",
    "SpecWorker",
    "SpecWorkerBase",
    "SupportsGrammarOverlap",
    "SupportsPipelineProxy",
    "TypedDraftWorkerBundle",
    "WorkerNotInitializedError",
    "build_draft_tp_worker",
    "clear_isinstance_cache",
    "get_plan_stream",
    "validate_draft_worker_cls",
    "verify_conformance",
]

__version__ = "0.1.0"
