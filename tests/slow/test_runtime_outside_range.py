"""The runtime checker holds a worker to the calls of the release checked, outside the supported range too.

An installed sglang outside 0.5.19-0.5.23 (say 0.5.13) calls
``forward_batch_generation(batch)`` with no ``on_publish=`` and
``on_verify_complete_cpu(counts, batch_size=...)``; the protocols carry
0.5.23's signatures. The static checkers already judge such a release by its
own calls (``ReleaseTerms.call_shapes``); this is the runtime checker's side.
A structural worker (no sglang base, so it imports on any machine) written
for 0.5.13's calls must pass on 0.5.13's terms and fail on 0.5.23's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from spec_protocols.gate._checkers._runtime import run_runtime
from spec_protocols.gate._contract import SglangSource, extract_contract
from spec_protocols.gate._contract._terms import release_terms
from spec_protocols.gate._discovery import discover, resolve_target
from spec_protocols.gate._model import Check, Verdict


WORKER = '''\
class OldCallsWorker:
    """What sglang 0.5.13's scheduler calls, as it calls it."""

    def __init__(self, *, server_args, gpu_id, tp_rank, moe_ep_rank, nccl_port, target_worker, dp_rank,
                 attn_cp_rank, moe_dp_rank):
        self.model_runner = None

    def forward_batch_generation(self, batch):
        raise NotImplementedError

    def clear_cache_pool(self):
        pass

    def on_verify_complete_cpu(self, num_correct_drafts_per_req, batch_size=0):
        pass

    def update_weights_from_disk(self, recv_req):
        return True, ""

    def update_weights_from_ipc(self, recv_req):
        return True, ""

    def update_weights_from_tensor(self, recv_req):
        return True, ""
'''


def _runtime(path: Path, source: SglangSource) -> tuple[Verdict, tuple[object, ...]]:
    terms = release_terms(extract_contract(source))
    found = discover([resolve_target(f"{path}:OldCallsWorker")])
    outcome = run_runtime(found.classes, found.search_roots, 120.0, terms=terms)
    check = Check("old_calls_plugin.OldCallsWorker", "SpecWorker")
    assert check in outcome.verdicts, outcome
    return outcome.verdicts[check], outcome.problems.get(check, ())


def test_an_old_releases_calls_judge_its_worker(tmp_path: Path, sglang_release: Callable[[str], SglangSource]) -> None:
    path = tmp_path / "old_calls_plugin.py"
    path.write_text(WORKER, encoding="utf-8")
    verdict, problems = _runtime(path, sglang_release("0.5.13"))
    assert verdict is Verdict.PASS, problems
    # The newest release passes on_publish= and more: the same worker fails there.
    verdict, problems = _runtime(path, sglang_release("0.5.23"))
    assert verdict is Verdict.FAIL
    assert any(p.member == "forward_batch_generation" for p in problems), problems
