"""The sglang integration series drops in (issue 13): integrations/sglang/0.5.23/.

What the three parts prove together, and how the patched tree is built:
tests/_integration_support.py.

This module is the fast part; tests/slow/test_integration_sglang.py (slow, no checker), tests/checkers/test_integration_sglang.py (runs mypy or pyright) hold the rest.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest

from integrations.series import apply_series, series
from spec_protocols._releases import NEWEST

from tests._integration_support import (  # noqa: F401  (applied, installed, needs_patch, pristine: fixtures)
    PATCHES,
    TOUCHED,
    applied,
    installed,
    needs_patch,
    pristine,
)


# -- the series itself --------------------------------------------------------------------


def test_series_is_numbered_and_each_patch_opens_with_its_description() -> None:
    assert [p.name[:4] for p in PATCHES] == [f"{n:04d}" for n in range(1, len(PATCHES) + 1)]
    for patch in PATCHES:
        assert re.fullmatch(r"\d{4}-[a-z0-9][a-z0-9-]*\.patch", patch.name), patch.name
        text = patch.read_text(encoding="utf-8")
        description = text.split("\ndiff --git ", 1)[0]
        assert re.search(r"^Subject: \[PATCH \d+/\d+\] \S", description, re.MULTILINE), patch.name
        # What an upstream pull request carries: what, why, how it was tested.
        for heading in ("What", "Why", "How it was tested"):
            assert re.search(rf"^{heading}:?$", description, re.MULTILINE), (patch.name, heading)


def test_series_applies_exactly_and_reverses_to_the_pristine_files(
    pristine: Path, needs_patch: str, tmp_path: Path
) -> None:
    for name in TOUCHED:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(pristine / name, tmp_path / name)
    forward = apply_series(tmp_path, PATCHES)
    assert [a.patch for a in forward] == list(PATCHES)
    inexact = [(a.patch.name, a.output) for a in forward if not a.exact]
    assert not inexact, inexact  # no hunk needed an offset or fuzz
    changed = [name for name in TOUCHED if (tmp_path / name).read_bytes() != (pristine / name).read_bytes()]
    assert changed == list(TOUCHED)
    backward = apply_series(tmp_path, PATCHES, reverse=True)
    assert all(a.exact for a in backward), [a.output for a in backward]
    for name in TOUCHED:
        assert (tmp_path / name).read_bytes() == (pristine / name).read_bytes(), name
    assert not list(tmp_path.rglob("*.orig")) and not list(tmp_path.rglob("*.rej"))


def _module_level_imports(path: Path) -> set[str]:
    """Modules imported at module level, outside ``if TYPE_CHECKING:`` blocks."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize(
    "name", ["sglang/srt/speculative/base_spec_worker.py", "sglang/srt/speculative/draft_worker_common.py"]
)
def test_patched_sglang_imports_spec_protocols(pristine: Path, applied: Path, name: str) -> None:
    assert "spec_protocols" not in _module_level_imports(pristine / name)
    assert "spec_protocols" in _module_level_imports(applied / name)


def test_the_newest_supported_release_has_a_series() -> None:
    # When spec_protocols supports a newer sglang, its series must follow.
    assert series("sglang", NEWEST)


# -- inside a patched sglang --------------------------------------------------------------

# -- the gate on the patched tree -----------------------------------------------------------


# -- pp_proxy_tensors, statically -----------------------------------------------------------

