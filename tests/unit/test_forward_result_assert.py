"""``assert_forward_result``: an author's own test holds what a worker returned to sglang's overlap loop (issue 31, item 3).

On a small synthetic release (so that it runs where sglang's runtime stack is
absent): ``run_batch``'s overlap branch reads ``extra_keep_alive_refs``,
sets ``batch.spec_info = batch_result.next_draft_input`` and reads and
stores on it. The target's result (``next_draft_input`` None) fails, naming
every use of the missing part once; a filled result passes; a release whose
``run_batch`` has no overlap branch skips; a path that is no sglang tree
fails in one line.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from spec_protocols.pytest_plugin import assert_forward_result

pytest_plugins = ["pytester"]

SCHEDULER = """
class Scheduler:
    def run_batch(self, batch):
        if self.enable_overlap:
            batch_result = self.model_worker.forward_batch_generation(batch, on_publish=None)
            refs = batch_result.extra_keep_alive_refs
            batch_result.copy_done = None
            if not self.spec_algorithm.is_ngram():
                batch.spec_info = batch_result.next_draft_input
                batch.spec_info.future_indices = None
                keep = batch.spec_info.dsa_topk_indices
            return batch_result
        return self.model_worker.forward_batch_generation(batch)
"""


def _release(root: Path, scheduler: str = SCHEDULER) -> Path:
    path = root / "sglang" / "srt" / "managers" / "scheduler.py"
    path.parent.mkdir(parents=True)
    path.write_text(textwrap.dedent(scheduler), encoding="utf-8")
    return root


@dataclass
class _DraftInput:
    dsa_topk_indices: object = None
    future_indices: object = None


@dataclass
class _Result:
    next_draft_input: object = None
    extra_keep_alive_refs: object = None
    copy_done: object = None


def test_the_targets_result_fails_naming_each_use_of_the_missing_draft_input(tmp_path: Path) -> None:
    with pytest.raises(AssertionError) as failed:
        assert_forward_result(_Result(), sglang=_release(tmp_path))
    message = str(failed.value)
    assert message.startswith("assert_forward_result: _Result lacks what sglang's overlap loop uses"), message
    assert "batch_result.next_draft_input is None, and sglang uses it: managers/scheduler.py:10 (stores .future_indices)" in message
    assert "managers/scheduler.py:11 (reads .dsa_topk_indices)" in message


def test_a_result_with_its_draft_input_passes(tmp_path: Path) -> None:
    assert_forward_result(_Result(next_draft_input=_DraftInput()), sglang=_release(tmp_path))


def test_a_result_without_a_read_attribute_fails_at_that_read(tmp_path: Path) -> None:
    @dataclass
    class Bare:
        next_draft_input: object = None

    with pytest.raises(AssertionError, match=r"managers/scheduler.py:6 reads batch_result.extra_keep_alive_refs, which Bare lacks"):
        assert_forward_result(Bare(next_draft_input=_DraftInput()), sglang=_release(tmp_path))


def test_the_algorithm_objects_predicates_decide_the_uses_under_them(tmp_path: Path) -> None:
    class Ngram:
        def is_ngram(self) -> bool:
            return True

    # sglang skips the draft input for an NGRAM algorithm: the target's result is fine there.
    assert_forward_result(_Result(), algorithm=Ngram(), sglang=_release(tmp_path))


def test_a_release_without_an_overlap_branch_skips(tmp_path: Path) -> None:
    plain = "class Scheduler:\n    def run_batch(self, batch):\n        return self.model_worker.forward_batch_generation(batch)\n"
    with pytest.raises(pytest.skip.Exception, match="makes no use of a forward's result on the overlap loop"):
        assert_forward_result(_Result(), sglang=_release(tmp_path, plain))


def test_a_path_that_is_no_sglang_tree_fails_in_one_line(tmp_path: Path) -> None:
    # The gate's own words for a --sglang PATH that holds no sglang.
    with pytest.raises(pytest.fail.Exception, match="holds no sglang source: expected a folder holding sglang/") as raised:
        assert_forward_result(_Result(), sglang=tmp_path)
    assert "\n" not in str(raised.value)
    (tmp_path / "sglang" / "srt").mkdir(parents=True)
    with pytest.raises(pytest.fail.Exception, match="has no managers/: not an sglang source tree"):
        assert_forward_result(_Result(), sglang=tmp_path)
    with pytest.raises(pytest.fail.Exception, match="does not exist"):
        assert_forward_result(_Result(), sglang=tmp_path / "missing")


def test_it_is_a_fixture_too(pytester: pytest.Pytester, tmp_path: Path) -> None:
    root = _release(tmp_path)
    pytester.makepyfile(
        test_it=f"""
        def test_it(assert_forward_result):
            class R:
                next_draft_input = None
                extra_keep_alive_refs = None
                copy_done = None
            assert_forward_result(R(), sglang={str(root)!r})
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*batch_result.next_draft_input is None, and sglang uses it*"])
