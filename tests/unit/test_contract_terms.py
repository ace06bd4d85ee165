"""A release's terms (gate/_contract/_terms.py) and the harness built on them.

Synthetic contracts only: each test says what a release requires and checks
which members, lines and keywords the gate then checks. Nothing runs a checker.
"""

from __future__ import annotations

from dataclasses import replace

from pathlib import Path

import pytest

from spec_protocols._members import call_keywords, protocol_definitions
from spec_protocols.gate._contract import Contract, DefaultNeeds, Site, Use
from spec_protocols.gate._contract._release_contract import BuiltInWorker, Classification, UseKind
from spec_protocols.gate._contract._terms import DraftNeed, ReleaseTerms, kept_default_needs, release_terms
from spec_protocols.gate._harness._lines import LineKind, build_harness
from spec_protocols.gate._model import ClassRole, DiscoveredClass

SITE = Site("managers/scheduler.py", "Scheduler.run_batch", 1)
BASE = "sglang.srt.speculative.base_spec_worker.BaseSpecWorker"


def use(member: str, classification: Classification = "required", receiver: str = "spec_worker", kind: UseKind = "read") -> Use:
    return Use(member, receiver, kind, classification, SITE)


def needs(
    method: str, *uses: Use, relies_on: tuple[str, ...] = (), relies_on_algorithm: tuple[str, ...] = ()
) -> DefaultNeeds:
    return DefaultNeeds(method, uses, relies_on, relies_on_algorithm)


def contract(
    release: str,
    members: list[str],
    *,
    defaults: tuple[DefaultNeeds, ...] = (),
    constructor: tuple[str, ...] = ("server_args", "gpu_id", "nccl_port", "target_worker"),
    factory: tuple[str, ...] | None = None,
    built_in: tuple[BuiltInWorker, ...] = (),
) -> Contract:
    return Contract(
        release=release,
        source="<synthetic>",
        spec_worker=tuple(use(m) for m in members),
        defaults=defaults,
        constructor_keywords=constructor,
        constructor_site=SITE,
        draft_factory_keywords=factory if factory is not None else call_keywords("DraftWorkerFactory"),
        draft_factory_site=SITE,
        built_in_workers=built_in,
    )


def spec_members(release: str | None) -> list[str]:
    return [m.name for m in protocol_definitions("SpecWorker", release)]


DRAFT_NEEDS = tuple(
    needs(name, use(name, receiver="draft_worker"), relies_on=("draft_worker",))
    for name in [m.name for m in protocol_definitions("DraftWorker")]
)


def test_a_supported_release_that_requires_exactly_the_pinned_protocol_keeps_the_whole_line() -> None:
    terms = release_terms(contract("0.5.21", spec_members("0.5.21"), defaults=DRAFT_NEEDS))
    assert terms.pin == "0.5.21"
    assert terms.checked("SpecWorker") == tuple(spec_members("0.5.21"))
    assert "draft_parallel_layout" not in terms.checked("SpecWorker")
    # A contract read without the algorithm object (a fake here) leaves SpecAlgorithm unnarrowed, not whole-checked.
    assert terms.whole == {"SpecWorker", "DraftWorker"}
    assert terms.presence == () and terms.notes == ()


def test_a_member_the_release_does_not_call_is_not_checked_and_drops_the_whole_line() -> None:
    called = [m for m in spec_members("0.5.23") if m != "clear_cache_pool"]
    terms = release_terms(contract("0.5.23", called, defaults=DRAFT_NEEDS))
    assert "clear_cache_pool" not in terms.checked("SpecWorker")
    assert "SpecWorker" not in terms.whole


def test_an_excluded_use_is_not_checked() -> None:
    """model_runner is read by save_remote_model only: an exclusion, never a member."""
    terms = release_terms(contract("0.5.23", [*spec_members("0.5.23"), "model_runner"], defaults=DRAFT_NEEDS))
    assert "model_runner" not in terms.checked("SpecWorker") and terms.presence == ()
    assert "SpecWorker" in terms.whole


def test_a_hook_behind_the_nominal_base_is_held_to_the_capability_that_writes_it() -> None:
    """note_request_finished is called only behind isinstance(w, BaseSpecWorker):
    not a SpecWorker member, but a BaseSpecWorker subclass's own version is held
    to SupportsRequestFinished. A hook no capability defines has no signature."""
    base = contract("0.5.23", spec_members("0.5.23"), defaults=DRAFT_NEEDS)
    guarded = replace(
        base,
        spec_worker=(
            *base.spec_worker,
            use("note_request_finished", "isinstance", kind="call"),
            use("brand_new_nominal_hook", "isinstance", kind="call"),
        ),
    )
    terms = release_terms(guarded)
    assert dict(terms.nominal_hooks) == {"note_request_finished": "SupportsRequestFinished"}
    assert "note_request_finished" not in terms.checked("SpecWorker") and "SpecWorker" in terms.whole
    assert release_terms(base).nominal_hooks == {}


def test_a_newer_release_is_checked_against_its_own_contract_with_a_note() -> None:
    terms = release_terms(contract("0.6.0", [*spec_members(None), "brand_new_hook"], defaults=DRAFT_NEEDS))
    assert terms.pin is None
    assert terms.presence == ("brand_new_hook",)
    assert len(terms.notes) == 1 and "0.6.0 is after the newest supported release" in terms.notes[0]
    assert "brand_new_hook: no protocol defines it, checked for presence only" in terms.notes[0]


def test_a_post_release_pins_to_its_base() -> None:
    assert release_terms(contract("0.5.22.post1", spec_members("0.5.22"))).pin == "0.5.22"


def test_no_sglang_means_the_newest_protocols_whole() -> None:
    terms = release_terms(None)
    assert terms.release is None and terms.pin is None
    assert terms.checked("SpecWorker") == tuple(spec_members(None))
    assert terms.whole == {"SpecWorker", "DraftWorker", "SpecAlgorithm"}
    assert "no sglang found" in terms.notes[0]


def test_the_release_keywords_are_the_constructor_calls() -> None:
    terms = release_terms(contract("0.5.20", spec_members("0.5.20"), constructor=("server_args", "ps"), factory=("ps",)))
    assert terms.constructor_keywords == ("server_args", "ps")
    assert terms.draft_factory_keywords == ("ps",)


# -- inherited needs ---------------------------------------------------------------

WEIGHT_UPDATE = needs("weight_update_runners", use("draft_runners", receiver="draft_worker"), relies_on=("draft_worker",))
DISPATCH = needs(
    "_draft_model_runners",
    use("model_runner", "algorithm", receiver="draft_worker"),
    use("draft_runners", receiver="draft_worker"),
    relies_on=("draft_worker",),
)
VIA_DISPATCH = needs("primary_draft_kv_pool", relies_on=("_draft_model_runners",))
CHAINED = needs("init_hicache_draft_plan", relies_on=("_helper",))
HELPER = needs("_helper", use("draft_runners", receiver="draft_worker"))


#: A built-in worker of the synthetic release (create_worker returns it), and a plugin's.
DFLASH = BuiltInWorker("sglang.srt.speculative.dflash_worker_v2", "DFlashWorkerV2", SITE)
PLUGIN = "plugin.W"


def terms_with(*defaults: DefaultNeeds) -> ReleaseTerms:
    return release_terms(contract("0.5.23", spec_members("0.5.23"), defaults=(*DRAFT_NEEDS, *defaults), built_in=(DFLASH,)))


def found_needs(found: tuple[DraftNeed, ...]) -> set[tuple[str, str]]:
    return {(n.default, n.member) for n in found}


def test_a_kept_default_passes_its_needs_on() -> None:
    found = kept_default_needs(terms_with(WEIGHT_UPDATE), frozenset({"forward_batch_generation"}), PLUGIN)
    assert ("weight_update_runners", "draft_runners") in found_needs(found)


def test_an_overridden_default_does_not() -> None:
    found = kept_default_needs(terms_with(WEIGHT_UPDATE), frozenset({"weight_update_runners"}), PLUGIN)
    assert "draft_runners" not in {n.member for n in found}


def test_needs_reach_through_the_defaults_a_default_relies_on() -> None:
    found = kept_default_needs(terms_with(CHAINED, HELPER), frozenset(), PLUGIN)
    (need,) = [n for n in found if n.default == "init_hicache_draft_plan"]
    assert need.member == "draft_runners" and need.via == ("init_hicache_draft_plan", "_helper")
    # ...unless the worker overrides the default in between.
    chained = kept_default_needs(terms_with(CHAINED, HELPER), frozenset({"_helper"}), PLUGIN)
    assert not [n for n in chained if n.default == "init_hicache_draft_plan"]


def test_a_plugin_worker_takes_the_fall_through_path_of_a_default_that_dispatches_on_the_algorithm() -> None:
    """sglang 0.5.23: a plugin's CustomSpecAlgo answers False to is_dflash_family(), so
    _draft_model_runners returns tuple(draft_worker.draft_runners): primary_draft_kv_pool,
    read at every start, raises AttributeError on a TpModelWorker draft."""
    found = kept_default_needs(terms_with(DISPATCH, VIA_DISPATCH), frozenset(), PLUGIN)
    (need,) = [n for n in found if n.default == "primary_draft_kv_pool"]
    assert need.member == "draft_runners" and need.via == ("primary_draft_kv_pool", "_draft_model_runners")
    # The use under the predicate (the DFlash family's model_runner) is not its need.
    assert ("primary_draft_kv_pool", "model_runner") not in found_needs(found)
    # Overriding the kept default, or the dispatching default it goes through, resolves it.
    for overridden in ("primary_draft_kv_pool", "_draft_model_runners"):
        kept = kept_default_needs(terms_with(DISPATCH, VIA_DISPATCH), frozenset({overridden}), PLUGIN)
        assert not [n for n in kept if n.default == "primary_draft_kv_pool"], overridden


def test_a_built_in_worker_is_not_followed_into_a_default_that_dispatches_on_the_algorithm() -> None:
    """DFlashWorkerV2 takes the DFlash family's branch (draft_worker.model_runner), which
    the gate does not evaluate: it keeps the conservative rule. In-tree is the class
    create_worker returns, by module and name: a plugin's class of the same name is not."""
    terms = terms_with(DISPATCH, VIA_DISPATCH)
    assert not [n for n in kept_default_needs(terms, frozenset(), DFLASH.dotted) if n.default == "primary_draft_kv_pool"]
    namesake = kept_default_needs(terms, frozenset(), "plugin.DFlashWorkerV2")
    assert ("primary_draft_kv_pool", "draft_runners") in found_needs(namesake)


def test_a_default_reached_only_under_an_algorithm_predicate_is_not_a_plugin_workers_need() -> None:
    """``if spec_algorithm.is_dspark(): self._helper()``: a plugin's algorithm never gets there."""
    guarded = needs("init_hicache_draft_plan", relies_on=("_helper",), relies_on_algorithm=("_helper",))
    terms = terms_with(guarded, HELPER)
    assert not [n for n in kept_default_needs(terms, frozenset(), PLUGIN) if n.default == "init_hicache_draft_plan"]
    # A built-in worker keeps the rule it had: every default relied on is followed.
    assert [n for n in kept_default_needs(terms, frozenset(), DFLASH.dotted) if n.default == "init_hicache_draft_plan"]


# -- the harness on terms -------------------------------------------------------------


def worker(*roles: ClassRole, overrides: frozenset[str] | None = frozenset(), bases: tuple[str, ...] = (BASE,)) -> DiscoveredClass:
    return DiscoveredClass("plugin", "W", Path("plugin.py"), 1, frozenset(roles), bases=bases, overrides=overrides)


def kinds(terms: ReleaseTerms, cls: DiscoveredClass) -> dict[LineKind, list[str]]:
    harness = build_harness([cls], terms=terms)
    lines = harness.text.splitlines()
    found: dict[LineKind, list[str]] = {}
    for number, tag in harness.tags.items():
        found.setdefault(tag.kind, []).append(lines[number - 1].strip())
    return found


def test_no_whole_protocol_line_when_the_release_requires_less() -> None:
    called = [m for m in spec_members("0.5.23") if m != "clear_cache_pool"]
    lines = kinds(release_terms(contract("0.5.23", called)), worker(ClassRole.SPEC_WORKER))
    assert LineKind.PROTOCOL not in lines
    assert not [line for line in lines[LineKind.MEMBER] if line.endswith(".clear_cache_pool")]


def test_presence_lines_for_a_member_no_protocol_defines() -> None:
    terms = release_terms(contract("0.6.0", [*spec_members(None), "brand_new_hook"]))
    lines = kinds(terms, worker(ClassRole.SPEC_WORKER))
    assert lines[LineKind.MEMBER_PRESENT] == ["w.brand_new_hook"]


def test_the_constructor_takes_the_release_keywords_and_unknown_ones_are_any() -> None:
    terms = release_terms(contract("0.5.20", spec_members("0.5.20"), constructor=("server_args", "gpu_id", "ps", "nccl_port", "target_worker")))
    lines = kinds(terms, worker(ClassRole.SPEC_WORKER))
    signature, call = lines[LineKind.CONSTRUCTOR]
    assert "ps: Any" in signature and "ps=ps" in call


def test_the_factory_line_only_with_the_factory_protocols_keywords() -> None:
    injected = worker(ClassRole.INJECTED, ClassRole.DRAFT_WORKER, bases=())
    assert LineKind.FACTORY in kinds(release_terms(contract("0.5.23", spec_members("0.5.23"))), injected)
    old = release_terms(contract("0.5.20", spec_members("0.5.20"), factory=("server_args", "gpu_id", "ps")))
    lines = kinds(old, injected)
    assert LineKind.FACTORY not in lines
    assert lines[LineKind.CONSTRUCTOR][1].startswith("_b: InjectableDraftWorker = ")


def test_needs_lines_for_a_base_spec_worker_subclass_that_keeps_the_default() -> None:
    terms = terms_with(WEIGHT_UPDATE)
    lines = kinds(terms, worker(ClassRole.SPEC_WORKER))
    assert lines[LineKind.NEEDS][0] == "_dw = w._draft_worker"
    assert "_dw.draft_runners" in lines[LineKind.NEEDS]
    assert lines[LineKind.NEEDS_ANY] == ["_dw_any: _Canary = _dw"]
    # It defines draft_worker itself: the defaults read that.
    assert kinds(terms, worker(ClassRole.SPEC_WORKER, overrides=frozenset({"draft_worker"})))[LineKind.NEEDS][0] == "_dw = w.draft_worker"


@pytest.mark.parametrize(
    "cls",
    [
        worker(ClassRole.SPEC_WORKER, overrides=frozenset({"weight_update_runners", *(m.name for m in protocol_definitions("DraftWorker"))})),
        worker(ClassRole.SPEC_WORKER, overrides=None),  # a base that could not be read
        worker(ClassRole.SPEC_WORKER, bases=("spec_protocols._base.SpecWorkerBase",)),  # its own defaults
    ],
    ids=["overrides-every-default", "unreadable-base", "on-SpecWorkerBase"],
)
def test_no_needs_lines_when_nothing_is_inherited_or_nothing_is_known(cls: DiscoveredClass) -> None:
    assert LineKind.NEEDS not in kinds(terms_with(WEIGHT_UPDATE), cls)


def test_a_needs_line_through_a_dispatching_default_says_what_to_override() -> None:
    """The author is told which kept default reads which member of the draft
    worker, through which default, and that overriding either resolves it."""
    harness = build_harness([worker(ClassRole.SPEC_WORKER)], terms=terms_with(DISPATCH, VIA_DISPATCH))
    lines = harness.text.splitlines()
    (tag,) = [t for n, t in harness.tags.items() if t.kind is LineKind.NEEDS and t.member == "primary_draft_kv_pool"]
    assert tag.need == (
        "inherits BaseSpecWorker.primary_draft_kv_pool, which uses draft_worker.draft_runners (through "
        "_draft_model_runners); override primary_draft_kv_pool (or _draft_model_runners), or give the draft "
        "worker draft_runners"
    )
    assert "_dw.draft_runners" in {lines[n - 1].strip().rpartition(" = ")[2] for n, t in harness.tags.items() if t is tag}
    # The class create_worker returns (its module and name) keeps the rule it had.
    built_in = DiscoveredClass(
        DFLASH.module, DFLASH.name, Path("dflash_worker_v2.py"), 1, frozenset({ClassRole.SPEC_WORKER}), bases=(BASE,),
        overrides=frozenset(),
    )
    tags = build_harness([built_in], terms=terms_with(DISPATCH, VIA_DISPATCH)).tags.values()
    assert not [t for t in tags if t.kind is LineKind.NEEDS and t.member == "primary_draft_kv_pool"]
