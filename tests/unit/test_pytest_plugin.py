"""The ``spec_protocols`` pytest plugin: ``assert_conforms`` and ``--spec-protocols-gate`` items.

Each test runs pytest on a small generated test suite (``pytester``). The gate
item tests replace ``spec_protocols.gate.run_gate`` with a fake returning a
fixed report, so they check the plugin, not the checkers; one ``checkers`` test
runs the real gate.

This module is the fast part; tests/checkers/test_pytest_plugin.py (runs mypy or pyright) holds the rest.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from spec_protocols import _pytest_plugin as pytest_plugin
from spec_protocols.gate._checkers import CHECKER_NAMES, default_names

from tests._paths import REPO_ROOT

pytest_plugins = ["pytester"]

_BROKEN = """
    from spec_protocols import SpecWorkerBase

    class Broken:
        def forward_batch_generation(self, batch, on_publish):  # on_publish lacks a default
            ...

    class Good(SpecWorkerBase):
        def __init__(self, *, server_args, gpu_id, nccl_port, target_worker):
            super().__init__(target_worker=target_worker)

        def forward_batch_generation(self, batch, /, *, on_publish=None):
            ...
"""


def test_assert_conforms_lists_every_problem(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_it=_BROKEN
        + """
    from spec_protocols.pytest_plugin import assert_conforms

    def test_broken():
        assert_conforms(Broken, "SpecWorker")
    """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "test_it.Broken does not conform to SpecWorker" in output
    # Several distinct problems, each on its own line with member and kind.
    for member in ("on_verify_complete_cpu [missing]", "clear_cache_pool [missing]", "weight_update_runners [missing]",
                   "forward_batch_generation [signature]"):
        assert f"- {member}" in output, member


def test_assert_conforms_fixture_and_protocol_class(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_it=_BROKEN
        + """
    from spec_protocols import SpecWorker

    def test_good(assert_conforms):
        assert_conforms(Good, SpecWorker)

    def test_good_instance(assert_conforms):
        assert_conforms(Good.__new__(Good), "SpecWorker")

    def test_broken(assert_conforms):
        assert_conforms(Broken, SpecWorker)
    """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*test_broken*", "*does not conform to SpecWorker*"])


def test_assert_conforms_imports_a_module_class_string(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(plugin_mod=_BROKEN)
    pytester.makepyfile(
        test_it="""
    def test_good(assert_conforms):
        assert_conforms("plugin_mod:Good", "SpecWorker")

    def test_broken(assert_conforms):
        assert_conforms("plugin_mod:Broken", "SpecWorker")
    """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*plugin_mod.Broken does not conform to SpecWorker*"])


def test_assert_conforms_without_the_runtime_stack_fails_in_one_line(pytester: pytest.Pytester) -> None:
    # What a static-only environment meets: the worker's module imports sglang,
    # whose import chain needs numpy.
    pytester.makepyfile(needs_numpy_plugin="import numpy_that_is_not_installed\n\nclass Worker: ...\n")
    pytester.makepyfile(
        test_it="""
    def test_worker(assert_conforms):
        assert_conforms("needs_numpy_plugin:Worker", "SpecWorker")
    """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    body = output.split("= FAILURES =", 1)[1].split("short test summary info", 1)[0]
    (message,) = [line for line in body.splitlines() if line.startswith("assert_conforms(")]
    assert (
        "cannot import needs_numpy_plugin: ModuleNotFoundError: No module named 'numpy_that_is_not_installed'" in message
    )
    assert "--spec-protocols-gate" in message
    # The one line, and nothing of the plugin's traceback.
    assert "During handling" not in body and "import numpy_that_is_not_installed" not in body, body


# -- the construction, every exported protocol, the import's failure (issue 29, item 3)

_CONSTRUCTED = """
    from spec_protocols import SpecWorkerBase

    class RenamesGpuId(SpecWorkerBase):
        # sglang's scheduler calls WorkerClass(server_args=, gpu_id=, nccl_port=, target_worker=).
        def __init__(self, *, server_args, gpu, nccl_port, target_worker):
            pass

        def forward_batch_generation(self, batch, /, *, on_publish=None):
            ...

    class Abstract(SpecWorkerBase):  # forward_batch_generation never written
        pass

    class Good(SpecWorkerBase):
        def __init__(self, *, server_args, gpu_id, nccl_port, target_worker):
            super().__init__(target_worker=target_worker)

        def forward_batch_generation(self, batch, /, *, on_publish=None):
            ...

    class NoConstructor(SpecWorkerBase):  # SpecWorkerBase's takes no server_args
        def forward_batch_generation(self, batch, /, *, on_publish=None):
            ...

    class DraftTakesPs:  # build_draft_tp_worker passes no ps
        def __init__(self, *, ps, **kwargs):
            pass
"""


def test_assert_conforms_checks_the_constructor_sglang_calls(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_it=_CONSTRUCTED
        + """
    def test_renamed(assert_conforms):
        assert_conforms(RenamesGpuId, "SpecWorker")

    def test_renamed_as_factory(assert_conforms):
        assert_conforms(RenamesGpuId, "SpecWorkerFactory")

    def test_abstract(assert_conforms):
        assert_conforms(Abstract, "SpecWorker")

    def test_good(assert_conforms):
        assert_conforms(Good, "SpecWorker")

    def test_good_as_factory(assert_conforms):
        assert_conforms(Good, "SpecWorkerFactory")

    def test_no_constructor(assert_conforms):
        assert_conforms(NoConstructor, "SpecWorker")

    def test_good_instance_has_no_constructor_to_check(assert_conforms):
        assert_conforms(RenamesGpuId.__new__(RenamesGpuId), "SpecWorker")

    def test_draft_factory(assert_conforms):
        assert_conforms(DraftTakesPs, "InjectableDraftWorker")
    """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=3, failed=5)
    output = result.stdout.str()
    assert "- __init__ [signature]: SpecWorkerFactory's call: keyword 'gpu_id' cannot be passed" in output, output
    assert "- __call__ [signature]: keyword 'gpu_id' cannot be passed" in output, output
    assert "- __init__ [missing]: the class is abstract (forward_batch_generation never written)" in output, output
    assert "- __init__ [signature]: DraftWorkerFactory's call: extra required parameter 'ps'" in output, output
    assert "- __init__ [signature]: SpecWorkerFactory's call: keyword 'server_args' cannot be passed" in output, output


def test_assert_conforms_takes_every_exported_protocol_name() -> None:
    import spec_protocols
    from typing_extensions import is_protocol

    exported = [n for n in spec_protocols.__all__ if is_protocol(getattr(spec_protocols, n))]
    assert {"SpecWorkerFactory", "DraftWorkerFactory", "InjectableDraftWorker"} <= set(exported)
    for name in exported:
        try:
            pytest_plugin.assert_conforms(object, name)
        except AssertionError as failed:  # object conforms to none: a verdict, not "unknown protocol"
            assert f"does not conform to {name}" in str(failed)


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        # The plugin's own module is not on pytest's path.
        ("not_on_the_path", "cannot import not_on_the_path: ModuleNotFoundError: No module named 'not_on_the_path'; "
         "it is not on pytest's import path"),
        # Its code raises: named where, not blamed on sglang.
        ("raises_plugin", "cannot import raises_plugin: RuntimeError: boom (at raises_plugin:2); fix that error"),
        # sglang's own import chain fails: the runtime stack. (Which module it names depends
        # on the environment: sglang.srt.not_a_module with the runtime stack, numpy without it.)
        ("needs_sglang_plugin", "sglang's own import failed, which needs its runtime stack"),
    ],
)
def test_assert_conforms_names_the_module_it_could_not_import(pytester: pytest.Pytester, module: str, expected: str) -> None:
    pytester.makepyfile(raises_plugin="x = 1\nraise RuntimeError('boom')\n")
    pytester.makepyfile(needs_sglang_plugin="import sglang.srt.not_a_module\n")
    pytester.makepyfile(test_it=f"def test_it(assert_conforms):\n    assert_conforms('{module}:Worker', 'SpecWorker')\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    (message,) = [line for line in result.stdout.lines if line.startswith("assert_conforms(")]
    assert expected in message, message
    assert f"cannot import {module}: " in message, message
    if module != "needs_sglang_plugin":
        assert "runtime stack" not in message, message


def test_assert_conforms_names_the_real_error_after_a_failed_import_left_orphans(pytester: pytest.Pytester) -> None:
    # A package whose __init__ fails after loading a namespace subpackage (sglang without numpy):
    # the first import leaves halfpkg.inner behind without halfpkg, and a second import of
    # anything under it would fail with KeyError: 'halfpkg' instead of the missing dependency.
    pytester.mkpydir("halfpkg").joinpath("__init__.py").write_text("import halfpkg.inner.ok\nimport not_installed_dep\n")
    inner = pytester.path / "halfpkg" / "inner"
    inner.mkdir()
    (inner / "ok.py").write_text("")
    pytester.makepyfile(needs_half="import halfpkg.inner.other\n")
    pytester.makepyfile(
        test_it="import pytest\n"
        "def test_it(assert_conforms):\n"
        "    with pytest.raises(ModuleNotFoundError):\n"
        "        import halfpkg.inner.ok  # leaves the orphan, as a caught import would\n"
        "    assert_conforms('needs_half:Worker', 'SpecWorker')\n"
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    (message,) = [line for line in result.stdout.lines if line.startswith("assert_conforms(")]
    assert "No module named 'not_installed_dep'" in message, message
    assert "KeyError" not in message, message


def test_assert_conforms_rejects_an_unknown_protocol_name() -> None:
    with pytest.raises(ValueError, match="unknown protocol 'Worker'; choose from SpecWorker"):
        pytest_plugin.assert_conforms(object, "Worker")


def test_plugin_checker_names_match_the_gate() -> None:
    assert pytest_plugin._CHECKERS == CHECKER_NAMES  # pyright: ignore[reportPrivateUsage]


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    code = (
        "import sys, spec_protocols._pytest_plugin, spec_protocols.pytest_plugin; "
        "print(sorted(m for m in ('sglang', 'torch', 'mypy', 'spec_protocols.gate._pipeline') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- --spec-protocols-gate ----------------------------------------------------

# A conftest that replaces run_gate with a fake: one passing and one failing
# result, recording the arguments it was called with.
_FAKE_GATE = """
    import json, os
    from pathlib import Path
    import spec_protocols.gate._pipeline as stages
    from spec_protocols.gate._model import Check, GateError, GateReport, Problem, ReadSet, Result, Verdict

    def fake_run_stages(request, given, keys, recalled):
        checkers = [c.name for c in stages.choose_checkers(request)]
        Path("calls.json").write_text(json.dumps(
            {"targets": list(request.targets), "checkers": checkers,
             "baseline": str(request.baseline) if request.baseline else None, "sglang": given[0]}))
        if "missing" in request.targets:
            raise GateError("no such target: missing")
        ok = Result(Check("pkg.mod.GoodWorker", "SpecWorker"), Verdict.PASS,
                    {"runtime": Verdict.PASS, "pyright": Verdict.PASS}, ())
        bad = Result(Check("pkg.mod.BadWorker", "SpecWorker"), Verdict.FAIL,
                     {"runtime": Verdict.FAIL, "pyright": Verdict.FAIL},
                     (Problem("runtime", "clear_cache_pool", "missing member", "pkg/mod.py", 12),
                      Problem("pyright", "forward_batch_generation", "parameter on_publish is missing")))
        return [GateReport(results=(ok, bad), checkers=tuple(checkers), timings={}) for _ in given], ReadSet()

    # runpytest runs in this process: put the real stages back afterwards,
    # or every later test in the session would get the fake.
    _real = stages.run_stages
    stages.run_stages = fake_run_stages

    def pytest_unconfigure(config):
        stages.run_stages = _real
"""


def _calls(pytester: pytest.Pytester) -> dict[str, object]:
    import json

    return dict(json.loads((pytester.path / "calls.json").read_text()))


def test_gate_option_adds_one_item_per_result(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(_FAKE_GATE)
    result = pytester.runpytest("-p", "no:cacheprovider", "-v", "--spec-protocols-gate", "pkg", "--spec-protocols-gate", "other.py")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*spec-protocols-gate::pkg.mod.GoodWorker?SpecWorker? PASSED*",
            "*spec-protocols-gate::pkg.mod.BadWorker?SpecWorker? FAILED*",
        ]
    )
    # The failure lists every problem with its checker, member and location.
    result.stdout.fnmatch_lines(
        [
            "*pkg.mod.BadWorker vs SpecWorker: fail (runtime: fail, pyright: fail)",
            "*- [[]runtime[]] clear_cache_pool: missing member (pkg/mod.py:12)",
            "*- [[]pyright[]] forward_batch_generation: parameter on_publish is missing",
        ]
    )
    assert _calls(pytester) == {"targets": ["pkg", "other.py"], "checkers": list(default_names()), "baseline": None, "sglang": None}


def test_gate_items_obey_k_and_checker_and_baseline(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(_FAKE_GATE)
    # The plugin reads the baseline before the gate runs (an invalid one is an
    # error item), so it must exist; unused entries are tested in
    # tests/unit/test_pytest_plugin_baseline.py.
    (pytester.path / "known.json").write_text('{"version": 1, "sglang": null, "entries": []}')
    result = pytester.runpytest(
        "-p", "no:cacheprovider",
        "--spec-protocols-gate", "pkg",
        "--spec-protocols-checker", "pyright",
        "--spec-protocols-checker", "runtime",
        "--spec-protocols-baseline", "known.json",
        "--spec-protocols-sglang", "0.5.21",
        "-k", "GoodWorker",
    )
    result.assert_outcomes(passed=1, deselected=1)
    calls = _calls(pytester)
    # The plugin picks the checkers by name from the registry, in report order.
    assert calls["checkers"] == ["runtime", "pyright"]
    assert calls["baseline"] == "known.json"
    assert calls["sglang"] == "0.5.21"


def test_gate_items_are_collected_and_counted_once_beside_the_suites_own(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(_FAKE_GATE)
    pytester.makepyfile(test_own="def test_a(): pass\ndef test_b(): pass\n")
    gate = ("-p", "no:cacheprovider", "--spec-protocols-gate", "pkg")
    result = pytester.runpytest(*gate)
    result.stdout.fnmatch_lines(["collected 4 items"])
    result.assert_outcomes(passed=3, failed=1)
    listed = pytester.runpytest(*gate, "--collect-only", "-q")
    listed.stdout.fnmatch_lines(
        [
            "test_own.py::test_a",
            "test_own.py::test_b",
            "spec-protocols-gate::pkg.mod.GoodWorker[[]SpecWorker[]]",
            "spec-protocols-gate::pkg.mod.BadWorker[[]SpecWorker[]]",
            "4 tests collected*",
        ]
    )


@pytest.mark.parametrize(
    ("expression", "selected"),
    [
        # The target's dotted name, or a part of it.
        ("GoodWorker", ["pkg.mod.GoodWorker[SpecWorker]"]),
        ("pkg.mod.BadWorker", ["pkg.mod.BadWorker[SpecWorker]"]),
        # The protocol.
        ("SpecWorker", ["pkg.mod.GoodWorker[SpecWorker]", "pkg.mod.BadWorker[SpecWorker]"]),
        # Every gate item, and none of the suite's own tests.
        ("gate", ["pkg.mod.GoodWorker[SpecWorker]", "pkg.mod.BadWorker[SpecWorker]"]),
        ("not gate", ["test_a"]),
        ("SpecWorker and not Bad", ["pkg.mod.GoodWorker[SpecWorker]"]),
    ],
)
def test_k_selects_gate_items_by_target_protocol_and_gate(pytester: pytest.Pytester, expression: str, selected: list[str]) -> None:
    pytester.makeconftest(_FAKE_GATE)
    pytester.makepyfile(test_own="def test_a(): pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--spec-protocols-gate", "pkg", "-k", expression, "--collect-only", "-q")
    names = [line.rpartition("::")[2] for line in result.stdout.lines if "::" in line]
    assert names == selected, result.stdout.str()
    deselected = 3 - len(selected)
    result.stdout.fnmatch_lines([f"{len(selected)}/3 tests collected ({deselected} deselected)*"])


def test_deselect_takes_a_gate_items_node_id(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(_FAKE_GATE)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--spec-protocols-gate", "pkg", "--deselect", "spec-protocols-gate::pkg.mod.BadWorker[SpecWorker]"
    )
    result.stdout.fnmatch_lines(["collected 2 items / 1 deselected / 1 selected"])
    result.assert_outcomes(passed=1, deselected=1)


def test_gate_error_is_one_failing_item(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(_FAKE_GATE)
    result = pytester.runpytest("-p", "no:cacheprovider", "--spec-protocols-gate", "missing")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*spec-protocols gate: no such target: missing*"])


def test_without_the_option_no_gate_runs(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(_FAKE_GATE)
    pytester.makepyfile(test_it="def test_x(): pass")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert not (pytester.path / "calls.json").exists()


def test_gate_items_in_junit_xml(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(_FAKE_GATE)
    pytester.runpytest("-p", "no:cacheprovider", "--spec-protocols-gate", "pkg", "--junitxml", "out.xml")
    xml = (pytester.path / "out.xml").read_text()
    assert xml.count("<testcase ") == 2
    assert 'name="pkg.mod.BadWorker[SpecWorker]"' in xml
    assert "clear_cache_pool: missing member" in xml


def test_ci_guide_documents_every_plugin_option(pytester: pytest.Pytester) -> None:
    guide = (REPO_ROOT / "docs" / "ci.md").read_text()
    help_text = pytester.runpytest("-p", "no:cacheprovider", "--help").stdout.str()
    options = {word.split("=")[0] for word in help_text.split() if word.startswith("--spec-protocols-")}
    assert options == {
        "--spec-protocols-gate",
        "--spec-protocols-checker",
        "--spec-protocols-baseline",
        "--spec-protocols-sglang",
        "--spec-protocols-ignore-unused-baseline",
    }
    for option in options:
        assert option in guide, option
    assert "assert_conforms" in guide
