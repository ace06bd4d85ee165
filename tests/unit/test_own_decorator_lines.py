"""spec_protocols' own class decorators are recognized by their lines, not by a checker's words.

What mypy and pyright say where ``spec_worker_class``/``draft_worker_class``
apply (pyright: the decorator's line; mypy: the ``class`` statement, as
``type-var``/``arg-type``) is the IDE's view of the pinned release, not the
class's problem; the same words anywhere else (the constructor) still count.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from spec_protocols.gate._checkers import dialect_of
from spec_protocols.gate._checkers._class_diagnostics import class_findings
from spec_protocols.gate._harness import class_regions
from spec_protocols.gate._model import ClassRole, DiscoveredClass

SOURCE = '''\
from spec_protocols import spec_worker_class


@spec_worker_class
class Worker:
    def __init__(self, server_args, gpu_id, nccl_port, target_worker) -> None:
        target_worker.x = 1
'''
#: What a checker says of the decorator, in words that name it.
WORDS = 'Argument of type "type[Worker]" cannot be assigned to parameter "cls" of type "_S@spec_worker_class" in function "spec_worker_class"'


@dataclass(frozen=True)
class Diag:
    line: int
    message: str
    code: str | None
    file: Path | None


def _findings(tmp_path: Path, *diags: tuple[int, str, str | None], decorated: bool = True) -> list[int]:
    file = tmp_path / "plugin.py"
    file.write_text(SOURCE)
    cls = DiscoveredClass(
        "plugin", "Worker", file, 5, frozenset({ClassRole.SPEC_WORKER}), own_decorator_lines=(4,) if decorated else ()
    )
    regions = class_regions([cls])["plugin.Worker"]
    found, _ = class_findings("mypy", dialect_of("mypy"), regions, [Diag(line, message, code, file.resolve()) for line, message, code in diags])
    return [f.line for f in found if f.line is not None]


def test_what_a_checker_says_at_the_decorator_or_its_application_is_not_the_class(tmp_path: Path) -> None:
    assert _findings(tmp_path, (4, WORDS, "reportArgumentType"), (5, "Value of type variable", "type-var")) == []


def test_the_same_words_elsewhere_in_the_class_count(tmp_path: Path) -> None:
    assert _findings(tmp_path, (7, WORDS, "assignment")) == [7]


def test_another_error_at_the_class_statement_counts(tmp_path: Path) -> None:
    assert _findings(tmp_path, (5, "Class cannot subclass", "misc")) == [5]


def test_without_the_package_decorators_nothing_is_excused(tmp_path: Path) -> None:
    assert _findings(tmp_path, (4, WORDS, "reportArgumentType"), (5, "x", "type-var"), decorated=False) == [4, 5]
