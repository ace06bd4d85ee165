"""``SpecAlgorithm``: the enum is one, sglang's ``CustomSpecAlgo`` is not, and ``SpecAlgorithmBase`` makes one of it.

sglang fact (speculative/spec_info.py, spec_registry.py, sglang 0.5.23):
``SpeculativeAlgorithm.from_string`` returns an enum member or a plugin's
``CustomSpecAlgo`` (or ``spec_class``) instance, and the scheduler calls both
alike. The enum defines ``carries_draft_hidden_states``, ``create_future_map``
and ``need_topk``; ``CustomSpecAlgo`` defines none of them.
``create_future_map`` takes ``needs_cpu_seq_lens``/``needs_confidence_relay``
by keyword (scheduler.py:1681 passes them so): an implementation that
renames one cannot take the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from sglang.srt.server_args import ServerArgs
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo
from typing_extensions import assert_type

from spec_protocols import SpecAlgorithm, SpecAlgorithmBase

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


def _factory(server_args: ServerArgs) -> type:
    return object


class Algorithm(SpecAlgorithmBase, CustomSpecAlgo):
    pass


class RenamedKeyword(SpecAlgorithmBase, CustomSpecAlgo):
    def create_future_map(  # type: ignore[override]  # pyright: ignore[reportIncompatibleMethodOverride]
        self, device: Any, req_to_token_pool: Any, /, *, cpu_seq_lens: bool = True, needs_confidence_relay: bool = False
    ) -> object:
        return None


builtin: SpecAlgorithm = SpeculativeAlgorithm.EAGLE
plugin: SpecAlgorithm = Algorithm("MIXED", _factory)
assert_type(plugin.need_topk(), bool)

if TYPE_CHECKING_INVALID_USAGE:
    default: SpecAlgorithm = CustomSpecAlgo("DEFAULT", _factory)  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
    renamed: SpecAlgorithm = RenamedKeyword("RENAMED", _factory)  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
