"""The run memo (spec_protocols/gate/_cache/_runs.py): the cheap first-level key of a cached run.

A run whose every input is as an earlier run of the same request found
them is answered from one entry: its report, recalled while every witness
(the stat of each file digested and folder listed, each search-path entry,
the content of each stage entry) is as recorded. These tests drive the memo
on a tree of their own, as the stat memo digests it, and hold that every
change the full key would see is seen here too, so that a stale memo can
never stand for a run whose verdicts changed: an edit that keeps the size
and restores the mtime, a touched file, a file added or removed, a tree
replaced, a witness that appears, a damaged stage entry, a tampered memo.
tests/slow/test_cache_run_memo.py runs the same through run_gate. No test
here runs a checker or measures a time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from spec_protocols.gate._cache import VerdictCache, _fingerprint, _runs
from spec_protocols.gate._cache._fingerprint import StatMemo
from spec_protocols.gate._checkers import CHECKERS
from spec_protocols.gate._cli._check_command import request_of
from spec_protocols.gate._request import GateRequest
from spec_protocols.gate._run import _memo_key  # pyright: ignore[reportPrivateUsage]
from spec_protocols.gate._model import Check, GateReport, Result, Verdict

KEY = "ab" + "0" * 62
REPORT = GateReport(
    (Result(Check("plugin.Worker", "SpecWorker"), Verdict.FAIL, {"fake": Verdict.FAIL}, ()),),
    ("fake",),
    {"total": 1.0},
)


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by the test count as settled (not "racy"): the tests change them at once."""
    monkeypatch.setattr(_fingerprint, "_RACY_NS", -1)
    monkeypatch.setattr(_runs, "RACY_NS", -1)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("import os\n", encoding="utf-8")
    (root / "worker.py").write_text("VERDICT = 'pass'\n", encoding="utf-8")
    (root / "sub" / "data.bin").write_bytes(b"\x00\x01")
    return root


def _remember(cache: Path, tree: Path, entries: list[Path] | None = None, search: list[str] | None = None) -> StatMemo:
    memo = StatMemo(cache / "memo")
    memo.tree(tree)
    found, racy = _runs.search_witnesses(search or [])
    assert not memo.racy and not racy
    _runs.remember(cache, KEY, REPORT, {**memo.witnesses, **found}, entries or [])
    return memo


def _recalled(cache: Path) -> GateReport | None:
    return _runs.recall(cache, KEY)


def test_an_unchanged_tree_is_recalled_as_a_cached_run(settled: None, tmp_path: Path, tree: Path) -> None:
    _remember(tmp_path / "cache", tree)
    report = _recalled(tmp_path / "cache")
    assert report is not None
    assert report.results == REPORT.results and report.checkers == REPORT.checkers
    assert report.reused == ("fake",)
    assert set(report.timings) == {"contract", "discovery", "fake (cached)", "cache"}


def test_every_file_and_folder_is_witnessed(settled: None, tmp_path: Path, tree: Path) -> None:
    memo = _remember(tmp_path / "cache", tree)
    assert set(memo.witnesses) == {
        str(tree), str(tree / "sub"), str(tree / "__init__.py"), str(tree / "worker.py"), str(tree / "sub" / "data.bin")
    }


def test_an_edit_that_keeps_the_size_and_restores_the_mtime_is_seen(settled: None, tmp_path: Path, tree: Path) -> None:
    worker = tree / "worker.py"
    before = worker.stat()
    _remember(tmp_path / "cache", tree)
    worker.write_text("VERDICT = 'fail'\n", encoding="utf-8")  # the same size
    os.utime(worker, ns=(before.st_atime_ns, before.st_mtime_ns))  # the old mtime back
    assert worker.stat().st_size == before.st_size and worker.stat().st_mtime_ns == before.st_mtime_ns
    # ctime cannot be set back from user space: the memo is not used.
    assert _recalled(tmp_path / "cache") is None


def test_a_touched_file_misses_the_cheap_key(settled: None, tmp_path: Path, tree: Path) -> None:
    _remember(tmp_path / "cache", tree)
    stamp = (tree / "worker.py").stat().st_mtime_ns + 10_000_000_000
    os.utime(tree / "worker.py", ns=(stamp, stamp))
    # The run then goes through the stages, whose keys are by content (same content: cached verdicts).
    assert _recalled(tmp_path / "cache") is None


@pytest.mark.parametrize(
    "change",
    [
        lambda root: (root / "new.py").write_text("", encoding="utf-8"),
        lambda root: (root / "sub" / "data.bin").unlink(),
        lambda root: (root / "worker.py").rename(root / "renamed.py"),
        lambda root: (root / "sub" / "deeper").mkdir(),
    ],
    ids=["file-added", "file-removed", "file-renamed", "folder-added"],
)
def test_a_changed_listing_is_seen(settled: None, tmp_path: Path, tree: Path, change: Callable[[Path], object]) -> None:
    _remember(tmp_path / "cache", tree)
    change(tree)
    assert _recalled(tmp_path / "cache") is None


def test_a_replaced_tree_is_seen_even_with_the_same_content(settled: None, tmp_path: Path, tree: Path) -> None:
    _remember(tmp_path / "cache", tree)
    copy = tmp_path / "copy"
    shutil.copytree(tree, copy, copy_function=shutil.copy2)  # content and mtimes kept
    shutil.rmtree(tree)
    copy.rename(tree)  # as a reinstall of sglang replaces its package
    assert _recalled(tmp_path / "cache") is None


def test_a_search_path_entry_that_appears_is_seen(settled: None, tmp_path: Path, tree: Path) -> None:
    missing = tmp_path / "later"
    _remember(tmp_path / "cache", tree, search=[str(missing), str(tmp_path)])
    assert _recalled(tmp_path / "cache") is not None
    missing.mkdir()  # a module could now shadow one found elsewhere
    assert _recalled(tmp_path / "cache") is None


def test_a_module_added_on_the_search_path_is_seen(settled: None, tmp_path: Path, tree: Path) -> None:
    folder = tmp_path / "path"
    folder.mkdir()
    _remember(tmp_path / "cache", tree, search=[str(folder)])
    (folder / "pkg.py").write_text("", encoding="utf-8")
    assert _recalled(tmp_path / "cache") is None


def test_a_damaged_stage_entry_is_seen(settled: None, tmp_path: Path, tree: Path) -> None:
    entry = tmp_path / "cache" / "entries" / "ab" / "outcome.json"
    entry.parent.mkdir(parents=True)
    entry.write_text('{"verdicts": "fail"}', encoding="utf-8")
    _remember(tmp_path / "cache", tree, entries=[entry])
    assert _recalled(tmp_path / "cache") is not None
    entry.write_text('{"verdicts": "pass"}', encoding="utf-8")  # same size
    assert _recalled(tmp_path / "cache") is None


def _memo_file(cache: Path) -> Path:
    return cache / "runs" / KEY[:2] / f"{KEY}.json"


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: "",
        lambda text: text[: len(text) // 2],
        lambda text: "[1, 2]",
        lambda text: json.dumps({**json.loads(text), "key": "0" * 64}),
        lambda text: json.dumps({**json.loads(text), "format": 1}),
        lambda text: json.dumps({**json.loads(text), "paths": {"/": ["x"]}}),
        lambda text: json.dumps({**json.loads(text), "paths": 3}),
        lambda text: json.dumps({**json.loads(text), "entries": {"/nonexistent/entry.json": "0"}}),
        lambda text: json.dumps({**json.loads(text), "report": {"results": "no"}}),
        lambda text: json.dumps({k: v for k, v in json.loads(text).items() if k != "report"}),
        lambda text: text.replace('"fail"', '"pass"'),  # by hand, the seal not worked out again
    ],
    ids=["empty", "truncated", "not-an-object", "wrong-key", "old-format", "wrong-paths", "paths-not-a-map",
         "entry-gone", "wrong-report", "no-report", "fail-made-pass"],
)
def test_a_tampered_memo_is_ignored(settled: None, tmp_path: Path, tree: Path, damage: Callable[[str], str]) -> None:
    _remember(tmp_path / "cache", tree)
    memo = _memo_file(tmp_path / "cache")
    memo.write_text(damage(memo.read_text(encoding="utf-8")), encoding="utf-8")
    assert _recalled(tmp_path / "cache") is None


def test_files_changed_within_two_seconds_are_racy(tmp_path: Path, tree: Path) -> None:
    """Without the fixture: a tree written just now cannot promise its content by its stat."""
    memo = StatMemo(tmp_path / "memo")
    memo.tree(tree)
    assert memo.racy
    assert _runs.search_witnesses([str(tree)])[1]


def test_a_racy_run_keeps_no_memo(tmp_path: Path, tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = VerdictCache(tmp_path / "cache")
    cache._memo.tree(tree)  # pyright: ignore[reportPrivateUsage]
    cache.remember(KEY, REPORT)
    assert not _memo_file(tmp_path / "cache").exists()


def test_an_incomplete_run_keeps_no_memo(settled: None, tmp_path: Path, tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = VerdictCache(tmp_path / "cache")
    cache._memo.tree(tree)  # pyright: ignore[reportPrivateUsage]
    cache.complete = False  # a stage was not keyed or not stored
    cache.remember(KEY, REPORT)
    assert not _memo_file(tmp_path / "cache").exists()
    cache.complete = True
    cache.remember(KEY, REPORT)
    assert _memo_file(tmp_path / "cache").exists()


@pytest.mark.parametrize("requested", [None, ["mypy"], ["pyright", "mypy"], ["runtime"], ["runtime", "pyright"]])
@pytest.mark.parametrize("no_import", [False, True])
def test_the_cli_and_run_gate_compute_one_key(requested: list[str] | None, no_import: bool) -> None:
    """The CLI's request and run_gate's with the registry's own objects have one memo key (run_gate's memo is the CLI's)."""
    args = argparse.Namespace(
        targets=["plugin.py"], sglang=None, checkers=requested, no_import=no_import, baseline=None,
        ignore_unused_baseline=False, write_baseline=None, reason=None, timeout=600.0, no_cache=False,
    )
    objects = None if requested is None else tuple(CHECKERS[name] for name in requested)
    python = GateRequest(
        targets=("plugin.py",),
        checkers=None if objects is None else tuple(c.name for c in objects),
        registry=None if objects is None else {c.name: c for c in objects},
        allow_import=not no_import,
    )
    assert _memo_key(request_of(args), None) == _memo_key(python, None)


def test_another_checker_is_keyed_by_its_version(tmp_path: Path) -> None:
    def key(version: str | None, *, allow_import: bool = True, sglang: str | None = None) -> str:
        return _runs.run_key(_runs.MemoRequest(("t",), (("fake", version),), allow_import, sglang), root=tmp_path)

    assert key("1") != key("2")
    assert key("1", allow_import=False) != key("1")
    assert key("1", sglang="0.5.21") != key("1")
    assert _runs.run_key(_runs.MemoRequest(("t",), None, True, None), root=tmp_path) != key(None)

