"""Protocol-typed contracts for sglang's speculative-decoding workers.

``SpecWorker`` and ``DraftWorker`` describe how sglang 0.5.23's scheduler and
``BaseSpecWorker`` call a worker; ``SpecWorkerBase`` is the thin default
implementation; ``SpecAlgorithm`` is the algorithm object a plugin registers
(its ``spec_class``), and ``SpecAlgorithmBase`` gives what sglang's default,
``CustomSpecAlgo``, lacks of it; ``DraftWorkerFactory``, ``validate_draft_worker_cls`` and
``build_draft_tp_worker`` type and check draft-worker-class injection;
the class decorators ``spec_worker_class`` and ``draft_worker_class`` make
plain mypy and pyright check a worker where it is defined;
``verify_conformance`` checks a class at runtime, signatures included. The
``spec-protocols`` command (``spec_protocols.gate``) checks whole packages with
mypy, pyright and the runtime checker.

Importing this package imports neither torch nor sglang.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spec_protocols._algorithm_base import SpecAlgorithmBase
    from spec_protocols._base import SpecWorkerBase, WorkerNotInitializedError
    from spec_protocols._class_decorators import draft_worker_class, spec_worker_class
    from spec_protocols._injection import (
        DRAFT_WORKER_CTOR_KEYWORDS,
        TypedDraftWorkerBundle,
        build_draft_tp_worker,
        validate_draft_worker_cls,
    )
    from spec_protocols._isinstance_cache import clear_isinstance_cache
    from spec_protocols._protocols import (
        CALL_SITES,
        DraftWorker,
        DraftWorkerFactory,
        InjectableDraftWorker,
        SpecAlgorithm,
        SpecWorker,
        SpecWorkerFactory,
        SupportsDraftModelRunners,
        SupportsGrammarOverlap,
        SupportsPipelineProxy,
        SupportsRequestFinished,
        WorkerClassFactory,
    )
    from spec_protocols._streams import get_plan_stream
    from spec_protocols._verify import ConformanceProblem, ConformanceResult, verify_conformance

__all__ = [
    "CALL_SITES",
    "DRAFT_WORKER_CTOR_KEYWORDS",
    "ConformanceProblem",
    "ConformanceResult",
    "DraftWorker",
    "DraftWorkerFactory",
    "InjectableDraftWorker",
    "SpecAlgorithm",
    "SpecAlgorithmBase",
    "SpecWorker",
    "SpecWorkerBase",
    "SpecWorkerFactory",
    "SupportsDraftModelRunners",
    "SupportsGrammarOverlap",
    "SupportsPipelineProxy",
    "SupportsRequestFinished",
    "TypedDraftWorkerBundle",
    "WorkerClassFactory",
    "WorkerNotInitializedError",
    "build_draft_tp_worker",
    "clear_isinstance_cache",
    "draft_worker_class",
    "get_plan_stream",
    "spec_worker_class",
    "validate_draft_worker_cls",
    "verify_conformance",
]

if TYPE_CHECKING:
    #: The installed distribution's version (``spec-protocols``), read from its metadata.
    __version__: str

# Every public name is loaded on first use. Runtime verification and
# injection need `inspect` (about half of this package's import time), and
# neither is used on sglang's import path; the protocols and the base need
# typing_extensions (which imports `inspect` too), and the gate's command,
# a module below this package, needs none of them on a cached run
# (docs/performance.md, "The edit loop"). Defined only outside TYPE_CHECKING,
# so that checkers do not read a module __getattr__ as "any name exists" and
# still report typos. The module of each public name that is not one of the
# protocols (:data:`_PROTOCOLS`, whose own ``__all__`` lists them):
_PROTOCOLS = "spec_protocols._protocols"
_LAZY = {
    "SpecAlgorithmBase": "spec_protocols._algorithm_base",
    "SpecWorkerBase": "spec_protocols._base",
    "WorkerNotInitializedError": "spec_protocols._base",
    "draft_worker_class": "spec_protocols._class_decorators",
    "spec_worker_class": "spec_protocols._class_decorators",
    "clear_isinstance_cache": "spec_protocols._isinstance_cache",
    "get_plan_stream": "spec_protocols._streams",
    "DRAFT_WORKER_CTOR_KEYWORDS": "spec_protocols._injection",
    "TypedDraftWorkerBundle": "spec_protocols._injection",
    "build_draft_tp_worker": "spec_protocols._injection",
    "validate_draft_worker_cls": "spec_protocols._injection",
    "ConformanceProblem": "spec_protocols._verify",
    "ConformanceResult": "spec_protocols._verify",
    "verify_conformance": "spec_protocols._verify",
}

if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        if name == "__version__":
            # From the package metadata, one source of truth (pyproject.toml);
            # read on first use, since importlib.metadata costs milliseconds.
            from importlib import metadata

            try:
                version = metadata.version("spec-protocols")
            except metadata.PackageNotFoundError:  # run from a source tree, not installed
                version = "0+unknown"
            globals()["__version__"] = version
            return version
        module = _LAZY.get(name, _PROTOCOLS if name in __all__ else None)
        if module is None:
            raise AttributeError(f"module 'spec_protocols' has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
