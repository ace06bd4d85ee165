"""``scripts/build-wheels``: the two wheels the install guides (README, docs/ci.md) install from."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

from tests._paths import REPO_ROOT


def test_build_wheels_builds_the_library_and_the_stubs(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(REPO_ROOT / "scripts" / "build-wheels"), str(tmp_path)], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wheels = sorted(p.name for p in tmp_path.glob("*.whl"))
    assert [w.split("-")[0] for w in wheels] == ["sglang_stubs", "spec_protocols"], wheels
    # The script names what it built, for the install command that follows.
    assert sorted(Path(line).name for line in proc.stdout.split()) == wheels

    library = zipfile.ZipFile(next(tmp_path.glob("spec_protocols-*.whl"))).namelist()
    # The gate reads its own copy of the stubs (never an installed sglang-stubs).
    assert "spec_protocols/_stubs/sglang/srt/managers/tp_worker.pyi" in library
    assert any(name.endswith("entry_points.txt") for name in library)
    stubs = zipfile.ZipFile(next(tmp_path.glob("sglang_stubs-*.whl"))).namelist()
    assert "sglang-stubs/py.typed" in stubs
    assert "sglang-stubs/srt/managers/tp_worker.pyi" in stubs
    assert not [name for name in stubs if name.startswith("sglang/")], "the stubs must not install as a runtime package"
