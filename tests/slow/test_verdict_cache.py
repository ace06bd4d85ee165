"""The verdict cache (spec_protocols/gate/_cache): a checker whose input is unchanged is not run again.

How these tests turn the cache on and see whether a checker or a stage ran:
tests/_verdict_cache_support.py.

This module is the slow part (each test runs the gate's pipeline, discovery and contract
included: a second or more each, half the fast tier's time when it was there);
tests/checkers/test_verdict_cache.py (runs mypy or pyright) holds the rest.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

import pytest

from spec_protocols.gate._cache import NO_CACHE_ENV
from spec_protocols.gate._cache._fingerprint import StatMemo
from spec_protocols.gate._checkers import Checker
from spec_protocols.gate._cli import main as cli_main
from spec_protocols.gate._codec import Undecodable, decode, encode
from spec_protocols.gate._contract import Contract, extract_contract, installed_source
from spec_protocols.gate._discovery import discover, resolve_target
from spec_protocols.gate._model import (
    Check,
    CheckerOutcome,
    Discovery,
    GateError,
    GateReport,
    Problem,
    Verdict,
)
from spec_protocols.gate._run import run_gate
from spec_protocols.gate._reports import render

from tests._verdict_cache_support import (  # noqa: F401  (cache_on, runtime, shared_cache, stages, target: fixtures)
    FIXTURE,
    Counting,
    Stages,
    cache_on,
    runtime,
    shared_cache,
    stable,
    stages,
    target,
)


def _gate(target: Path, runtime: Checker, *, cache: bool = True) -> GateReport:
    return run_gate([str(target)], checkers=[runtime], cache=cache)


def test_a_hit_reuses_the_verdicts_without_running_the_checker(cache_on: Path, target: Path, runtime: Counting) -> None:
    first = _gate(target, runtime)
    second = _gate(target, runtime)
    assert runtime.runs == 1
    assert stable(second) == stable(first)
    assert [r.verdict for r in second.results] == [Verdict.FAIL] * len(second.results) and second.results
    assert "runtime (cached)" in second.timings and "runtime" not in second.timings
    assert "runtime" in first.timings and "runtime (cached)" not in first.timings


def test_the_cached_report_is_the_uncached_one_byte_for_byte(
    cache_on: Path, target: Path, runtime: Counting, stages: Stages
) -> None:
    uncached = _gate(target, runtime, cache=False)
    _gate(target, runtime)
    before = replace(stages)
    cached = _gate(target, runtime)
    assert runtime.runs == 2
    # Nothing was read again: the contract, the discovery and the verdicts all came from the cache.
    assert stages == before and stages.discoveries == 2
    for fmt in ("json", "text", "junit", "markdown", "github"):
        assert render(cached, fmt, include_timings=False) == render(uncached, fmt, include_timings=False), fmt


def test_editing_a_target_file_runs_the_checker_again(cache_on: Path, target: Path, runtime: Counting) -> None:
    _gate(target, runtime)
    target.write_text(target.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    _gate(target, runtime)
    assert runtime.runs == 2


def test_editing_a_module_the_target_imports_runs_the_checker_again(
    cache_on: Path, target: Path, runtime: Counting
) -> None:
    # A sibling module the target imports: not a checked module, but read
    # when the target is imported (and by pyright).
    helper = target.parent / "worker_helpers.py"
    helper.write_text("VALUE = 1\n", encoding="utf-8")
    target.write_text("import worker_helpers\n" + target.read_text(encoding="utf-8"), encoding="utf-8")
    _gate(target, runtime)
    _gate(target, runtime)
    assert runtime.runs == 1
    helper.write_text("VALUE = 2\n", encoding="utf-8")
    _gate(target, runtime)
    assert runtime.runs == 2


def test_an_unchanged_run_reads_neither_sglang_nor_the_target_again(
    cache_on: Path, target: Path, runtime: Counting, stages: Stages
) -> None:
    _gate(target, runtime)
    first = replace(stages)
    _gate(target, runtime)
    assert stages == first
    assert runtime.runs == 1


def test_editing_a_target_file_runs_discovery_again(
    cache_on: Path, target: Path, runtime: Counting, stages: Stages
) -> None:
    _gate(target, runtime)
    _gate(target, runtime)
    assert stages.discoveries == 1
    target.write_text(target.read_text(encoding="utf-8").replace("class BadDraft:", "class BadDraft2:\n    pass\n\n\nclass BadDraft:"), encoding="utf-8")
    report = _gate(target, runtime)
    assert stages.discoveries == 2
    assert "BadDraft2" not in {r.check.target.rpartition(".")[2] for r in report.results}  # on no known base


def test_editing_a_base_class_module_runs_discovery_again(
    cache_on: Path, tmp_path: Path, runtime: Counting, stages: Stages
) -> None:
    # The worker's base is in a sibling module: not a target file, but read by
    # discovery to decide that the class is a spec worker at all.
    folder = tmp_path / "plugin"
    folder.mkdir()
    (folder / "bases.py").write_text("from spec_protocols import SpecWorkerBase\n\n\nclass Base(SpecWorkerBase):\n    pass\n", encoding="utf-8")
    worker = folder / "worker.py"
    worker.write_text("from bases import Base\n\n\nclass Worker(Base):\n    pass\n", encoding="utf-8")
    first = _gate(worker, runtime)
    _gate(worker, runtime)
    assert stages.discoveries == 1
    assert [r.check.target for r in first.results] == ["worker.Worker"] * len(first.results) and first.results
    (folder / "bases.py").write_text("class Base:\n    pass\n", encoding="utf-8")
    with pytest.raises(GateError, match="no workers found"):
        _gate(worker, runtime)
    assert stages.discoveries == 2


def test_no_cache_reads_every_stage_again(cache_on: Path, target: Path, runtime: Counting, stages: Stages) -> None:
    _gate(target, runtime)
    _gate(target, runtime)
    first = replace(stages)
    _gate(target, runtime, cache=False)
    _gate(target, runtime, cache=False)
    assert stages == Stages(first.contracts + 2, first.discoveries + 2)
    assert runtime.runs == 3


def test_choosing_another_class_runs_the_checker_again(cache_on: Path, target: Path, runtime: Counting) -> None:
    run_gate([str(target)], checkers=[runtime])
    run_gate([f"{target}:MissingAndAsync"], checkers=[runtime])
    assert runtime.runs == 2


def test_another_checker_version_runs_the_checker_again(
    cache_on: Path, target: Path, runtime: Counting, monkeypatch: pytest.MonkeyPatch
) -> None:
    _gate(target, runtime)
    upgraded = Counting(runtime.inner, version="9.9.9")
    _gate(target, upgraded)
    assert upgraded.runs == 1


def test_an_environment_variable_sglang_reads_runs_the_checker_again(
    cache_on: Path, target: Path, runtime: Counting, monkeypatch: pytest.MonkeyPatch
) -> None:
    _gate(target, runtime)
    monkeypatch.setenv("SGLANG_SOME_SETTING", "1")
    _gate(target, runtime)
    assert runtime.runs == 2


def _entries(cache: Path, kind: str = "checker") -> list[Path]:
    """The entries of one kind: a checker's verdicts, or a stage's ("contract", "discovery")."""
    found: list[Path] = []
    for path in sorted((cache / "verdicts" / "entries").rglob("*.json")):
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue  # damaged by an earlier test
        if (kind == "checker" and "checker" in document) or document.get("stage") == kind:
            found.append(path)
    return found


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: "",  # empty
        lambda text: text[: len(text) // 2],  # cut short
        lambda text: "{not json",
        lambda text: json.dumps({**json.loads(text), "outcome": {"checker": "runtime", "verdicts": "no"}}),
        lambda text: json.dumps({**json.loads(text), "key": "0" * 64}),  # another key's entry
        lambda text: json.dumps({**json.loads(text), "format": 1}),  # written before the one codec
        lambda text: json.dumps({**json.loads(text), "added": 1}),  # a key no entry has
    ],
    ids=["empty", "truncated", "not-json", "wrong-shape", "wrong-key", "old-format", "unknown-key"],
)
def test_a_damaged_entry_is_ignored(
    cache_on: Path, target: Path, runtime: Counting, damage: Callable[[str], str]
) -> None:
    before = set(_entries(cache_on))
    first = _gate(target, runtime)
    mine = [p for p in _entries(cache_on) if p not in before]
    assert len(mine) == 1
    mine[0].write_text(damage(mine[0].read_text(encoding="utf-8")), encoding="utf-8")
    second = _gate(target, runtime)
    assert runtime.runs == 2
    assert stable(second) == stable(first)
    # ... and the next run's entry replaced the damaged one.
    _gate(target, runtime)
    assert runtime.runs == 2


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # cut short
        lambda text: json.dumps({**json.loads(text), "value": {"classes": "no"}}),
        lambda text: json.dumps({**json.loads(text), "reads": {}}),  # keyed on nothing read
    ],
    ids=["truncated", "wrong-shape", "reads-emptied"],
)
def test_a_damaged_discovery_entry_is_ignored(
    cache_on: Path, target: Path, runtime: Counting, stages: Stages, damage: Callable[[str], str]
) -> None:
    before = set(_entries(cache_on, "discovery"))
    first = _gate(target, runtime)
    mine = [p for p in _entries(cache_on, "discovery") if p not in before]
    assert len(mine) == 1 and stages.discoveries == 1
    mine[0].write_text(damage(mine[0].read_text(encoding="utf-8")), encoding="utf-8")
    second = _gate(target, runtime)
    assert stages.discoveries == 2
    assert stable(second) == stable(first)


def test_deleting_the_cache_folder_is_safe(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, target: Path, runtime: Counting
) -> None:
    monkeypatch.delenv(NO_CACHE_ENV, raising=False)
    cache = tmp_path / "own-cache"
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(cache))
    first = _gate(target, runtime)
    shutil.rmtree(cache)
    second = _gate(target, runtime)
    assert runtime.runs == 2
    assert stable(second) == stable(first)


def test_cache_false_neither_reuses_nor_stores(cache_on: Path, target: Path, runtime: Counting) -> None:
    before = set(_entries(cache_on))
    _gate(target, runtime, cache=False)
    _gate(target, runtime, cache=False)
    assert runtime.runs == 2
    assert set(_entries(cache_on)) == before


def test_no_cache_on_the_command_line_runs_the_checker(
    cache_on: Path, target: Path, runtime: Counting, capsys: pytest.CaptureFixture[str]
) -> None:
    # The command line looks --checker up in the registry it is given.
    def main(argv: list[str]) -> int:
        return cli_main(argv, checkers={"runtime": runtime})

    assert main(["check", str(target), "--checker", "runtime", "--format", "json", "--no-timings"]) == 1
    first = capsys.readouterr()
    assert main(["check", str(target), "--checker", "runtime", "--format", "json", "--no-timings"]) == 1
    second = capsys.readouterr()
    assert runtime.runs == 1
    assert "reused from the cache" not in first.err
    assert "spec-protocols: runtime: verdicts reused from the cache" in second.err
    assert second.out == first.out
    assert main(["check", str(target), "--checker", "runtime", "--format", "json", "--no-timings", "--no-cache"]) == 1
    third = capsys.readouterr()
    assert runtime.runs == 2
    assert "reused from the cache" not in third.err
    assert third.out == first.out


def test_the_environment_variable_turns_the_cache_off(
    cache_on: Path, target: Path, runtime: Counting, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(NO_CACHE_ENV, "1")
    _gate(target, runtime)
    _gate(target, runtime)
    assert runtime.runs == 2


def test_a_transient_outcome_is_not_kept(
    cache_on: Path, target: Path, runtime: Counting, monkeypatch: pytest.MonkeyPatch
) -> None:
    dying = Counting(runtime.inner, transient=True)
    _gate(target, dying)
    _gate(target, dying)
    assert dying.runs == 2


# -- the pieces ------------------------------------------------------------------


def test_an_outcome_round_trips_through_json() -> None:
    check = Check("pkg.mod.Worker", "SpecWorker")
    site = Check("pkg.mod.make:draft_worker_cls", "DraftWorkerFactory")
    outcome = CheckerOutcome(
        "mypy",
        {check: Verdict.FAIL, site: Verdict.UNVERIFIED},
        {
            check: (Problem("mypy", "init_cuda_graphs", "async, expected sync", "pkg/mod.py", 12),),
            site: (Problem("mypy", None, "Any", unverified=True),),
        },
        1.25,
        {site: "a note"},
        "2.4.1",
    )
    assert decode(CheckerOutcome, json.loads(json.dumps(encode(outcome)))) == outcome


def test_a_contract_round_trips_through_json() -> None:
    source = installed_source()
    if source is None:
        pytest.skip("sglang is not installed")
    contract = extract_contract(source)
    assert contract.spec_worker and contract.defaults
    assert decode(Contract, json.loads(json.dumps(encode(contract)))) == contract
    with pytest.raises(Undecodable):
        decode(Contract, {**encode_dict(contract), "spec_worker": [{**encode_dict(contract.spec_worker[0]), "kind": "poke"}]})


def test_a_discovery_round_trips_through_json() -> None:
    found = discover([resolve_target(str(FIXTURE))])
    assert found.classes and found.source_modules and found.imported_modules and any(c.members for c in found.classes)
    assert decode(Discovery, json.loads(json.dumps(encode(found)))) == found


def encode_dict(value: object) -> dict[str, object]:
    """A dataclass as the codec writes it: a JSON object."""
    encoded = encode(value)
    assert isinstance(encoded, dict)
    return cast(dict[str, object], encoded)


def test_an_entry_written_before_a_defaulted_field_existed_still_reads() -> None:
    @dataclass(frozen=True)
    class Later:
        message: str
        added: int = 7

    assert decode(Later, {"message": "m"}) == Later("m")
    with pytest.raises(Undecodable):
        decode(Later, {"added": 1})
    with pytest.raises(Undecodable):
        decode(Later, {"message": 3})


def test_the_stat_memo_sees_an_edit_that_keeps_size_and_mtime(tmp_path: Path) -> None:
    tree = tmp_path / "pkg"
    tree.mkdir()
    module = tree / "mod.py"
    module.write_text("A = 1\n", encoding="utf-8")
    stamp = module.stat()
    memo = tmp_path / "memo"
    first = StatMemo(memo).tree(tree)
    module.write_text("A = 2\n", encoding="utf-8")  # same size
    os.utime(module, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # the old mtime back
    assert StatMemo(memo).tree(tree).digest != first.digest
    assert StatMemo(memo).tree(tree).imports == frozenset()
