"""Server flags as conditions of a requirement (issue 26, item 3).

On synthetic releases: a use made only by a server started with an option
the defaults do not set records that option (``Use.flags``), read from the
option's declared default (``ServerArgs`` up to 0.5.22, the namespaces of
``arg_groups/fields/`` in 0.5.23) and from where the scheduler side reads it
(``server_args.x``, ``get_<namespace>().x``, a scheduler field set from one).
A member every required use of which is so flagged is ``flag_only`` in the
terms, and a finding on it names the flags. A test the defaults pass is the
path every server takes: no flag. The replay's refusal check (a
``validate_server_args`` that raises for every setting of a flag) is tested
on its own function.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace

from spec_protocols.gate._checkers._replay._driver import _Refusals
from spec_protocols.gate._contract import (
    Contract,
    ServerFlag,
    contract_json,
    extract_contract,
    flags_claim,
    release_terms,
    ruled_out,
    source_at,
)
from spec_protocols.gate._verdicts import _yielding
from spec_protocols.gate._model import Problem

from tests.unit.test_contract_rules import contract_of, only, write_tree

SERVER_ARGS = """\
import dataclasses
from typing import Literal, Optional


@dataclasses.dataclass
class ServerArgs:
    enable_hierarchical_cache: bool = False
    disable_radix_cache: bool = False
    disaggregation_mode: Literal["null", "prefill", "decode"] = "null"
    retraction_backup: Optional[str] = None
    pp_size: int = 1
    chunked_prefill_size: int = dataclasses.field(default_factory=lambda: 8192)
"""

NAMESPACE_FIELDS = """\
class Memory:
    enable_unified_cache_external_linker: bool = False
"""

DISAGG_UTILS = """\
from enum import Enum


class DisaggregationMode(Enum):
    NULL = "null"
    PREFILL = "prefill"
    DECODE = "decode"
"""

CONFIG = """\
def get_memory():
    return _BAG


def get_parallel():
    return _BAG
"""

FILES = {
    "srt/server_args.py": SERVER_ARGS,
    "srt/arg_groups/fields/memory.py": NAMESPACE_FIELDS,
    "srt/disaggregation/utils.py": DISAGG_UTILS,
    "srt/runtime_context.py": CONFIG,
}

HEAD = """
def __init__(self, server_args):
    self.server_args = server_args
    self.disaggregation_mode = DisaggregationMode(server_args.disaggregation_mode)
    self.enable_hicache = server_args.enable_hierarchical_cache
    DraftWorkerClass = self.spec_algorithm.create_worker(self.server_args)
    self.draft_worker = DraftWorkerClass(server_args=server_args, gpu_id=0, nccl_port=0, target_worker=None)
"""


IMPORTS = (
    "from sglang.srt.disaggregation.utils import DisaggregationMode\n"
    "from sglang.srt.runtime_context import get_memory, get_parallel\n"
)


def _contract(tmp_path: Path, body: str) -> Contract:
    """The contract of a release whose scheduler (which imports the enum and the getters) has ``body`` too."""
    write_tree(tmp_path, HEAD + textwrap.dedent(body), FILES)
    scheduler = tmp_path / "sglang" / "srt" / "managers" / "scheduler.py"
    scheduler.write_text(IMPORTS + scheduler.read_text(encoding="utf-8"), encoding="utf-8")
    return extract_contract(source_at(tmp_path))


def test_a_use_under_a_pd_mode_records_the_option_and_its_value(tmp_path: Path) -> None:
    contract = _contract(
        tmp_path,
        """
        def init_disaggregation(self):
            if self.disaggregation_mode == DisaggregationMode.DECODE:
                pool = self.draft_worker.model_runner.token_to_kv_pool
            elif self.disaggregation_mode == DisaggregationMode.PREFILL:
                pool = self.draft_worker.primary_pool
        """,
    )
    decode = only(contract, "model_runner")
    assert decode.classification == "required"
    assert [f.settings for f in decode.flags] == [(("disaggregation_mode", "'decode'"),)]
    assert decode.flags[0].words() == "--disaggregation-mode decode"
    prefill = only(contract, "primary_pool")
    # the elif's `not (mode == DECODE)` holds by default: no flag; its own test is one
    assert [f.settings for f in prefill.flags] == [(("disaggregation_mode", "'prefill'"),)]


def test_the_options_are_read_through_namespaces_fields_and_server_args(tmp_path: Path) -> None:
    contract = _contract(
        tmp_path,
        """
        def plan(self):
            if not (get_memory().enable_hierarchical_cache or get_memory().enable_unified_cache_external_linker
                    or self.server_args.retraction_backup == "host_pool"):
                return None
            return self.draft_worker.draft_plan

        def stages(self):
            if get_parallel().pp_size > 1:
                self.draft_worker.pp_hook()

        def hicache(self):
            if self.enable_hicache:
                self.draft_worker.hicache_hook()
        """,
    )
    (plan,) = only(contract, "draft_plan").flags
    assert plan.settings == (
        ("enable_hierarchical_cache", "True"),
        ("enable_unified_cache_external_linker", "True"),
        ("retraction_backup", "'host_pool'"),
    )
    # declared with no value: sglang may decide it at start-up, so no refusal rules the flag out
    assert plan.decided_at_start == ("retraction_backup",) and not plan.refusable()
    assert plan.words() == (
        "--enable-hierarchical-cache or --enable-unified-cache-external-linker or --retraction-backup host_pool"
    )
    assert [f.settings for f in only(contract, "pp_hook").flags] == [(("pp_size", "2"),)]
    assert [f.settings for f in only(contract, "hicache_hook").flags] == [(("enable_hierarchical_cache", "True"),)]


def test_a_test_the_defaults_pass_or_an_unreadable_default_is_no_flag(tmp_path: Path) -> None:
    contract = _contract(
        tmp_path,
        """
        def radix(self):
            if not self.server_args.disable_radix_cache:
                self.draft_worker.radix_hook()

        def chunked(self):
            if self.server_args.chunked_prefill_size > 4096:
                self.draft_worker.chunk_hook()

        def local(self):
            if self.server_args.not_an_option:
                self.draft_worker.other_hook()
        """,
    )
    for member in ("radix_hook", "chunk_hook", "other_hook"):
        use = only(contract, member)
        assert use.classification == "required" and use.flags == (), member


def test_a_member_only_flagged_uses_need_is_flag_only_and_its_words_name_the_flags(tmp_path: Path) -> None:
    contract = _contract(
        tmp_path,
        """
        def init_disaggregation(self):
            if self.disaggregation_mode == DisaggregationMode.DECODE:
                pool = self.draft_worker.pd_pool
            elif self.disaggregation_mode == DisaggregationMode.PREFILL:
                pool = self.draft_worker.pd_pool

        def flush(self):
            if self.enable_hicache:
                self.draft_worker.flush_hook()
            self.draft_worker.flush_hook()
        """,
    )
    terms = release_terms(contract)
    assert set(terms.flag_only) == {"pd_pool"}
    words = terms.path_words("pd_pool")
    assert "used only with --disaggregation-mode decode or --disaggregation-mode prefill" in words
    assert "validate_server_args" in words
    assert terms.path_words("flush_hook") == ""
    assert '"flags": [' in contract_json(contract) and '"option": "disaggregation_mode"' in contract_json(contract)


def test_the_defaults_record_a_default_they_rely_on_behind_a_flag(tmp_path: Path) -> None:
    base = '''\
    from sglang.srt.runtime_context import get_memory


    class BaseSpecWorker:
        def init_hicache_draft_plan(self):
            self._plan = self._build_plan()

        def _build_plan(self):
            if not get_memory().enable_hierarchical_cache:
                return None
            return self._draft_model_runners()

        def weight_update_runners(self):
            return list(self._draft_model_runners())

        def _draft_model_runners(self):
            return tuple(self.draft_worker.draft_runners)
    '''
    files = {**FILES, "srt/speculative/base_spec_worker.py": base}
    contract = contract_of(tmp_path, "def f(self):\n    self.draft_worker.init_hicache_draft_plan()\n", files)
    by_name = {d.method: d for d in contract.defaults}
    ((relied, flags),) = by_name["_build_plan"].relies_on_flags
    assert relied == "_draft_model_runners"
    assert [f.words() for f in flags] == ["--enable-hierarchical-cache"]
    assert by_name["weight_update_runners"].relies_on_flags == ()


# -- the replay's refusal -------------------------------------------------------------


def _validate(server_args: SimpleNamespace) -> None:
    if server_args.enable_hierarchical_cache:
        raise ValueError("this algorithm does not support hierarchical caching")


FLAG = ServerFlag("get_memory().enable_hierarchical_cache", (("enable_hierarchical_cache", "True"),))
PD = ServerFlag("mode == DECODE", (("disaggregation_mode", "'decode'"),))
ANY_NON_NULL = ServerFlag("mode != NULL", (("disaggregation_mode", ""),))


def test_a_validate_server_args_that_refuses_every_way_to_a_member_rules_it_out() -> None:
    args = SimpleNamespace(enable_hierarchical_cache=False, disaggregation_mode="null")
    refused = _Refusals(_validate, args).members({"draft_plan": ((FLAG,),), "pd_pool": ((PD,),), "both": ((FLAG,), (PD,))})
    assert refused == {"draft_plan": "used only with --enable-hierarchical-cache"}
    assert args.enable_hierarchical_cache is False  # tried on a copy


def test_a_flag_on_an_option_sglang_decides_at_start_up_is_never_ruled_out() -> None:
    args = SimpleNamespace(retraction_backup=None)
    decided = ServerFlag("backup == 'host_pool'", (("retraction_backup", "'host_pool'"),), ("retraction_backup",))

    def refuses_host_pool(server_args: SimpleNamespace) -> None:
        if server_args.retraction_backup == "host_pool":
            raise ValueError("no host pool")

    assert _Refusals(refuses_host_pool, args).members({"pool": ((decided,),)}) == {}
    assert not ruled_out(flags_claim((decided,)), {"retraction_backup='host_pool'"})
    assert ruled_out(flags_claim((FLAG,)), {"enable_hierarchical_cache=True"})


def test_a_setting_that_names_no_value_is_never_refused() -> None:
    args = SimpleNamespace(enable_hierarchical_cache=False, disaggregation_mode="null")

    def refuses_everything(server_args: SimpleNamespace) -> None:
        if server_args.disaggregation_mode != "null":
            raise ValueError("no PD")

    assert _Refusals(refuses_everything, args).members({"pool": ((ANY_NON_NULL,),)}) == {}
    assert _Refusals(refuses_everything, args).members({"pool": ((PD,),)}) == {"pool": "used only with --disaggregation-mode decode"}


def test_a_static_problem_on_a_member_the_registration_never_reaches_yields() -> None:
    problem = Problem("mypy", "pool", "incompatible type for pool")
    settled = _yielding(problem, {("pool", "unreached")}, "replay")
    assert settled.unverified and settled.unmodelled
    assert "validate_server_args refuses every server that uses it" in settled.message
    assert _yielding(problem, {("other", "unreached")}, "replay") == problem



def test_a_helper_only_a_flagged_loop_calls_carries_the_flag(tmp_path: Path) -> None:
    contract = _contract(
        tmp_path,
        """
        def event_loop_normal(self):
            self.shared_helper()

        def event_loop_prefill(self):
            self.shared_helper()
            self.prefill_helper()

        def prefill_helper(self):
            self.draft_worker.prefill_hook()

        def shared_helper(self):
            self.draft_worker.shared_hook()

        def run_loop(self):
            mode = self.disaggregation_mode
            if mode == DisaggregationMode.NULL:
                self.event_loop_normal()
            elif mode == DisaggregationMode.PREFILL:
                self.event_loop_prefill()
        """,
    )
    # the elif's `not (mode == NULL)` names no value beside the pinned 'prefill': dropped
    assert [f.settings for f in only(contract, "prefill_hook").flags] == [(("disaggregation_mode", "'prefill'"),)]
    assert only(contract, "shared_hook").flags == ()


def test_the_options_memo_lets_a_release_tree_go(tmp_path: Path) -> None:
    """The memo is keyed weakly on the tree, and its value must not hold the
    tree: a run that reads several releases would keep every parsed tree alive."""
    import gc
    import weakref

    from spec_protocols.gate._contract._extract._server_options import server_options
    from spec_protocols.gate._contract._extract._tree import ReleaseTree

    write_tree(tmp_path, HEAD, FILES)
    tree = ReleaseTree(tmp_path)
    options = server_options(tree)
    assert options.defaults["enable_hierarchical_cache"] is False
    gone = weakref.ref(tree)
    del tree, options
    gc.collect()
    assert gone() is None
