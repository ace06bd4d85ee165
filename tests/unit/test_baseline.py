"""Baselines: precise keys, exact whole-class messages, required reasons,
unused entries, notes never baselined, atomic writes.

Reports are built by hand; no checker runs.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from spec_protocols.gate._baseline import (
    Baseline,
    BaselineEntry,
    apply_baseline,
    load_baseline,
    note_unused,
    parse_baseline,
    stale_entries,
    unused_entries,
    unused_entry_line,
    write_baseline,
)
from spec_protocols.gate._checkers import CHECKER_NAMES
from spec_protocols.gate._model import Check, GateError, GateReport, Problem, Result, Verdict

P, F, U, S = Verdict.PASS, Verdict.FAIL, Verdict.UNVERIFIED, Verdict.SKIPPED

WORKER = "pkg.workers.DFlashWorker"
STEP = Problem("mypy", "forward_batch_generation", "extra required argument", "pkg/workers.py", 10)
STEP_PYRIGHT = Problem("pyright", "forward_batch_generation", "extra required argument", "pkg/workers.py", 10)
DRAFT = Problem("mypy", "draft", "property turned into a method", "pkg/workers.py", 20)
ABSTRACT = Problem("runtime", None, "abstract class: it cannot be instantiated; implement forward_batch_generation")
CTOR = Problem("runtime", None, "cannot be called as sglang constructs a draft worker: unexpected keyword 'gpu_id'")


def result(
    problems: tuple[Problem, ...],
    checkers: dict[str, Verdict],
    verdict: Verdict = F,
    target: str = WORKER,
    notes: tuple[str, ...] = (),
) -> Result:
    return Result(Check(target, "SpecWorker"), verdict, checkers, problems, notes=notes)


def report(*results: Result, checkers: tuple[str, ...] = ("runtime", "mypy", "pyright")) -> GateReport:
    return GateReport(results=results, checkers=checkers, timings={"total": 1.0})


def entry(
    member: str | None = "forward_batch_generation",
    checker: str = "mypy",
    reason: str = "upstream bug #1",
    target: str = WORKER,
    message: str | None = None,
) -> BaselineEntry:
    return BaselineEntry(target=target, protocol="SpecWorker", member=member, checker=checker, reason=reason, message=message)


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
    (r,) = apply_baseline(rep, Baseline((entry(member=None, message=whole.message),))).results
    assert r.baselined == (whole,)
    assert r.problems == (DRAFT,)
    assert r.verdict is F


def test_null_member_entry_never_accepts_a_different_problem() -> None:
    """The hole this closes: an entry accepting "abstract" used to accept
    every member-less runtime problem of the class, e.g. a later constructor
    failure."""
    baseline = Baseline((entry(member=None, checker="runtime", message=ABSTRACT.message),))
    later = report(result((CTOR,), {"runtime": F, "mypy": P, "pyright": P}))
    (r,) = apply_baseline(later, baseline).results
    assert r.problems == (CTOR,) and r.baselined == ()
    assert r.verdict is F and r.checkers["runtime"] is F
    assert unused_entries(later, baseline) == baseline.entries
    both = report(result((ABSTRACT, CTOR), {"runtime": F, "mypy": P, "pyright": P}))
    (r,) = apply_baseline(both, baseline).results
    assert r.baselined == (ABSTRACT,) and r.problems == (CTOR,) and r.verdict is F


def test_null_member_message_must_match_exactly() -> None:
    near = Problem("runtime", None, ABSTRACT.message + ".")
    rep = report(result((near,), {"runtime": F}))
    baseline = Baseline((entry(member=None, checker="runtime", message=ABSTRACT.message),))
    (r,) = apply_baseline(rep, baseline).results
    assert r.problems == (near,) and r.baselined == ()


def test_member_entries_still_match_any_message() -> None:
    reworded = Problem("mypy", "forward_batch_generation", "wording of a newer mypy")
    rep = report(result((STEP, reworded), {"mypy": F}))
    (r,) = apply_baseline(rep, Baseline((entry(),))).results
    assert r.baselined == (STEP, reworded) and r.verdict is P


def test_unverified_cannot_be_baselined() -> None:
    blind = Problem("mypy", None, "class is Any: untyped import")
    rep = report(result((blind,), {"runtime": P, "mypy": U, "pyright": P}, verdict=U))
    baseline = Baseline((entry(member=None, message=blind.message),))
    (r,) = apply_baseline(rep, baseline).results
    assert r.verdict is U and r.problems == (blind,) and r.baselined == ()
    assert stale_entries(rep, baseline) == baseline.entries
    # It accepts nothing, but mypy did not see the class: it is not judged
    # (the run fails on the unverified check anyway).
    assert unused_entries(rep, baseline) == ()


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
    assert unused_entries(rep, baseline) == (stale,)
    assert unused_entries(apply_baseline(rep, baseline), baseline) == (stale,)


# -- unused entries ---------------------------------------------------------


def test_unused_entries_count_only_checkers_that_ran() -> None:
    """A mypy entry is not unused in a --checker pyright run: mypy did not look."""
    rep = report(result((STEP_PYRIGHT,), {"pyright": F}), checkers=("pyright",))
    mypy_entry, pyright_gone = entry(), entry(member="gone", checker="pyright")
    baseline = Baseline((mypy_entry, pyright_gone))
    assert stale_entries(rep, baseline) == (mypy_entry, pyright_gone)
    assert unused_entries(rep, baseline) == (pyright_gone,)


def test_unused_entries_skip_a_checker_that_skipped_the_class() -> None:
    rep = report(
        result((), {"runtime": S, "mypy": P, "pyright": P}, verdict=P, notes=("runtime: skipped: cannot import pkg",))
    )
    runtime_entry = entry(member="clear_cache_pool", checker="runtime")
    mypy_entry = entry()
    assert unused_entries(rep, Baseline((runtime_entry, mypy_entry))) == (mypy_entry,)


def test_entry_for_a_class_not_in_the_run_is_unused() -> None:
    rep = report(result((STEP,), {"mypy": F}))
    gone = entry(target="pkg.workers.RenamedWorker")
    assert unused_entries(rep, Baseline((entry(), gone))) == (gone,)


def test_no_unused_entries_when_every_entry_accepts_something() -> None:
    rep = report(result((STEP, ABSTRACT), {"runtime": F, "mypy": F, "pyright": P}))
    baseline = Baseline((entry(), entry(member=None, checker="runtime", message=ABSTRACT.message)))
    assert unused_entries(rep, baseline) == ()
    assert apply_baseline(rep, baseline).ok


def test_unused_entry_line_is_one_line() -> None:
    assert unused_entry_line(entry()) == (
        f"unused baseline entry: {WORKER} (SpecWorker) forward_batch_generation [mypy]"
    )
    whole = entry(member=None, checker="runtime", message="line one\nline two")
    line = unused_entry_line(whole)
    assert line == f'unused baseline entry: {WORKER} (SpecWorker) <class> [runtime] "line one\\nline two"'
    assert "\n" not in line


def test_note_unused_adds_one_note_per_entry_and_keeps_verdicts() -> None:
    rep = replace(report(result((STEP,), {"mypy": F})), notes=("discovery: a note",))
    gone = entry(member="gone")
    noted = note_unused(rep, (gone,))
    assert noted.notes == ("discovery: a note", unused_entry_line(gone))
    assert noted.results == rep.results
    assert note_unused(rep, ()) is rep


# -- load -------------------------------------------------------------------


def test_load_round_trip(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "b.json",
        [entry_json(), entry_json(member=None, checker="pyright", message="whole class", reason="  why  ")],
    )
    baseline = load_baseline(path)  # the file's old "sglang" key is accepted and ignored
    assert baseline.entries == (entry(), entry(member=None, checker="pyright", reason="why", message="whole class"))


def test_whole_class_entry_without_message_is_an_error(tmp_path: Path) -> None:
    path = write_json(tmp_path / "b.json", [entry_json(), entry_json(member=None, checker="runtime")])
    with pytest.raises(GateError) as info:
        load_baseline(path)
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message and "entry 1" in message and "<class>" in message
    assert "no message" in message and "--write-baseline" in message


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"member": None, "message": ""}, "invalid message"),
        ({"member": None, "message": 3}, "invalid message"),
        ({"member": None, "message": None}, "no message"),
        ({"message": "a message on a member entry"}, "has a message, but entries with a member match any message"),
    ],
)
def test_invalid_messages_are_errors(tmp_path: Path, overrides: dict[str, object], fragment: str) -> None:
    path = write_json(tmp_path / "b.json", [entry_json(**overrides)])
    with pytest.raises(GateError, match=fragment) as info:
        load_baseline(path)
    assert "\n" not in str(info.value)


def test_whole_class_entries_differ_by_message(tmp_path: Path) -> None:
    one = entry_json(member=None, checker="runtime", message="first")
    two = entry_json(member=None, checker="runtime", message="second")
    assert len(load_baseline(write_json(tmp_path / "a.json", [one, two])).entries) == 2
    with pytest.raises(GateError, match="duplicates"):
        load_baseline(write_json(tmp_path / "b.json", [one, dict(one, reason="other")]))


def test_lenient_parse_drops_only_message_less_whole_class_entries() -> None:
    text = json.dumps({"version": 1, "entries": [entry_json(), entry_json(member=None, checker="runtime")]})
    assert parse_baseline(text, lenient=True).entries == (entry(),)
    bad = json.dumps({"version": 1, "entries": [entry_json(reason="")]})
    with pytest.raises(GateError, match="no reason"):
        parse_baseline(bad, lenient=True)


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
    written = write_baseline(rep, path, reason="accepted for 0.5.23")
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
    assert "sglang" not in json.loads(path.read_text())  # an old file's key is not carried over


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


def test_write_records_whole_class_problems_with_their_message(tmp_path: Path) -> None:
    rep = report(result((ABSTRACT, STEP), {"runtime": F, "mypy": F, "pyright": P}))
    path = tmp_path / "baseline.json"
    written = write_baseline(rep, path, reason="known")
    raw = json.loads(path.read_text())["entries"]
    whole = [e for e in raw if e["member"] is None]
    assert whole == [
        {"target": WORKER, "protocol": "SpecWorker", "member": None, "checker": "runtime",
         "message": ABSTRACT.message, "reason": "known"}
    ]
    # An entry with a member is written without a message.
    assert all("message" not in e for e in raw if e["member"] is not None)
    assert load_baseline(path) == written
    # The recorded entry accepts that problem and not the next one.
    later = report(result((ABSTRACT, CTOR), {"runtime": F, "mypy": F, "pyright": P}))
    (r,) = apply_baseline(later, written).results
    assert r.problems == (CTOR,) and r.verdict is F


def test_write_replaces_message_less_whole_class_entries(tmp_path: Path) -> None:
    """The re-recording the load error asks for works on the old file."""
    path = write_json(
        tmp_path / "baseline.json",
        [entry_json(reason="tracked upstream as #42"), entry_json(member=None, checker="runtime", reason="old, vague")],
    )
    with pytest.raises(GateError, match="no message"):
        load_baseline(path)
    rep = report(result((STEP, ABSTRACT), {"runtime": F, "mypy": F}))
    written = write_baseline(rep, path, reason="re-recorded")
    assert {(e.member, e.message, e.reason) for e in written.entries} == {
        ("forward_batch_generation", None, "tracked upstream as #42"),
        (None, ABSTRACT.message, "re-recorded"),
    }
    assert load_baseline(path) == written


def test_write_never_records_notes_of_a_skipped_checker(tmp_path: Path) -> None:
    """Skipping is a note, not a problem: it never enters a baseline."""
    skipped = result(
        (STEP,),
        {"runtime": S, "mypy": F, "pyright": P},
        notes=("runtime: skipped: cannot import pkg.workers: CUDA is not available",),
    )
    path = tmp_path / "baseline.json"
    written = write_baseline(report(skipped), path, reason="r")
    assert [(e.checker, e.member) for e in written.entries] == [("mypy", "forward_batch_generation")]
    assert all(e["checker"] != "runtime" for e in json.loads(path.read_text())["entries"])
    # A report whose only non-pass is a skipped runtime checker writes nothing.
    clean = result((), {"runtime": S, "mypy": P, "pyright": P}, verdict=P, notes=skipped.notes)
    assert write_baseline(report(clean), path, reason="r").entries == ()
    assert json.loads(path.read_text())["entries"] == []


def test_problems_of_a_skipped_checker_are_neither_accepted_nor_written(tmp_path: Path) -> None:
    """Defensive: should a skipped checker still report a problem (the model
    before notes did), it is not a deviation the checker found."""
    leftover = Problem("runtime", None, "cannot import pkg.workers: CUDA is not available")
    rep = report(result((leftover,), {"runtime": S, "mypy": P, "pyright": P}))
    baseline = Baseline((entry(member=None, checker="runtime", message=leftover.message),))
    (r,) = apply_baseline(rep, baseline).results
    assert r.problems == (leftover,) and r.baselined == ()
    assert write_baseline(rep, tmp_path / "b.json", reason="r").entries == ()


def test_apply_keeps_notes(tmp_path: Path) -> None:
    notes = ("runtime: skipped: cannot import pkg",)
    rep = report(result((STEP,), {"runtime": S, "mypy": F, "pyright": P}, notes=notes))
    (r,) = apply_baseline(rep, Baseline((entry(),))).results
    assert r.notes == notes and r.verdict is P


def test_a_blind_spot_in_a_failing_check_is_never_accepted() -> None:
    """A member a checker saw as Any is unverified even when another member of
    the same check fails: accepting the failure leaves the check unverified."""
    failure = Problem("mypy", "init_cuda_graphs", "bad signature", "/x.py", 3)
    blind = Problem("mypy", "forward_batch_generation", "mypy sees it as Any", "/x.py", 4, unverified=True)
    report = GateReport(
        (Result(Check("pkg.W", "SpecWorker"), Verdict.FAIL, {"mypy": Verdict.FAIL}, (failure, blind)),),
        ("mypy",),
        {},
    )
    entries = [
        BaselineEntry("pkg.W", "SpecWorker", "init_cuda_graphs", "mypy", "upstream"),
        BaselineEntry("pkg.W", "SpecWorker", "forward_batch_generation", "mypy", "trying to hide a blind spot"),
    ]
    (result,) = apply_baseline(report, Baseline(tuple(entries))).results
    assert result.verdict is Verdict.UNVERIFIED
    assert result.checkers == {"mypy": Verdict.UNVERIFIED}
    assert result.problems == (blind,)
    assert result.baselined == (failure,)


# -- the messages, exactly, where more than one thing is wrong ------------------------


W = f"{WORKER} SpecWorker"


@pytest.mark.parametrize(
    ("entry_data", "message"),
    [
        # What is checked first is said first: unknown keys before the fields, then the fields in file order.
        ({"reson": "typo", "target": ""}, "entry 0 has unknown key(s): reson"),
        ({"target": "", "protocol": 5}, "entry 0 has no target"),
        ({"protocol": ""}, f"entry 0 ({WORKER}) has no protocol"),
        ({"member": ""}, f"entry 0 ({W}) has an invalid member: ''"),
        ({"member": False}, f"entry 0 ({W}) has an invalid member: False"),
        ({"checker": None}, f"entry 0 ({W} forward_batch_generation) has checker None, not one of {', '.join(CHECKER_NAMES)}"),
        # The message rules come before the reason's.
        (
            {"message": None, "reason": None},
            f"entry 0 ({WORKER} (SpecWorker) forward_batch_generation [mypy]) has a message, but entries with a member "
            "match any message; remove it (only whole-class entries, member null, match by message)",
        ),
        ({"member": None, "message": 3, "reason": ""}, f"entry 0 ({WORKER} (SpecWorker) <class> [mypy]) has an invalid message: 3"),
        (
            {"member": None, "message": "m", "reason": 7},
            f"entry 0 ({WORKER} (SpecWorker) <class> [mypy]) has no reason; every entry must say why it is accepted",
        ),
    ],
)
def test_entry_errors_word_for_word(entry_data: dict[str, object], message: str) -> None:
    text = json.dumps({"version": 1, "entries": [entry_json(**entry_data)]})
    with pytest.raises(GateError) as info:
        parse_baseline(text, where="b.json")
    assert str(info.value) == f"baseline b.json: {message}"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"version": 2, "entries": {}}, "unsupported version 2 (expected 1)"),
        ({"entries": []}, "unsupported version None (expected 1)"),
        ({"version": 1}, "entries is not a list"),
        ({"version": 1, "entries": [3]}, "entry 0 is not an object"),
    ],
)
def test_file_errors_word_for_word(document: dict[str, object], message: str) -> None:
    with pytest.raises(GateError) as info:
        parse_baseline(json.dumps(document), where="b.json")
    assert str(info.value) == f"baseline b.json: {message}"


@pytest.mark.parametrize("version", [1, 1.0, True])
def test_a_version_equal_to_1_is_read(version: object) -> None:
    assert parse_baseline(json.dumps({"version": version, "entries": [entry_json()], "sglang": "x"})).entries == (entry(),)
