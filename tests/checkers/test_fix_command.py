"""``spec-protocols fix`` end to end (issue 30, items 1-2): the edits written, the gate run again, nothing else touched.

The plugin makes three of the common mistakes in one worker: a constructor
keyword spelled otherwise (``gpu`` for ``gpu_id``), a member sglang uses
missing (``last_shared_read_runner``), an ``async`` member sglang calls
without awaiting; and ``forward_batch_generation`` lacks the overlap loop's
``on_publish=``. Its registration passes a conforming ``spec_class``, so the
worker is all that fails. ``fix`` shows a diff and writes nothing; ``fix
--write`` writes the edits, checks again (mypy and pyright pass), and keeps
every other line byte for byte. A registration without ``spec_class`` is given
a conforming one in the plugin's file, never in sglang's; bad input is one
line, exit 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests._paths import REPO_ROOT

INIT = '''\
def register() -> None:
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    from sglang.srt.speculative.spec_registry import CustomSpecAlgo

    from spec_protocols import SpecAlgorithmBase
    from fxp import workers

    class Algorithm(SpecAlgorithmBase, CustomSpecAlgo):
        pass

    SpeculativeAlgorithm.register("FXP", supports_overlap=True, spec_class=Algorithm)(lambda server_args: workers.Broken)
'''

WORKERS = '''\
# A worker with the common mistakes; this comment stays.
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sglang.srt.configs.draft_parallel import DraftParallelLayout
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs
    from sglang.srt.speculative.base_spec_worker import HiCacheDraftPlan


class Broken:
    """Conforms but for what fix mends."""

    draft_parallel_layout: DraftParallelLayout | None = None
    draft_swa_window: int = 0
    primary_draft_kv_pool: object | None = None
    graph_memory_usage: dict[str, float] = {}
    graph_time_usage: dict[str, float] = {}
    weight_load_time: float = 0.0
    preloaded_weights_bytes: int = 0

    def __init__(self, server_args: ServerArgs, gpu: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        self._target = target_worker
        self.device = gpu  # kept: the value is renamed, not the attribute

    @property
    def target_worker(self) -> TpModelWorker:
        return self._target

    @property
    def draft_worker(self) -> None:
        return None

    @property
    def model_runner(self) -> ModelRunner:
        return self._target.model_runner

    @property
    def hicache_draft_plan(self) -> HiCacheDraftPlan | None:
        return None

    def alloc_memory_pool(self, memory_pool_config: Any = None, req_to_token_pool: Any = None, token_to_kv_pool_allocator: Any = None) -> None:
        pass

    def init_hicache_draft_plan(self) -> None:
        pass

    async def init_attention_backends(self) -> None:
        pass

    def init_cuda_graphs(self) -> None:
        pass

    def prewarm_sampling(self) -> None:
        pass

    def forward_batch_generation(self, batch: ScheduleBatch, *, pp_proxy_tensors: Any = None) -> GenerationBatchResult:
        return self._target.forward_batch_generation(batch)

    def on_verify_complete_cpu(self, counts: Any, batch_size: int = 0) -> None:
        pass

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        return []

    def clear_cache_pool(self) -> None:
        pass
'''


def _plugin(root: Path) -> Path:
    package = root / "fxp"
    package.mkdir()
    (package / "__init__.py").write_text(INIT, encoding="utf-8")
    (package / "workers.py").write_text(WORKERS, encoding="utf-8")
    return package


def _fix(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(cwd), str(REPO_ROOT)])}
    return subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", "fix", *args, "--checker", "mypy", "--checker", "pyright"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False,
    )


def test_fix_shows_a_diff_and_writes_nothing(tmp_path: Path) -> None:
    package = _plugin(tmp_path)
    ran = _fix(tmp_path, "fxp")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "--- a/fxp/workers.py" in ran.stdout and "+    def init_attention_backends(self) -> None:" in ran.stdout
    assert "[review] Broken.__init__: rename parameter gpu to gpu_id" in ran.stdout
    assert (package / "workers.py").read_text(encoding="utf-8") == WORKERS


def test_fix_write_mends_the_worker_and_keeps_every_other_line(tmp_path: Path) -> None:
    package = _plugin(tmp_path)
    ran = _fix(tmp_path, "fxp", "--write")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "after the edits: 1 pass, 0 fail, 0 unverified" in ran.stdout, ran.stdout
    text = (package / "workers.py").read_text(encoding="utf-8")
    assert "def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:" in text
    assert "self.device = gpu_id  # kept: the value is renamed, not the attribute" in text
    assert "    def init_attention_backends(self) -> None:" in text
    assert "on_publish: Callable[..., object]" in text
    assert "    @property\n    def last_shared_read_runner(self) -> ModelRunner:" in text
    # The lines no edit concerns are there, byte for byte, in order.
    touched = ("    def __init__", "        self.device", "    async def init_attention_backends", "    def forward_batch_generation")
    kept = iter(text.splitlines())
    for line in WORKERS.splitlines():
        if not line.startswith(touched):
            assert any(line == candidate for candidate in kept), f"changed or moved: {line!r}"
    # The package's __init__.py had nothing to mend.
    assert (package / "__init__.py").read_text(encoding="utf-8") == INIT
    # A second run has nothing left to do.
    again = _fix(tmp_path, "fxp")
    assert again.returncode == 0 and "nothing to fix: the gate passes" in again.stdout, again.stdout


def test_a_registration_without_spec_class_is_mended_in_the_plugin_never_in_sglang(tmp_path: Path) -> None:
    import importlib.util

    package = _plugin(tmp_path)
    # Registered without a spec_class: sglang's CustomSpecAlgo fails, in sglang's own file.
    (package / "__init__.py").write_text(INIT.replace(", spec_class=Algorithm", ""), encoding="utf-8")
    spec = importlib.util.find_spec("sglang")
    assert spec is not None and spec.submodule_search_locations is not None
    registry = Path(next(iter(spec.submodule_search_locations))) / "srt" / "speculative" / "spec_registry.py"
    before = registry.read_bytes()
    ran = _fix(tmp_path, "fxp", "--write")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "[review] registration: spec_class=FxpAlgorithm" in ran.stdout, ran.stdout
    assert "0 fail, 0 unverified" in ran.stdout, ran.stdout
    init = (package / "__init__.py").read_text(encoding="utf-8")
    assert "class FxpAlgorithm(SpecAlgorithmBase, CustomSpecAlgo):" in init and "spec_class=FxpAlgorithm" in init
    assert registry.read_bytes() == before  # sglang's file is never edited


@pytest.mark.parametrize("target", ["no_such_module_here", "missing/path.py"])
def test_bad_input_is_one_line_exit_2(tmp_path: Path, target: str) -> None:
    ran = _fix(tmp_path, target)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    lines = [line for line in ran.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("spec-protocols"), ran.stderr


def test_help_teaches_the_edits() -> None:
    ran = subprocess.run([sys.executable, "-m", "spec_protocols.gate._cli", "fix", "--help"], cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    assert ran.returncode == 0
    for words in ("[safe]", "[review]", "--diff", "--write", "never touches a file outside TARGET", "exit status", "registration"):
        assert words in ran.stdout, ran.stdout
