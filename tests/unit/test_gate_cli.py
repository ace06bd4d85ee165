"""Gate reliability (issue 5): bad input, failing checkers, no code execution in
static mode, determinism, hostile names, no leftovers.

Most cases call ``spec_protocols.gate._cli.main`` in-process (capsys), which is
what the console script runs; checkers still run in subprocesses.

This module is the fast part; tests/checkers/test_gate_cli.py (runs mypy or pyright) holds the rest.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from spec_protocols.gate import _cli as cli
from spec_protocols.gate._checkers import CHECKER_NAMES
from spec_protocols.gate._model import Check, GateReport, Problem, ReadSet, Result, Verdict
from spec_protocols.gate._reports._release_matrix import ReleasesReport
from spec_protocols.gate._request import GateRequest

from tests._cli_support import (  # noqa: F401  (gate_cache, run, use_gate_cache: fixtures)
    BAD_INPUTS,
    GOOD,
    WORKER_SOURCE,
    Run,
    assert_usage_error,
    gate_cache,
    run,
    use_gate_cache,
)


# -- bad input: exit 2, a short message ------------------------------------


def test_nonexistent_module(run: Run) -> None:
    assert_usage_error("nonexistent module", run("no_such_module_qq.sub"), "no module named")


def test_nonexistent_path(run: Run, tmp_path: Path) -> None:
    assert_usage_error("nonexistent path", run(str(tmp_path / "missing.py")), "no such file")


def test_syntax_error_in_target(run: Run, tmp_path: Path) -> None:
    bad = tmp_path / "broken_syntax.py"
    bad.write_text("class Oops(:\n    pass\n")
    assert_usage_error("syntax error in target", run(str(bad)), "syntax error")


def test_package_with_no_workers(run: Run, tmp_path: Path) -> None:
    pkg = tmp_path / "emptyish"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text("class NotAWorker:\n    pass\n")
    assert_usage_error("package with no workers", run(str(pkg), "--checker", "mypy"), "no workers found")


def test_module_colon_name_not_a_class(run: Run, tmp_path: Path) -> None:
    mod = tmp_path / "funcs_only.py"
    mod.write_text("def not_a_class():\n    return 1\nVALUE = 3\n")
    assert_usage_error("module:function", run(f"{mod}:not_a_class"), "no class")
    assert_usage_error("module:constant", run(f"{mod}:VALUE"), "no class")
    assert_usage_error("module:<not an identifier>", run(f"{mod}:1; import os"), "not a class name")


def test_unknown_option(run: Run) -> None:
    assert_usage_error("unknown option", run("--bogus-flag"), "unrecognized arguments")


def test_unknown_format(run: Run) -> None:
    assert_usage_error("unknown --format", run(str(GOOD), "--format", "yaml"), "invalid choice")


def test_unknown_checker(run: Run) -> None:
    assert_usage_error("unknown --checker", run(str(GOOD), "--checker", "pylint"), "invalid choice")


def test_write_baseline_needs_reason(run: Run, tmp_path: Path) -> None:
    target = tmp_path / "b.json"
    assert_usage_error("--write-baseline without --reason", run(str(GOOD), "--write-baseline", str(target)), "--reason")
    assert not target.exists()


def test_no_import_with_runtime_checker(run: Run) -> None:
    assert_usage_error("--no-import --checker runtime", run(str(GOOD), "--no-import", "--checker", "runtime"), "runtime")


def test_pyright_missing(run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setattr(sys, "executable", str(empty / "python"))
    monkeypatch.setenv("PATH", str(empty))
    assert_usage_error("pyright missing", run(str(GOOD), "--checker", "pyright"), "pyright is not installed")


def test_mypy_missing(run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    assert_usage_error("mypy missing (no interpreter)", run(str(GOOD), "--checker", "mypy"), "mypy is not installed")


def _fake_run_command(returncode: int, stdout: str, stderr: str):
    def fake(name, argv, *, cwd, timeout):  # noqa: ANN001, ANN202 - mirrors run_command
        return subprocess.CompletedProcess(list(argv), returncode, stdout, stderr)

    return fake


def test_mypy_crashing(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        "spec_protocols.gate._checkers._mypy._mypy_oneshot.run_command",
        _fake_run_command(2, "garbage that is not json\n", "Traceback (most recent call last):\nINTERNAL ERROR boom\n"),
    )
    assert_usage_error("mypy crashing", run(str(GOOD), "--checker", "mypy"), "mypy crashed")


def test_mypy_exit_2_without_output(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("spec_protocols.gate._checkers._mypy._mypy_oneshot.run_command", _fake_run_command(2, "", "mypy: error: bad config\n"))
    assert_usage_error("mypy exit 2, no output", run(str(GOOD), "--checker", "mypy"), "mypy crashed")


def test_pyright_crashing(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        "spec_protocols.gate._checkers._pyright._pyright_oneshot.run_command",
        _fake_run_command(3, "Error: something exploded\n", "Traceback-like noise\nlast line\n"),
    )
    assert_usage_error("pyright crashing", run(str(GOOD), "--checker", "pyright"), "pyright crashed")


def test_subprocess_timeout_is_exit_2(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    def raise_timeout(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise subprocess.TimeoutExpired(cmd="mypy", timeout=1.0)

    monkeypatch.setattr("spec_protocols.gate._checkers._process.subprocess.run", raise_timeout)
    assert_usage_error("subprocess.run raises TimeoutExpired", run(str(GOOD), "--checker", "mypy", "--timeout", "1"), "--timeout")


# -- baselines (run_gate replaced by a fake: no checker runs) ---------------

FAKE_WORKER = "pkg.workers.Worker"
FAKE_STEP = Problem("mypy", "forward_batch_generation", "extra required argument", "pkg/workers.py", 10)
FAKE_ABSTRACT = Problem("runtime", None, "abstract class: it cannot be instantiated; implement forward_batch_generation")


class FakeGate:
    """Stands in for ``spec_protocols.gate._pipeline.run_stages`` (the stages
    of a run the memo did not answer): the report is fixed (one failing class:
    a mypy member problem and a runtime whole-class problem), restricted to
    the chosen checkers; the run applies the baseline and decides the rest.
    ``calls`` records every call."""

    def __init__(self, *, unverified: bool = False) -> None:
        self.calls: list[dict[str, object]] = []
        self.unverified = unverified

    def __call__(
        self, request: GateRequest, given: Sequence[str | None], keys: Sequence[str | None], recalled: Sequence[object]
    ) -> tuple[list[GateReport], ReadSet]:
        from spec_protocols.gate._pipeline import choose_checkers

        names = {c.name for c in choose_checkers(request)}
        chosen = tuple(c for c in CHECKER_NAMES if c in names)
        self.calls.append({"checkers": chosen, "baseline": request.baseline, "sglang": given[0]})
        verdicts = {"runtime": Verdict.FAIL, "replay": Verdict.PASS, "mypy": Verdict.FAIL, "pyright": Verdict.PASS}
        problems = [p for p in (FAKE_ABSTRACT, FAKE_STEP) if p.checker in chosen]
        results = [
            Result(
                Check(FAKE_WORKER, "SpecWorker"),
                Verdict.FAIL if problems else Verdict.PASS,
                {c: verdicts[c] for c in chosen},
                tuple(problems),
            )
        ]
        if self.unverified:
            blind = Problem(chosen[-1], None, "class is Any: untyped import")
            results.append(
                Result(Check("pkg.workers.Blind", "SpecWorker"), Verdict.UNVERIFIED, {chosen[-1]: Verdict.UNVERIFIED}, (blind,))
            )
        return [GateReport(tuple(results), chosen, {"total": 0.1}) for _ in given], ReadSet()


@pytest.fixture
def fake_gate(monkeypatch: pytest.MonkeyPatch) -> FakeGate:
    fake = FakeGate()
    monkeypatch.setattr("spec_protocols.gate._pipeline.run_stages", fake)
    return fake


def _baseline_file(path: Path, *entries: dict[str, object]) -> Path:
    path.write_text(json.dumps({"version": 1, "sglang": "0.5.23", "entries": list(entries)}))
    return path


def _entry(member: str | None, checker: str, message: str | None = None, target: str = FAKE_WORKER) -> dict[str, object]:
    data: dict[str, object] = {"target": target, "protocol": "SpecWorker", "member": member, "checker": checker}
    if message is not None:
        data["message"] = message
    data["reason"] = "known"
    return data


STEP_ENTRY = _entry("forward_batch_generation", "mypy")
ABSTRACT_ENTRY = _entry(None, "runtime", FAKE_ABSTRACT.message)


def test_write_baseline_exits_0_when_it_wrote_the_file(run: Run, fake_gate: FakeGate, tmp_path: Path) -> None:
    target = tmp_path / "known.json"
    code, out, err = run("pkg", "--write-baseline", str(target), "--reason", "pre-existing", "--format", "json")
    assert code == 0, (out, err)
    # The report still shows the failure; the step that records it succeeds.
    assert json.loads(out)["summary"]["fail"] == 1
    assert f"spec-protocols: wrote 2 baseline entries to {target}" in err
    entries = json.loads(target.read_text())["entries"]
    assert [(e["member"], e["checker"], e.get("message")) for e in entries] == [
        (None, "runtime", FAKE_ABSTRACT.message),
        ("forward_batch_generation", "mypy", None),
    ]
    # ... and the recorded baseline makes the next run pass.
    code, out, err = run("pkg", "--baseline", str(target))
    assert code == 0, (out, err)
    assert err == ""


def test_write_baseline_warns_about_unverified_checks(run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("spec_protocols.gate._pipeline.run_stages", FakeGate(unverified=True))
    target = tmp_path / "known.json"
    code, out, err = run("pkg", "--write-baseline", str(target), "--reason", "pre-existing")
    assert code == 0, (out, err)
    assert "1 unverified check cannot be baselined" in err
    code, out, err = run("pkg", "--baseline", str(target))
    assert code == 1, (out, err)


def test_write_baseline_failing_to_write_is_exit_2(run: Run, fake_gate: FakeGate, tmp_path: Path) -> None:
    assert_usage_error(
        "--write-baseline into a missing directory",
        run("pkg", "--write-baseline", str(tmp_path / "no-dir" / "b.json"), "--reason", "r"),
        "cannot write",
    )


def test_unused_baseline_entry_fails_the_run(run: Run, fake_gate: FakeGate, tmp_path: Path) -> None:
    gone = _entry("draft", "mypy")
    path = _baseline_file(tmp_path / "b.json", STEP_ENTRY, ABSTRACT_ENTRY, gone)
    code, out, err = run("pkg", "--baseline", str(path), "--format", "json")
    assert code == 1, (out, err)
    # Every problem was accepted: only the unused entry fails the run.
    assert json.loads(out)["summary"] == {"total": 1, "pass": 1, "fail": 0, "unverified": 0, "baselined": 2}
    assert err.splitlines() == [f"spec-protocols: unused baseline entry: {FAKE_WORKER} (SpecWorker) draft [mypy]"]


def test_every_unused_entry_gets_one_line(run: Run, fake_gate: FakeGate, tmp_path: Path) -> None:
    path = _baseline_file(
        tmp_path / "b.json",
        STEP_ENTRY,
        _entry(None, "runtime", "a message from before the fix"),
        _entry("forward_batch_generation", "mypy", target="pkg.workers.Renamed"),
    )
    code, out, err = run("pkg", "--baseline", str(path))
    assert code == 1, (out, err)
    assert err.splitlines() == [
        f'spec-protocols: unused baseline entry: {FAKE_WORKER} (SpecWorker) <class> [runtime] "a message from before the fix"',
        "spec-protocols: unused baseline entry: pkg.workers.Renamed (SpecWorker) forward_batch_generation [mypy]",
    ]


def test_unused_entries_are_notes_of_the_rendered_report(
    run: Run, fake_gate: FakeGate, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every output format gets them, as run-level notes (whatever it does with notes)."""
    rendered: list[GateReport] = []

    def render(report: ReleasesReport, fmt: str, *, include_timings: bool = True) -> str:
        rendered.extend(run.report for run in report.runs)
        return "report"

    monkeypatch.setattr("spec_protocols.gate._reports.render", render)
    path = _baseline_file(tmp_path / "b.json", STEP_ENTRY, ABSTRACT_ENTRY, _entry("draft", "mypy"))
    code, out, err = run("pkg", "--baseline", str(path))
    assert code == 1, (out, err)
    (report,) = rendered
    assert report.notes == (f"unused baseline entry: {FAKE_WORKER} (SpecWorker) draft [mypy]",)
    assert report.ok  # the verdicts are untouched; the exit status is the CLI's decision


def test_ignore_unused_baseline_opts_out(run: Run, fake_gate: FakeGate, tmp_path: Path) -> None:
    path = _baseline_file(tmp_path / "b.json", STEP_ENTRY, ABSTRACT_ENTRY, _entry("draft", "mypy"))
    code, out, err = run("pkg", "--baseline", str(path), "--ignore-unused-baseline")
    assert code == 0, (out, err)
    assert "unused" not in err


def test_ignore_unused_baseline_does_not_hide_failures(run: Run, fake_gate: FakeGate, tmp_path: Path) -> None:
    path = _baseline_file(tmp_path / "b.json", STEP_ENTRY, _entry("draft", "mypy"))
    code, out, err = run("pkg", "--baseline", str(path), "--ignore-unused-baseline")
    assert code == 1, (out, err)  # the runtime whole-class problem is not accepted


def test_entries_of_checkers_that_did_not_run_are_not_unused(run: Run, fake_gate: FakeGate, tmp_path: Path) -> None:
    path = _baseline_file(tmp_path / "b.json", STEP_ENTRY, ABSTRACT_ENTRY)
    code, out, err = run("pkg", "--baseline", str(path), "--checker", "pyright")
    assert code == 0, (out, err)
    assert err == ""
    assert fake_gate.calls[-1]["checkers"] == ("pyright",)
    code, out, err = run("pkg", "--baseline", str(path), "--checker", "mypy")
    assert code == 0, (out, err)


def test_whole_class_entry_does_not_accept_another_message(run: Run, fake_gate: FakeGate, tmp_path: Path) -> None:
    other = _entry(None, "runtime", "cannot be called as sglang constructs a draft worker")
    path = _baseline_file(tmp_path / "b.json", STEP_ENTRY, other)
    code, out, err = run("pkg", "--baseline", str(path), "--format", "json")
    assert code == 1, (out, err)
    (item,) = json.loads(out)["results"]
    assert [p["message"] for p in item["problems"]] == [FAKE_ABSTRACT.message]
    assert item["checkers"]["runtime"] == "fail"


def test_message_less_whole_class_entry_is_exit_2_before_any_checker(
    run: Run, fake_gate: FakeGate, tmp_path: Path
) -> None:
    legacy = {k: v for k, v in ABSTRACT_ENTRY.items() if k != "message"}
    path = _baseline_file(tmp_path / "b.json", STEP_ENTRY, legacy)
    assert_usage_error("whole-class baseline entry without message", run("pkg", "--baseline", str(path)), "--write-baseline")
    assert fake_gate.calls == []
    # Re-recording, as the message says, replaces the entry with an exact one.
    code, out, err = run("pkg", "--write-baseline", str(path), "--reason", "re-recorded")
    assert code == 0, (out, err)
    code, out, err = run("pkg", "--baseline", str(path))
    assert code == 0, (out, err)


def test_invalid_baseline_is_exit_2_before_any_checker(run: Run, fake_gate: FakeGate, tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text("{broken")
    assert_usage_error("invalid --baseline", run("pkg", "--baseline", str(path)), "not valid JSON")
    assert_usage_error("invalid --write-baseline target", run("pkg", "--write-baseline", str(path), "--reason", "r"), "not valid JSON")
    assert fake_gate.calls == []
    assert path.read_text() == "{broken"


def test_rewriting_a_baseline_drops_unused_entries_and_exits_0(run: Run, fake_gate: FakeGate, tmp_path: Path) -> None:
    path = _baseline_file(tmp_path / "b.json", STEP_ENTRY, ABSTRACT_ENTRY, _entry("draft", "mypy"))
    code, out, err = run("pkg", "--baseline", str(path), "--write-baseline", str(path), "--reason", "new")
    assert code == 0, (out, err)
    assert "unused" not in err
    assert [e["member"] for e in json.loads(path.read_text())["entries"]] == [None, "forward_batch_generation"]


def test_help_documents_the_baseline_exit_rules(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["check", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--ignore-unused-baseline" in help_text
    assert "spec-protocols: unused baseline entry: TARGET (PROTOCOL) MEMBER [CHECKER]" in help_text
    assert "exits 0 once FILE is written" in help_text


# -- static mode runs no target code ---------------------------------------

# -- hostile names, leftovers, user files -----------------------------------

HOSTILE_SOURCE = """\
import pathlib

pathlib.Path(__file__).with_name("HOSTILE_RAN").write_text("executed")

""" + WORKER_SOURCE.format(name="HostileWorker")


def test_hostile_file_name_in_a_directory_is_ignored(run: Run, tmp_path: Path) -> None:
    plugin_dir = tmp_path / "plugins"
    plugin_dir.mkdir()
    (plugin_dir / "x;import os.py").write_text(HOSTILE_SOURCE)
    (plugin_dir / "a-b.py").write_text(HOSTILE_SOURCE)
    # Only non-identifier files: nothing to check, exit 2, nothing executed.
    assert_usage_error("directory of hostile file names only", run(str(plugin_dir)), "no")
    assert not (plugin_dir / "HOSTILE_RAN").exists()


@pytest.mark.parametrize(
    "checkers",
    [(), ("--checker", "runtime")],
    ids=["all-checkers", "runtime-only"],
)
def test_hostile_file_name_as_target_never_runs(run: Run, tmp_path: Path, checkers: tuple[str, ...]) -> None:
    hostile = tmp_path / "x;import os.py"
    hostile.write_text(HOSTILE_SOURCE)
    code, out, err = run(str(hostile), *checkers, "--format", "json", "--no-timings")
    BAD_INPUTS.append((f"hostile file name as target ({' '.join(checkers) or 'all checkers'})", code, err.strip()))
    assert not (tmp_path / "HOSTILE_RAN").exists()
    assert "Traceback" not in err
    assert code == 2, (out, err)


def test_print_bad_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    """Last in the module: every bad input tried and what it produced (pytest -s)."""
    with capsys.disabled():
        print()
        for case, code, err in BAD_INPUTS:
            print(f"{case:45} exit {code}: {err.splitlines()[0] if err else '(no stderr)'}")
