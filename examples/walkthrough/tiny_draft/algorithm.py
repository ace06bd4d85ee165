"""The algorithm object sglang's scheduler calls for ``TINY_DRAFT``.

The registration's ``spec_class`` (speculative/spec_registry.py): sglang's
``CustomSpecAlgo`` with what it lacks and the scheduler calls
(``carries_draft_hidden_states``, ``create_future_map``, ``need_topk``), as
``spec_protocols.SpecAlgorithmBase`` gives them. Imported only by
:func:`tiny_draft.register`, since it imports sglang.
"""

from __future__ import annotations

from sglang.srt.speculative.spec_registry import CustomSpecAlgo

from spec_protocols import SpecAlgorithmBase

__all__ = ["TinyDraftAlgorithm"]


class TinyDraftAlgorithm(SpecAlgorithmBase, CustomSpecAlgo):
    """``CustomSpecAlgo``'s predicates and ``create_worker``, with what it lacks."""
