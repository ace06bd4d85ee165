"""Which built-in workers meet which uses: the release's own create_worker read as paths (issue 27, item 4).

On a synthetic release shaped like 0.5.10-0.5.12: ``create_worker`` returns a
V2 worker on the overlap branch and a V1 worker on the synchronous one for
EAGLE, NGRAM's worker on the synchronous branch only; the scheduler reads the
draft pool's ``model_runner`` in the ``else`` of ``if supports_spec_v2() and
self.enable_overlap:`` (after ``if ... or is_ngram():``), and calls
``on_verify_complete_cpu`` under ``batch.is_spec_v2`` (a batch property:
``self.enable_overlap and ...``). Each built-in worker is held only to the
uses its own (algorithm, branch) pairs meet; a plugin, whose algorithm is
none of the enum's, to all of them.
"""

from __future__ import annotations

from pathlib import Path

from spec_protocols.gate._contract import OVERLAP, SYNCHRONOUS, Contract, release_terms
from spec_protocols.gate._contract._exclusions import excluded, excluded_at
from spec_protocols.gate._contract._terms import built_in_unreached
from spec_protocols.gate._roles import class_terms

from tests.unit.test_contract_rules import contract_of

SPEC_INFO = '''\
import enum


class SpeculativeAlgorithm(enum.Enum):
    EAGLE = enum.auto()
    STANDALONE = enum.auto()
    NGRAM = enum.auto()
    NONE = enum.auto()

    @classmethod
    def from_string(cls, name):
        return cls[name.upper()] if name else cls.NONE

    def is_none(self):
        return self == SpeculativeAlgorithm.NONE

    def is_eagle(self):
        return self == SpeculativeAlgorithm.EAGLE

    def is_standalone(self):
        return self == SpeculativeAlgorithm.STANDALONE

    def is_ngram(self):
        return self == SpeculativeAlgorithm.NGRAM

    def supports_spec_v2(self):
        return self.is_eagle() or self.is_standalone()

    def create_worker(self, server_args):
        enable_overlap = not server_args.disable_overlap_schedule
        if self.is_eagle():
            if enable_overlap:
                from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2

                return EAGLEWorkerV2
            from sglang.srt.speculative.eagle_worker import EAGLEWorker

            return EAGLEWorker
        elif self.is_ngram():
            if enable_overlap:
                raise ValueError("NGRAM does not support overlap")
            from sglang.srt.speculative.ngram_worker import NGRAMWorker

            return NGRAMWorker
        raise ValueError("unreachable")
'''

SCHEDULE_BATCH = '''\
class ScheduleBatch:
    @property
    def is_spec_v2(self):
        ret = self.enable_overlap and not self.spec_algorithm.is_none()
        assert not ret or self.spec_algorithm.supports_spec_v2()
        return ret
'''

SCHEDULER_BODY = """
def maybe_init_draft_worker(self):
    if self.spec_algorithm.is_none():
        self.draft_worker = None
        return
    DraftWorkerClass = self.spec_algorithm.create_worker(self.server_args)
    self.draft_worker = DraftWorkerClass(server_args=self.server_args, target_worker=self.tp_worker)

def init_disaggregation(self):
    if self.draft_worker is None or self.spec_algorithm.is_ngram():
        pool = None
    elif self.spec_algorithm.supports_spec_v2() and self.enable_overlap:
        pool = self.draft_worker.draft_worker.draft_runner
    else:
        pool = self.draft_worker.model_runner.token_to_kv_pool

def process_batch_result(self, batch, result):
    if batch.is_spec_v2:
        self.draft_worker.on_verify_complete_cpu(result)
    self.draft_worker.forward_batch_generation(batch)
"""

FILES = {
    # A release before 0.5.13, where the serving path's model_runner reads count.
    "version.py": '__version__ = "0.5.12"\n',
    "srt/speculative/spec_info.py": SPEC_INFO,
    "srt/managers/schedule_batch.py": SCHEDULE_BATCH,
    "srt/speculative/eagle_worker_v2.py": "class EAGLEWorkerV2:\n    pass\n",
    "srt/speculative/eagle_worker.py": "class EAGLEWorker:\n    pass\n",
    "srt/speculative/ngram_worker.py": "class NGRAMWorker:\n    pass\n",
}

SPEC = "sglang.srt.speculative."


def _contract(tmp_path: Path) -> Contract:
    return contract_of(tmp_path, SCHEDULER_BODY, FILES)


def test_each_built_in_worker_carries_the_pairs_create_worker_returns_it_for(tmp_path: Path) -> None:
    reach = {w.name: set(w.reach) for w in _contract(tmp_path).built_in_workers}
    assert reach == {
        "EAGLEWorkerV2": {("EAGLE", OVERLAP)},
        "EAGLEWorker": {("EAGLE", SYNCHRONOUS)},
        "NGRAMWorker": {("NGRAM", SYNCHRONOUS)},
    }


def test_a_use_records_who_skips_it(tmp_path: Path) -> None:
    contract = _contract(tmp_path)
    (pool,) = [u for u in contract.uses_of("model_runner") if u.receiver == "spec_worker"]
    assert pool.classification == "required"  # a plugin's algorithm takes the else
    assert pool.branch == ""
    # not is_ngram(): NGRAM on both branches; not (supports_spec_v2() and overlap): EAGLE, STANDALONE on overlap.
    assert set(pool.skipped_by) == {(("EAGLE", "STANDALONE"), OVERLAP), (("NGRAM",), "")}
    (verify,) = contract.uses_of("on_verify_complete_cpu")
    assert verify.branch == OVERLAP  # batch.is_spec_v2 reads the batch's copy of the overlap setting


def test_built_in_workers_are_not_held_to_what_they_never_meet(tmp_path: Path) -> None:
    terms = release_terms(_contract(tmp_path))
    assert "model_runner" in terms.presence  # still required of a plugin's worker
    assert dict(terms.built_in_unreached) == {
        SPEC + "eagle_worker_v2.EAGLEWorkerV2": frozenset({"model_runner"}),
        SPEC + "eagle_worker.EAGLEWorker": frozenset({"on_verify_complete_cpu"}),
        SPEC + "ngram_worker.NGRAMWorker": frozenset({"model_runner", "on_verify_complete_cpu"}),
    }
    assert class_terms(SPEC + "eagle_worker_v2.EAGLEWorkerV2", (), terms).unreached == frozenset({"model_runner"})
    assert class_terms("plugin.Worker", (), terms).unreached == frozenset()


def test_an_exclusion_of_one_function_leaves_the_member_required_elsewhere() -> None:
    # 0.5.12: save_remote_model's read is left out, the serving path's is not.
    assert excluded("model_runner", "0.5.12") is None
    assert excluded_at("model_runner", "SchedulerUpdateWeightsMixin.save_remote_model", "0.5.12") is not None
    assert excluded_at("model_runner", "Scheduler.init_disaggregation", "0.5.12") is None
    # From 0.5.13 the whole member is left out.
    assert excluded_at("model_runner", "Scheduler.init_disaggregation", "0.5.13") is excluded("model_runner", "0.5.13")


SCHEDULE_BATCH_0_5_13 = """\
class ScheduleBatch:
    @property
    def is_spec_v2(self):
        return self.spec_algorithm.supports_spec_v2()
"""

HELPER_BODY = """
def maybe_init_draft_worker(self):
    DraftWorkerClass = self.spec_algorithm.create_worker(self.server_args)
    self.draft_worker = DraftWorkerClass(server_args=self.server_args, target_worker=self.tp_worker)

def process_batch_result_decode(self, batch, result):
    if batch.is_spec_v2:
        tokens = self._resolve_spec_v2_tokens(result, batch)
    self.draft_worker.forward_batch_generation(batch)

def _resolve_spec_v2_tokens(self, result, batch):
    self.draft_worker.on_verify_complete_cpu(result)
"""


def test_a_helper_only_called_for_some_algorithms_is_skipped_by_the_others(tmp_path: Path) -> None:
    """0.5.13: the helper runs only under batch.is_spec_v2, which is supports_spec_v2()
    there: NGRAM's worker never meets what it calls; a plugin's still does."""
    contract = contract_of(tmp_path, HELPER_BODY, {**FILES, "srt/managers/schedule_batch.py": SCHEDULE_BATCH_0_5_13})
    (verify,) = contract.uses_of("on_verify_complete_cpu")
    assert verify.classification == "required"  # the helper, walked on its own
    assert verify.skipped_by == ((("NGRAM",), ""),)
    terms = release_terms(contract)
    assert "on_verify_complete_cpu" in terms.members["SpecWorker"]
    assert terms.built_in_unreached == {SPEC + "ngram_worker.NGRAMWorker": frozenset({"on_verify_complete_cpu"})}



REGISTRY_SPEC_INFO = '''\
class SpeculativeAlgorithm:
    def _has_flag(self, flag):
        return flag in self.flags

    def is_none(self):
        return self is SpeculativeAlgorithm.NONE

    def is_eagle(self):
        return self._has_flag("EAGLE")

    def is_ngram(self):
        return self._has_flag("NGRAM")

    def create_draft_worker(self, **factory_kwargs):
        return self._draft_worker_factory(self, **factory_kwargs)


def register_speculative_algorithm(name, worker_cls, *, flags=None):
    pass


def _create_eagle_worker(**kwargs):
    enable_overlap = kwargs.pop("enable_overlap", False)
    if enable_overlap:
        from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2

        return EAGLEWorkerV2(**kwargs)
    from sglang.srt.speculative.eagle_worker import EAGLEWorker

    return EAGLEWorker(**kwargs)


def _create_ngram_worker(**kwargs):
    from sglang.srt.speculative.ngram_worker import NGRAMWorker

    return NGRAMWorker(**kwargs)


SpeculativeAlgorithm.register("NONE")
register_speculative_algorithm("EAGLE", worker_cls=_create_eagle_worker, flags=("EAGLE",))
register_speculative_algorithm("EAGLE3", worker_cls=_create_eagle_worker, flags=("EAGLE", "EAGLE3"))
register_speculative_algorithm("NGRAM", worker_cls=_create_ngram_worker, flags=("NGRAM",))
'''

#: 0.5.4.post2-0.5.7's init_disaggregation: EAGLE on the overlap branch reads the draft runner, the rest the worker's model_runner.
REGISTRY_INIT_DISAGGREGATION = """
def init_disaggregation(self):
    if self.draft_worker is None or self.spec_algorithm.is_ngram():
        pool = None
    elif self.spec_algorithm.is_eagle() and self.enable_overlap:
        pool = self.draft_worker.draft_worker.draft_runner
    else:
        pool = self.draft_worker.model_runner.token_to_kv_pool
    self.draft_worker.forward_batch_generation(None)
"""

REGISTRY_BODY = """
def init(self):
    self.draft_worker = self.spec_algorithm.create_draft_worker(server_args=self.server_args, enable_overlap=self.enable_overlap)
""" + REGISTRY_INIT_DISAGGREGATION


def test_a_registry_release_s_built_in_factories_and_flags(tmp_path: Path) -> None:
    """0.5.4.post2-0.5.7: no enum and no create_worker; the built-in names are
    registered with a factory and flags, and a predicate reads a flag."""
    files = {**FILES, "srt/speculative/spec_info.py": REGISTRY_SPEC_INFO}
    contract = contract_of(tmp_path, REGISTRY_BODY, files)
    reach = {w.name: set(w.reach) for w in contract.built_in_workers}
    assert reach == {
        "EAGLEWorkerV2": {("EAGLE", OVERLAP), ("EAGLE3", OVERLAP)},
        "EAGLEWorker": {("EAGLE", SYNCHRONOUS), ("EAGLE3", SYNCHRONOUS)},
        "NGRAMWorker": {("NGRAM", OVERLAP), ("NGRAM", SYNCHRONOUS)},
    }
    (pool,) = [u for u in contract.uses_of("model_runner") if u.receiver == "spec_worker"]
    assert set(pool.skipped_by) == {(("EAGLE", "EAGLE3"), OVERLAP), (("NGRAM",), "")}


SERVER_ARGS_0_5_7 = '''\
class ServerArgs:
    def __post_init__(self):
        if self.model_path.lower() in ["none", "dummy"]:
            return  # a server with no model skips every check
        self._handle_speculative_decoding()
        self._handle_other()

    def _handle_speculative_decoding(self):
        if self.speculative_algorithm is None:
            return
        if self.speculative_algorithm in ("EAGLE", "EAGLE3"):
            if envs.SGLANG_ENABLE_SPEC_V2.get():
                self.disable_overlap_schedule = False
            else:
                self.disable_overlap_schedule = True
        if self.speculative_algorithm == "NGRAM":
            if not self.device.startswith("cuda"):
                raise ValueError("NGRAM runs on CUDA only")
            self.disable_overlap_schedule = True

    def _handle_other(self):
        try:
            import something
        except ImportError:
            pass
        if self.dllm_algorithm is not None:
            self.disable_overlap_schedule = True
'''

SCHEDULER_BUILDS_BODY = """
def init_model_worker(self):
    if self.server_args.enable_multi_layer_eagle:
        if self.enable_overlap:
            from sglang.srt.speculative.multi_layer_eagle_worker_v2 import MultiLayerEagleWorkerV2

            self.draft_worker = MultiLayerEagleWorkerV2(server_args=self.server_args)
        else:
            from sglang.srt.speculative.multi_layer_eagle_worker import MultiLayerEagleWorker

            self.draft_worker = MultiLayerEagleWorker(server_args=self.server_args)
    else:
        self.draft_worker = self.spec_algorithm.create_draft_worker(server_args=self.server_args, enable_overlap=self.enable_overlap)
""" + REGISTRY_INIT_DISAGGREGATION


def test_a_worker_the_scheduler_builds_itself_gets_the_reach_its_path_and_the_server_s_checks_allow(tmp_path: Path) -> None:
    """0.5.7: ``self.draft_worker = MultiLayerEagleWorkerV2(...)`` under a
    server flag and ``self.enable_overlap``, outside the registry. ServerArgs
    always disables overlap for NGRAM, so only EAGLE and EAGLE3 take that
    branch, and there the scheduler reads the draft runner, never the
    worker's own ``model_runner``."""
    files = {
        **FILES,
        "srt/speculative/spec_info.py": REGISTRY_SPEC_INFO,
        "srt/server_args.py": SERVER_ARGS_0_5_7,
        "srt/speculative/multi_layer_eagle_worker_v2.py": "class MultiLayerEagleWorkerV2:\n    pass\n",
        "srt/speculative/multi_layer_eagle_worker.py": "class MultiLayerEagleWorker:\n    pass\n",
    }
    contract = contract_of(tmp_path, SCHEDULER_BUILDS_BODY, files)
    reach = {w.name: set(w.reach) for w in contract.built_in_workers}
    assert reach == {
        "EAGLEWorkerV2": {("EAGLE", OVERLAP), ("EAGLE3", OVERLAP)},
        "EAGLEWorker": {("EAGLE", SYNCHRONOUS), ("EAGLE3", SYNCHRONOUS)},
        "NGRAMWorker": {("NGRAM", SYNCHRONOUS)},  # its overlap pair: refused by ServerArgs
        "MultiLayerEagleWorkerV2": {("EAGLE", OVERLAP), ("EAGLE3", OVERLAP)},
        "MultiLayerEagleWorker": {("EAGLE", SYNCHRONOUS), ("EAGLE3", SYNCHRONOUS), ("NGRAM", SYNCHRONOUS)},
    }
    site = next(w.site for w in contract.built_in_workers if w.name == "MultiLayerEagleWorkerV2")
    assert site.function == "Scheduler.init_model_worker"
    unreached = built_in_unreached(contract, ("model_runner", "forward_batch_generation"))
    assert "model_runner" in unreached[SPEC + "multi_layer_eagle_worker_v2.MultiLayerEagleWorkerV2"]
    assert "model_runner" not in unreached.get(SPEC + "multi_layer_eagle_worker.MultiLayerEagleWorker", frozenset())


def test_overlap_is_refused_only_where_every_server_that_starts_disables_it(tmp_path: Path) -> None:
    from spec_protocols.gate._contract._extract._overlap_admitted import overlap_refused
    from spec_protocols.gate._contract._extract._tree import ReleaseTree

    root = tmp_path / "release"
    (root / "sglang" / "srt").mkdir(parents=True)
    (root / "sglang" / "__init__.py").write_text("")
    (root / "sglang" / "srt" / "server_args.py").write_text(SERVER_ARGS_0_5_7)
    tree = ReleaseTree(root)
    # EAGLE: an environment switch decides; NGRAM: always set (its raise starts no server);
    # STANDALONE: never set here, whatever the dllm branch might do.
    assert overlap_refused(tree, ["EAGLE", "EAGLE3", "NGRAM", "STANDALONE"]) == frozenset({"NGRAM"})
    # No ServerArgs: nothing is refused.
    assert overlap_refused(ReleaseTree(tmp_path / "nowhere"), ["NGRAM"]) == frozenset()


def _refused(tmp_path: Path, server_args: str, algorithms: tuple[str, ...] = ("EAGLE", "NGRAM")) -> frozenset[str]:
    from spec_protocols.gate._contract._extract._overlap_admitted import overlap_refused
    from spec_protocols.gate._contract._extract._tree import ReleaseTree

    root = tmp_path / "release"
    (root / "sglang" / "srt").mkdir(parents=True, exist_ok=True)
    (root / "sglang" / "__init__.py").write_text("")
    (root / "sglang" / "srt" / "server_args.py").write_text(server_args)
    return overlap_refused(ReleaseTree(root), list(algorithms))


NGRAM_OFF = '''\
class ServerArgs:
    def __post_init__(self):
        if self.speculative_algorithm == "NGRAM":
            self.disable_overlap_schedule = True
        {after}
'''


def test_what_the_run_cannot_follow_refuses_nothing(tmp_path: Path) -> None:
    """Each statement after NGRAM's store that may undo it, unread: NGRAM's overlap is not refused."""
    assert _refused(tmp_path, NGRAM_OFF.format(after="pass")) == {"NGRAM"}
    undoing = (
        "for x in self.items:\n            self.disable_overlap_schedule = False\n            break",
        "try:\n            self.disable_overlap_schedule = False\n            risky()\n        except ValueError:\n            pass",
        "match self.mode:\n            case 'x':\n                self.disable_overlap_schedule = False",
        "self.a, self.disable_overlap_schedule = 1, False",
        "setattr(self, name, False)",
        "ok = self.check()\n    def check(self):\n        self.disable_overlap_schedule = False\n        return True",
        "platform.apply_defaults(self)",
        "self.speculative_algorithm = 'EAGLE'\n        if self.speculative_algorithm == 'EAGLE':\n            self.disable_overlap_schedule = False",
    )
    for after in undoing:
        assert _refused(tmp_path, NGRAM_OFF.format(after=after)) == frozenset(), after


def test_a_return_under_a_test_of_the_algorithm_is_a_path(tmp_path: Path) -> None:
    """An early return that some algorithms take (NGRAM with a flag) keeps
    the value it has there; one that names no algorithm (a dummy model)
    skips every check for all and is not judged."""
    server_args = '''\
class ServerArgs:
    def __post_init__(self):
        if self.model_path == "dummy":
            return
        if self.speculative_algorithm == "NGRAM" and self.fast:
            return
        self.disable_overlap_schedule = True
'''
    assert _refused(tmp_path, server_args) == {"EAGLE"}
