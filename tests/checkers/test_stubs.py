"""The sglang stubs: verified against the real sglang 0.5.23, and usable once installed.

* stubtest compares every stubbed name with the runtime module (this needs
  sglang importable: torch plus requirements/sglang-cpu.txt).
* ``pip install ./stubs`` must give a ``sglang-stubs`` package that plain
  mypy and plain pyright (no configuration) pick up and that gives precise
  types.
* Modules the stubs do not cover must still resolve to the installed sglang.

This module is the part that runs mypy or pyright; tests/unit/test_stubs.py (fast, no checker) holds the rest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests._paths import REPO_ROOT
from tests._sglang import import_sglang
from tests.unit.test_stubs import STUBBED_MODULES

STUBS = REPO_ROOT / "stubs"
ALLOWLIST = STUBS / "@tests" / "stubtest_allowlist.txt"


@pytest.mark.sglang_runtime
def test_stubtest_finds_no_unexplained_difference() -> None:
    for module in STUBBED_MODULES:
        import_sglang(module)  # skips, naming the import error, where sglang cannot be imported
    env = {**os.environ, "MYPYPATH": str(STUBS)}
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--ignore-missing-stub", "--allowlist", str(ALLOWLIST),
         *STUBBED_MODULES],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    output = proc.stdout + proc.stderr
    # Unused allowlist entries are errors too (stubtest's default), so the
    # allowlist cannot keep excusing a difference that has gone away.
    assert proc.returncode == 0, output
    assert "Success: no issues found" in output, output


USER_CODE = '''
from typing_extensions import assert_type, reveal_type

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.pool_configurator import MemoryPoolConfig
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


def use(worker: TpModelWorker, spec: BaseSpecWorker, config: MemoryPoolConfig) -> None:
    reveal_type(TpModelWorker.init_cuda_graphs)
    reveal_type(BaseSpecWorker.alloc_memory_pool)
    assert_type(worker.init_cuda_graphs(capture_decode_cuda_graph=False), None)
    assert_type(worker.weight_load_time, float)
    spec.alloc_memory_pool(memory_pool_config=config)
'''


@pytest.fixture(scope="module")
def installed_stubs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip install ./stubs`` into a throwaway --target folder; returns that folder."""
    target = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--no-deps",
         "--target", str(target), str(STUBS)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return target


def test_the_wheel_installs_the_stub_only_package(installed_stubs: Path) -> None:
    package = installed_stubs / "sglang-stubs"
    assert (package / "py.typed").read_text() == "partial\n"
    assert (package / "srt" / "managers" / "tp_worker.pyi").is_file()
    assert not (installed_stubs / "sglang").exists(), "the stubs must not install as a runtime package"


@pytest.fixture
def user_project(tmp_path: Path) -> Path:
    """A folder with one user file and no checker configuration at all."""
    (tmp_path / "user.py").write_text(textwrap.dedent(USER_CODE))
    return tmp_path
def test_plain_mypy_uses_the_installed_stubs(installed_stubs: Path, user_project: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(installed_stubs)}
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--strict", "user.py"],
        cwd=user_project, env=env, capture_output=True, text=True, timeout=600,
    )
    output = proc.stdout + proc.stderr
    # Without the stubs mypy reports import-untyped for every sglang import.
    assert proc.returncode == 0, output
    assert "capture_decode_cuda_graph: bool =" in output, output
    assert "memory_pool_config: sglang.srt.model_executor.pool_configurator.MemoryPoolConfig | None =" in output, output
def test_plain_pyright_uses_the_installed_stubs(installed_stubs: Path, user_project: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(installed_stubs)}
    proc = subprocess.run(
        [sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", sys.executable, "user.py"],
        cwd=user_project, env=env, capture_output=True, text=True, timeout=600,
    )
    report = json.loads(proc.stdout)
    diagnostics = report["generalDiagnostics"]
    errors = [d["message"] for d in diagnostics if d["severity"] == "error"]
    revealed = [d["message"] for d in diagnostics if d["severity"] == "information"]
    assert errors == [], errors
    assert any("capture_decode_cuda_graph: bool = True" in m for m in revealed), revealed
    # sglang's source leaves these parameters unannotated; only the stub types them.
    assert any("memory_pool_config: MemoryPoolConfig | None = None" in m for m in revealed), revealed


FALLBACK_CODE = '''
from typing_extensions import reveal_type

from sglang.srt.configs.device_config import DeviceConfig
from sglang.srt.managers.tp_worker import TpModelWorker

reveal_type(DeviceConfig)
reveal_type(TpModelWorker.get_worker_info)
'''
def test_unstubbed_modules_resolve_to_the_installed_sglang(tmp_path: Path) -> None:
    # sglang.srt.configs has a stub __init__.pyi (see stubs/README.md), yet its
    # unstubbed submodule device_config must come from sglang's source, while
    # tp_worker still comes from the stub (get_worker_info is a tuple there).
    (tmp_path / "user.py").write_text(textwrap.dedent(FALLBACK_CODE))
    (tmp_path / "mypy.ini").write_text(
        f"[mypy]\nmypy_path = {STUBS}\nfollow_untyped_imports = True\nfollow_imports = silent\n"
    )
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({"stubPath": str(STUBS)}))
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "user.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    assert "sglang.srt.configs.device_config.DeviceConfig" in mypy.stdout, mypy.stdout
    assert "TpModelWorker) -> tuple[Any, ...]" in mypy.stdout, mypy.stdout

    pyright = subprocess.run([sys.executable, "-m", "pyright", "--pythonpath", sys.executable, "user.py"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert pyright.returncode == 0, pyright.stdout
    assert 'Type of "DeviceConfig" is "type[DeviceConfig]"' in pyright.stdout, pyright.stdout
    assert "tuple[Incomplete, ...]" in pyright.stdout or "tuple[Any, ...]" in pyright.stdout, pyright.stdout
def test_the_stubs_themselves_pass_both_checkers_strictly(tmp_path: Path) -> None:
    # Errors inside a stub are silenced for users of the installed package, so
    # they are checked here: strict, with exact ignores only.
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--warn-unused-ignores", "--enable-error-code",
         "ignore-without-code", "--no-incremental", "-p", "sglang"],
        cwd=tmp_path, env={**os.environ, "MYPYPATH": str(STUBS)}, capture_output=True, text=True, timeout=600,
    )
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    config = {"stubPath": str(STUBS), "typeCheckingMode": "strict", "pythonVersion": "3.11",
              "reportUnnecessaryTypeIgnoreComment": "error"}
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config))
    pyright = subprocess.run(
        [sys.executable, "-m", "pyright", "-p", str(tmp_path / "pyrightconfig.json"), "--pythonpath", sys.executable,
         str(STUBS / "sglang")],
        cwd=STUBS, capture_output=True, text=True, timeout=600,
    )
    assert pyright.returncode == 0, pyright.stdout + pyright.stderr


# -- the gate beside installed stubs -------------------------------------------

# A worker that fails one member, beside the example plugin (which passes), so
# that the comparison below covers both verdicts.
BROKEN_WORKER = '''
from sglang.srt.managers.tp_worker import TpModelWorker


class BrokenDraft(TpModelWorker):
    def init_cuda_graphs(self, extra: int) -> None:  # sglang calls it with no argument
        super().init_cuda_graphs()
'''

# An installed sglang-stubs that disagrees with the source: its TpModelWorker
# has no members at all. Read in place of sglang's tp_worker.py, it would fail
# every class built on TpModelWorker.
STALE_TP_WORKER_STUB = "class TpModelWorker:\n    def __init__(self) -> None: ...\n"


def _gate_results(targets: list[str], env_path: Path | None) -> list[dict[str, object]]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if env_path is not None:
        # mypy looks for stub packages on the whole import path: PYTHONPATH is
        # as good as site-packages, and leaves this environment untouched.
        env["PYTHONPATH"] = str(env_path)
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "spec-protocols"), "check", *targets, "--checker", "mypy", "--checker", "pyright",
         "--format", "json", "--no-timings"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    results: list[dict[str, object]] = json.loads(proc.stdout)["results"]
    return results
def test_the_gate_gives_the_same_verdicts_with_sglang_stubs_installed(installed_stubs: Path, tmp_path: Path) -> None:
    # docs/authoring.md's IDE set-up installs sglang-stubs into the author's
    # environment, the one that runs the gate; the gate must judge the source.
    stale = tmp_path / "stale-site"
    package = stale / "sglang-stubs"
    (package / "srt" / "managers").mkdir(parents=True)
    (package / "py.typed").write_text("partial\n")
    for init in (package / "__init__.pyi", package / "srt" / "__init__.pyi", package / "srt" / "managers" / "__init__.pyi"):
        init.write_text("")
    (package / "srt" / "managers" / "tp_worker.pyi").write_text(STALE_TP_WORKER_STUB)
    (tmp_path / "broken_draft.py").write_text(BROKEN_WORKER)
    targets = [str(REPO_ROOT / "examples" / "sglang_plugin_example" / "spec_example_plugin"), str(tmp_path / "broken_draft.py")]

    without = _gate_results(targets, None)
    assert {r["verdict"] for r in without} == {"pass", "fail"}, without
    assert _gate_results(targets, installed_stubs) == without
    assert _gate_results(targets, stale) == without
