"""Baselines: precise keys, required reasons, stale entries, atomic writes.

Reports are built by hand; no checker runs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from spec_protocols.gate.baseline import (
    Baseline,
    BaselineEntry,
    apply_baseline,
    load_baseline,
    stale_entries,
    write_baseline,
)
from spec_protocols.gate.model import Check, GateError, GateReport, Problem, Result, Verdict

P, F, U, S = Verdict.PASS, Verdict.FAIL, Verdict.UNVERIFIED, Verdict.SKIPPED

WORKER = "pkg.workers.DFlashWorker"
STEP = Problem("mypy", "forward_batch_generation", "extra required argument", "pkg/workers.py", 10)
STEP_PYRIGHT = Problem("pyright", "forward_batch_generation", "extra required argument", "pkg/workers.py", 10)
DRAFT = Problem("mypy", "draft", "property turned into a method", "pkg/workers.py", 20)


def result(problems: tuple[Problem, ...], checkers: dict[str, Verdict], verdict: Verdict = F, target: str = WORKER) -> Result:
    return Result(Check(target, "SpecWorker"), verdict, checkers, problems)


def report(*results: Result) -> GateReport:
    return GateReport(results=results, checkers=("runtime", "mypy", "pyright"), timings={"total": 1.0})


def entry(member: str | None = "forward_batch_generation", checker: str = "mypy", reason: str = "upstream bug #1", target: str = WORKER) -> BaselineEntry:
    return BaselineEntry(target=target, protocol="SpecWorker", member=member, checker=checker, reason=reason)


def write_json(path: Path, entries: list[dict[str, object]], **extra: object) -> Path:
    path.write_text(json.dumps({"version": 1, "sglang": "0.5.23", "entries": entries, **extra}))
    return path


def entry_json(**overrides: object) -> dict[str, object]:
    data: dict[str, object] = {
        "target": WORKER, "protocol": "SpecWorker", "member": "forward_batch_generation",
        "checker": "mypy", "reason": "upstream bug #1",
    }
    data.update(overrides)
    return data


# -- apply ------------------------------------------------------------------


def test_apply_moves_matching_problem_and_passes_the_result() -> None:
    rep = report(result((STEP,), {"runtime": S, "mypy": F, "pyright": P}))
    applied = apply_baseline(rep, Baseline((entry(),)))
    (r,) = applied.results
    assert r.problems == ()
    assert r.baselined == (STEP,)
    assert r.checkers == {"runtime": S, "mypy": P, "pyright": P}
    assert r.verdict is P
    assert applied.ok
    assert applied.timings == rep.timings


def test_keys_are_precise_other_member_checker_or_class_still_fail() -> None:
    other_class = result((STEP,), {"mypy": F}, target="pkg.workers.OtherWorker")
    rep = report(
        result((STEP, STEP_PYRIGHT, DRAFT), {"runtime": P, "mypy": F, "pyright": F}),
        other_class,
    )
    applied = apply_baseline(rep, Baseline((entry(),)))
    first, second = applied.results
    assert first.baselined == (STEP,)
    # Same member, other checker; same checker, other member: both still fail.
    assert first.problems == (STEP_PYRIGHT, DRAFT)
    assert first.checkers["mypy"] is F and first.checkers["pyright"] is F
    assert first.verdict is F
    # Same member and checker on another class: still fails.
    assert second == other_class
    assert not applied.ok


def test_null_member_matches_only_whole_class_problems() -> None:
    whole = Problem("mypy", None, "class body incompatible")
    rep = report(result((whole, DRAFT), {"mypy": F}))
    (r,) = apply_baseline(rep, Baseline((entry(member=None),))).results
    assert r.baselined == (whole,)
    assert r.problems == (DRAFT,)
    assert r.verdict is F


def test_unverified_cannot_be_baselined() -> None:
    blind = Problem("mypy", None, "class is Any: untyped import")
    rep = report(result((blind,), {"runtime": P, "mypy": U, "pyright": P}, verdict=U))
    baseline = Baseline((entry(member=None),))
    (r,) = apply_baseline(rep, baseline).results
    assert r.verdict is U and r.problems == (blind,) and r.baselined == ()
    assert stale_entries(rep, baseline) == baseline.entries


def test_baselining_one_checker_leaves_another_unverified() -> None:
    blind = Problem("pyright", None, "Unknown base class")
    rep = report(result((STEP, blind), {"mypy": F, "pyright": U}, verdict=F))
    (r,) = apply_baseline(rep, Baseline((entry(),))).results
    assert r.checkers == {"mypy": P, "pyright": U}
    assert r.verdict is U
    assert r.problems == (blind,)


def test_stale_entries_are_reported_before_and_after_apply() -> None:
    rep = report(result((STEP,), {"mypy": F}))
    used, stale = entry(), entry(member="gone")
    baseline = Baseline((used, stale))
    assert stale_entries(rep, baseline) == (stale,)
    assert stale_entries(apply_baseline(rep, baseline), baseline) == (stale,)


# -- load -------------------------------------------------------------------


def test_load_round_trip(tmp_path: Path) -> None:
    path = write_json(tmp_path / "b.json", [entry_json(), entry_json(member=None, checker="pyright", reason="  why  ")])
    baseline = load_baseline(path)
    assert baseline.sglang == "0.5.23"
    assert baseline.entries == (entry(), entry(member=None, checker="pyright", reason="why"))


@pytest.mark.parametrize("reason", [None, "", "   "])
def test_reason_is_required(tmp_path: Path, reason: str | None) -> None:
    raw = entry_json(reason=reason) if reason is not None else {k: v for k, v in entry_json().items() if k != "reason"}
    path = write_json(tmp_path / "b.json", [entry_json(member="ok"), raw])
    with pytest.raises(GateError) as info:
        load_baseline(path)
    message = str(info.value)
    assert "\n" not in message
    assert "entry 1" in message and WORKER in message and "forward_batch_generation" in message
    assert "reason" in message


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "not a JSON object"),
        ('{"version": 2, "entries": []}', "unsupported version 2"),
        ('{"version": 1, "entries": {}}', "entries is not a list"),
        ('{"version": 1, "sglang": 5, "entries": []}', "sglang"),
    ],
)
def test_malformed_files_raise_one_line(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "b.json"
    path.write_text(text)
    with pytest.raises(GateError, match=fragment) as info:
        load_baseline(path)
    assert "\n" not in str(info.value)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"checker": "pyre"}, "checker 'pyre'"),
        ({"reson": "typo"}, "unknown key"),
        ({"target": ""}, "no target"),
    ],
)
def test_invalid_entries_are_errors(tmp_path: Path, overrides: dict[str, object], fragment: str) -> None:
    path = write_json(tmp_path / "b.json", [entry_json(**overrides)])
    with pytest.raises(GateError, match=fragment):
        load_baseline(path)


def test_missing_member_key_and_duplicates_are_errors(tmp_path: Path) -> None:
    no_member = {k: v for k, v in entry_json().items() if k != "member"}
    with pytest.raises(GateError, match="no member key"):
        load_baseline(write_json(tmp_path / "a.json", [no_member]))
    with pytest.raises(GateError, match="duplicates"):
        load_baseline(write_json(tmp_path / "b.json", [entry_json(), entry_json(reason="other")]))


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(GateError, match="no such file"):
        load_baseline(tmp_path / "absent.json")


# -- write ------------------------------------------------------------------


def test_write_then_load_accepts_every_problem(tmp_path: Path) -> None:
    blind = Problem("pyright", None, "Unknown base")
    rep = report(
        result((STEP, DRAFT), {"mypy": F}),
        result((blind,), {"pyright": U}, verdict=U, target="pkg.Blind"),
    )
    path = tmp_path / "baseline.json"
    written = write_baseline(rep, path, reason="accepted for 0.5.23", sglang="0.5.23")
    loaded = load_baseline(path)
    assert loaded == written
    # Unverified problems are not written: they could never apply.
    assert [(e.member, e.checker, e.reason) for e in loaded.entries] == [
        ("draft", "mypy", "accepted for 0.5.23"),
        ("forward_batch_generation", "mypy", "accepted for 0.5.23"),
    ]
    applied = apply_baseline(rep, loaded)
    assert [r.verdict for r in applied.results] == [P, U]
    assert stale_entries(rep, loaded) == ()
    assert json.loads(path.read_text())["version"] == 1


def test_write_keeps_existing_reasons_and_drops_stale(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "baseline.json",
        [entry_json(reason="tracked upstream as #42"), entry_json(member="gone", reason="old")],
    )
    rep = report(result((STEP, DRAFT), {"mypy": F}))
    written = write_baseline(rep, path, reason="new one")
    reasons = {e.member: e.reason for e in written.entries}
    assert reasons == {"forward_batch_generation": "tracked upstream as #42", "draft": "new one"}
    assert load_baseline(path).sglang == "0.5.23"  # kept from the old file


def test_write_includes_already_baselined_problems(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    rep = report(result((STEP, DRAFT), {"mypy": F}))
    write_baseline(rep, path, reason="first")
    applied = apply_baseline(rep, load_baseline(path))
    again = write_baseline(applied, path, reason="second")
    assert {e.member: e.reason for e in again.entries} == {"forward_batch_generation": "first", "draft": "first"}


def test_write_requires_a_reason(tmp_path: Path) -> None:
    with pytest.raises(GateError, match="reason"):
        write_baseline(report(result((STEP,), {"mypy": F})), tmp_path / "b.json", reason="  ")
    assert not (tmp_path / "b.json").exists()


def test_write_is_atomic_when_replace_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_json(tmp_path / "baseline.json", [entry_json()])
    before = path.read_bytes()

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(GateError, match="cannot write"):
        write_baseline(report(result((STEP, DRAFT), {"mypy": F})), path, reason="new")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["baseline.json"]


def test_write_leaves_no_temp_file(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    write_baseline(report(result((STEP,), {"mypy": F})), path, reason="r")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["baseline.json"]


def test_write_refuses_to_overwrite_an_invalid_baseline(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    path.write_text("{broken")
    with pytest.raises(GateError, match="not valid JSON"):
        write_baseline(report(result((STEP,), {"mypy": F})), path, reason="r")
    assert path.read_text() == "{broken"
