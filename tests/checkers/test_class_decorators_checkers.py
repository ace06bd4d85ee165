"""What plain mypy and plain pyright report for a decorated class, where, and why.

The typecheck/ corpus (tests/test_typecheck.py) proves that every broken
class in typecheck/protocols_spec_worker_class.py and
protocols_draft_worker_class.py fails under both checkers, in strict mode. This
module runs the same files with their expected-error comments removed, under
the configuration an IDE starts from (nothing but the stubs' path: no strict
mode, no pin), and holds each report to where an author sees it:

* mypy: one ``[type-var]`` error on the ``class`` line, naming the class;
* pyright: one ``reportArgumentType`` error on the decorator's line, naming
  the class, with the constructor's parameter it cannot match where that is
  the reason;

and nothing anywhere else (the one other error is the abstract class's
instantiation, which the decorator keeps an error).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CASES = ["protocols_spec_worker_class.py", "protocols_draft_worker_class.py"]
DECORATORS = {"spec_worker_class", "draft_worker_class"}
_IGNORE = re.compile(r"  # (type|pyright): ignore\[[^]]*\]")

pytestmark = [pytest.mark.checkers, pytest.mark.slow]

#: What pyright names for each broken constructor (the other broken classes'
#: reason is the protocol their instance does not satisfy).
CONSTRUCTOR_REASONS = {
    "InheritsBaseConstructor": ['Missing keyword parameter "server_args"'],
    "OldConstructor": ['Extra parameter "ps"'],
    "RenamedKeyword": ['Extra parameter "target"', 'Missing keyword parameter "target_worker"'],
    "NoIsDraftWorker": ['Missing keyword parameter "is_draft_worker"'],
}


def _broken(source: str) -> dict[str, tuple[int, int, str]]:
    """Each decorated class under ``if TYPE_CHECKING_INVALID_USAGE:``: name -> (decorator line, class line, decorator)."""
    found: dict[str, tuple[int, int, str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING_INVALID_USAGE":
            for stmt in node.body:
                if isinstance(stmt, ast.ClassDef):
                    (decorator,) = stmt.decorator_list
                    assert isinstance(decorator, ast.Name) and decorator.id in DECORATORS
                    found[stmt.name] = (decorator.lineno, stmt.lineno, decorator.id)
    return found


@pytest.fixture(scope="module")
def plain_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("decorated")
    for case in CASES:
        (work / case).write_text(_IGNORE.sub("", (REPO / "typecheck" / case).read_text()))
    (work / "mypy.ini").write_text(f"[mypy]\nmypy_path = {REPO / 'stubs'}\n")
    (work / "pyrightconfig.json").write_text(json.dumps({"stubPath": str(REPO / "stubs")}))
    return work


def _mypy(work: Path) -> dict[tuple[str, int], list[str]]:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-incremental", *CASES],
        cwd=work, capture_output=True, text=True, timeout=600,
    )
    found: dict[tuple[str, int], list[str]] = {}
    for line in run.stdout.splitlines():
        match = re.match(r"^(?P<file>[^:]+):(?P<line>\d+): error: (?P<msg>.*)$", line)
        if match:
            found.setdefault((match["file"], int(match["line"])), []).append(match["msg"])
    assert run.returncode in (0, 1), run.stdout + run.stderr
    return found


def _pyright(work: Path) -> dict[tuple[str, int], list[dict[str, object]]]:
    run = subprocess.run(
        [sys.executable, "-m", "pyright", "-p", "pyrightconfig.json", "--pythonpath", sys.executable, "--outputjson"],
        cwd=work, capture_output=True, text=True, timeout=600,
    )
    found: dict[tuple[str, int], list[dict[str, object]]] = {}
    for diag in json.loads(run.stdout)["generalDiagnostics"]:
        if diag["severity"] == "error":
            key = (Path(diag["file"]).name, diag["range"]["start"]["line"] + 1)
            found.setdefault(key, []).append(diag)
    return found


def _abstract_instantiations(source: str) -> set[int]:
    return {n for n, line in enumerate(source.splitlines(), 1) if "AbstractWorker(server_args" in line}


def test_mypy_reports_each_broken_class_on_its_class_line_and_nothing_else(plain_copy: Path) -> None:
    found = _mypy(plain_copy)
    expected: set[tuple[str, int]] = set()
    for case in CASES:
        source = (plain_copy / case).read_text()
        expected |= {(case, n) for n in _abstract_instantiations(source)}
        for name, (_, class_line, decorator) in _broken(source).items():
            expected.add((case, class_line))
            (message,) = found.get((case, class_line), ["(none)"])
            assert message.endswith("[type-var]"), (name, message)
            assert f'of "{decorator}" cannot be "type[{name}]"' in message, (name, message)
    assert set(found) == expected, found


def test_pyright_reports_each_broken_class_on_its_decorator_with_the_reason(plain_copy: Path) -> None:
    found = _pyright(plain_copy)
    expected: set[tuple[str, int]] = set()
    for case in CASES:
        source = (plain_copy / case).read_text()
        expected |= {(case, n) for n in _abstract_instantiations(source)}
        for name, (decorator_line, _, decorator) in _broken(source).items():
            expected.add((case, decorator_line))
            (diag,) = found.get((case, decorator_line), [{"rule": "(none)", "message": ""}])
            message = str(diag["message"])
            assert diag["rule"] == "reportArgumentType", (name, diag)
            assert f'Argument of type "type[{name}]"' in message and f'in function "{decorator}"' in message, message
            reasons = CONSTRUCTOR_REASONS.get(name, [f'"{name}" is incompatible with protocol'])
            for reason in reasons:
                assert reason in message, (name, message)
    assert set(found) == expected, found


# --- the pin: the members follow it ------------------------------------------

#: Broken only by prewarm_sampling, which sglang calls from 0.5.20 on.
PREWARM_CASES = {"NoPrewarm", "PrewarmProperty"}


@pytest.fixture(scope="module")
def pinned_to_0_5_19(plain_copy: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same files, with the settings ``spec-protocols pin 0.5.19`` prints."""
    from spec_protocols._releases import pin_constants

    constants = pin_constants("0.5.19")
    work = tmp_path_factory.mktemp("pinned")
    for case in CASES:
        (work / case).write_text((plain_copy / case).read_text())
    true = ", ".join(n for n, v in constants.items() if v)
    false = ", ".join(n for n, v in constants.items() if not v)
    (work / "mypy.ini").write_text(
        f"[mypy]\nmypy_path = {REPO / 'stubs'}\nalways_true = {true}\nalways_false = {false}\n"
    )
    (work / "pyrightconfig.json").write_text(json.dumps({"stubPath": str(REPO / "stubs"), "defineConstant": constants}))
    return work


def test_pinned_to_an_older_release_a_member_it_does_not_call_is_not_required(pinned_to_0_5_19: Path) -> None:
    source = (pinned_to_0_5_19 / CASES[0]).read_text()
    broken = _broken(source)
    mypy_lines = {line for (case, line) in _mypy(pinned_to_0_5_19) if case == CASES[0]}
    pyright_lines = {line for (case, line) in _pyright(pinned_to_0_5_19) if case == CASES[0]}
    for name, (decorator_line, class_line, _) in broken.items():
        expect_error = name not in PREWARM_CASES
        assert (class_line in mypy_lines) is expect_error, (name, sorted(mypy_lines))
        assert (decorator_line in pyright_lines) is expect_error, (name, sorted(pyright_lines))


# --- a generated skeleton, then an edit that breaks it -------------------------

#: (kind, name, the edit's (pattern, replacement) pairs, what pyright then names).
_EDITS = [
    (
        "worker",
        "MyWorker",
        ((r"        target_worker: TpModelWorker,\n", "        target: TpModelWorker,\n"), (r"target_worker=target_worker", "target_worker=target")),
        'Missing keyword parameter "target_worker"',
    ),
    # A required keyword build_draft_tp_worker never passes (**kwargs takes the ones it does).
    ("draft", "MyDraft", ((r"        \*,\n", "        *,\n        num_layers: int,\n"),), 'Extra parameter "num_layers"'),
    # The one member the worker must write, deleted: abstract at run time,
    # and to the checkers a member SpecWorkerBase does not have.
    (
        "worker",
        "MyWorker",
        ((r"(?s)    def forward_batch_generation\(.*?(?=    # Every other SpecWorker member)", ""),),
        '"MyWorker" is incompatible with protocol "SpecWorker"',
    ),
]


@pytest.mark.parametrize(
    ("kind", "name", "edits", "reason"), _EDITS, ids=["worker-constructor", "draft-constructor", "worker-no-forward"]
)
def test_an_edit_that_breaks_a_skeleton_is_reported_at_its_class(
    kind: str, name: str, edits: tuple[tuple[str, str], ...], reason: str, tmp_path: Path
) -> None:
    from spec_protocols.gate._scaffold import write_skeleton

    path = write_skeleton(kind, name, tmp_path)  # type: ignore[arg-type]
    edited = path.read_text()
    for pattern, replacement in edits:
        edited, count = re.subn(pattern, replacement, edited)
        assert count == 1, (pattern, edited)
    path.write_text(edited)
    lines = edited.splitlines()
    decorator_line = next(n for n, line in enumerate(lines, 1) if line.startswith("@"))
    # The IDE set-up of docs/authoring.md: the stubs, sglang's source for the rest.
    (tmp_path / "mypy.ini").write_text(
        f"[mypy]\nmypy_path = {REPO / 'stubs'}\nfollow_untyped_imports = True\n[mypy-sglang.*]\nimplicit_reexport = True\n"
    )
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({"stubPath": str(REPO / "stubs")}))
    files = [path.name]
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-incremental", *files],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    assert f"{path.name}:{decorator_line + 1}: error: Value of type variable" in mypy.stdout, mypy.stdout
    assert mypy.stdout.count(": error:") == 1, mypy.stdout
    pyright = subprocess.run(
        [sys.executable, "-m", "pyright", "-p", "pyrightconfig.json", "--pythonpath", sys.executable, "--outputjson"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    errors = [d for d in json.loads(pyright.stdout)["generalDiagnostics"] if d["severity"] == "error"]
    assert [(d["range"]["start"]["line"] + 1, d["rule"]) for d in errors] == [(decorator_line, "reportArgumentType")], errors
    assert reason in errors[0]["message"]
