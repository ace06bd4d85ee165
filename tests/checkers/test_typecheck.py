"""Run the typecheck/ corpus under mypy and pyright, and prove that its mechanism bites.

Every ``typecheck/*.py`` is checked by both checkers with the corpus's own
configuration (``typecheck/mypy.ini``, ``typecheck/pyrightconfig.json``).
Both must report zero errors. Because mypy runs with ``warn_unused_ignores``
and pyright with ``reportUnnecessaryTypeIgnoreComment``, an expected-error
line that stops failing is itself an error, so the corpus cannot pass
vacuously. The meta-tests demonstrate that on a copy of a case.
"""

from __future__ import annotations

import ast
import configparser
import json
import sys
from pathlib import Path

import pytest

from spec_protocols.gate._checkers._mypy import invoke_mypy
from spec_protocols.gate._checkers._process import Invocation
from spec_protocols.gate._checkers._pyright import invoke_pyright

from tests._paths import REPO_ROOT

CORPUS = REPO_ROOT / "typecheck"
STUBS = REPO_ROOT / "stubs"
CASES = sorted(CORPUS.glob("*.py"))


# {"file.py:LINE": ["message [code]", ...]}: what one checker reported.
Findings = dict[str, list[str]]


def _findings(invocation: Invocation) -> Findings:
    findings: Findings = {}
    for diag in invocation.errors():
        findings.setdefault(f"{Path(diag.file).name}:{diag.line}", []).append(f"{diag.message} [{diag.code or ''}]")
    return findings


def run_mypy(config: Path, files: list[Path], cwd: Path) -> tuple[int, Findings, str]:
    """mypy through the gate's own adapter, as ``{file:line: [errors]}``."""
    invocation = invoke_mypy(files, config=config, cwd=cwd, timeout=600, extra_args=["--no-incremental"])
    return invocation.returncode, _findings(invocation), invocation.stdout + invocation.stderr


def run_pyright(project: Path, files: list[Path] | None = None) -> tuple[int, Findings, str]:
    """pyright through the gate's own adapter, as ``{file:line: [errors]}``."""
    invocation = invoke_pyright(
        project, cwd=project.parent, timeout=600, files=files or [], extra_args=["--pythonpath", sys.executable]
    )
    return invocation.returncode, _findings(invocation), invocation.stdout + invocation.stderr


def _format(findings: Findings) -> str:
    return "\n".join(f"{where}: {msg}" for where, msgs in sorted(findings.items()) for msg in msgs)


def test_corpus_is_discovered() -> None:
    # The runner checks every typecheck/*.py: stubs_* (sglang-stubs) and
    # protocols_* (spec_protocols) alike.
    names = {case.name for case in CASES}
    assert any(name.startswith("stubs_") for name in names), names


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_case_names_the_sglang_fact_it_guards(case: Path) -> None:
    tree = ast.parse(case.read_text())
    doc = ast.get_docstring(tree)
    assert doc, f"{case.name} must open with a docstring naming the sglang fact it guards"
    assert "sglang" in doc.lower(), f"{case.name}: the docstring does not name an sglang fact"
    source = case.read_text()
    if "# type: ignore[" in source:
        assert "TYPE_CHECKING_INVALID_USAGE" in source, f"{case.name}: negative cases belong under TYPE_CHECKING_INVALID_USAGE"


def test_mypy_reports_no_error_on_the_corpus() -> None:
    rc, findings, output = run_mypy(CORPUS / "mypy.ini", CASES, cwd=REPO_ROOT)
    assert findings == {} and rc == 0, f"mypy on typecheck/:\n{_format(findings)}\n{output}"


def test_pyright_reports_no_error_on_the_corpus() -> None:
    rc, findings, output = run_pyright(CORPUS / "pyrightconfig.json")
    assert findings == {} and rc == 0, f"pyright on typecheck/:\n{_format(findings)}\n{output[-3000:]}"


# --- the mechanism: a negative case that stops failing fails the run ---------

META_CASE = "stubs_pool_types.py"
INVALID_LINE = "    MemoryPoolConfig()  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]"
MADE_VALID = "    MemoryPoolConfig(max_total_num_tokens=1)  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]"


@pytest.fixture
def corpus_copy_made_valid(tmp_path: Path) -> tuple[Path, int]:
    """A copy of one case, with one expected-error line made valid, and the corpus configs pointed at it."""
    source = (CORPUS / META_CASE).read_text()
    assert INVALID_LINE in source, f"{META_CASE} no longer has the line this meta-test edits"
    line_no = source.splitlines().index(INVALID_LINE) + 1
    work = tmp_path / "typecheck"
    work.mkdir()
    (work / META_CASE).write_text(source.replace(INVALID_LINE, MADE_VALID))

    ini = configparser.ConfigParser()
    ini.read(CORPUS / "mypy.ini")
    ini["mypy"]["mypy_path"] = str(STUBS)
    with open(work / "mypy.ini", "w") as f:
        ini.write(f)
    pyright_config = json.loads((CORPUS / "pyrightconfig.json").read_text())
    pyright_config["stubPath"] = str(STUBS)
    (work / "pyrightconfig.json").write_text(json.dumps(pyright_config))
    return work, line_no


def test_mypy_reports_the_ignore_that_became_unused(corpus_copy_made_valid: tuple[Path, int]) -> None:
    work, line_no = corpus_copy_made_valid
    rc, findings, output = run_mypy(work / "mypy.ini", [work / META_CASE], cwd=work)
    assert rc == 1, output
    assert list(findings) == [f"{META_CASE}:{line_no}"], output
    assert any("unused-ignore" in msg for msg in findings[f"{META_CASE}:{line_no}"]), output


def test_pyright_reports_the_ignore_that_became_unnecessary(corpus_copy_made_valid: tuple[Path, int]) -> None:
    work, line_no = corpus_copy_made_valid
    rc, findings, output = run_pyright(work / "pyrightconfig.json")
    assert rc == 1, output
    assert list(findings) == [f"{META_CASE}:{line_no}"], output
    assert any("reportUnnecessaryTypeIgnoreComment" in msg for msg in findings[f"{META_CASE}:{line_no}"]), output
