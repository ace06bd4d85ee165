"""What the gate's command-line tests share (tests/unit/test_gate_cli.py, fast, and
tests/checkers/test_gate_cli.py, runs mypy or pyright): the plugin fixtures, a worker
source to write, the in-process ``check`` runner and the usage-error assertion.

The fixtures are imported into each test module (pytest finds them in its namespace):
``gate_cache`` is one folder for the session, ``use_gate_cache`` (autouse) points the
gate's cache at it, ``run`` calls ``spec_protocols.gate._cli.main(["check", ...])``.
Nothing here starts a checker.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from spec_protocols.gate import _cli as cli

from tests._paths import FIXTURES

PLUGINS = FIXTURES / "plugins"
GOOD = PLUGINS / "good_plugin.py"

WORKER_SOURCE = """\
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class {name}(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, on_publish=None):
        raise NotImplementedError
"""

#: (case, exit code, stderr) of every bad input tried, by either module;
#: printed at the end of tests/unit/test_gate_cli.py.
BAD_INPUTS: list[tuple[str, int, str]] = []


@pytest.fixture(scope="session")
def gate_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli-gate-cache")


@pytest.fixture(autouse=True)
def use_gate_cache(monkeypatch: pytest.MonkeyPatch, gate_cache: Path) -> None:
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(gate_cache))


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def call(*argv: str) -> tuple[int, str, str]:
        try:
            code = cli.main(["check", *argv])
        except SystemExit as exc:  # argparse usage errors exit through SystemExit
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return call


def assert_usage_error(case: str, result: tuple[int, str, str], *fragments: str) -> None:
    code, out, err = result
    BAD_INPUTS.append((case, code, err.strip()))
    assert code == 2, (out, err)
    assert "Traceback" not in err and "Traceback" not in out
    assert 1 <= len(err.strip().splitlines()) <= 3, err
    for fragment in fragments:
        assert fragment in err, err
