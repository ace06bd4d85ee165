"""The gate's output formats, on reports built by hand (no checker runs).

Every format is rendered from the same report: one passing class, one
failing with two problems, one unverified, and a skipped runtime checker.
Each test asserts what a reader of that format would notice.
"""

from __future__ import annotations

import itertools
import json
import random
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from spec_protocols.gate._model import Check, GateError, GateReport, Problem, Result, Verdict
from spec_protocols.gate._reports import FORMATS, render
from spec_protocols.gate._reports._github import escape_data, escape_property, render_github
from spec_protocols.gate._reports._json import render_json
from spec_protocols.gate._reports._junit import render_junit
from spec_protocols.gate._reports._markdown import render_markdown
from spec_protocols.gate._reports._phrasing import elide, short_names
from spec_protocols.gate._reports._text import render_text

PASSING = "sglang.srt.speculative.eagle_worker.EAGLEWorker"
FAILING = "sglang.srt.speculative.multi_layer_eagle_worker.MultiLayerEagleDraftWorker"
UNVERIFIED = "plugin_pkg.workers.UnoWorker"
FAIL_FILE = "sglang/srt/speculative/multi_layer_eagle_worker.py"

P, F, U, S = Verdict.PASS, Verdict.FAIL, Verdict.UNVERIFIED, Verdict.SKIPPED

PROBLEM_MYPY = Problem(
    "mypy",
    "forward_batch_generation",
    'Signature incompatible with "SpecWorker": extra required argument "mode"',
    FAIL_FILE,
    40,
)
PROBLEM_PYRIGHT = Problem(
    "pyright",
    "draft",
    "property turned into a method; " + "the protocol declares a read-only property " * 3,
    FAIL_FILE,
    77,
)
PROBLEM_UNVERIFIED = Problem("mypy", None, "class is Any to mypy: untyped import of plugin_pkg.base")


def make_report(*, shuffle: int | None = None) -> GateReport:
    """The reference report; *shuffle* seeds a reordering of every sequence
    and mapping in it, which must not change any output."""
    results = [
        Result(Check(PASSING, "SpecWorker"), P, {"runtime": P, "mypy": P, "pyright": P}, ()),
        Result(
            Check(FAILING, "DraftWorker"),
            F,
            {"runtime": S, "mypy": F, "pyright": F},
            (PROBLEM_MYPY, PROBLEM_PYRIGHT),
        ),
        Result(
            Check(UNVERIFIED, "SpecWorker"),
            U,
            {"runtime": P, "mypy": U, "pyright": P},
            (PROBLEM_UNVERIFIED,),
        ),
    ]
    checkers = ["runtime", "mypy", "pyright"]
    timings = {"total": 4.25, "mypy": 3.0, "pyright": 2.5, "runtime": 0.4}
    if shuffle is not None:
        rng = random.Random(shuffle)
        rng.shuffle(results)
        rng.shuffle(checkers)
        shuffled: list[Result] = []
        for r in results:
            problems = list(r.problems)
            rng.shuffle(problems)
            names = list(r.checkers)
            rng.shuffle(names)
            shuffled.append(replace(r, problems=tuple(problems), checkers={n: r.checkers[n] for n in names}))
        results = shuffled
        keys = list(timings)
        rng.shuffle(keys)
        timings = {k: timings[k] for k in keys}
    return GateReport(results=tuple(results), checkers=tuple(checkers), timings=timings)


REPORT = make_report()


# -- registry ---------------------------------------------------------------


def test_registry_lists_every_format_and_rejects_unknown() -> None:
    assert list(FORMATS) == ["text", "json", "junit", "github", "markdown"]
    for fmt in FORMATS:
        assert render(REPORT, fmt) == FORMATS[fmt](REPORT)
    with pytest.raises(GateError, match="unknown format 'yaml'"):
        render(REPORT, "yaml")


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "github", "markdown"])
def test_every_format_is_deterministic_and_order_independent(fmt: str) -> None:
    expected = render(REPORT, fmt)
    assert render(REPORT, fmt) == expected
    for seed in range(5):
        assert render(make_report(shuffle=seed), fmt) == expected


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "github", "markdown"])
def test_include_timings_false_drops_all_timing(fmt: str) -> None:
    slower = replace(REPORT, timings={"total": 99.0, "mypy": 98.0})
    without = render(REPORT, fmt, include_timings=False)
    assert render(slower, fmt, include_timings=False) == without
    assert render(slower, fmt) != render(REPORT, fmt)
    assert "4.2" not in without and "4.3" not in without


# -- json -------------------------------------------------------------------


def test_json_shape_and_order() -> None:
    doc = json.loads(render_json(REPORT))
    assert list(doc) == ["version", "results", "summary", "checkers", "checker_versions", "sglang", "targets", "notes", "timings"]
    assert doc["version"] == 1
    assert doc["checkers"] == ["runtime", "mypy", "pyright"]
    assert doc["summary"] == {"total": 3, "pass": 1, "fail": 1, "unverified": 1, "baselined": 0}
    assert [(r["target"], r["protocol"]) for r in doc["results"]] == sorted(
        [(PASSING, "SpecWorker"), (FAILING, "DraftWorker"), (UNVERIFIED, "SpecWorker")]
    )
    failing = next(r for r in doc["results"] if r["target"] == FAILING)
    assert list(failing) == ["target", "protocol", "verdict", "checkers", "problems", "baselined", "notes"]
    assert failing["verdict"] == "fail"
    assert failing["checkers"] == {"runtime": "skipped", "mypy": "fail", "pyright": "fail"}
    assert list(failing["checkers"]) == ["runtime", "mypy", "pyright"]
    assert failing["problems"] == [
        {"checker": "mypy", "member": "forward_batch_generation", "message": PROBLEM_MYPY.message,
         "file": FAIL_FILE, "line": 40, "unverified": False},
        {"checker": "pyright", "member": "draft", "message": PROBLEM_PYRIGHT.message,
         "file": FAIL_FILE, "line": 77, "unverified": False},
    ]
    unverified = next(r for r in doc["results"] if r["target"] == UNVERIFIED)
    assert unverified["verdict"] == "unverified"
    assert unverified["problems"][0]["member"] is None and unverified["problems"][0]["line"] is None
    assert doc["timings"] == {"mypy": 3.0, "pyright": 2.5, "runtime": 0.4, "total": 4.25}


def test_json_problems_sorted_by_checker_member_line_message() -> None:
    problems = (
        Problem("pyright", "a", "z"),
        Problem("mypy", "b", "m", "f.py", 9),
        Problem("mypy", "b", "m", "f.py", 3),
        Problem("mypy", None, "whole class"),
        Problem("mypy", "b", "a", "f.py", 9),
    )
    report = GateReport((Result(Check("m.C", "SpecWorker"), F, {"mypy": F, "pyright": F}, problems),), ("mypy", "pyright"), {})
    got = json.loads(render_json(report))["results"][0]["problems"]
    assert [(p["checker"], p["member"], p["line"], p["message"]) for p in got] == [
        ("mypy", None, None, "whole class"),
        ("mypy", "b", 3, "m"),
        ("mypy", "b", 9, "a"),
        ("mypy", "b", 9, "m"),
        ("pyright", "a", None, "z"),
    ]


def test_json_without_timings_has_no_timings_key() -> None:
    doc = json.loads(render_json(REPORT, include_timings=False))
    assert "timings" not in doc
    assert list(doc) == ["version", "results", "summary", "checkers", "checker_versions", "sglang", "targets", "notes"]


# -- text -------------------------------------------------------------------


def test_text_lines_fit_80_columns_and_have_no_ansi() -> None:
    text = render_text(REPORT)
    assert "\x1b" not in text
    for line in text.splitlines():
        assert len(line) <= 80, line


def test_text_table_rows_and_first_problem() -> None:
    lines = render_text(REPORT).splitlines()
    header = lines[0].split()
    assert header == ["Class", "Protocol", "runtime", "mypy", "pyright", "Verdict"]
    rows = {line.split()[0]: line.split() for line in lines[2:] if line and not line.startswith(" ")}
    assert rows["EAGLEWorker"][1:] == ["SpecWorker", "pass", "pass", "pass", "pass"]
    assert rows["UnoWorker"][1:] == ["SpecWorker", "pass", "unverified", "pass", "unverified"]
    failing_row = next(i for i, line in enumerate(lines) if line.split()[-1:] == ["fail"])
    assert lines[failing_row].split()[1:] == ["DraftWorker", "skipped", "fail", "fail", "fail"]
    # Under the failing row: its full path, then each distinct problem, the
    # most useful first (pyright's, then mypy's, then the runtime checker's),
    # whole, wrapped, at the member's file and line.
    assert lines[failing_row + 1].strip() == FAILING
    assert lines[failing_row + 2].startswith(f"  pyright: draft ({FAIL_FILE}:77):")
    continued = list(itertools.takewhile(lambda line: line.startswith("    "), lines[failing_row + 3 :]))
    problem = " ".join(line.strip() for line in [lines[failing_row + 2], *continued])
    assert problem == f"pyright: draft ({FAIL_FILE}:77): {PROBLEM_PYRIGHT.message.strip()}"
    second = failing_row + 3 + len(continued)
    rest = list(itertools.takewhile(lambda line: line.startswith("    "), lines[second + 1 :]))
    assert " ".join(line.strip() for line in [lines[second], *rest]) == (
        f"mypy: forward_batch_generation ({FAIL_FILE}:40): {PROBLEM_MYPY.message}"
    )
    unverified_row = next(i for i, line in enumerate(lines) if line.startswith("UnoWorker"))
    assert lines[unverified_row + 1].strip() == UNVERIFIED
    assert lines[unverified_row + 2].strip() == "mypy: class is Any to mypy: untyped import of plugin_pkg.base"
    # Passing rows carry nothing under them.
    passing_row = next(i for i, line in enumerate(lines) if line.startswith("EAGLEWorker"))
    assert not lines[passing_row + 1].startswith(" ")


def test_text_summary_line() -> None:
    text = render_text(REPORT)
    assert text.splitlines()[-1] == "3 checked: 1 pass, 1 fail, 1 unverified in 4.2s"
    assert render_text(REPORT, include_timings=False).splitlines()[-1] == "3 checked: 1 pass, 1 fail, 1 unverified"


def test_text_wraps_a_long_message_whole_never_mid_word() -> None:
    words = [f"word{n}" for n in range(60)]
    long = Problem("pyright", "m", " ".join(words))
    report = GateReport((Result(Check("a.B", "SpecWorker"), F, {"pyright": F}, (long, replace(long, member="n"))),), ("pyright",), {})
    lines = render_text(report).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  pyright"))
    block = [lines[start], *itertools.takewhile(lambda line: line.startswith("    "), lines[start + 1 :])]
    assert len(block) > 1 and all(len(line) <= 80 for line in block)
    # Every word whole, in order, and the count of the others after the last.
    assert " ".join(line.strip() for line in block).split() == ["pyright:", "m:", *words]
    assert "..." not in "".join(block)


def test_text_shows_each_distinct_problem_once_with_what_to_change() -> None:
    # One mistake (gpu_id renamed) that mypy and pyright both report at the
    # constructor is one problem, naming both checkers, with the change in
    # words; another member's problem is shown too, not counted as "+1 more".
    ctor = "the constructor cannot take the call sglang makes"
    problems = (
        Problem("mypy", "__init__", f"{ctor}: Unexpected keyword argument", "w.py", 41, change="rename gpu to gpu_id"),
        Problem("pyright", "__init__", f"{ctor}: No parameter named", "w.py", 41, change="rename gpu to gpu_id"),
        Problem("pyright", "clear_cache_pool", "missing: W has no clear_cache_pool", "w.py", 9),
    )
    report = GateReport((Result(Check("a.W", "SpecWorker"), F, {"mypy": F, "pyright": F}, problems),), ("mypy", "pyright"), {})
    lines = render_text(report).splitlines()
    start = lines.index("  a.W") + 1
    assert lines[start : start + 3] == [
        "  pyright (and mypy): __init__ (w.py:41): the constructor cannot take the call",
        "    sglang makes: No parameter named",
        "    change: rename gpu to gpu_id",
    ]
    assert lines[start + 3] == "  pyright: clear_cache_pool (w.py:9): missing: W has no clear_cache_pool"
    assert not any("more" in line for line in lines)


def test_text_names_every_checker_at_a_place_once_and_keeps_the_leads_several_words() -> None:
    problems = (
        Problem("runtime", "__init__", "(the constructor is W(a))", "w.py", 4),
        Problem("runtime", "__init__", "constructor: keyword 'b' cannot be passed", "w.py", 4),
        Problem("mypy", "__init__", "Unexpected keyword argument b", "w.py", 4, change="accept b"),
        Problem("pyright", "__init__", "No parameter named b", "w.py", 4, change="accept b"),
    )
    report = GateReport((Result(Check("a.W", "SpecWorker"), F, {"mypy": F, "pyright": F, "runtime": F}, problems),), ("mypy", "pyright"), {})
    lines = render_text(report).splitlines()
    start = lines.index("  a.W") + 1
    assert lines[start : start + 2] == [
        "  pyright (and mypy, runtime): __init__ (w.py:4): No parameter named b",
        "    change: accept b",
    ]
    # mypy's and the runtime checker's words for the same place are not repeated.
    assert not any("Unexpected keyword" in line or "cannot be passed" in line for line in lines)


def test_text_counts_problems_past_the_shown_and_names_how_to_see_them() -> None:
    from spec_protocols.gate._reports._text import SHOWN

    problems = tuple(Problem("mypy", f"m{n}", "wrong", "w.py", n) for n in range(SHOWN + 2))
    report = GateReport((Result(Check("a.W", "SpecWorker"), F, {"mypy": F}, problems),), ("mypy",), {})
    lines = render_text(report).splitlines()
    shown = [line for line in lines if line.startswith("  mypy: m")]
    assert len(shown) == SHOWN
    assert "(+2 more; --format json lists every one)" in lines[lines.index(shown[-1]) + 1] or shown[-1].endswith(
        "(+2 more; --format json lists every one)"
    )


def test_short_names_disambiguate_and_elide() -> None:
    names = short_names(["a.x.Worker", "a.y.Worker", "a.z.Other"])
    assert names == {"a.x.Worker": "x.Worker", "a.y.Worker": "y.Worker", "a.z.Other": "Other"}
    assert elide("MultiLayerEagleDraftWorker", 18) == "MultiLa...ftWorker"
    assert len(elide("MultiLayerEagleDraftWorker", 18)) == 18
    assert elide("short", 18) == "short"


# -- junit ------------------------------------------------------------------


def test_junit_parses_and_counts() -> None:
    root = ET.fromstring(render_junit(REPORT).encode("utf-8"))
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    assert suite.get("name") == "spec-protocols"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("3", "2", "0", "0")
    assert suite.get("time") == "4.250"
    cases = {(c.get("classname"), c.get("name")): c for c in suite.findall("testcase")}
    assert set(cases) == {(PASSING, "SpecWorker"), (FAILING, "DraftWorker"), (UNVERIFIED, "SpecWorker")}
    assert cases[(PASSING, "SpecWorker")].find("failure") is None
    failure = cases[(FAILING, "DraftWorker")].find("failure")
    assert failure is not None and failure.get("type") == "fail"
    body = failure.text or ""
    assert PROBLEM_MYPY.message in body and PROBLEM_PYRIGHT.message in body
    assert f"{FAIL_FILE}:40" in body
    out = cases[(FAILING, "DraftWorker")].find("system-out")
    assert out is not None and "runtime: skipped" in (out.text or "")
    unverified = cases[(UNVERIFIED, "SpecWorker")].find("failure")
    assert unverified is not None and unverified.get("type") == "unverified"
    assert "untyped import" in (unverified.get("message") or "")


def test_junit_case_is_at_its_leading_problems_member_with_that_message_whole() -> None:
    root = ET.fromstring(render_junit(REPORT).encode("utf-8"))
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    failing = cases[(FAILING, "DraftWorker")]
    # The problem the text report leads with: pyright's, at its member's def line.
    assert (failing.get("file"), failing.get("line")) == (FAIL_FILE, "77")
    failure = failing.find("failure")
    assert failure is not None
    expected = f"pyright: draft: {' '.join(PROBLEM_PYRIGHT.message.split())} ({FAIL_FILE}:77) (+1 more)"
    assert failure.get("message") == expected
    # A passing case, and a problem without a file, carry no location.
    assert cases[(PASSING, "SpecWorker")].get("file") is None
    assert cases[(UNVERIFIED, "SpecWorker")].get("file") is None


def test_junit_escapes_markup_and_control_characters() -> None:
    nasty = Problem("mypy", "m", 'expected <class "X"> & got \x1b[0m\x00 ]]>', "a&b.py", 1)
    report = GateReport((Result(Check("p.C", "SpecWorker"), F, {"mypy": F}, (nasty,)),), ("mypy",), {})
    root = ET.fromstring(render_junit(report).encode("utf-8"))
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None
    assert 'expected <class "X"> & got' in (failure.text or "")
    assert "a&b.py:1" in (failure.text or "")


# -- github -----------------------------------------------------------------


def test_github_one_error_per_problem_of_failing_results_and_a_notice() -> None:
    lines = render_github(REPORT).splitlines()
    errors = [line for line in lines if line.startswith("::error")]
    assert len(errors) == 3
    # Sorted by target: plugin_pkg... before sglang...
    assert errors[1] == (
        f"::error file={FAIL_FILE},line=40,title=spec-protocols DraftWorker (mypy)::"
        f"{FAILING}: forward_batch_generation: {PROBLEM_MYPY.message}"
    )
    # No file: no file/line properties at all.
    assert errors[0] == (
        f"::error title=spec-protocols SpecWorker (mypy)::{UNVERIFIED}: {PROBLEM_UNVERIFIED.message}"
    )
    assert not any(PASSING in line for line in lines)
    assert lines[-1] == "::notice title=spec-protocols::3 checked: 1 pass, 1 fail, 1 unverified in 4.2s"


def test_github_escaping() -> None:
    message = "line one\nline two\r, 100% sure: yes"
    problem = Problem("pyright", "step", message, "dir,x/a:b.py", 3)
    report = GateReport((Result(Check("m.C", "SpecWorker"), F, {"pyright": F}, (problem,)),), ("pyright",), {})
    error = render_github(report).splitlines()[0]
    assert error == (
        "::error file=dir%2Cx/a%3Ab.py,line=3,title=spec-protocols SpecWorker (pyright)::"
        "m.C: step: line one%0Aline two%0D, 100%25 sure: yes"
    )
    assert escape_data("%0A") == "%250A"  # "%" first: no double decoding
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def test_github_file_without_line() -> None:
    problem = Problem("mypy", "x", "bad", "a.py", None)
    report = GateReport((Result(Check("m.C", "SpecWorker"), F, {"mypy": F}, (problem,)),), ("mypy",), {})
    assert render_github(report).splitlines()[0].startswith("::error file=a.py,title=")


# -- markdown ---------------------------------------------------------------


def test_markdown_table_and_problems() -> None:
    text = render_markdown(REPORT)
    lines = text.splitlines()
    header = lines.index("| Class | Protocol | runtime | mypy | pyright | Verdict |")
    assert lines[header + 1] == "|---|---|---|---|---|---|"
    rows = lines[header + 2 : header + 5]
    assert "| `EAGLEWorker` | SpecWorker | pass | pass | pass | pass |" in rows
    assert "| `MultiLayerEagleDraftWorker` | DraftWorker | skipped | **fail** | **fail** | **fail** |" in rows
    assert "| `UnoWorker` | SpecWorker | pass | **unverified** | pass | **unverified** |" in rows
    problems = lines[lines.index("### Problems") + 2 :]
    bullets = [line for line in problems if line.startswith("- ")]
    assert len(bullets) == 3
    assert any(FAILING in b and "`forward_batch_generation`" in b and f"{FAIL_FILE}:40" in b for b in bullets)
    assert any(UNVERIFIED in b and "untyped import" in b for b in bullets)
    assert text.isascii()  # words, not emoji


def test_markdown_escapes_pipes_and_newlines() -> None:
    problem = Problem("mypy", "m", "expected int | None\ngot <class 'str'>")
    report = GateReport((Result(Check("m.C", "SpecWorker"), F, {"mypy": F}, (problem,)),), ("mypy",), {})
    bullet = next(line for line in render_markdown(report).splitlines() if line.startswith("- "))
    assert "int \\| None got &lt;class 'str'>" in bullet


def test_markdown_no_problems_says_none() -> None:
    report = GateReport((REPORT.results[0],), REPORT.checkers, {})
    lines = render_markdown(report).splitlines()
    assert lines[lines.index("### Problems") + 2] == "None."


def test_text_says_why_a_passing_check_was_skipped_by_a_checker() -> None:
    skipped_note = "runtime: skipped: cannot import pkg.uno: No module named 'flashinfer'"
    result = Result(
        Check("pkg.uno.UnoWorker", "SpecWorker"),
        Verdict.PASS,
        {"runtime": Verdict.SKIPPED, "mypy": Verdict.PASS, "pyright": Verdict.PASS},
        (),
        notes=(skipped_note,),
    )
    text = render(GateReport((result,), ("runtime", "mypy", "pyright"), {}), "text", include_timings=False)
    assert "runtime: skipped: cannot import pkg.uno" in text
    assert all(len(line) <= 80 for line in text.splitlines())


def test_text_names_its_targets_and_the_sglang_checked_whole() -> None:
    """A CI log must say what was checked and against which sglang, in full:
    before issue 18 the report named no target and cut a long sglang path to fit 80 columns."""
    from spec_protocols.gate._model import SglangChecked

    deep = "/a/very/long/cache/folder/that/goes/on/" + "and-on/" * 12 + "sglang/0.5.23"
    report = GateReport(
        (Result(Check("m.C", "SpecWorker"), Verdict.PASS, {"mypy": Verdict.PASS}, ()),),
        ("mypy",),
        {},
        sglang=SglangChecked("0.5.23", "fetched", deep, "0.5.23"),
        targets=("my_plugin", "other/plugin.py"),
    )
    text = render_text(report)
    assert "checked: my_plugin other/plugin.py\n" in text
    # Wrapped at a space, never cut: the path is one word, whole.
    assert f"against sglang 0.5.23 (fetched:\n    {deep})\n" in text
    assert json.loads(render_json(report))["targets"] == ["my_plugin", "other/plugin.py"]
