"""Several sglang releases in one run, without a checker: the merge, every format, the CLI's decisions.

Reports are built by hand (two or three releases of a two-class plugin: one
class that passes everywhere, one written for 0.5.20 that fails 0.5.23 on
its constructor); ``run_gate`` is replaced where the runner is under test.
tests/checkers/test_release_matrix.py runs the real gate on two releases.
"""

from __future__ import annotations

import json
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from spec_protocols.gate import _cli as cli
from spec_protocols.gate import _pipeline
from spec_protocols.gate._model import (
    Check,
    CheckerSkip,
    GateError,
    GateReport,
    Problem,
    ReadSet,
    Result,
    SglangChecked,
    SkipReason,
    Verdict,
)
from spec_protocols.gate._run import run_releases
from spec_protocols.gate._releases_run import release_jobs
from spec_protocols.gate._reports import FORMATS, messages
from spec_protocols.gate._reports import render as render_releases
from spec_protocols.gate._request import distinct_releases
from spec_protocols.gate._reports._release_matrix import ReleaseRun, ReleasesReport, cell_text, release_notes, rows

PORTABLE = "plugin.workers.PortableWorker"
LEGACY = "plugin.workers.LegacyWorker"
P, F, U = Verdict.PASS, Verdict.FAIL, Verdict.UNVERIFIED
CTOR = Problem("pyright", "__init__", 'Argument missing for parameter "ps"', "plugin/workers.py", 12)
CTOR_MYPY = Problem("mypy", "__init__", 'Missing named argument "ps"', "plugin/workers.py", 12)
FORWARD = Problem("mypy", "forward_batch_generation", "extra required argument", "plugin/workers.py", 30)
DISCOVERY_NOTE = "plugin/other.py: no worker class"


def release_report(release: str, legacy: Verdict, *problems: Problem, static: bool = True, notes: Sequence[str] = ()) -> GateReport:
    """One release's report: PortableWorker passes, LegacyWorker has ``legacy``."""
    skipped = (CheckerSkip(("runtime",), SkipReason.SGLANG_NOT_INSTALLED, release, ("mypy", "pyright")),) if static else ()
    checkers = {"mypy": legacy, "pyright": legacy}
    return GateReport(
        results=(
            Result(Check(PORTABLE, "SpecWorker"), P, {"mypy": P, "pyright": P}, ()),
            Result(Check(LEGACY, "SpecWorker"), legacy, checkers, problems),
        ),
        checkers=("mypy", "pyright"),
        timings={"total": 3.0},
        notes=(DISCOVERY_NOTE, *notes, *(messages.skip_note(s) for s in skipped)),
        checker_versions={"mypy": "2.4.1", "pyright": "1.1.414"},
        sglang=SglangChecked(release, "fetched", f"/cache/sglang/{release}", release),
        targets=("plugin",),
        skipped=skipped,
    )


def matrix() -> ReleasesReport:
    return ReleasesReport(
        (
            ReleaseRun("0.5.20", release_report("0.5.20", P)),
            ReleaseRun("0.5.23", release_report("0.5.23", F, CTOR, CTOR_MYPY, FORWARD, notes=("only on 0.5.23",))),
        ),
        {"total": 4.0},
    )


# --- the merge -------------------------------------------------------------


def test_rows_are_every_class_and_protocol_in_the_canonical_order() -> None:
    assert rows(matrix()) == [Check(LEGACY, "SpecWorker"), Check(PORTABLE, "SpecWorker")]


def test_a_cell_is_the_verdict_with_the_member_it_fails_on() -> None:
    failing = matrix().runs[1].report.results[1]
    assert cell_text(failing) == "fail: __init__ +1"  # the lead problem's member, one more failing member
    assert cell_text(matrix().runs[0].report.results[1]) == "pass"
    assert cell_text(None) == "-"
    blind = Result(Check(LEGACY, "SpecWorker"), U, {"mypy": U}, (Problem("mypy", None, "Any", unverified=True),))
    assert cell_text(blind) == "unverified"


def test_notes_stand_once_and_name_the_releases_of_a_note_only_some_gave() -> None:
    notes = release_notes(matrix())
    assert notes[0] == DISCOVERY_NOTE
    assert "sglang 0.5.23: only on 0.5.23" in notes
    assert not any("skipped: --sglang" in n for n in notes)  # the table's * says it
    assert notes[-1].startswith("static only (marked *): 0.5.20, 0.5.23: the runtime checker skipped there")


def test_the_same_release_twice_is_told_apart_by_origin_then_by_the_value_given() -> None:
    installed = release_report("0.5.23", P, static=False)
    installed = GateReport(**{**_fields(installed), "sglang": SglangChecked("0.5.23", "installed", "/venv", "0.5.23")})
    report = ReleasesReport((ReleaseRun("0.5.23", release_report("0.5.23", P)), ReleaseRun("/venv", installed)))
    assert report.labels == ("0.5.23 (fetched)", "0.5.23 (installed)")
    twice = ReleasesReport((ReleaseRun("a", release_report("0.5.23", P)), ReleaseRun("b", release_report("0.5.23", P))))
    assert twice.labels == ("0.5.23 (fetched) [a]", "0.5.23 (fetched) [b]")


def _fields(report: GateReport) -> dict[str, Any]:
    return {name: getattr(report, name) for name in GateReport.__dataclass_fields__}


def test_the_report_fails_if_any_release_fails_and_counts_every_release() -> None:
    report = matrix()
    assert not report.ok
    assert report.summary() == {"total": 4, "pass": 3, "fail": 1, "unverified": 0, "baselined": 0}
    passing = ReleasesReport((matrix().runs[0],))
    assert passing.ok


# --- the formats -----------------------------------------------------------


def test_text_is_a_class_by_release_table() -> None:
    text = render_releases(matrix(), "text", include_timings=False)
    lines = text.splitlines()
    assert lines[0].split() == ["Class", "Protocol", "0.5.20*", "0.5.23*"]
    assert lines[2].split() == ["LegacyWorker", "SpecWorker", "pass", "fail:", "__init__", "+1"]
    assert lines[3].split() == ["PortableWorker", "SpecWorker", "pass", "pass"]
    assert f"  {LEGACY} (SpecWorker)" in lines
    assert any(line.strip().startswith('on 0.5.23: pyright: __init__ (plugin/workers.py:12): Argument missing') for line in lines)
    assert "pass on 0.5.20; fail on 0.5.23" in lines
    assert "  0.5.20*: sglang 0.5.20 (fetched: /cache/sglang/0.5.20)" in lines
    assert lines[-1] == "4 checked on 2 sglang releases: 3 pass, 1 fail, 0 unverified"
    assert render_releases(matrix(), "text").splitlines()[-1].endswith(" in 4.0s")


def test_markdown_is_the_same_table_with_every_problem_named_by_release() -> None:
    text = render_releases(matrix(), "markdown", include_timings=False)
    assert "| Class | Protocol | 0.5.20\\* | 0.5.23\\* |" in text
    assert "| `LegacyWorker` | SpecWorker | pass | **fail** (`__init__` +1) |" in text
    assert f"- `{LEGACY}` (SpecWorker) on sglang 0.5.23, pyright, `__init__`: Argument missing" in text
    assert "- sglang 0.5.23: only on 0.5.23" in text


def test_every_json_result_carries_the_release_it_was_checked_against() -> None:
    data = json.loads(render_releases(matrix(), "json"))
    assert [(r["target"], r["sglang"]["release"]) for r in data["results"]] == [
        (LEGACY, "0.5.20"),
        (LEGACY, "0.5.23"),
        (PORTABLE, "0.5.20"),
        (PORTABLE, "0.5.23"),
    ]
    first = data["results"][0]["sglang"]
    assert first == {"release": "0.5.20", "origin": "fetched", "path": "/cache/sglang/0.5.20", "pin": "0.5.20"}
    assert [s["release"] for s in data["sglang"]] == ["0.5.20", "0.5.23"]
    assert data["summary"]["total"] == 4 and data["summary"]["fail"] == 1
    assert data["checkers"] == ["mypy", "pyright"]
    assert data["timings"] == {"0.5.20": 3.0, "0.5.23": 3.0, "total": 4.0}
    assert "timings" not in json.loads(render_releases(matrix(), "json", include_timings=False))


def test_github_and_junit_carry_the_release_in_each_title_and_test_name() -> None:
    github = render_releases(matrix(), "github", include_timings=False).splitlines()
    errors = [line for line in github if line.startswith("::error")]
    assert len(errors) == 3 and all("[sglang 0.5.23]" in line for line in errors)
    assert github[-1].startswith("::notice title=spec-protocols::4 checked on 2 sglang releases")
    root = ET.fromstring(render_releases(matrix(), "junit", include_timings=False).split("\n", 1)[1])
    assert root.get("tests") == "4" and root.get("failures") == "1"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["spec-protocols [sglang 0.5.20]", "spec-protocols [sglang 0.5.23]"]
    names = [(c.get("classname"), c.get("name"), c.find("failure") is not None) for c in root.iter("testcase")]
    assert (LEGACY, "SpecWorker [sglang 0.5.23]", True) in names
    assert (LEGACY, "SpecWorker [sglang 0.5.20]", False) in names


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_is_deterministic(fmt: str) -> None:
    assert render_releases(matrix(), fmt, include_timings=False) == render_releases(matrix(), fmt, include_timings=False)


def test_an_unknown_format_is_a_gate_error() -> None:
    with pytest.raises(GateError, match="unknown format"):
        render_releases(matrix(), "yaml")


# --- the runner ------------------------------------------------------------


def test_a_release_given_twice_is_refused(tmp_path: Path) -> None:
    assert distinct_releases(["0.5.20", "0.5.23"]) == ("0.5.20", "0.5.23")
    with pytest.raises(GateError, match="--sglang 0.5.23 is given twice"):
        distinct_releases(["0.5.23", "0.5.20", "0.5.23"])
    (tmp_path / "tree").mkdir()
    with pytest.raises(GateError, match=r"given twice \(as --sglang"):
        distinct_releases([str(tmp_path / "tree"), f"{tmp_path}/./tree"])


def test_as_many_releases_run_at_once_as_the_cpus_hold_their_checkers(monkeypatch: pytest.MonkeyPatch) -> None:
    assert release_jobs(5, 2) == 2
    assert release_jobs(1, 8) == 1
    assert release_jobs(3, 0) == 1
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    assert release_jobs(5, checkers=2) == 5
    assert release_jobs(10, checkers=2) == 8
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert release_jobs(5, checkers=2) == 1  # two CPUs, mypy and pyright: one release at a time
    assert release_jobs(5, checkers=1) == 2


def _fake_release(answer: Callable[[str | None], GateReport]) -> Callable[[Any], tuple[GateReport, ReadSet]]:
    """A stand-in for one release's stages (``_pipeline._Release.run``), answering with ``answer(given)``."""

    def run(self: Any) -> tuple[GateReport, ReadSet]:
        return answer(self.given), ReadSet()

    return run


def test_the_releases_run_side_by_side_and_report_in_the_order_given(monkeypatch: pytest.MonkeyPatch) -> None:
    both_started = threading.Barrier(2, timeout=10)
    calls: list[str | None] = []

    def answer(sglang: str | None) -> GateReport:
        calls.append(sglang)
        both_started.wait()  # each release waits for the other: only a parallel run gets past
        assert sglang is not None
        return release_report(sglang, P if sglang == "0.5.20" else F, CTOR)

    monkeypatch.setattr(_pipeline._Release, "run", _fake_release(answer))  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(_pipeline, "release_jobs", lambda count, jobs=None, *, checkers=1: 2)
    report = run_releases(["plugin"], releases=["0.5.23", "0.5.20"], cache=False)
    assert sorted(c or "" for c in calls) == ["0.5.20", "0.5.23"]
    assert [run.given for run in report.runs] == ["0.5.23", "0.5.20"]
    assert not report.ok and "total" in report.timings


def test_a_release_that_errors_is_the_runs_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def answer(sglang: str | None) -> GateReport:
        if sglang == "9.9.9":
            raise GateError("cannot fetch sglang 9.9.9")
        return release_report(sglang or "", P)

    monkeypatch.setattr(_pipeline._Release, "run", _fake_release(answer))  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(GateError, match="9.9.9"):
        run_releases(["plugin"], releases=["0.5.23", "9.9.9"], cache=False)


# --- the command line ------------------------------------------------------


def test_a_baseline_entry_is_unused_only_where_no_release_uses_it() -> None:
    from spec_protocols.gate._baseline import Baseline, BaselineEntry
    from spec_protocols.gate._releases_run import unused_everywhere

    only_on_0_5_23 = BaselineEntry(LEGACY, "SpecWorker", "__init__", "pyright", "the 0.5.20 constructor, kept")
    nowhere = BaselineEntry(PORTABLE, "SpecWorker", "draft", "pyright", "gone")
    assert unused_everywhere(matrix(), Baseline((only_on_0_5_23, nowhere))) == (nowhere,)


@pytest.fixture
def fake_matrix(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """The stages of a run answering :func:`matrix`'s releases; the requests they got."""
    calls: list[dict[str, object]] = []

    def fake(request: Any, given: Sequence[str | None], keys: object, recalled: object) -> tuple[list[GateReport], ReadSet]:
        calls.append({"targets": list(request.targets), "releases": tuple(given)})
        runs = {run.given: run for run in matrix().runs}
        return [runs[str(r)].report for r in given], ReadSet()

    monkeypatch.setattr(_pipeline, "run_stages", fake)
    return calls


def test_the_cli_exits_1_when_a_release_fails_and_0_when_all_pass(
    fake_matrix: list[dict[str, object]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["check", "plugin", "--sglang", "0.5.20", "--sglang", "0.5.23", "--no-timings"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["Class", "Protocol", "0.5.20*", "0.5.23*"]
    assert fake_matrix[0]["releases"] == ("0.5.20", "0.5.23") and fake_matrix[0]["targets"] == ["plugin"]
    assert cli.main(["check", "plugin", "--sglang", "0.5.20", "--sglang", "0.5.20", "--format", "json"]) == 2
    assert "given twice" in capsys.readouterr().err


def test_the_cli_refuses_write_baseline_over_several_releases(
    fake_matrix: list[dict[str, object]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["check", "plugin", "--sglang", "0.5.20", "--sglang", "0.5.23"]
    assert cli.main([*argv, "--write-baseline", str(tmp_path / "b.json"), "--reason", "r"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--write-baseline records one release's problems" in err
    assert not fake_matrix


def test_a_release_with_only_unverified_classes_is_said_so_not_failed() -> None:
    report = ReleasesReport(
        (
            ReleaseRun("0.5.20", release_report("0.5.20", P)),
            ReleaseRun("0.5.21", release_report("0.5.21", U)),
            ReleaseRun("0.5.23", release_report("0.5.23", F, CTOR)),
        ),
        {"total": 4.0},
    )
    assert "pass on 0.5.20; fail on 0.5.23; unverified on 0.5.21" in render_releases(report, "text").splitlines()
