"""Which scheduler functions run on one branch of the event loop only (issue 26, item 3).

On a small synthetic release: the dispatcher starts an overlap loop under
``scheduler.enable_overlap`` and a synchronous one otherwise; a helper only
the overlap loop calls is on the overlap branch, one both loops call is on
neither alone, and one that escapes the call graph (a callback, a name some
file outside the scheduler side uses) counts as reached from anywhere.
A use of the spec worker in an overlap-only helper is tagged with that branch,
so a registration that never runs overlap scheduling is not held to it.
"""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

from spec_protocols.gate._contract import OVERLAP, SYNCHRONOUS, release_terms
from spec_protocols.gate._contract._extract._loops import single_branch_functions
from spec_protocols.gate._contract._extract._tree import ReleaseTree
from spec_protocols.gate._model import Registration
from spec_protocols.gate._roles import registered_terms

SCHEDULER = '''
class Scheduler:
    def event_loop_overlap(self):
        while True:
            self.run_batch()
            self._barrier()
            self._shared()
            self._late_check()

    def event_loop_normal(self):
        while True:
            self.run_batch()
            self._shared()
            self._sync_only()

    def _barrier(self):
        runner = self.model_worker.last_shared_read_runner
        self._nested()

    def _nested(self):
        pass

    def _shared(self):
        self.model_worker.clear_cache_pool()

    def _sync_only(self):
        if not self.enable_overlap:
            self._guarded()

    def _guarded(self):
        pass

    def _late_check(self):
        self.later = self._callback

    def _callback(self):
        pass

    def _named_elsewhere(self):
        pass

    def run_batch(self):
        if self.enable_overlap:
            self.model_worker.forward_batch_generation(None, on_publish=print)
        else:
            self.model_worker.forward_batch_generation(None)


def dispatch_event_loop(scheduler):
    if scheduler.enable_overlap:
        scheduler.event_loop_overlap()
        scheduler._named_elsewhere()
    else:
        scheduler.event_loop_normal()
'''


def _tree(root: Path) -> ReleaseTree:
    files = {
        "sglang/srt/managers/scheduler.py": SCHEDULER,
        "sglang/srt/entrypoints/engine.py": "def flush(s):\n    s._named_elsewhere()\n",
    }
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return ReleaseTree(root)


def test_a_helper_only_one_loop_calls_is_on_that_branch(tmp_path: Path) -> None:
    single = single_branch_functions(_tree(tmp_path))
    assert single["event_loop_overlap"] == OVERLAP
    assert single["event_loop_normal"] == SYNCHRONOUS
    assert single["_barrier"] == OVERLAP
    assert single["_nested"] == OVERLAP  # transitively
    assert single["_sync_only"] == SYNCHRONOUS
    assert single["_guarded"] == SYNCHRONOUS


def test_a_helper_both_loops_call_or_that_escapes_the_graph_is_on_both(tmp_path: Path) -> None:
    single = single_branch_functions(_tree(tmp_path))
    assert "_shared" not in single
    assert "run_batch" not in single
    assert "_callback" not in single  # stored as a value: called from who knows where
    assert "_named_elsewhere" not in single  # a file outside the scheduler side names it
    assert "dispatch_event_loop" not in single  # nobody on the scheduler side calls it: a root


def test_a_member_only_the_overlap_loop_uses_is_not_required_of_a_synchronous_registration(tmp_path: Path) -> None:
    terms = replace(
        release_terms(None),
        branch_only={"last_shared_read_runner": OVERLAP},
        branch_sites={"last_shared_read_runner": ("managers/scheduler.py:18 (Scheduler._barrier)",)},
        overlap_flag="supports_overlap",
    )
    sync = registered_terms([Registration("SYNC", "plugin.py:1", flags=(("supports_overlap", False),))], terms)
    overlap = registered_terms([Registration("OVL", "plugin.py:2", flags=(("supports_overlap", True),))], terms)
    unpacked = registered_terms([Registration("ANY", "plugin.py:3", dynamic=("**",))], terms)
    assert sync.unreached == frozenset({"last_shared_read_runner"})
    assert overlap.unreached == frozenset()  # a server may still turn overlap off: both loops
    assert unpacked.unreached == frozenset()
    assert "used only on the overlap event loops" in terms.path_words("last_shared_read_runner")
    assert "supports_overlap=False never runs them" in terms.path_words("last_shared_read_runner")
