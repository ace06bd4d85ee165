"""The language server's diagnostics, from a report (no client, no checker): each problem on its file's line."""

from __future__ import annotations

import textwrap
from pathlib import Path

from spec_protocols.gate._lsp._diagnostics import class_line, spots_by_file
from spec_protocols.gate._lsp._language_server import checked_for
from spec_protocols.gate._model import Check, GateReport, Problem, Result, Verdict

PLUGIN = textwrap.dedent(
    """\
    from spec_protocols import SpecWorkerBase


    class Outer:
        class Worker(SpecWorkerBase):
            def __init__(self, server_args, gpu, nccl_port, target_worker):
                pass


    class Worker(SpecWorkerBase):
        pass
    """
)


def _report(*results: Result) -> GateReport:
    return GateReport(results=results, checkers=("mypy", "pyright"), timings={})


def _result(target: str, verdict: Verdict, *problems: Problem) -> Result:
    return Result(Check(target, "SpecWorker"), verdict, {p.checker: verdict for p in problems}, problems)


def test_each_problem_is_on_its_line_in_the_checkers_words_with_the_change(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin.py"
    plugin.write_text(PLUGIN, encoding="utf-8")
    placed = Problem("pyright", "__init__", 'No parameter named "gpu_id"', file=str(plugin), line=6, change="rename gpu to gpu_id")
    missing = Problem("mypy", "forward_batch_generation", "missing: expected SpecWorker.forward_batch_generation(...)")
    blind = Problem("mypy", "draft_worker", "the checker saw Any", file=str(plugin), line=6, unverified=True)
    report = _report(
        _result("plugin.Outer.Worker", Verdict.FAIL, placed, missing, missing, blind),
        _result("plugin.Worker", Verdict.PASS),
    )
    spots = spots_by_file(report)
    assert list(spots) == [plugin.resolve()]
    shown = [(s.line, s.code, s.source, s.severity) for s in spots[plugin.resolve()]]
    assert shown == [
        # The missing member, once (two forms of one finding), on the nested class's own line.
        (5, "SpecWorker.forward_batch_generation", "spec-protocols (mypy)", "error"),
        (6, "SpecWorker.__init__", "spec-protocols (pyright)", "error"),
        (6, "SpecWorker.draft_worker", "spec-protocols (mypy)", "warning"),
    ]
    init = next(s for s in spots[plugin.resolve()] if s.member == "__init__")
    assert init.message == 'No parameter named "gpu_id"\nchange: rename gpu to gpu_id'


def test_a_problem_nobody_placed_goes_where_the_locator_says_or_nowhere(tmp_path: Path) -> None:
    unplaced = Problem("mypy", None, "the class is abstract")
    report = _report(_result("plugin.Worker", Verdict.FAIL, unplaced))
    assert spots_by_file(report) == {}  # no placed problem names a file: nothing to show it in
    plugin = tmp_path / "plugin.py"
    plugin.write_text(PLUGIN, encoding="utf-8")
    spots = spots_by_file(report, locate=lambda target: (plugin, class_line(plugin, target) or 1))
    assert [(s.line, s.code, s.member) for s in spots[plugin]] == [(10, "SpecWorker", None)]


def test_the_class_line_prefers_the_longest_qualified_name(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin.py"
    plugin.write_text(PLUGIN, encoding="utf-8")
    assert class_line(plugin, "pkg.plugin.Outer.Worker") == 5
    assert class_line(plugin, "pkg.plugin.Worker") == 10
    assert class_line(plugin, "pkg.plugin.Missing") is None
    assert class_line(tmp_path / "absent.py", "x.Worker") is None


def test_a_file_of_a_package_is_checked_with_its_outermost_package(tmp_path: Path) -> None:
    inner = tmp_path / "top" / "sub"
    inner.mkdir(parents=True)
    for folder in (tmp_path / "top", inner):
        (folder / "__init__.py").write_text("", encoding="utf-8")
    (inner / "workers.py").write_text("", encoding="utf-8")
    (tmp_path / "loose.py").write_text("", encoding="utf-8")
    assert checked_for(inner / "workers.py") == tmp_path / "top"
    assert checked_for(tmp_path / "loose.py") == tmp_path / "loose.py"


def test_a_class_defined_under_try_or_if_is_found_at_its_level(tmp_path: Path) -> None:
    plugin = tmp_path / "guarded.py"
    plugin.write_text(
        "try:\n    import fast\nexcept ImportError:\n    class Worker:\n        pass\nif True:\n    class Draft:\n        pass\n",
        encoding="utf-8",
    )
    assert class_line(plugin, "pkg.guarded.Worker") == 4
    assert class_line(plugin, "pkg.guarded.Draft") == 7
