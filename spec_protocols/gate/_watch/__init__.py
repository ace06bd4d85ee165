"""The watch mode: ``spec-protocols check --watch``, rounds of the one-shot run.

``_changes``    polling what the last round read (its :class:`~spec_protocols.gate._model.ReadSet`) for a change
``_processes``  ending every process a watch started
``_loop``       the rounds, the signals, the clean end

Each round is :func:`~spec_protocols.gate._request.run` of the command's
request, with each checker as it runs warm (``Checker.warm``: its own
module keeps its daemon, language server or next probe); it sits above the
pipeline and below the CLI, whose ``check --watch`` calls :func:`watch`; the
language server (``spec-protocols lsp``) runs its checkers the same way
(:func:`warm_rounds`, :func:`end_checkers`).
"""

from __future__ import annotations

from spec_protocols.gate._watch._loop import INTERRUPTED, end_checkers, refuse_with_watch, warm_checkers, warm_rounds, watch

__all__ = ["INTERRUPTED", "end_checkers", "refuse_with_watch", "warm_checkers", "warm_rounds", "watch"]
