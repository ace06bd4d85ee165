"""The sglang stubs: verified against the real sglang 0.5.23, and usable once installed.

* stubtest compares every stubbed name with the runtime module (this needs
  sglang importable: torch plus requirements/sglang-cpu.txt).
* ``pip install ./stubs`` must give a ``sglang-stubs`` package that plain
  mypy and plain pyright (no configuration) pick up and that gives precise
  types.
* Modules the stubs do not cover must still resolve to the installed sglang.

This module is the fast part; tests/checkers/test_stubs.py (runs mypy or pyright) holds the rest.
"""

from __future__ import annotations

from pathlib import Path

from tests._paths import REPO_ROOT

STUBS = REPO_ROOT / "stubs"
# The stubbed modules, as stubtest takes them: a package, not its submodules
# (stubtest walks those itself; listing both makes mypy see them twice).
STUBBED_MODULES = [
    "sglang.srt.configs.draft_parallel",
    "sglang.srt.configs.load_config",
    "sglang.srt.configs.model_config",
    "sglang.srt.managers.schedule_batch",
    "sglang.srt.managers.tp_worker",
    "sglang.srt.managers.utils",
    "sglang.srt.mem_cache.allocator",
    "sglang.srt.mem_cache.memory_pool",
    "sglang.srt.model_executor.forward_batch_info",
    "sglang.srt.model_executor.model_runner",
    "sglang.srt.model_executor.pool_configurator",
    "sglang.srt.server_args",
    "sglang.srt.speculative.base_spec_worker",
    "sglang.srt.speculative.draft_worker_common",
    "sglang.srt.speculative.spec_info",
    "sglang.srt.speculative.spec_registry",
]


def test_every_stub_module_is_verified() -> None:
    # A stub file added without joining the stubtest run would go unverified.
    on_disk = set()
    for pyi in (STUBS / "sglang").rglob("*.pyi"):
        parts = pyi.relative_to(STUBS).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        on_disk.add(".".join(parts))
    covered = {m for m in on_disk if any(m == s or m.startswith(s + ".") for s in STUBBED_MODULES)}
    # Package __init__ stubs exist only so that mypy resolves the stubs (see
    # stubs/README.md); they declare nothing of sglang's.
    packages = {m for m in on_disk - covered if (STUBS / Path(*m.split("."))).is_dir()}
    assert on_disk - covered - packages == set()


def test_py_typed_marks_the_stubs_partial() -> None:
    assert (STUBS / "sglang" / "py.typed").read_text() == "partial\n"


def test_the_stubs_release_is_the_stub_distributions_version() -> None:
    # The gate trusts the stubs only for this release (gate/_harness: _unstubbed).
    import tomllib

    from spec_protocols._releases import STUBS_RELEASE

    version = tomllib.loads((STUBS / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert version.rpartition(".")[0] == STUBS_RELEASE
