"""The watch mode: ``spec-protocols check --watch``, rounds of the one-shot pipeline.

``_changes``        what a round's verdicts depend on, and polling it for a change
``_persistent``     checker adapters whose checker stays warm between rounds
``_mypy_daemon``    mypy's daemon (``dmypy``), on the one-shot run's configuration
``_pyright_server`` pyright's language server, asked for each file's diagnostics
``_lsp``            the few LSP messages that takes
``_processes``      ending every process a watch started
``_loop``           the rounds, the signals, the clean end

It sits above the pipeline (it calls :func:`~spec_protocols.gate._pipeline.run_gate`
each round) and below the CLI, whose ``check --watch`` calls :func:`watch`.
"""

from __future__ import annotations

from spec_protocols.gate._watch._loop import INTERRUPTED, refuse_with_watch, watch, watch_set

__all__ = ["INTERRUPTED", "refuse_with_watch", "watch", "watch_set"]
