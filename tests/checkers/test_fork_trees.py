"""Forks stay followed (issue 27, item 5): trees made from a release the way a fork changes it.

A fork's scheduler is the truth for a worker written for it. Each test copies a
fetched release (its ``.py`` files, as the gate's cache holds them), changes
what a fork changes, and reads it as a plugin author would: ``--sglang PATH``,
or the tree first on ``PYTHONPATH`` (what an editable install of the fork
gives the import system: the gate locates the sglang it would import, and
imports nothing). The worker is ``spec-protocols new worker``'s skeleton,
which conforms to the release it was made from; on the fork it must fail for
exactly what the fork added:

- a keyword added to the scheduler's construction call (``draft_seed=``);
- a new call the scheduler makes on the spec worker at every batch (``on_batch_start``);
- a member the scheduler calls renamed (``clear_cache_pool`` -> ``reset_cache_pool``);

and the contract follows an added algorithm and worker, and a renamed call
on the algorithm object. From 0.5.12 (before the supported range), a keyword
added to its construction call is followed too. A tree the extractor cannot
read is one line, exit 2.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from spec_protocols.gate._contract import SglangSource, extract_contract, release_terms, source_at
from spec_protocols.gate._scaffold import write_skeleton

from tests._gate_json import gate, gate_env  # noqa: F401 (gate_env: a fixture)

#: (file below sglang/srt, text, what the fork writes instead).
Edit = tuple[str, str, str]

CONSTRUCTOR_KEYWORD: Edit = (
    "managers/scheduler.py",
    "            nccl_port=self.nccl_port,\n            target_worker=self.tp_worker,\n",
    "            nccl_port=self.nccl_port,\n            target_worker=self.tp_worker,\n            draft_seed=0,\n",
)
PER_BATCH_CALL: Edit = (
    "managers/scheduler.py",
    "                resolve_forward_inputs(batch, self.future_map)\n                batch_result = self.model_worker.forward_batch_generation(\n                    batch, **kwargs\n",
    "                resolve_forward_inputs(batch, self.future_map)\n                self.model_worker.on_batch_start(batch)\n"
    "                batch_result = self.model_worker.forward_batch_generation(\n                    batch, **kwargs\n",
)
RENAMED_MEMBER: Edit = (
    "managers/scheduler.py",
    "                self.draft_worker.clear_cache_pool()\n",
    "                self.draft_worker.reset_cache_pool()\n",
)
RENAMED_ALGORITHM_CALL: Edit = (
    "managers/scheduler.py",
    "self.future_map = self.spec_algorithm.create_future_map(",
    "self.future_map = self.spec_algorithm.make_future_map(",
)
#: ... and on the enum that defines it (the algorithm object's vocabulary is the enum's).
RENAMED_ALGORITHM_METHOD: Edit = ("speculative/spec_info.py", "    def create_future_map(", "    def make_future_map(")
ADDED_WORKER: Edit = (
    "speculative/spec_info.py",
    "            return platform_worker_cls\n",
    "            return platform_worker_cls\n\n"
    "        if self.name == 'FORKSPEC':\n"
    "            from sglang.srt.speculative.fork_worker import ForkWorker\n\n"
    "            return ForkWorker\n",
)


def _fork(source: SglangSource, edits: Sequence[Edit], into: Path) -> Path:
    """A copy of ``source``'s ``sglang/`` under ``into``, with ``edits`` made (each must apply once)."""
    shutil.copytree(source.root / "sglang", into / "sglang")
    srt = into / "sglang" / "srt"
    for relative, old, new in edits:
        path = srt / relative
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"the fork's edit no longer applies once to {relative}: {old!r}"
        path.write_text(text.replace(old, new), encoding="utf-8")
    return into


@pytest.fixture(scope="module")
def release_0523(sglang_release: Callable[[str], SglangSource]) -> SglangSource:
    return sglang_release("0.5.23")


@pytest.fixture
def skeleton(tmp_path: Path) -> Path:
    return write_skeleton("worker", "MyWorker", tmp_path)


def _check(env: dict[str, str], target: Path, *args: str) -> tuple[int, dict[str, object], str]:
    code, data, err = gate(env, str(target), *args, "--checker", "mypy", "--checker", "pyright")
    assert data is not None, err
    return code, data, err


def _problems(data: dict[str, object]) -> list[tuple[str, str, str]]:
    """(checker, member, message) of every problem of the report."""
    found: list[tuple[str, str, str]] = []
    for result in data["results"]:  # type: ignore[attr-defined]
        for problem in result["problems"]:
            found.append((problem["checker"], problem["member"] or "", problem["message"]))
    return found


def test_the_skeleton_passes_the_release_it_was_made_from(release_0523: SglangSource, skeleton: Path, gate_env: dict[str, str], tmp_path: Path) -> None:
    code, data, _ = _check(gate_env, skeleton, "--sglang", str(_fork(release_0523, [], tmp_path / "plain")))
    assert code == 0, json.dumps(data, indent=1)


@pytest.mark.parametrize(
    ("edit", "member", "words"),
    [
        (CONSTRUCTOR_KEYWORD, "__init__", "draft_seed"),
        (PER_BATCH_CALL, "on_batch_start", "on_batch_start"),
        (RENAMED_MEMBER, "reset_cache_pool", "reset_cache_pool"),
    ],
    ids=["constructor-keyword", "per-batch-call", "renamed-member"],
)
def test_a_worker_fails_for_what_the_fork_added(
    edit: Edit, member: str, words: str, release_0523: SglangSource, skeleton: Path, gate_env: dict[str, str], tmp_path: Path
) -> None:
    root = _fork(release_0523, [edit], tmp_path / "fork")
    code, data, _ = _check(gate_env, skeleton, "--sglang", str(root))
    assert code == 1, json.dumps(data, indent=1)
    problems = _problems(data)
    for checker in ("mypy", "pyright"):
        mine = [p for p in problems if p[0] == checker and p[1] == member]
        assert mine and any(words in p[2] for p in mine), problems


def test_the_fork_first_on_the_import_path_is_the_sglang_checked(
    release_0523: SglangSource, skeleton: Path, gate_env: dict[str, str], tmp_path: Path
) -> None:
    """As an editable install of the fork: no --sglang, the import system's sglang is the fork."""
    root = _fork(release_0523, [PER_BATCH_CALL], tmp_path / "fork")
    env = {**gate_env, "PYTHONPATH": str(root)}
    code, data, _ = _check(env, skeleton)
    assert code == 1, json.dumps(data, indent=1)
    assert any(p[1] == "on_batch_start" for p in _problems(data)), _problems(data)
    assert str(root) in json.dumps(data), "the report does not name the fork it checked against"


def test_the_contract_follows_an_added_worker_and_a_renamed_algorithm_call(release_0523: SglangSource, tmp_path: Path) -> None:
    root = _fork(release_0523, [ADDED_WORKER, RENAMED_ALGORITHM_CALL, RENAMED_ALGORITHM_METHOD], tmp_path / "fork")
    fork_worker = root / "sglang" / "srt" / "speculative" / "fork_worker.py"
    fork_worker.write_text("from sglang.srt.speculative.base_spec_worker import BaseSpecWorker\n\n\nclass ForkWorker(BaseSpecWorker):\n    pass\n")
    contract = extract_contract(source_at(root))
    assert "sglang.srt.speculative.fork_worker.ForkWorker" in {w.dotted for w in contract.built_in_workers}
    assert contract.algorithm is not None
    used = contract.algorithm.used()
    assert "make_future_map" in used and "create_future_map" not in used
    assert "sglang.srt.speculative.fork_worker.ForkWorker" in release_terms(contract).built_in


def test_a_fork_of_an_older_release_is_followed_too(sglang_release: Callable[[str], SglangSource], tmp_path: Path) -> None:
    keyword: Edit = (
        "managers/scheduler.py",
        "            target_worker=self.tp_worker,\n            dp_rank=self.dp_rank,\n",
        "            target_worker=self.tp_worker,\n            dp_rank=self.dp_rank,\n            draft_seed=0,\n",
    )
    root = _fork(sglang_release("0.5.12"), [keyword], tmp_path / "fork")
    plain = extract_contract(sglang_release("0.5.12"))
    forked = extract_contract(source_at(root))
    assert "draft_seed" not in plain.constructor_keywords
    assert set(forked.constructor_keywords) == {*plain.constructor_keywords, "draft_seed"}


def test_a_tree_the_extractor_cannot_read_is_one_line(skeleton: Path, gate_env: dict[str, str], tmp_path: Path) -> None:
    scheduler = tmp_path / "broken" / "sglang" / "srt" / "managers" / "scheduler.py"
    scheduler.parent.mkdir(parents=True)
    scheduler.write_text("class Scheduler:\n    pass\n")
    (tmp_path / "broken" / "sglang" / "__init__.py").write_text("")
    code, data, err = gate(gate_env, str(skeleton), "--sglang", str(tmp_path / "broken"), "--checker", "mypy")
    assert code == 2, (data, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("spec-protocols: "), err
