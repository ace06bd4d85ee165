"""An out-of-tree speculative-decoding algorithm for sglang 0.5.23.

:func:`register` registers the algorithm ``EXAMPLE_SPEC`` with sglang's
``SpeculativeAlgorithm.register``. It is called by sglang's plugin loader
(the ``sglang.srt.plugins`` entry point in ``pyproject.toml``) or by hand,
never at import time: importing this package imports neither sglang nor torch,
so ``spec-protocols check`` and IDEs can read it cheaply.

The algorithm object (:mod:`spec_example_plugin.algorithm`) mixes
``spec_protocols.SpecAlgorithmBase`` into sglang's ``CustomSpecAlgo``, which
lacks members the scheduler calls. The worker (:mod:`spec_example_plugin.worker`) subclasses sglang's
``BaseSpecWorker`` and builds its draft model with sglang's
``build_draft_tp_worker(draft_worker_cls=ExampleDraftWorker, ...)``; the draft
class (:mod:`spec_example_plugin.draft`) is a pass-through ``TpModelWorker``.
``spec-protocols check examples/sglang_plugin_example/spec_example_plugin``
checks both, and the injection, against the protocols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from sglang.srt.server_args import ServerArgs

__all__ = ["ALGORITHM_NAME", "register"]

#: The name users pass as ``--speculative-algorithm``.
ALGORITHM_NAME: Final = "EXAMPLE_SPEC"

_registered = False


def register() -> None:
    """Register ``EXAMPLE_SPEC`` with sglang. Idempotent.

    sglang raises ``ValueError`` when a name is registered twice; the plugin
    loader guards against loading twice, but a test or a notebook calling this
    by hand should not have to.
    """
    global _registered
    if _registered:
        return
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    from spec_example_plugin.algorithm import ExampleAlgorithm

    # supports_overlap=True: the worker follows the V2 schema (on_publish) and
    # sglang deprecates supports_overlap=False. spec_class: the default,
    # CustomSpecAlgo, lacks members the scheduler calls at start-up.
    @SpeculativeAlgorithm.register(ALGORITHM_NAME, supports_overlap=True, spec_class=ExampleAlgorithm)
    def _factory(server_args: ServerArgs) -> type:
        # The worker module imports torch through sglang: import it only when
        # sglang asks for the worker class.
        from spec_example_plugin.worker import ExampleWorker

        return ExampleWorker

    _registered = True
