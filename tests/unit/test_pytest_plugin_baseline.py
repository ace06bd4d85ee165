"""The pytest plugin's ``--spec-protocols-baseline`` behaves like ``spec-protocols check --baseline``.

An entry that accepts nothing although its checker looked is a failing item
(one per entry, its message the CLI's line); ``--spec-protocols-ignore-unused-baseline``
drops those items; an entry of a checker that did not run is not unused; an
invalid baseline is one error item and the gate does not run. As in
``tests/unit/test_pytest_plugin.py``, the run's stages are replaced by a fake (in a
generated conftest), so no checker runs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

# One failing class: a runtime whole-class problem and a mypy member problem.
# The run applies the baseline to what the fake stages give.
_FAKE_GATE = """
    import json
    from pathlib import Path
    import spec_protocols.gate._pipeline as stages
    from spec_protocols.gate._model import Check, GateReport, Problem, ReadSet, Result, Verdict

    def fake_run_stages(request, given, keys, recalled):
        checkers = [c.name for c in stages.choose_checkers(request)]
        Path("calls.json").write_text(json.dumps({"checkers": list(checkers)}))
        problems = tuple(p for p in (
            Problem("runtime", None, "abstract class: it cannot be instantiated"),
            Problem("mypy", "forward_batch_generation", "extra required argument"),
        ) if p.checker in checkers)
        verdicts = {"runtime": Verdict.FAIL, "replay": Verdict.PASS, "mypy": Verdict.FAIL, "pyright": Verdict.PASS}
        result = Result(Check("pkg.mod.Worker", "SpecWorker"), Verdict.FAIL if problems else Verdict.PASS,
                        {c: verdicts[c] for c in checkers}, problems)
        return [GateReport((result,), tuple(checkers), {}) for _ in given], ReadSet()

    # runpytest runs in this process: put the real stages back afterwards.
    _real = stages.run_stages
    stages.run_stages = fake_run_stages

    def pytest_unconfigure(config):
        stages.run_stages = _real
"""

_STEP = {"target": "pkg.mod.Worker", "protocol": "SpecWorker", "member": "forward_batch_generation",
         "checker": "mypy", "reason": "known"}
_ABSTRACT = {"target": "pkg.mod.Worker", "protocol": "SpecWorker", "member": None, "checker": "runtime",
             "message": "abstract class: it cannot be instantiated", "reason": "known"}
_GONE = {"target": "pkg.mod.Worker", "protocol": "SpecWorker", "member": "draft", "checker": "mypy", "reason": "old"}


def _baseline(pytester: pytest.Pytester, *entries: Mapping[str, object]) -> str:
    path = pytester.path / "known.json"
    path.write_text(json.dumps({"version": 1, "sglang": None, "entries": [dict(e) for e in entries]}))
    return str(path)


def _gate(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makeconftest(_FAKE_GATE)
    return pytester.runpytest("-p", "no:cacheprovider", "-v", "--spec-protocols-gate", "pkg", *args)


def test_all_entries_used_passes(pytester: pytest.Pytester) -> None:
    result = _gate(pytester, "--spec-protocols-baseline", _baseline(pytester, _STEP, _ABSTRACT))
    result.assert_outcomes(passed=1)


def test_unused_entry_is_a_failing_item(pytester: pytest.Pytester) -> None:
    result = _gate(pytester, "--spec-protocols-baseline", _baseline(pytester, _STEP, _ABSTRACT, _GONE))
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*spec-protocols-gate::unused-baseline-entry?pkg.mod.Worker?SpecWorker?.draft.mypy? FAILED*",
            "spec-protocols: unused baseline entry: pkg.mod.Worker (SpecWorker) draft [[]mypy[]]",
        ]
    )


def test_ignore_unused_baseline_drops_the_items(pytester: pytest.Pytester) -> None:
    result = _gate(
        pytester,
        "--spec-protocols-baseline", _baseline(pytester, _STEP, _ABSTRACT, _GONE),
        "--spec-protocols-ignore-unused-baseline",
    )
    result.assert_outcomes(passed=1)


def test_entries_of_checkers_that_did_not_run_are_not_unused(pytester: pytest.Pytester) -> None:
    result = _gate(
        pytester, "--spec-protocols-baseline", _baseline(pytester, _STEP, _ABSTRACT), "--spec-protocols-checker", "pyright"
    )
    result.assert_outcomes(passed=1)


def test_whole_class_entries_with_the_same_key_get_distinct_items(pytester: pytest.Pytester) -> None:
    other = dict(_ABSTRACT, message="another message")
    third = dict(_ABSTRACT, message="yet another")
    result = _gate(pytester, "--spec-protocols-baseline", _baseline(pytester, _STEP, _ABSTRACT, other, third))
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*unused-baseline-entry?pkg.mod.Worker?SpecWorker?.<class>.runtime? FAILED*",
            "*unused-baseline-entry?pkg.mod.Worker?SpecWorker?.<class>.runtime?#2 FAILED*",
        ]
    )


def test_invalid_baseline_is_one_error_item_and_no_gate_run(pytester: pytest.Pytester) -> None:
    legacy = {k: v for k, v in _ABSTRACT.items() if k != "message"}
    result = _gate(pytester, "--spec-protocols-baseline", _baseline(pytester, _STEP, legacy))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*spec-protocols gate: baseline *known.json: entry 1 * has no message*--write-baseline*"])
    assert not (Path(pytester.path) / "calls.json").exists()
