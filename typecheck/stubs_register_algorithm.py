"""``SpeculativeAlgorithm.register`` holds the factory to ``create_worker``'s call and ``spec_class`` to what the scheduler calls.

sglang facts (speculative/spec_registry.py, spec_info.py, sglang 0.5.23):
``CustomSpecAlgo.create_worker(server_args)`` returns
``self.factory(server_args)`` (spec_registry.py:152), one positional argument,
so a factory ``def f(*, server_args)`` raises ``TypeError``; sglang types the
factory ``Callable[["ServerArgs"], Type]`` but ``register`` returns an
untyped decorator. The scheduler calls ``carries_draft_hidden_states()``
(scheduler.py:1540), ``create_future_map(...)`` (scheduler.py:1681) and
``need_topk()`` (overlap_utils.py:381) on the algorithm object, which
``CustomSpecAlgo`` does not define: a ``spec_class`` that is a bare
``CustomSpecAlgo`` subclass is rejected, one that mixes in
``spec_protocols.SpecAlgorithmBase`` is accepted, and is a ``SpecAlgorithm``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from sglang.srt.server_args import ServerArgs
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo
from typing_extensions import assert_type

from spec_protocols import SpecAlgorithm, SpecAlgorithmBase

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


class Worker:
    pass


class Algorithm(SpecAlgorithmBase, CustomSpecAlgo):
    pass


class BareAlgorithm(CustomSpecAlgo):
    pass


@SpeculativeAlgorithm.register("TYPED_OK", supports_overlap=True, spec_class=Algorithm)
def factory(server_args: ServerArgs) -> type[Worker]:
    return Worker


# The decorator returns the factory unchanged, with its type.
assert_type(factory(ServerArgs()), type[Worker])
kept: Callable[[ServerArgs], type[Worker]] = factory

algorithm: SpecAlgorithm = Algorithm("TYPED_OK", factory)
bare: CustomSpecAlgo = BareAlgorithm("TYPED_BARE", factory)

if TYPE_CHECKING_INVALID_USAGE:

    def keyword_only(*, server_args: ServerArgs) -> type[Worker]:
        return Worker

    SpeculativeAlgorithm.register("TYPED_KEYWORD", spec_class=Algorithm)(keyword_only)  # type: ignore[type-var]  # pyright: ignore[reportArgumentType]
    SpeculativeAlgorithm.register("TYPED_BARE", spec_class=BareAlgorithm)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    not_an_algorithm: SpecAlgorithm = bare  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
