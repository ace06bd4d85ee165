"""The stubs are 0.5.23's: a check against another release reads that release's own source.

A worker written for sglang 0.5.20 passes ``ps=`` to ``build_draft_tp_worker``
(0.5.20's takes it; 0.5.23's, which the stubs describe, does not). Against
0.5.20 it must pass under both checkers, and against 0.5.23 fail for that
call: before the fix, the 0.5.23 stub of ``draft_worker_common`` failed it
on 0.5.20 too. (The modules read from source instead of the stubs are still
followed by mypy, never skipped to ``Any``: tests/checkers/test_gate_outside_range.py's
0.5.18 ``BrokenTpModelDraft`` fails under mypy for a need on ``TpModelWorker``.)
"""

from __future__ import annotations

from collections.abc import Callable

from spec_protocols.gate._contract import SglangSource

from tests._gate_json import gate, gate_env  # noqa: F401 (gate_env: a fixture)
from tests._paths import REPO_ROOT

WORKER = REPO_ROOT / "tests" / "fixtures" / "upgrade" / "worker_for_0_5_20.py"


def _verdicts(env: dict[str, str], root: str) -> tuple[int, dict[str, dict[str, str]]]:
    code, data, err = gate(env, str(WORKER), "--sglang", root, "--checker", "mypy", "--checker", "pyright")
    assert data is not None, err
    return code, {f"{r['target']} {r['protocol']}": r["checkers"] for r in data["results"]}


def test_a_worker_written_for_0_5_20_passes_there_and_fails_0_5_23(
    sglang_release: Callable[[str], SglangSource], gate_env: dict[str, str]
) -> None:
    code, on_020 = _verdicts(gate_env, str(sglang_release("0.5.20").root))
    assert code == 0, on_020
    assert all(c == {"mypy": "pass", "pyright": "pass"} for c in on_020.values()), on_020
    code, on_023 = _verdicts(gate_env, str(sglang_release("0.5.23").root))
    assert code == 1
    assert on_023["worker_for_0_5_20.LegacyWorker SpecWorker"] == {"mypy": "fail", "pyright": "fail"}, on_023
