"""Problem messages an author can act on (issue 14, "the author's loop").

A worker with a wrong signature is checked by mypy and pyright for real. Each
problem must name the member, sit at the member's own ``def`` (an inherited
member's in the base's file; a missing member's at the class line), and say
what the protocol expects and what the class has, in the source's words,
without a name the gate's harness made up. The text report shows that
problem whole; JUnit and GitHub annotations carry it at the member's line.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from spec_protocols.gate import GateReport, Problem, checkers_named, run_gate
from spec_protocols.gate._reports import render


MIXIN = '''\
"""A mixin in a module of its own: its forward_batch_generation lacks on_publish."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult


class ForwardMixin:
    """Gives a worker its forward pass."""

    def forward_batch_generation(self, batch: ScheduleBatch) -> GenerationBatchResult:
        raise NotImplementedError
'''

ALGO = '''\
"""Two workers: one defines a wrong forward_batch_generation, one inherits it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fwd_mixin import ForwardMixin

from spec_protocols import SpecWorkerBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult


class OwnWorker(SpecWorkerBase):
    """Defines the forward pass itself, without on_publish."""

    def __init__(self, *, server_args: object, gpu_id: int, nccl_port: int, target_worker: object) -> None:
        super().__init__()

    def forward_batch_generation(self, batch: ScheduleBatch) -> GenerationBatchResult:
        raise NotImplementedError


class InheritingWorker(ForwardMixin, SpecWorkerBase):
    """Inherits the mixin's forward pass."""

    def __init__(self, *, server_args: object, gpu_id: int, nccl_port: int, target_worker: object) -> None:
        super().__init__()
'''

EXPECTED = (
    "expected SpecWorker.forward_batch_generation(self, batch: ScheduleBatch, /, *, "
    "on_publish: PublishCallback | None = ...) -> GenerationBatchResult"
)
#: Names only the gate's generated harness has.
HARNESS_NAMES = re.compile(r"_SpecWorker__|_DraftWorker__|_Canary|_Gradual|spec_protocols_site|\b_m\d+\.|_W_co")


def _def_line(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def author(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GateReport]:
    folder = tmp_path_factory.mktemp("author")
    (folder / "fwd_mixin.py").write_text(MIXIN)
    (folder / "algo.py").write_text(ALGO)
    return folder, run_gate([str(folder / "algo.py")], checkers=checkers_named(["mypy", "pyright"]))


def _forward_problems(report: GateReport, worker: str) -> dict[str, Problem]:
    (result,) = [r for r in report.results if r.check.target == f"algo.{worker}"]
    return {p.checker: p for p in result.problems if p.member == "forward_batch_generation"}


def test_a_failing_member_is_reported_at_its_def_with_expected_and_got(author: tuple[Path, GateReport]) -> None:
    folder, report = author
    problems = _forward_problems(report, "OwnWorker")
    assert set(problems) == {"mypy", "pyright"}
    line = _def_line(folder / "algo.py", "def forward_batch_generation")
    for checker, problem in problems.items():
        assert (Path(problem.file or ""), problem.line) == (folder / "algo.py", line), checker
        assert EXPECTED in problem.message, problem.message
        assert problem.message.endswith(
            "; got OwnWorker.forward_batch_generation(self, batch: ScheduleBatch) -> GenerationBatchResult"
        ), problem.message
        assert not HARNESS_NAMES.search(problem.message), problem.message
    # Each checker's own reason stays: pyright's names the parameter.
    assert 'Missing keyword parameter "on_publish"' in problems["pyright"].message
    assert 'read as "Callable[[ScheduleBatch], GenerationBatchResult]"' in problems["mypy"].message


def test_an_inherited_member_is_reported_in_the_base_that_defines_it(author: tuple[Path, GateReport]) -> None:
    folder, report = author
    problems = _forward_problems(report, "InheritingWorker")
    assert set(problems) == {"mypy", "pyright"}
    line = _def_line(folder / "fwd_mixin.py", "def forward_batch_generation")
    for problem in problems.values():
        assert (Path(problem.file or ""), problem.line) == (folder / "fwd_mixin.py", line)
        assert "; got ForwardMixin.forward_batch_generation(self, batch: ScheduleBatch)" in problem.message


def test_the_text_report_shows_the_leading_problem_whole(author: tuple[Path, GateReport]) -> None:
    folder, report = author
    text = render(report, "text", include_timings=False)
    assert all(len(line) <= 80 or " " not in line.strip() for line in text.splitlines())
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("OwnWorker"))
    block = [lines[start + 2]]
    for line in lines[start + 3 :]:
        if not line.startswith("    "):
            break
        block.append(line)
    shown = " ".join(line.strip() for line in block)
    problem = _forward_problems(report, "OwnWorker")["pyright"]
    line = _def_line(folder / "algo.py", "def forward_batch_generation")
    # One problem, in the leading checker's words, naming the other checker that reports it there.
    assert shown.startswith(f"pyright (and mypy): forward_batch_generation ({folder / 'algo.py'}:{line}): {problem.message}")
    assert "..." not in shown.replace("= ...", "")


def test_junit_and_github_carry_the_message_at_the_members_line(author: tuple[Path, GateReport]) -> None:
    folder, report = author
    problem = _forward_problems(report, "OwnWorker")["pyright"]
    line = _def_line(folder / "algo.py", "def forward_batch_generation")
    annotations = render(report, "github").splitlines()
    wanted = f"::algo.OwnWorker: forward_batch_generation: {problem.message}"
    (annotation,) = [a for a in annotations if a.endswith(wanted)]
    assert f",line={line},title=spec-protocols SpecWorker (pyright)::" in annotation
    root = ET.fromstring(render(report, "junit").encode("utf-8"))
    (case,) = [c for c in root.iter("testcase") if c.get("classname") == "algo.OwnWorker"]
    assert (case.get("file"), case.get("line")) == (str(folder / "algo.py"), str(line))
    failure = case.find("failure")
    assert failure is not None
    assert f"pyright: forward_batch_generation: {problem.message} ({folder / 'algo.py'}:{line})" in (failure.text or "")

