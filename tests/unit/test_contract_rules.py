"""The extractor's rules, one at a time, on small synthetic sglang trees.

Each test writes a fake release (``sglang/srt/managers/scheduler.py`` and the
few speculative modules the extractor reads) to ``tmp_path`` and checks one
rule of :mod:`spec_protocols.gate._contract._extract`: receivers and aliases,
each classification, call shapes and conditional ``**kwargs`` keys, the
constructor, ``build_draft_tp_worker`` and ``BaseSpecWorker``'s defaults. The
release is made up (``9.9.9``): nothing here depends on a real sglang.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from spec_protocols.gate._contract import Contract, Use, contract_json, extract_contract, source_at
from spec_protocols.gate._model import GateError

SPEC_INFO = """\
import enum


class SpeculativeAlgorithm(enum.Enum):
    EAGLE = enum.auto()
    DSPARK = enum.auto()
    NGRAM = enum.auto()
    NONE = enum.auto()

    @classmethod
    def from_string(cls, name):
        return cls[name.upper()] if name else cls.NONE

    def is_none(self):
        return self == SpeculativeAlgorithm.NONE

    def is_some(self):
        return self != SpeculativeAlgorithm.NONE

    def is_eagle(self):
        return self == SpeculativeAlgorithm.EAGLE

    def is_dspark(self):
        return self == SpeculativeAlgorithm.DSPARK

    def is_ngram(self):
        return self == SpeculativeAlgorithm.NGRAM

    def has_draft_kv(self):
        return not self.is_ngram()

    def supports_grammar_overlap(self):
        return self.is_eagle() or self.is_dspark()

    def create_worker(self, server_args):
        return None
"""

BASE_SPEC_WORKER = """\
from abc import ABC, abstractmethod


class BaseSpecWorker(ABC):
    _plan = None

    def __init__(self):
        self._extra = {}

    @property
    def target_worker(self):
        return self._target_worker

    @property
    def draft_worker(self):
        return self._draft_worker

    def weight_update_runners(self):
        if self.draft_worker is None:
            return []
        return [("draft", r) for r in self.draft_worker.draft_runners]

    def _draft_model_runners(self):
        spec_algorithm = self.target_worker.model_runner.spec_algorithm
        draft_worker = self.draft_worker
        if draft_worker is None or spec_algorithm.is_ngram():
            return ()
        if spec_algorithm.is_dspark():
            return (draft_worker.model_runner,)
        return tuple(draft_worker.draft_runners)

    @property
    def primary_draft_kv_pool(self):
        runners = self._draft_model_runners()
        return runners[0].token_to_kv_pool if runners else None

    @property
    def plan(self):
        return self._plan

    @property
    def graph_memory_usage(self):
        if self.draft_worker is None:
            return self._extra
        return self.draft_worker.graph_memory_usage

    def init_cuda_graphs(self):
        if getattr(self.draft_worker, "cuda_graphs", None) is not None:
            self.draft_worker.init_cuda_graphs(capture=False)

    @abstractmethod
    def forward_batch_generation(self, batch):
        ...
"""

DRAFT_COMMON_INJECTED = """\
def build_draft_tp_worker(*, server_args, gpu_id, draft_worker_cls=None, random_seed=None):
    extra = dict(random_seed=random_seed)
    if server_args.load_group:
        extra["load_group"] = server_args.load_group
    with scope():
        draft_worker = draft_worker_cls(
            server_args=server_args,
            gpu_id=gpu_id,
            is_draft_worker=True,
            **extra,
        )
    runner = draft_worker.model_runner
    draft_worker.draft_runner = runner
    draft_worker.warm_up(1, fast=True)
    return draft_worker
"""

DRAFT_COMMON_BUILT_IN = """\
from sglang.srt.managers.tp_worker import TpModelWorker


def build_draft_tp_worker(*, server_args, gpu_id, ps):
    draft_worker = TpModelWorker(server_args=server_args, gpu_id=gpu_id, ps=ps, is_draft_worker=True)
    runner = draft_worker.model_runner
    draft_worker.draft_runner = runner
    return draft_worker
"""

SCHEDULER_HEAD = """\
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm


class Scheduler:
"""


def write_tree(root: Path, scheduler_body: str, files: dict[str, str] | None = None) -> Path:
    """A fake sglang release under ``root``; ``scheduler_body`` is the body of
    ``class Scheduler`` (methods), ``files`` more modules by path below ``sglang/``."""
    defaults = {
        "version.py": '__version__ = "9.9.9"\n',
        "__init__.py": "",
        "srt/speculative/spec_info.py": SPEC_INFO,
        "srt/speculative/base_spec_worker.py": BASE_SPEC_WORKER,
        "srt/speculative/draft_worker_common.py": DRAFT_COMMON_INJECTED,
        "srt/managers/scheduler.py": SCHEDULER_HEAD + textwrap.indent(textwrap.dedent(scheduler_body), "    "),
    }
    defaults.update(files or {})
    for relative, text in defaults.items():
        path = root / "sglang" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if relative != "srt/managers/scheduler.py" else text, encoding="utf-8")
    return root


def contract_of(tmp_path: Path, scheduler_body: str, files: dict[str, str] | None = None) -> Contract:
    return extract_contract(source_at(write_tree(tmp_path, scheduler_body, files)))


def uses(contract: Contract, member: str, receiver: str = "spec_worker") -> list[Use]:
    return [u for u in contract.spec_worker if u.member == member and u.receiver == receiver]


def only(contract: Contract, member: str, receiver: str = "spec_worker") -> Use:
    found = uses(contract, member, receiver)
    assert len(found) == 1, (member, found)
    return found[0]


def classes(contract: Contract) -> dict[str, str]:
    """member -> classification, for members used once."""
    return {u.member: u.classification for u in contract.spec_worker if u.receiver == "spec_worker"}


# -- receivers and kinds ----------------------------------------------------------------------


def test_a_required_call_is_located_with_its_shape(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def init_memory_pools(self):
            if self.draft_worker is not None:
                self.draft_worker.alloc_memory_pool(pool, allocator, memory_pool_config=cfg, flag=True)
        """,
    )
    use = only(contract, "alloc_memory_pool")
    assert use.classification == "required" and use.kind == "call"
    assert (use.positional, use.keywords, use.conditional_keywords) == (2, ("memory_pool_config", "flag"), ())
    assert use.site.file == "managers/scheduler.py"
    assert use.site.function == "Scheduler.init_memory_pools"
    assert use.site.line == 8  # the class starts at line 4 of the generated file
    assert contract.release == "9.9.9"
    assert contract.required_members() == {"alloc_memory_pool"}


def test_reads_writes_and_calls_are_told_apart(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def step(self):
            x = self.draft_worker.weight_load_time
            self.draft_worker.device_timer = x
            self.draft_worker.counter += 1
            self.model_worker.model_runner.weight_exporter.save(url)
        """,
    )
    assert only(contract, "weight_load_time").kind == "read"
    assert only(contract, "device_timer").kind == "write"
    assert only(contract, "counter").kind == "write"
    # A chain records the member of the worker, not what is done with it.
    assert only(contract, "model_runner").kind == "read"
    assert not uses(contract, "weight_exporter") and not uses(contract, "save")


def test_local_aliases_are_receivers(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def a(self):
            w = self.draft_worker
            w.via_alias()

        def b(self, recv_req):
            if recv_req.disable_draft_model:
                worker = self.tp_worker
            else:
                worker = self.draft_worker or self.tp_worker
            worker.update_weights_from_tensor(recv_req)

        def c(self):
            if (m := self.model_worker) is not None:
                m.via_walrus()

        def d(self):
            first = self.draft_worker
            second = first
            second.via_chain()

        def e(self):
            plain = self.tp_worker
            plain.not_the_spec_worker()
        """,
    )
    for member in ("via_alias", "update_weights_from_tensor", "via_walrus", "via_chain"):
        assert only(contract, member).classification == "required", member
    assert only(contract, "update_weights_from_tensor").positional == 1
    assert not uses(contract, "not_the_spec_worker")


def test_a_scheduler_held_by_a_component_and_its_aliases(tmp_path: Path) -> None:
    component = """\
    class SchedulerNewComponent:
        def __init__(self, scheduler):
            self.scheduler = scheduler

        def report(self):
            sched = self.scheduler
            draft = sched.draft_worker
            if draft is None:
                return
            draft.brand_new_member()

        def other(self, scheduler):
            scheduler.model_worker.through_parameter()
    """
    contract = contract_of(
        tmp_path,
        "def init(self):\n    self.component = SchedulerNewComponent(self)\n",
        {"srt/managers/scheduler_components/new_component.py": component},
    )
    use = only(contract, "brand_new_member")
    assert use.classification == "required"
    assert use.site.file == "managers/scheduler_components/new_component.py"
    assert use.site.function == "SchedulerNewComponent.report"
    assert only(contract, "through_parameter").classification == "required"


def test_a_worker_class_in_managers_is_not_the_scheduler(tmp_path: Path) -> None:
    tp_worker = """\
    class BaseTpWorker:
        pass


    class MyTpWorker(BaseTpWorker):
        def run(self):
            self.draft_worker.its_own_draft()
    """
    contract = contract_of(
        tmp_path,
        "def run(self):\n    self.draft_worker.forward_batch_generation(batch)\n",
        {"srt/managers/tp_worker.py": tp_worker},
    )
    assert not uses(contract, "its_own_draft")


def test_a_helper_that_receives_the_worker_is_followed(tmp_path: Path) -> None:
    helpers = """\
    def poke(worker, *, loudly=False):
        runner = getattr(worker, "draft_model_runner", None)
        worker.poked()
        return runner
    """
    tracker = """\
    class Tracker:
        def __init__(self, worker, send):
            self._worker = worker

        def check(self):
            self._worker.commit_corpus_load(1, 2)

        def add(self, req):
            def _build():
                self._worker.add_external_corpus(req.id)
            return _build
    """
    contract = contract_of(
        tmp_path,
        """
        def check_weights(self):
            if self.draft_worker is not None:
                from sglang.srt.foo.helpers import poke

                poke(self.draft_worker, loudly=True)

        def init(self):
            if self.spec_algorithm.is_ngram():
                from sglang.srt.speculative.tracker import Tracker

                self.tracker = Tracker(self.draft_worker, self.send)
        """,
        {"srt/foo/helpers.py": helpers, "srt/speculative/tracker.py": tracker},
    )
    poked = only(contract, "poked")
    assert (poked.classification, poked.site.file, poked.site.function) == ("required", "foo/helpers.py", "poke")
    assert only(contract, "draft_model_runner").classification == "guarded"
    commit = only(contract, "commit_corpus_load")
    assert commit.classification == "algorithm" and commit.positional == 2
    assert "is_ngram" in commit.reason and "Tracker" in commit.reason
    nested = only(contract, "add_external_corpus")
    assert nested.site.function == "Tracker.add._build" and nested.classification == "algorithm"


# -- classifications --------------------------------------------------------------------------


def test_getattr_and_hasattr(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def init_overlap(self):
            backends = getattr(self.draft_worker, "spec_v2_attn_backends", ())
            steps = getattr(self.draft_worker, "needed_anyway")
            if hasattr(self.draft_worker, "maybe"):
                self.draft_worker.maybe()
                self.draft_worker.not_checked()
            release = getattr(self.model_worker, "prepare_for_kv_cache_release", None)
        """,
    )
    assert only(contract, "spec_v2_attn_backends").classification == "guarded"
    assert only(contract, "prepare_for_kv_cache_release").classification == "guarded"
    assert only(contract, "needed_anyway").classification == "required"  # no default: it must exist
    maybe = uses(contract, "maybe")
    assert {(u.kind, u.classification) for u in maybe} == {("read", "guarded"), ("call", "guarded")}
    assert only(contract, "not_checked").classification == "required"  # hasattr guards only its own name


def test_algorithm_predicates(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def a(self):
            if self.spec_algorithm.is_dspark():
                self.draft_worker.dump_info_records()
            if not self.spec_algorithm.is_ngram():
                self.draft_worker.all_but_ngram()
            if self.spec_algorithm.has_draft_kv():
                self.draft_worker.negated_predicate()
            if not self.spec_algorithm.has_draft_kv():
                self.draft_worker.ngram_only()
            if self.spec_algorithm.is_some():
                self.draft_worker.speculative_mode()
            if self.spec_algorithm.carries_something_new():
                self.draft_worker.unknown_predicate()
            if self.enable_overlap and self.spec_algorithm.supports_grammar_overlap():
                self.draft_worker.grammar()

        def b(self):
            if not self.spec_algorithm.is_eagle():
                return
            self.draft_worker.after_early_exit()

        def c(self):
            x = self.draft_worker.eagle_only() if self.scheduler.spec_algorithm.is_eagle() else None
        """,
    )
    assert classes(contract) == {
        "dump_info_records": "algorithm",
        "all_but_ngram": "required",
        "negated_predicate": "required",
        "ngram_only": "algorithm",
        "speculative_mode": "required",
        "unknown_predicate": "algorithm",
        "grammar": "algorithm",
        "after_early_exit": "algorithm",
        "eagle_only": "algorithm",
    }
    assert "is_dspark" in only(contract, "dump_info_records").reason


def test_comparisons_and_properties_of_the_algorithm(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        @property
        def uses_relay(self):
            if self.spec_algorithm.is_dspark():
                return True
            return False

        def a(self):
            if self.spec_algorithm == SpeculativeAlgorithm.EAGLE:
                self.draft_worker.eq_eagle()
            if self.spec_algorithm in (SpeculativeAlgorithm.EAGLE, SpeculativeAlgorithm.DSPARK):
                self.draft_worker.in_tuple()
            if self.spec_algorithm != SpeculativeAlgorithm.NGRAM:
                self.draft_worker.not_ngram()
            if self.server_args.speculative_algorithm is None:
                self.model_worker.no_spec()
            if self.uses_relay:
                self.draft_worker.relay()
        """,
    )
    assert classes(contract) == {"eq_eagle": "algorithm", "in_tuple": "algorithm", "not_ngram": "required", "relay": "algorithm"}
    assert "uses_relay" in only(contract, "relay").reason


def test_a_predicate_function_that_implies_an_algorithm(tmp_path: Path) -> None:
    overlap_utils = """\
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm


    def decide_needs_relay(server_args) -> bool:
        algo = SpeculativeAlgorithm.from_string(server_args.speculative_algorithm)
        if not algo.is_dspark():
            return False
        return server_args.relay_mode != "static"


    def decide_needs_cpu_lens(backends) -> bool:
        return any(b.needs_cpu for b in backends)
    """
    contract = contract_of(
        tmp_path,
        """
        def init_overlap(self):
            from sglang.srt.managers.overlap_utils import decide_needs_cpu_lens, decide_needs_relay

            needs_relay = decide_needs_relay(self.server_args)
            if needs_relay and self.enable_overlap and self.draft_worker is not None:
                self.draft_worker.get_confidence_budget_prepare()
            if decide_needs_cpu_lens(self.backends):
                self.draft_worker.cpu_lens()
        """,
        {"srt/managers/overlap_utils.py": overlap_utils},
    )
    budget = only(contract, "get_confidence_budget_prepare")
    assert budget.classification == "algorithm"
    assert "decide_needs_relay" in budget.reason and "is_dspark" in budget.reason
    assert only(contract, "cpu_lens").classification == "required"


def test_isinstance_and_private(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def finish(self, req):
            if isinstance(self.draft_worker, BaseSpecWorker):
                if req.finished():
                    self.draft_worker.note_request_finished(rid=req.rid, natural_stop=True)
            runners = self.draft_worker._draft_model_runners() if self.draft_worker is not None else ()
        """,
    )
    note = only(contract, "note_request_finished")
    assert (note.classification, note.keywords) == ("isinstance", ("rid", "natural_stop"))
    assert "isinstance(self.draft_worker, BaseSpecWorker)" in note.reason
    assert only(contract, "_draft_model_runners").classification == "private"


def test_non_speculative_uses_of_model_worker_are_dropped(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def init_model_worker(self):
            if self.spec_algorithm.is_none():
                self.model_worker = self.tp_worker
                self.model_worker.plain_only()
            else:
                self.model_worker = self.draft_worker
                self.model_worker.spec_only()

        def run_batch(self, batch):
            if not batch.spec_algorithm.is_none():
                self.model_worker.forward_spec(batch)
            else:
                # a batch without speculation in a speculative server still uses the spec worker
                self.model_worker.forward_plain(batch)
            if not self.spec_algorithm.is_some():
                self.model_worker.never_speculative()
        """,
    )
    assert not uses(contract, "plain_only") and not uses(contract, "never_speculative")
    assert classes(contract) == {"spec_only": "required", "forward_spec": "required", "forward_plain": "required"}


def test_a_member_validated_for_one_algorithm_is_that_algorithms_business(tmp_path: Path) -> None:
    internal_state = """\
    class SchedulerInternalStateController:
        def __init__(self, scheduler):
            self.scheduler = scheduler

        def _validate_frac(self, key, value):
            self._require_worker(key, "set_forced_budget_frac")

        def _apply_frac(self, key, value):
            self.scheduler.draft_worker.set_forced_budget_frac(float(value))

        def _require_worker(self, key, command):
            if not self.scheduler.spec_algorithm.is_dspark() or not hasattr(self.scheduler.draft_worker, command):
                raise ValueError(key)

        def _unrelated(self):
            self.scheduler.draft_worker.clear_cache_pool()
    """
    contract = contract_of(
        tmp_path,
        "def flush(self):\n    self.draft_worker.set_forced_budget_frac(None)\n",
        {"srt/managers/scheduler_components/internal_state.py": internal_state},
    )
    found = {(u.site.function, u.kind): u for u in uses(contract, "set_forced_budget_frac")}
    check = found[("SchedulerInternalStateController._require_worker", "read")]
    assert check.classification == "algorithm" and "is_dspark" in check.reason
    applied = found[("SchedulerInternalStateController._apply_frac", "call")]
    assert applied.classification == "algorithm" and "validated" in applied.reason
    # The validation covers its own class only: the scheduler's call stays required.
    assert found[("Scheduler.flush", "call")].classification == "required"
    assert only(contract, "clear_cache_pool").classification == "required"


def test_the_spec_workers_own_draft_worker_is_another_receiver(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def install_timer(self, timer):
            if self.draft_worker is not None:
                dw = getattr(self.draft_worker, "draft_worker", None)
                if dw is not None:
                    if hasattr(dw, "draft_runner"):
                        dw.draft_runner.device_timer = timer
                    for r in getattr(dw, "draft_runner_list", []):
                        r.device_timer = timer

        def init_disaggregation(self):
            schema = self.draft_worker.draft_worker.inner_member
        """,
    )
    outer = {u.site.function: u.classification for u in uses(contract, "draft_worker")}
    assert outer == {"Scheduler.install_timer": "guarded", "Scheduler.init_disaggregation": "required"}
    inner = uses(contract, "draft_runner", "spec_worker.draft_worker")
    assert {u.classification for u in inner} == {"guarded"}
    assert only(contract, "draft_runner_list", "spec_worker.draft_worker").classification == "guarded"
    assert only(contract, "inner_member", "spec_worker.draft_worker").classification == "required"
    # The inner draft worker's members are not the spec worker's.
    assert contract.required_members() == {"draft_worker"}


# -- call shapes and **kwargs -----------------------------------------------------------------


def test_keywords_of_a_kwargs_dict(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def run_batch(self, batch):
            if self.enable_overlap:
                fwd_kwargs = {}
                if not batch.spec_algorithm.is_none():
                    fwd_kwargs["on_publish"] = self.publish
                    if batch.spec_algorithm.supports_grammar_overlap():
                        fwd_kwargs["grammar_barrier"] = self.barrier
                self.model_worker.forward_batch_generation(batch, **fwd_kwargs)
            else:
                kwargs = {"pp_proxy_tensors": tensors} if self.spec_algorithm.is_none() else {}
                self.model_worker.forward_batch_generation(batch, **kwargs)

        def other(self, batch):
            d = dict(a=1)
            d["c"] = 3
            if self.debug:
                d.update(b=2)
            d.setdefault("e", 5)
            self.draft_worker.shaped(**d, f=6)
            self.draft_worker.opaque(**self.options)
        """,
    )
    overlap, plain = sorted(uses(contract, "forward_batch_generation"), key=lambda u: u.site.line)
    assert (overlap.positional, overlap.keywords, overlap.conditional_keywords) == (1, ("on_publish",), ("grammar_barrier",))
    assert (plain.positional, plain.keywords, plain.conditional_keywords) == (1, (), ())
    shaped = only(contract, "shaped")
    assert (shaped.keywords, shaped.conditional_keywords) == (("a", "c", "e", "f"), ("b",))
    assert only(contract, "opaque").keywords == ("**self.options",)


def test_the_constructor_call(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def maybe_init_draft_worker(self):
            if self.spec_algorithm.is_none():
                self.draft_worker = None
                return
            draft_worker_kwargs = dict(
                server_args=self.server_args,
                gpu_id=self.gpu_id,
                nccl_port=self.nccl_port,
                target_worker=self.tp_worker,
            )
            if self.pp_enabled:
                draft_worker_kwargs["pp_group"] = self.pp_group
            DraftWorkerClass = self.spec_algorithm.create_worker(self.server_args)
            self.draft_worker = DraftWorkerClass(**draft_worker_kwargs)

        def run(self, batch):
            self.model_worker.forward_batch_generation(batch)
        """,
    )
    # Every keyword a spec worker may be constructed with (pp_group only under a condition).
    assert contract.constructor_keywords == ("server_args", "gpu_id", "nccl_port", "target_worker", "pp_group")
    assert contract.constructor_site is not None
    assert contract.constructor_site.function == "Scheduler.maybe_init_draft_worker"


def test_build_draft_tp_worker_with_an_injection_point(tmp_path: Path) -> None:
    contract = contract_of(tmp_path, "def run(self):\n    self.draft_worker.forward_batch_generation(batch)\n")
    assert contract.draft_factory_keywords == ("server_args", "gpu_id", "is_draft_worker", "random_seed", "load_group")
    assert contract.draft_factory_site is not None
    assert contract.draft_factory_site.file == "speculative/draft_worker_common.py"
    assert [(u.member, u.kind, u.receiver) for u in contract.built_draft] == [
        ("model_runner", "read", "built_draft"),
        ("draft_runner", "write", "built_draft"),
        ("warm_up", "call", "built_draft"),
    ]
    assert (contract.built_draft[2].positional, contract.built_draft[2].keywords) == (1, ("fast",))


def test_build_draft_tp_worker_behind_overloads_is_read_from_its_implementation(tmp_path: Path) -> None:
    # A typed build_draft_tp_worker (the integration series' 0002) declares
    # @overload signatures first; the first has no draft_worker_cls.
    overloads = (
        "from typing import overload\n\n\n"
        "@overload\ndef build_draft_tp_worker(*, server_args, gpu_id): ...\n\n\n"
        "@overload\ndef build_draft_tp_worker(*, server_args, gpu_id, draft_worker_cls): ...\n\n\n"
    )
    contract = contract_of(
        tmp_path,
        "def run(self):\n    self.draft_worker.forward_batch_generation(batch)\n",
        {"srt/speculative/draft_worker_common.py": overloads + DRAFT_COMMON_INJECTED},
    )
    assert contract.draft_factory_keywords == ("server_args", "gpu_id", "is_draft_worker", "random_seed", "load_group")
    assert [u.member for u in contract.built_draft] == ["model_runner", "draft_runner", "warm_up"]


def test_build_draft_tp_worker_without_an_injection_point(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        "def run(self):\n    self.draft_worker.forward_batch_generation(batch)\n",
        {"srt/speculative/draft_worker_common.py": DRAFT_COMMON_BUILT_IN},
    )
    assert contract.draft_factory_keywords is None and contract.draft_factory_site is None
    # What it does with the TpModelWorker it builds itself.
    assert [(u.member, u.kind) for u in contract.built_draft] == [("model_runner", "read"), ("draft_runner", "write")]


# -- BaseSpecWorker's defaults ------------------------------------------------------------------


def test_base_spec_worker_defaults(tmp_path: Path) -> None:
    contract = contract_of(tmp_path, "def run(self):\n    self.draft_worker.forward_batch_generation(batch)\n")
    assert contract.default("forward_batch_generation") is None  # abstract: not a default

    def needs(method: str) -> set[tuple[str, str, str]]:
        default = contract.default(method)
        assert default is not None, method
        return {(u.receiver, u.member, u.classification) for u in default.needs}

    assert needs("draft_worker") == {("self", "_draft_worker", "private")}
    assert needs("target_worker") == {("self", "_target_worker", "private")}
    draft = contract.default("draft_worker")
    assert draft is not None and "never assigned" in draft.needs[0].reason
    assert needs("weight_update_runners") == {("draft_worker", "draft_runners", "required")}
    assert needs("_draft_model_runners") == {
        ("target_worker", "model_runner", "required"),
        ("draft_worker", "model_runner", "algorithm"),
        ("draft_worker", "draft_runners", "required"),
    }
    primary = contract.default("primary_draft_kv_pool")
    assert primary is not None and primary.relies_on == ("_draft_model_runners",) and primary.needs == ()
    weights = contract.default("weight_update_runners")
    assert weights is not None and weights.relies_on == ("draft_worker",)
    plan = contract.default("plan")
    assert plan is not None and "class attribute" in plan.needs[0].reason
    usage = contract.default("graph_memory_usage")
    assert usage is not None and "set by BaseSpecWorker.__init__" in {u.reason for u in usage.needs if u.receiver == "self"}
    graphs = contract.default("init_cuda_graphs")
    assert graphs is not None
    assert {(u.member, u.classification) for u in graphs.needs} == {("cuda_graphs", "guarded"), ("init_cuda_graphs", "required")}


def test_a_default_reached_only_under_an_algorithm_predicate(tmp_path: Path) -> None:
    """A plugin's algorithm answers False to every built-in predicate: a default
    relied on only under one is not on its path; one relied on anywhere else is."""
    base = BASE_SPEC_WORKER.replace(
        "    @property\n    def plan(self):\n        return self._plan\n",
        "    @property\n    def plan(self):\n"
        "        if self.target_worker.model_runner.spec_algorithm.is_dspark():\n"
        "            return self._draft_model_runners()\n"
        "        if self.target_worker.model_runner.spec_algorithm.has_draft_kv():\n"
        "            return self.weight_update_runners()\n"
        "        return self._plan\n",
    )
    assert base != BASE_SPEC_WORKER
    contract = contract_of(
        tmp_path,
        "def run(self):\n    self.draft_worker.forward_batch_generation(batch)\n",
        {"srt/speculative/base_spec_worker.py": base},
    )
    plan = contract.default("plan")
    assert plan is not None
    assert plan.relies_on == ("target_worker", "_draft_model_runners", "weight_update_runners")
    # has_draft_kv() is negated (not is_ngram()): the general path, as its uses are.
    assert plan.relies_on_algorithm == ("_draft_model_runners",)
    primary = contract.default("primary_draft_kv_pool")
    assert primary is not None and primary.relies_on_algorithm == ()


# -- the built-in workers -----------------------------------------------------------------------

SPEC_INFO_CREATING = SPEC_INFO.replace(
    """    def create_worker(self, server_args):
        return None
""",
    """    def create_worker(self, server_args):
        platform_worker_cls = current_platform.get_speculative_worker_cls(algorithm=self.name)
        if platform_worker_cls is not None:
            return platform_worker_cls
        if self.is_dspark():
            from sglang.srt.speculative.dspark_components import (
                DSparkWorkerV2,
            )

            return DSparkWorkerV2
        if self.is_eagle():
            from .eagle_worker_v2 import EAGLEWorkerV2, MultiLayerEagleWorkerV2 as Multi

            return Multi if server_args.enable_multi_layer_eagle else EAGLEWorkerV2
        elif self.is_ngram():
            return NGRAMWorker
        raise ValueError("Unreachable code path in create_worker.")
""",
)

CREATED_MODULES = {
    "srt/speculative/spec_info.py": "from sglang.srt.platforms import current_platform\n"
    "from sglang.srt.speculative.ngram_worker import NGRAMWorker\n\n\n" + SPEC_INFO_CREATING,
    # A package that re-exports its worker: the class is named by its defining module.
    "srt/speculative/dspark_components/__init__.py": "from .dspark_worker_v2 import DSparkWorkerV2\n",
    "srt/speculative/dspark_components/dspark_worker_v2.py": "class DSparkWorkerV2:\n    pass\n",
    "srt/speculative/eagle_worker_v2.py": "class EAGLEWorkerV2:\n    pass\n\n\nclass MultiLayerEagleWorkerV2:\n    pass\n",
    "srt/speculative/ngram_worker.py": "class NGRAMWorker:\n    pass\n",
}


def test_the_workers_create_worker_returns(tmp_path: Path) -> None:
    assert SPEC_INFO_CREATING != SPEC_INFO
    contract = contract_of(tmp_path, "def run(self):\n    self.draft_worker.forward_batch_generation(batch)\n", CREATED_MODULES)
    assert [w.dotted for w in contract.built_in_workers] == [
        "sglang.srt.speculative.dspark_components.dspark_worker_v2.DSparkWorkerV2",
        "sglang.srt.speculative.eagle_worker_v2.MultiLayerEagleWorkerV2",
        "sglang.srt.speculative.eagle_worker_v2.EAGLEWorkerV2",
        "sglang.srt.speculative.ngram_worker.NGRAMWorker",
    ]
    # Each located at its return; the platform's worker (a local, not a class of sglang) is left out.
    assert {w.site.function for w in contract.built_in_workers} == {"SpeculativeAlgorithm.create_worker"}
    spec_info = CREATED_MODULES["srt/speculative/spec_info.py"].splitlines()
    assert contract.built_in_workers[-1].site.line == spec_info.index("            return NGRAMWorker") + 1
    data = json.loads(contract_json(contract))
    assert [(w["module"], w["name"]) for w in data["built_in_workers"]][0] == (
        "sglang.srt.speculative.dspark_components.dspark_worker_v2",
        "DSparkWorkerV2",
    )


def test_no_built_in_workers_without_a_create_worker_that_returns_a_class(tmp_path: Path) -> None:
    contract = contract_of(tmp_path, "def run(self):\n    self.draft_worker.forward_batch_generation(batch)\n")
    assert contract.built_in_workers == ()


# -- the whole contract -------------------------------------------------------------------------


def test_extraction_is_deterministic_and_ordered(tmp_path: Path) -> None:
    body = """
    def b(self):
        self.draft_worker.zeta()
        self.draft_worker.alpha()

    def a(self):
        self.model_worker.forward_batch_generation(batch)
    """
    write_tree(tmp_path, body)
    first = extract_contract(source_at(tmp_path))
    second = extract_contract(source_at(tmp_path))
    assert first == second and contract_json(first) == contract_json(second)
    assert list(first.spec_worker) == sorted(first.spec_worker, key=lambda u: (u.site, u.member))


def test_a_tree_without_sglang_srt_or_without_uses(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / "sglang").mkdir(parents=True)
    (empty / "sglang" / "version.py").write_text('__version__ = "1.0"\n', encoding="utf-8")
    with pytest.raises(GateError, match="holds no sglang/srt"):
        extract_contract(source_at(empty))
    bare = write_tree(tmp_path / "bare", "def run(self):\n    pass\n")
    with pytest.raises(GateError, match="found no use of the spec worker") as raised:
        extract_contract(source_at(bare))
    assert "\n" not in str(raised.value)
