"""The extractor against the ground truth: a manual study of sglang 0.5.18-0.5.23.

``tests/fixtures/contract/`` holds the study (README.md explains it):
``uses.json`` lists every use of the spec worker by the scheduler and its
components, per release, classified; ``base_spec_worker_uses.json`` what each
``BaseSpecWorker`` method uses. Each release's source is fetched once into the
gate's cache (the ``sglang_release`` fixture; a fresh machine needs only the
package registry). All of this is slow (six downloads of ~40 MB on a fresh
machine), hence its place in tests/slow/.

Lines may differ from the study's by a few (it counted a multi-line call at
another line): a use is matched by file, function, member and kind.

Where the extractor finds more than the study, :data:`KNOWN_EXTRAS` says so
and why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from spec_protocols.gate._contract import Contract, SglangSource, Use, extract_contract, release_of

from tests._paths import FIXTURES


FIXTURES = FIXTURES / "contract"
GROUND_TRUTH: dict[str, list[dict[str, Any]]] = json.loads((FIXTURES / "uses.json").read_text(encoding="utf-8"))
BASE_TRUTH: dict[str, dict[str, Any]] = json.loads((FIXTURES / "base_spec_worker_uses.json").read_text(encoding="utf-8"))
RELEASES = tuple(GROUND_TRUTH)

#: The study's summary table.
CONSTRUCTOR = {
    "0.5.18": ("server_args", "gpu_id", "ps", "nccl_port", "target_worker"),
    "0.5.19": ("server_args", "gpu_id", "ps", "nccl_port", "target_worker"),
    "0.5.20": ("server_args", "gpu_id", "ps", "nccl_port", "target_worker"),
    "0.5.21": ("server_args", "gpu_id", "nccl_port", "target_worker"),
    "0.5.22": ("server_args", "gpu_id", "nccl_port", "target_worker"),
    "0.5.23": ("server_args", "gpu_id", "nccl_port", "target_worker"),
}
_OLD_FACTORY = ("server_args", "gpu_id", "ps", "nccl_port", "is_draft_worker", "context_length", "draft_attention_backend")
_NEW_FACTORY = (
    "server_args",
    "gpu_id",
    "nccl_port",
    "is_draft_worker",
    "random_seed",
    "load_group",
    "context_length",
    "draft_attention_backend",
)
FACTORY: dict[str, tuple[str, ...] | None] = {
    "0.5.18": None,  # no draft_worker_cls yet: it builds TpModelWorker itself
    "0.5.19": _OLD_FACTORY,
    "0.5.20": _OLD_FACTORY,
    "0.5.21": tuple(k for k in _NEW_FACTORY if k != "load_group"),
    "0.5.22": _NEW_FACTORY,
    "0.5.23": _NEW_FACTORY,
}

#: Uses the extractor finds that the study does not list, by (file, function,
#: member, receiver). 0.5.18's ``init_disaggregation`` reads
#: ``self.draft_worker.draft_worker.draft_runner``: the study records the
#: outer ``draft_worker`` read (its note quotes the whole chain) but not the
#: inner draft worker's ``draft_runner``, which it does list where the same
#: inner worker is read through ``getattr`` (metrics_reporter). The extractor
#: records both, consistently.
KNOWN_EXTRAS: dict[str, set[tuple[str, str, str, str]]] = {
    "0.5.18": {("managers/scheduler.py", "Scheduler.init_disaggregation", "draft_runner", "spec_worker.draft_worker")},
}


@pytest.fixture(scope="session")
def contract_of(sglang_release: Callable[[str], SglangSource]) -> Callable[[str], Contract]:
    made: dict[str, Contract] = {}

    def get(release: str) -> Contract:
        if release not in made:
            source = sglang_release(release)
            assert release_of(source.root) == release == source.release
            made[release] = extract_contract(source)
        return made[release]

    return get


def _file(use: dict[str, Any]) -> str:
    return str(use["file"]).removeprefix("sglang/srt/")


def _kind(use: dict[str, Any]) -> str:
    return "call" if use["kind"] == "call" else "read"


def _mine(contract: Contract, truth: dict[str, Any]) -> list[Use]:
    return [
        u
        for u in contract.spec_worker
        if (u.site.file, u.site.function, u.member, u.kind) == (_file(truth), truth["function"], truth["member"], _kind(truth))
    ]


@pytest.mark.parametrize("release", RELEASES)
def test_required_members(release: str, contract_of: Callable[[str], Contract]) -> None:
    expected = {u["member"] for u in GROUND_TRUTH[release] if u["class"] == "required"}
    assert contract_of(release).required_members() == expected


@pytest.mark.parametrize("release", RELEASES)
def test_constructor_keywords(release: str, contract_of: Callable[[str], Contract]) -> None:
    contract = contract_of(release)
    assert contract.constructor_keywords == CONSTRUCTOR[release]
    assert contract.constructor_site is not None
    assert (contract.constructor_site.file, contract.constructor_site.function) == (
        "managers/scheduler.py",
        "Scheduler.maybe_init_draft_worker",
    )


@pytest.mark.parametrize("release", RELEASES)
def test_draft_factory_keywords_and_what_it_does_with_the_draft(release: str, contract_of: Callable[[str], Contract]) -> None:
    contract = contract_of(release)
    assert contract.draft_factory_keywords == FACTORY[release]
    if FACTORY[release] is None:
        assert contract.draft_factory_site is None
    else:
        assert contract.draft_factory_site is not None
        site = contract.draft_factory_site
        assert (site.file, site.function) == ("speculative/draft_worker_common.py", "build_draft_tp_worker")
    assert [(u.member, u.kind, u.receiver, u.classification) for u in contract.built_draft] == [
        ("model_runner", "read", "built_draft", "required"),
        ("draft_runner", "write", "built_draft", "required"),
    ]


@pytest.mark.parametrize("release", RELEASES)
def test_every_use_of_the_ground_truth_is_found_and_classified_alike(
    release: str, contract_of: Callable[[str], Contract]
) -> None:
    contract = contract_of(release)
    problems: list[str] = []
    for truth in GROUND_TRUTH[release]:
        where = f"{truth['member']} at {_file(truth)}:{truth['line']} {truth['function']} ({truth['class']})"
        mine = _mine(contract, truth)
        if not mine:
            problems.append(f"missing: {where}")
            continue
        if truth["class"] not in {u.classification for u in mine}:
            problems.append(f"classified {sorted({u.classification for u in mine})}: {where}")
        if min(abs(u.site.line - truth["line"]) for u in mine) > 3:
            problems.append(f"at lines {[u.site.line for u in mine]}: {where}")
        if truth["kind"] == "call" and truth["class"] == "required":
            shape = (len(truth["args"]), tuple(truth["keywords"]), tuple(truth.get("conditional_keywords", {})))
            if shape not in {(u.positional, u.keywords, u.conditional_keywords) for u in mine}:
                problems.append(f"call shape {[(u.positional, u.keywords, u.conditional_keywords) for u in mine]} != {shape}: {where}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("release", RELEASES)
def test_nothing_beyond_the_ground_truth_but_the_known_extras(release: str, contract_of: Callable[[str], Contract]) -> None:
    known = {(_file(u), u["function"], u["member"]) for u in GROUND_TRUTH[release]}
    extras = {
        (u.site.file, u.site.function, u.member, u.receiver)
        for u in contract_of(release).spec_worker
        if (u.site.file, u.site.function, u.member) not in known
    }
    assert extras == KNOWN_EXTRAS.get(release, set())


@pytest.mark.parametrize("release", RELEASES)
def test_base_spec_worker_defaults(release: str, contract_of: Callable[[str], Contract]) -> None:
    contract = contract_of(release)

    def needs(method: str) -> set[tuple[str, str, str]]:
        default = contract.default(method)
        assert default is not None, method
        return {(u.receiver, u.member, u.classification) for u in default.needs}

    if release >= "0.5.21":
        assert ("draft_worker", "draft_runners", "required") in needs("weight_update_runners")
    else:
        assert contract.default("weight_update_runners") is None
        assert ("draft_worker", "draft_runners", "required") in needs("update_weights_from_disk")
    assert needs("draft_worker") == {("self", "_draft_worker", "private")}
    assert needs("target_worker") == {("self", "_target_worker", "private")}
    runners = needs("_draft_model_runners")
    assert {("draft_worker", "draft_runners", "required"), ("draft_worker", "model_runner", "algorithm")} <= runners
    primary = contract.default("primary_draft_kv_pool")
    assert primary is not None and "_draft_model_runners" in primary.relies_on
    plan = contract.default("init_hicache_draft_plan")
    assert plan is not None and "_build_hicache_draft_plan" in plan.relies_on


@pytest.mark.parametrize("release", RELEASES)
def test_base_spec_worker_defaults_match_the_study(release: str, contract_of: Callable[[str], Contract]) -> None:
    """Per method: the members read on draft_worker / target_worker and the
    private state read on self, as the study lists them."""
    contract = contract_of(release)
    study = BASE_TRUTH[release]["BaseSpecWorker"]
    methods = {name for name in study if not name.startswith("<")}
    assert {d.method for d in contract.defaults} == methods
    problems: list[str] = []
    for method in sorted(methods):
        expected: set[tuple[str, str]] = set()
        for use in study[method]["uses"]:
            parts = re.sub(r"\(.*", "", use["expr"]).split(".")
            if parts[0] != "self":
                continue  # a getattr on something else (the study's "tr(...)" rows)
            if parts[1] in ("draft_worker", "target_worker") and len(parts) > 2:
                expected.add((parts[1], parts[2]))
            elif len(parts) == 2 and parts[1].startswith("_") and use["kind"] == "read" and parts[1] not in methods:
                expected.add(("self", parts[1]))
        default = contract.default(method)
        found = {(u.receiver, u.member) for u in default.needs} if default else set()
        if found != expected:
            problems.append(f"{method}: study {sorted(expected)}, extracted {sorted(found)}")
    assert not problems, "\n".join(problems)


def test_the_war_barrier_runner_is_read_on_the_overlap_loops_only(contract_of: Callable[[str], Contract]) -> None:
    """0.5.23 reads ``last_shared_read_runner`` in ``_apply_war_barrier`` and
    ``_war_barrier_is_coarse``, which only the overlap event loops call: each
    use carries that branch, so a synchronous registration is not held to it."""
    from spec_protocols.gate._contract import OVERLAP, release_terms

    contract = contract_of("0.5.23")
    uses = [u for u in contract.spec_worker if u.member == "last_shared_read_runner" and u.classification == "required"]
    assert uses and {u.branch for u in uses} == {OVERLAP}, [(u.site, u.branch) for u in uses]
    terms = release_terms(contract)
    assert terms.branch_only.get("last_shared_read_runner") == OVERLAP
    # What every loop uses stays on both.
    assert "forward_batch_generation" not in terms.branch_only
    assert "alloc_memory_pool" not in terms.branch_only


def test_the_results_0_5_23_drops_are_held_to_object_and_refused_as_coroutines(contract_of: Callable[[str], Contract]) -> None:
    """0.5.23 makes these calls as statements (``Scheduler.init_all_cuda_graphs``,
    ``BaseSpecWorker.init_cuda_graphs``'s ``self.draft_worker.init_cuda_graphs()``):
    the gate holds their results to ``object``, and so does not check the
    protocols' whole-protocol line (which says ``None``)."""
    from spec_protocols.gate._contract import release_terms

    terms = release_terms(contract_of("0.5.23"))
    assert terms.discarded["SpecWorker"] >= {
        "alloc_memory_pool", "init_hicache_draft_plan", "init_attention_backends", "init_cuda_graphs",
        "clear_cache_pool", "on_verify_complete_cpu", "prewarm_sampling",
    }
    assert terms.discarded["DraftWorker"] == {"alloc_memory_pool", "init_attention_backends", "init_cuda_graphs"}
    # What the scheduler keeps is not dropped.
    assert "forward_batch_generation" not in terms.discarded["SpecWorker"]
    assert not {"SpecWorker", "DraftWorker"} & terms.whole


#: What 0.5.23 does with each required member's value (issue 31, item 1), read by hand from its source:
#: member -> the (kind, detail) pairs that must be found. forward_batch_generation's are those of
#: Scheduler.run_batch's overlap branch and the batch result processors (managers/scheduler.py:4711-4756).
VALUE_STUDY_0_5_23: dict[str, set[tuple[str, str]]] = {
    "forward_batch_generation": {
        ("attribute", "next_draft_input"),
        ("attribute", "extra_keep_alive_refs"),
        ("attribute", "delay_sample_func"),
        ("attribute", "copy_done="),
        ("attribute", "next_token_ids"),
        ("attribute", "logits_output"),
    },
    "weight_update_runners": {("operand", "+=")},  # runners += self.draft_worker.weight_update_runners()
    "preloaded_weights_bytes": {("operand", "+=")},  # Scheduler.init_target_memory_pool
    "weight_load_time": {("operand", "+")},  # observability/startup_time.py, through the callee
    "model_runner": {("attribute", "weight_exporter")},  # save_remote_model
    "last_shared_read_runner": {("attribute", "shared_read_done_event"), ("attribute", "shared_read_done_event=")},
}


def test_what_0_5_23_does_with_each_value_matches_the_study(contract_of: Callable[[str], Contract]) -> None:
    """Both ways: every required member whose value sglang uses has what is
    done with it followed (none left blank), and each use the study names is found."""
    contract = contract_of("0.5.23")
    required = contract.required_uses()
    blank = sorted({m for m, uses in required.items() for u in uses if u.kind != "write" and u.value_used and not u.value_uses})
    assert blank == [], blank
    for member, expected in VALUE_STUDY_0_5_23.items():
        found = {(v.kind, v.detail) for u in required.get(member, ()) for v in u.value_uses}
        assert expected <= found, (member, expected - found)
