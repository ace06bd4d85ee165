"""Apply an integration patch series to a source tree, as a maintainer would: ``patch -p1``.

A series is the folder ``integrations/<project>/<release>/``: files named
``NNNN-name.patch``, applied in name order from the folder that holds the
package (for sglang, the folder holding ``sglang/``, as in an installed
wheel). The tests (tests/{unit,slow,checkers}/test_integration_sglang.py) and the error-count
benchmark (benchmarks/integration_errors.py) use these helpers; a person
uses ``patch -p1`` directly (integrations/sglang/README.md).

Trees here are usually *mirrors*: real directories whose files are symbolic
links to an installed package. GNU patch refuses to patch a link, and
writing through one would change the installed package, so every file a
series touches is first replaced by a real copy (:func:`materialize`).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Applied",
    "PatchFailed",
    "apply_series",
    "materialize",
    "mirror",
    "modified_against_record",
    "patch_tool",
    "series",
    "touched_files",
]

INTEGRATIONS = Path(__file__).resolve().parent

# "+++ b/sglang/srt/x.py" in a unified diff: the file a hunk block changes.
_TARGET = re.compile(r"^\+\+\+ b/(\S+)", re.MULTILINE)
# What GNU patch prints when a hunk did not apply exactly where the diff says.
_INEXACT = re.compile(r"\b(offset|fuzz)\b", re.IGNORECASE)


class PatchFailed(RuntimeError):
    """``patch`` exited non-zero; the message holds its output."""


@dataclass(frozen=True)
class Applied:
    """One ``patch`` run: the patch file and what ``patch`` printed."""

    patch: Path
    output: str

    @property
    def exact(self) -> bool:
        """Every hunk applied at its own line, without fuzz or offset."""
        return _INEXACT.search(self.output) is None


def series(project: str, release: str) -> tuple[Path, ...]:
    """The patches of ``integrations/<project>/<release>/``, in the order they apply."""
    folder = INTEGRATIONS / project / release
    found = tuple(sorted(folder.glob("[0-9][0-9][0-9][0-9]-*.patch")))
    if not found:
        raise FileNotFoundError(f"no NNNN-*.patch in {folder}")
    return found


def touched_files(patches: Iterable[Path]) -> tuple[str, ...]:
    """Every file the patches change, relative to the folder they apply from."""
    names: set[str] = set()
    for patch in patches:
        names.update(_TARGET.findall(patch.read_text(encoding="utf-8")))
    return tuple(sorted(names))


def patch_tool() -> str | None:
    """The ``patch`` program, or None when this machine has none."""
    return shutil.which("patch")


def materialize(root: Path, files: Iterable[str]) -> None:
    """Replace each of ``files`` (relative to ``root``) that is a symbolic link by a real copy."""
    for name in files:
        path = root / name
        if path.is_symlink():
            content = path.read_bytes()
            path.unlink()
            path.write_bytes(content)


def apply_series(root: Path, patches: Sequence[Path], *, reverse: bool = False) -> list[Applied]:
    """``patch -p1`` each of ``patches`` in ``root`` (in reverse order with ``reverse``).

    Stops at the first patch that fails (:class:`PatchFailed`). Never leaves
    ``.orig`` or ``.rej`` files behind, and never follows a symbolic link:
    the files the series touches are materialized first.
    """
    tool = patch_tool()
    if tool is None:
        raise PatchFailed("GNU patch is not installed on this machine")
    materialize(root, touched_files(patches))
    done: list[Applied] = []
    for patch in reversed(patches) if reverse else patches:
        argv = [tool, "-p1", "--batch", "--forward", "--no-backup-if-mismatch", "--reject-file=-", "-i", str(patch)]
        if reverse:
            argv.insert(2, "--reverse")
            argv.remove("--forward")
        proc = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False)
        output = proc.stdout + proc.stderr
        if proc.returncode != 0:
            raise PatchFailed(f"{patch.name} does not {'reverse' if reverse else 'apply'} in {root}:\n{output}")
        done.append(Applied(patch, output))
    return done


def mirror(package: Path, dest: Path) -> Path:
    """A mirror of the package folder ``package`` as ``dest/<its name>``: real
    directories, files linked to the originals. Returns ``dest``."""
    root = dest / package.name
    for dirpath, dirnames, filenames in os.walk(package):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        rel = Path(dirpath).relative_to(package)
        (root / rel).mkdir(parents=True, exist_ok=True)
        for name in filenames:
            (root / rel / name).symlink_to(Path(dirpath) / name)
    return dest


def _record_digest(path: Path) -> str:
    digest = hashlib.sha256(path.read_bytes()).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def modified_against_record(root: Path, distribution: str, release: str, files: Iterable[str]) -> list[str]:
    """Which of ``files`` differ from what the wheel of ``distribution``
    ``release`` installed, by the hashes in its ``.dist-info/RECORD`` beside
    the package in ``root``. A file the RECORD does not list counts as
    modified; a missing RECORD raises ``FileNotFoundError``."""
    record = root / f"{distribution}-{release}.dist-info" / "RECORD"
    with record.open(newline="", encoding="utf-8") as handle:
        hashes = {row[0]: row[1] for row in csv.reader(handle) if len(row) >= 2}
    return [name for name in files if hashes.get(name) != _record_digest(root / name)]
