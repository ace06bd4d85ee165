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
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
CORPUS = REPO_ROOT / "typecheck"
STUBS = REPO_ROOT / "stubs"
CASES = sorted(CORPUS.glob("*.py"))

pytestmark = pytest.mark.checkers

# {"file.py:LINE": ["message [code]", ...]}: what one checker reported.
Findings = dict[str, list[str]]

_MYPY_LINE = re.compile(r"^(?P<path>[^:\n]+\.py):(?P<line>\d+)(?::\d+)?: (?P<sev>error|note): (?P<msg>.*)$")


def run_mypy(config: Path, files: list[Path], cwd: Path) -> tuple[int, Findings, str]:
    """mypy adapter: run it, and turn its text output into ``{file:line: [errors]}``."""
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--no-incremental", "--show-error-codes",
         *map(str, files)],
        cwd=cwd, capture_output=True, text=True, timeout=600,
    )
    findings: Findings = {}
    for raw in proc.stdout.splitlines():
        m = _MYPY_LINE.match(raw)
        if m and m["sev"] == "error":
            findings.setdefault(f"{Path(m['path']).name}:{m['line']}", []).append(m["msg"])
    return proc.returncode, findings, proc.stdout + proc.stderr


def run_pyright(project: Path, files: list[Path] | None = None) -> tuple[int, Findings, str]:
    """pyright adapter: run it with ``--outputjson`` and turn that into ``{file:line: [errors]}``."""
    cmd = [sys.executable, "-m", "pyright", "--outputjson", "-p", str(project), "--pythonpath", sys.executable]
    proc = subprocess.run([*cmd, *map(str, files or [])], cwd=project.parent, capture_output=True, text=True,
                          timeout=600)
    findings: Findings = {}
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return proc.returncode, {"<pyright>": [proc.stdout + proc.stderr]}, proc.stdout + proc.stderr
    for diag in report.get("generalDiagnostics", []):
        if diag["severity"] == "error":
            key = f"{Path(diag['file']).name}:{diag['range']['start']['line'] + 1}"
            findings.setdefault(key, []).append(f"{diag['message']} [{diag.get('rule', '')}]")
    return proc.returncode, findings, proc.stdout + proc.stderr


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
