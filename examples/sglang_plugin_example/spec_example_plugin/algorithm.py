"""The algorithm object sglang's scheduler calls for ``EXAMPLE_SPEC``.

``SpeculativeAlgorithm.register`` makes it as the registration's
``spec_class`` (speculative/spec_registry.py); the scheduler then calls it as
it calls the enum ``SpeculativeAlgorithm``. sglang's default, ``CustomSpecAlgo``,
lacks ``carries_draft_hidden_states``, ``create_future_map`` and ``need_topk``
(sglang 0.5.18-0.5.23), which ``Scheduler.__init__`` and the overlap relay
call: ``SpecAlgorithmBase`` gives them as the enum does. Imported only by
:func:`spec_example_plugin.register`, since it imports sglang.
"""

from __future__ import annotations

from sglang.srt.speculative.spec_registry import CustomSpecAlgo

from spec_protocols import SpecAlgorithmBase

__all__ = ["ExampleAlgorithm"]


class ExampleAlgorithm(SpecAlgorithmBase, CustomSpecAlgo):
    """``CustomSpecAlgo``'s predicates and ``create_worker``, with what it lacks."""
