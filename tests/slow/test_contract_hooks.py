"""The hooks, branches and registration flag of every supported release, read from its own source.

sglang 0.5.19 to 0.5.23, each fetched once into the gate's cache (the
``sglang_release`` fixture; a skip where it cannot be fetched). What each
test asserts is read from those releases' source:

- ``Scheduler.init_overlap`` reads ``getattr(self.draft_worker,
  "spec_v2_attn_backends", (self.tp_worker.model_runner.attn_backend,))`` and
  ``overlap_utils.decide_needs_cpu_seq_lens`` iterates it;
- the batch result processor (``_handle_finish_state_updated_req`` /
  ``_handle_sampling_mask_abort`` until 0.5.21, ``_prepare_kv_cache_release``
  from 0.5.22) binds ``getattr(self.model_worker,
  "prepare_for_kv_cache_release", None)`` to a local and calls it with the
  request;
- ``SchedulerMetricsReporter._install_device_timer_on_runners`` iterates
  ``getattr(dw, "draft_runner_list", [])`` on the spec worker's draft worker;
- ``Scheduler.run_batch`` calls ``forward_batch_generation(batch,
  on_publish=...)`` under ``if self.enable_overlap:`` and ``(batch,
  pp_proxy_tensors=...)`` on the synchronous branch;
- ``CustomSpecAlgo.create_worker`` refuses overlap scheduling unless
  ``supports_overlap``, whose default in ``SpeculativeAlgorithm.register`` is False.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from spec_protocols.gate._codec import decode, encode
from spec_protocols.gate._contract import Contract, SglangSource, contract_json, extract_contract
from spec_protocols.gate._contract import OVERLAP, SYNCHRONOUS, Hook
from spec_protocols.gate._contract import release_terms
from spec_protocols.gate._model import ProtocolName

pytestmark = pytest.mark.slow

RELEASES = ("0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23")


@pytest.fixture(scope="module")
def contract_of(sglang_release: Callable[[str], SglangSource]) -> Callable[[str], Contract]:
    found: dict[str, Contract] = {}

    def get(release: str) -> Contract:
        if release not in found:
            found[release] = extract_contract(sglang_release(release))
        return found[release]

    return get


def hooks(contract: Contract, member: str, receiver: str = "spec_worker") -> list[Hook]:
    return [h for h in contract.hooks if h.member == member and h.receiver == receiver]


@pytest.mark.parametrize("release", RELEASES)
def test_spec_v2_attn_backends_is_iterated(release: str, contract_of: Callable[[str], Contract]) -> None:
    (hook,) = hooks(contract_of(release), "spec_v2_attn_backends")
    assert hook.lookup == "getattr-default" and "attn_backend" in hook.default
    assert hook.site.function == "Scheduler.init_overlap" and hook.classification == "guarded"
    assert [(u.kind, u.site.function) for u in hook.uses] == [("iterate", "decide_needs_cpu_seq_lens")]


@pytest.mark.parametrize("release", RELEASES)
def test_prepare_for_kv_cache_release_is_called_with_the_request(release: str, contract_of: Callable[[str], Contract]) -> None:
    found = hooks(contract_of(release), "prepare_for_kv_cache_release")
    assert found, "no lookup of prepare_for_kv_cache_release"
    for hook in found:
        assert (hook.default, hook.classification) == ("None", "guarded")
        assert hook.site.function.startswith("SchedulerBatchResultProcessor.")
        calls = [u for u in hook.uses if u.kind == "call"]
        assert [(u.positional, u.keywords) for u in calls] == [(1, ())], hook


@pytest.mark.parametrize("release", RELEASES)
def test_terms_hold_the_hooks_that_constrain(release: str, contract_of: Callable[[str], Contract]) -> None:
    terms = release_terms(contract_of(release))
    spec = terms.hooks[ProtocolName.SPEC_WORKER]
    assert spec["spec_v2_attn_backends"].iterated and spec["spec_v2_attn_backends"].call is None
    release_hook = spec["prepare_for_kv_cache_release"]
    assert release_hook.call is not None and release_hook.call.positional == (1, 1) and not release_hook.iterated
    # Tested, kept or returned only: nothing a type can ask.
    assert not spec["speculative_num_steps"].constrains
    assert terms.hooks[ProtocolName.DRAFT_WORKER]["draft_runner_list"].iterated
    # DSpark's hasattr validations are one algorithm's business.
    assert "set_dspark_forced_budget_frac" not in spec


@pytest.mark.parametrize("release", RELEASES)
def test_forward_batch_generation_by_branch(release: str, contract_of: Callable[[str], Contract]) -> None:
    terms = release_terms(contract_of(release))
    overlap = terms.branch_shapes[OVERLAP]["forward_batch_generation"]
    synchronous = terms.branch_shapes[SYNCHRONOUS]["forward_batch_generation"]
    assert overlap.keywords == ("on_publish",) and "pp_proxy_tensors" not in (*overlap.keywords, *overlap.optional_keywords)
    assert "pp_proxy_tensors" in (*synchronous.keywords, *synchronous.optional_keywords)
    assert "on_publish" not in (*synchronous.keywords, *synchronous.optional_keywords)
    assert overlap.positional == synchronous.positional == (1, 1)


@pytest.mark.parametrize("release", RELEASES)
def test_the_registration_flag_selects_the_synchronous_branch(release: str, contract_of: Callable[[str], Contract]) -> None:
    contract = contract_of(release)
    assert (contract.overlap_flag, contract.overlap_flag_default) == ("supports_overlap", False)
    terms = release_terms(contract)
    assert terms.branches_for({"supports_overlap": False}) == {SYNCHRONOUS}
    assert terms.branches_for({}) == {SYNCHRONOUS}
    assert terms.branches_for({"supports_overlap": True}) == {OVERLAP, SYNCHRONOUS}
    synchronous = terms.shapes_on(terms.branches_for({"supports_overlap": False}))
    assert "pp_proxy_tensors" in (*synchronous["forward_batch_generation"].keywords, *synchronous["forward_batch_generation"].optional_keywords)
    assert terms.shapes_on(frozenset({OVERLAP, SYNCHRONOUS})) == {}


def test_the_stored_contract_keeps_hooks_and_branches(contract_of: Callable[[str], Contract]) -> None:
    contract = contract_of("0.5.23")
    assert decode(Contract, encode(contract)) == contract
    document = contract_json(contract)
    assert '"spec_v2_attn_backends"' in document and '"overlap_flag"' in document and '"branch": "synchronous"' in document
