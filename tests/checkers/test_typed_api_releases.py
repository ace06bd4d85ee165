"""The typed API per sglang release, under plain mypy and pyright (issue 12, item 5).

An importer pinned to a release (``spec-protocols pin RELEASE`` prints the
settings) gets that release's ``SpecWorker``; told nothing, both checkers give
the newest supported release's. The test writes, for every supported release,
a worker with exactly the members that release's scheduler calls (from the
protocol's own definitions, pinned to it), and assigns each to ``SpecWorker``
under every pin and under none: a worker conforms exactly when it has every
member of the pinned release (so an older release's worker fails where the
newer release added a member, and passes where it did not).
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

from spec_protocols._members import protocol_definitions
from spec_protocols._releases import NEWEST, SUPPORTED_RELEASES, constant_name, pin_constants, release_key
from spec_protocols.gate._checkers._mypy import invoke_mypy
from spec_protocols.gate._checkers._pyright import invoke_pyright

from tests._paths import REPO_ROOT


STUBS = REPO_ROOT / "stubs"
PINS: tuple[str | None, ...] = (*SUPPORTED_RELEASES, None)


def _worker_class(release: str) -> str:
    """A class with exactly the SpecWorker members ``release`` calls, as the protocol writes them."""
    lines = [f"class Worker_{constant_name(release)}:"]
    for member in protocol_definitions("SpecWorker", release):
        lines += ["    " + line for line in ast.unparse(member.node).splitlines()]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """The stub module of workers and the file that assigns them; line of each assignment."""
    root = tmp_path_factory.mktemp("typed-api")
    header = [
        "from collections.abc import Callable, Iterable, Mapping",
        "from spec_protocols._sglang_types import *",
        "PublishCallback = Callable[..., object]",
    ]
    (root / "release_workers.pyi").write_text("\n\n".join([*header, *map(_worker_class, SUPPORTED_RELEASES)]) + "\n")
    lines = ["from spec_protocols import SpecWorker", "import release_workers", "", "def check() -> None:"]
    where: dict[str, int] = {}
    for release in SUPPORTED_RELEASES:
        lines.append(f"    w_{constant_name(release)}: SpecWorker = release_workers.Worker_{constant_name(release)}()")
        where[release] = len(lines)
    (root / "check_pins.py").write_text("\n".join(lines) + "\n")
    return root, where


def _members(release: str | None) -> set[str]:
    return {m.name for m in protocol_definitions("SpecWorker", release)}


def _expected(pin: str | None, where: dict[str, int]) -> set[int]:
    """The assignment lines that must fail: workers that lack a member of the
    pinned release (those of an older release that calls fewer members)."""
    wanted = _members(pin)
    failing = {line for release, line in where.items() if not wanted <= _members(release)}
    # Releases only ever add members: a worker fails exactly when it is older.
    assert failing <= {where[r] for r in where if release_key(r) < release_key(pin or NEWEST)}
    return failing


def _mypy(root: Path, pin: str | None) -> set[int]:
    config = ["[mypy]", "strict = True", f"mypy_path = {STUBS}"]
    if pin is not None:
        constants = pin_constants(pin)
        config += [
            f"always_true = {','.join(n for n, v in constants.items() if v)}",
            f"always_false = {','.join(n for n, v in constants.items() if not v)}",
        ]
    ini = root / f"mypy-{pin}.ini"
    ini.write_text("\n".join(config) + "\n")
    invocation = invoke_mypy([root / "check_pins.py"], config=ini, cwd=root, timeout=600, extra_args=["--no-incremental"])
    return {d.line for d in invocation.errors() if Path(d.file).name == "check_pins.py"}


def _pyright(root: Path, pin: str | None) -> set[int]:
    config: dict[str, object] = {"include": ["check_pins.py"], "stubPath": str(STUBS), "typeCheckingMode": "standard"}
    if pin is not None:
        config["defineConstant"] = pin_constants(pin)
    path = root / "pyrightconfig.json"
    path.write_text(json.dumps(config))
    invocation = invoke_pyright(path, cwd=root, timeout=600, extra_args=["--pythonpath", sys.executable])
    return {d.line for d in invocation.errors() if Path(d.file).name == "check_pins.py"}


@pytest.mark.parametrize("pin", PINS, ids=[p or "unpinned" for p in PINS])
def test_mypy_reads_the_pinned_release(project: tuple[Path, dict[str, int]], pin: str | None) -> None:
    root, where = project
    assert _mypy(root, pin) == _expected(pin, where)


@pytest.mark.parametrize("pin", PINS, ids=[p or "unpinned" for p in PINS])
def test_pyright_reads_the_pinned_release(project: tuple[Path, dict[str, int]], pin: str | None) -> None:
    root, where = project
    assert _pyright(root, pin) == _expected(pin, where)
