"""``SpecAlgorithmBase``: what sglang's ``CustomSpecAlgo`` lacks of :class:`SpecAlgorithm`, as the enum does it.

A plugin's algorithm object is an instance of the registration's
``spec_class`` (``CustomSpecAlgo`` by default; speculative/spec_registry.py).
In sglang 0.5.18 to 0.5.23 ``CustomSpecAlgo`` defines every ``is_*`` and
``supports_*`` predicate and ``create_worker``, but not three members the
scheduler calls on it, so a plugin registered with the default crashes in
``Scheduler.__init__``:

* ``carries_draft_hidden_states()`` (``Scheduler.init_disaggregation``, always);
* ``create_future_map(...)`` (``Scheduler.init_overlap``, always);
* ``need_topk()`` (``FutureMap._maybe_init_forward_bufs``, on the first decode payload).

This class gives those three, written as the enum ``SpeculativeAlgorithm``
writes them (speculative/spec_info.py), so that a plugin answers them as a
built-in algorithm with the same predicates would.

**A mixin, not a subclass of ``CustomSpecAlgo``.** ``spec_protocols`` never
imports sglang (sglang imports it; see ``_sglang_types``), so it cannot
derive from ``CustomSpecAlgo``. And sglang requires a ``spec_class`` that
``register_algorithm`` can build as ``spec_class(name=, factory=,
supports_overlap=, validate_server_args=)`` and that has every enum
predicate, which ``CustomSpecAlgo`` gives. So a plugin combines the two, this
class first (it defines no ``__init__`` and nothing ``CustomSpecAlgo``
defines, so the order changes no lookup; first is the mixin convention)::

    class MyAlgorithm(SpecAlgorithmBase, CustomSpecAlgo):
        pass

    @SpeculativeAlgorithm.register("MY_SPEC", supports_overlap=True, spec_class=MyAlgorithm)
    def _factory(server_args):
        return MyWorker

``get_platform_worker_cls``, which the enum also defines and 0.5.23 calls in
``adaptive_unsupported_reason``, is left out: that function returns before the
call for any algorithm but EAGLE and EAGLE3, so a plugin's object never meets
it (gate/_contract/_exclusions.py).
"""

from __future__ import annotations

import importlib
from typing import Any

from typing_extensions import Protocol

from spec_protocols._sglang_types import ReqToTokenPool

__all__ = ["SpecAlgorithmBase"]


class _Predicates(Protocol):
    """The predicates the enum's defaults read, which ``CustomSpecAlgo`` (or the plugin) defines."""

    def is_eagle(self) -> bool: ...
    def is_standalone(self) -> bool: ...


#: Where the enum's ``create_future_map`` finds the class it builds.
_FUTURE_MAP_MODULE = "sglang.srt.managers.overlap_utils"


class SpecAlgorithmBase:
    """The members of :class:`~spec_protocols.SpecAlgorithm` that sglang's
    ``CustomSpecAlgo`` lacks (0.5.18-0.5.23), with the enum's behaviour.

    Mix it in before ``CustomSpecAlgo`` and pass the class as ``spec_class=``
    to ``SpeculativeAlgorithm.register``; the gate (``spec-protocols check``)
    fails a registration whose algorithm object lacks them.
    """

    def carries_draft_hidden_states(self: _Predicates) -> bool:
        """Whether the PD transfer carries draft hidden states: ``is_eagle()``,
        as the enum answers. Called by ``Scheduler.init_disaggregation``."""
        return self.is_eagle()

    def need_topk(self: _Predicates) -> bool:
        """Whether the overlap relay keeps top-k buffers: ``is_eagle() or
        is_standalone()``, as the enum answers. Called by
        ``FutureMap._maybe_init_forward_bufs``."""
        return self.is_eagle() or self.is_standalone()

    def create_future_map(
        self,
        device: Any,
        req_to_token_pool: ReqToTokenPool,
        /,
        *,
        needs_cpu_seq_lens: bool = True,
        needs_confidence_relay: bool = False,
    ) -> object:
        """The overlap scheduler's future map, built as the enum builds it:
        ``FutureMap(device, self, req_to_token_pool, needs_cpu_seq_lens,
        needs_confidence_relay)``. Called by ``Scheduler.init_overlap``.

        sglang is imported here, when the scheduler calls it (as the enum
        does), and by name: ``spec_protocols`` imports no sglang module when
        it is imported, and ``overlap_utils`` is not in the stubs.
        """
        overlap_utils: Any = importlib.import_module(_FUTURE_MAP_MODULE)
        future_map: object = overlap_utils.FutureMap(
            device, self, req_to_token_pool, needs_cpu_seq_lens, needs_confidence_relay
        )
        return future_map
