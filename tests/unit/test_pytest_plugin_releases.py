"""``pytest --spec-protocols-gate TARGET --spec-protocols-sglang A --spec-protocols-sglang B``: one item per release.

the run's stages are replaced by a fake (a conftest in the generated suite):
the release a result was checked against is in its item's name, a failing
release fails its item alone, and the one-release names are unchanged
(tests/unit/test_pytest_plugin.py).
"""

from __future__ import annotations

import json

import pytest

pytest_plugins = ["pytester"]

_FAKE_RELEASES = """
    import json
    from pathlib import Path
    import spec_protocols.gate._pipeline as stages
    from spec_protocols.gate._model import Check, GateReport, Problem, ReadSet, Result, SglangChecked, Verdict

    def report(release, verdict):
        problems = () if verdict is Verdict.PASS else (Problem("pyright", "__init__", 'Argument missing for parameter "ps"'),)
        result = Result(Check("pkg.mod.Worker", "SpecWorker"), verdict, {"pyright": verdict}, problems)
        return GateReport((result,), ("pyright",), {}, sglang=SglangChecked(release, "fetched", "/cache/" + release))

    def fake_run_stages(request, given, keys, recalled):
        Path("calls.json").write_text(json.dumps({"targets": list(request.targets), "releases": list(given)}))
        return [report(r, Verdict.PASS if r == "0.5.20" else Verdict.FAIL) for r in given], ReadSet()

    _real = stages.run_stages
    stages.run_stages = fake_run_stages

    def pytest_unconfigure(config):
        stages.run_stages = _real
"""


def test_several_releases_give_one_item_per_release(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(_FAKE_RELEASES)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "-v",
        "--spec-protocols-gate", "pkg",
        "--spec-protocols-checker", "pyright",
        "--spec-protocols-sglang", "0.5.20",
        "--spec-protocols-sglang", "0.5.23",
    )  # fmt: skip
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*spec-protocols-gate::pkg.mod.Worker?SpecWorker??sglang 0.5.20? PASSED*",
            "*spec-protocols-gate::pkg.mod.Worker?SpecWorker??sglang 0.5.23? FAILED*",
        ]
    )
    result.stdout.fnmatch_lines(['*- [[]pyright[]] __init__: Argument missing for parameter "ps"'])
    calls = json.loads((pytester.path / "calls.json").read_text())
    assert calls == {"targets": ["pkg"], "releases": ["0.5.20", "0.5.23"]}
