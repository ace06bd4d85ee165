"""Where one sglang release's source comes from, found without importing it.

The contract of a release is read from that release's own source
(:mod:`~spec_protocols.gate._contract._extract`), and that source can live in
three places, each an :class:`SglangSource` (``origin``):

``installed``  the sglang the import system would find (located with
               ``PathFinder``, as :mod:`~spec_protocols.gate._source` locates
               every module for the gate: no ``__init__`` runs)
``path``       a folder holding ``sglang/``, the ``sglang/`` folder itself,
               or a wheel file (unpacked into the gate's cache)
``fetched``    a release downloaded with ``pip download --no-deps`` into the
               gate's cache

Decisions:

- **Nothing is imported, ever.** The release is read from
  ``sglang/version.py`` / ``sglang/_version.py`` (a literal ``__version__``,
  with ``ast``) or from a ``sglang-*.dist-info/METADATA`` beside the package.
- **Only source leaves the wheel.** A wheel is ~40 MB of mostly compiled
  kernels; only ``sglang/**/*.py`` (and ``*.pyi``, ``py.typed``) are unpacked.
- **Atomic, reusable cache.** A release is unpacked into a temporary folder,
  marked ``.complete`` and renamed into place, so a killed run never leaves a
  half tree that a later run would trust. A complete tree is reused without
  touching the network; so is a wheel already downloaded.
- **The wheel goes once unpacked.** A complete tree is all a later run reads,
  so the downloaded wheel (25 to 37 MiB for 0.5.19 to 0.5.23, beside 57 to
  77 MiB of source) is deleted once its source is in place; keeping it would
  only spare a download after the tree itself was deleted (measured: 2 s on
  a fast mirror, 4.7 s against 6.4 s for 0.5.23).
  ``SPEC_PROTOCOLS_KEEP_WHEELS=1`` keeps it, and ``spec-protocols cache
  --prune`` deletes the wheels a tree was unpacked from (:func:`unpacked_wheels`).
- **Any interpreter.** sglang publishes CPython-specific wheels (cp311, for
  some releases only). When a plain download finds nothing for the running
  interpreter, the download is retried for the cp311 manylinux wheel: only its
  ``.py`` files are read, so the interpreter it was built for does not matter.
- **A release string is validated before pip sees it**: ``0.5.2x`` or
  ``../x`` are refused at once (they would otherwise become a requirement
  specifier or a path inside the cache).
- **Decided before downloading.** A release older than
  :data:`~spec_protocols._releases.OLDEST_READABLE` (``--sglang 0.4.0``) is
  refused by :func:`resolve_sglang` without touching the network: sglang
  builds no plugin's worker there. One the index does not have (``9.9.9``)
  is refused from pip's own answer, which lists the versions the index has:
  the newest of them and the supported range are named, and no wheel is
  downloaded.
- Every failure is a :class:`~spec_protocols.gate._model.GateError` of one
  line (the CLI prints it and exits 2).
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from spec_protocols._releases import NEWEST, OLDEST, OLDEST_READABLE, version_order
from spec_protocols.gate._model import GateError
from spec_protocols.gate._paths import cache_dir as gate_cache_dir
from spec_protocols.gate._paths import search_path
from spec_protocols.gate._source import find_module_file

__all__ = [
    "Origin",
    "SglangSource",
    "fetch_release",
    "installed_root",
    "installed_source",
    "is_release",
    "release_of",
    "resolve_sglang",
    "source_at",
    "tree_root",
    "unpacked_wheels",
]

#: Set to 1, the fetched wheel is kept beside its unpacked source.
KEEP_WHEELS_ENV = "SPEC_PROTOCOLS_KEEP_WHEELS"

Origin = Literal["installed", "path", "fetched"]

#: A PEP 440 public version, as sglang uses them (``0.5.23``, ``0.5.9rc1``,
#: ``0.4.6.post5``, ``0.5.0.dev2``). Anything else is refused before pip runs.
_RELEASE = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")

#: What is unpacked from a wheel: the package's source and typing markers.
_WANTED_SUFFIXES = (".py", ".pyi")
_WANTED_NAMES = ("py.typed",)

#: The marker of a complete unpacked tree.
_COMPLETE = ".complete"

#: Flags that make pip fetch the cp311 manylinux wheel whatever the running
#: interpreter (pip expands ``manylinux_2_34`` to every older glibc tag too).
_CP311_FLAGS = (
    "--only-binary=:all:",
    "--python-version",
    "3.11",
    "--implementation",
    "cp",
    "--abi",
    "cp311",
    "--platform",
    "manylinux_2_34_x86_64",
    "--platform",
    "manylinux2014_x86_64",
)

#: How pip is run: arguments in, (exit status, combined output) out. A module
#: attribute so tests can simulate the network (offline, a missing release).
PipRunner = Callable[[Sequence[str]], tuple[int, str]]


@dataclass(frozen=True, slots=True)
class SglangSource:
    """One sglang release's source on disk."""

    #: The folder that holds ``sglang/``.
    root: Path
    #: The release, e.g. ``0.5.23``.
    release: str
    origin: Origin

    @property
    def srt(self) -> Path:
        """``<root>/sglang/srt``: every file of the contract is read below it."""
        return self.root / "sglang" / "srt"


def is_release(text: str) -> bool:
    """Whether ``text`` is a version string sglang could publish (``0.5.23``)."""
    return bool(_RELEASE.match(text))


def _literal_version(path: Path) -> str | None:
    """The string assigned to ``__version__`` in ``path`` (``__version__ =
    version = '0.5.23'`` included), read with ``ast``; None when there is none."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            continue
        if any(isinstance(t, ast.Name) and t.id == "__version__" for t in targets):
            return value.value
    return None


def _metadata_version(root: Path) -> str | None:
    """``Version:`` of a ``sglang-*.dist-info/METADATA`` in ``root``."""
    for info in sorted(root.glob("sglang-*.dist-info")):
        try:
            text = (info / "METADATA").read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("Version:"):
                return line.split(":", 1)[1].strip()
            if not line.strip():
                break  # the headers end at the first blank line
    return None


def release_of(root: Path) -> str:
    """The sglang release whose source is in ``root`` (the folder holding ``sglang/``).

    ``sglang/version.py`` first (a literal ``__version__``), then
    ``sglang/_version.py`` (what setuptools-scm writes, and what version.py
    imports in current releases), then a ``sglang-*.dist-info/METADATA``
    beside ``sglang/``. Never imports anything.
    """
    package = root / "sglang"
    for candidate in (package / "version.py", package / "_version.py"):
        found = _literal_version(candidate)
        if found:
            return found
    found = _metadata_version(root)
    if found:
        return found
    raise GateError(
        f"cannot tell which sglang release is in {root}: no __version__ in sglang/version.py or "
        "sglang/_version.py, and no sglang-*.dist-info/METADATA beside it"
    )


def installed_root() -> Path | None:
    """The folder holding the sglang the import system would find (never
    imported), or None when there is none."""
    found = find_module_file("sglang", search_path())
    if found is None:
        return None
    package = found if found.is_dir() else found.parent
    return package.parent


def installed_source() -> SglangSource | None:
    """The sglang the import system would find, or None when there is none."""
    root = installed_root()
    if root is None:
        return None
    return SglangSource(root=root, release=release_of(root), origin="installed")


def tree_root(path: str | os.PathLike[str]) -> Path:
    """The folder holding ``sglang/`` that ``path`` names: that folder, or
    the ``sglang/`` folder itself; a :class:`GateError` in one line for
    anything else. Reads no release: a test's synthetic tree has none."""
    given = Path(path).expanduser()
    if given.is_dir():
        if (given / "sglang").is_dir():
            return given.resolve()
        if given.name == "sglang" and (given / "srt").is_dir():
            return given.parent.resolve()
        raise GateError(f"{given} holds no sglang source: expected a folder holding sglang/, the sglang/ folder itself, or a wheel")
    if given.exists():
        raise GateError(f"{given} is not sglang source: expected a folder holding sglang/, the sglang/ folder itself, or a .whl file")
    raise GateError(f"{given} does not exist")


def source_at(path: Path | str) -> SglangSource:
    """The source at ``path``: a folder holding ``sglang/``, the ``sglang/``
    folder itself, or a wheel file (unpacked into the gate's cache)."""
    given = Path(path).expanduser()
    if given.is_file() and given.suffix == ".whl":
        return _unpacked_wheel(given)
    root = tree_root(given)
    return SglangSource(root=root, release=release_of(root), origin="path")


# -- the cache -----------------------------------------------------------------------


def _cache_root(cache_dir: Path | None) -> Path:
    if cache_dir is None:
        cache_dir = gate_cache_dir()
    return cache_dir / "sglang"


def _is_complete(tree: Path) -> bool:
    return (tree / _COMPLETE).is_file() and (tree / "sglang").is_dir()


def _wanted(member: str) -> bool:
    """Whether a wheel member is part of the source we read."""
    parts = member.split("/")
    if not parts or parts[0] != "sglang" or member.endswith("/"):
        return False
    if any(part in ("", ".", "..") for part in parts):
        return False  # never write outside the tree
    name = parts[-1]
    return name.endswith(_WANTED_SUFFIXES) or name in _WANTED_NAMES


def _unpack(wheel: Path, destination: Path) -> None:
    """Unpack the source of ``wheel`` into ``destination`` atomically: a
    temporary sibling, the ``.complete`` marker, one rename."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(prefix=f".{destination.name}-", dir=destination.parent))
    temporary.chmod(0o755)  # mkdtemp's 0700 would make the cache private to this user
    try:
        try:
            with zipfile.ZipFile(wheel) as archive:
                for member in archive.namelist():
                    if _wanted(member):
                        archive.extract(member, temporary)
        except (zipfile.BadZipFile, OSError) as exc:
            raise GateError(f"cannot unpack {wheel.name}: {exc}") from None
        if not (temporary / "sglang").is_dir():
            raise GateError(f"{wheel.name} holds no sglang/ package")
        (temporary / _COMPLETE).write_text(f"{wheel.name}\n", encoding="utf-8")
        if destination.exists() and not _is_complete(destination):
            shutil.rmtree(destination, ignore_errors=True)  # a stale partial tree
        try:
            os.rename(temporary, destination)
        except OSError:
            if not _is_complete(destination):  # not another run finishing first
                raise
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def _unpacked_wheel(wheel: Path) -> SglangSource:
    """A wheel given by path: unpacked once per content into the cache."""
    digest = hashlib.sha256()
    try:
        with wheel.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise GateError(f"cannot read {wheel}: {exc.strerror or exc}") from None
    tree = _cache_root(None) / "from-wheel" / f"{wheel.stem[:60]}-{digest.hexdigest()[:16]}"
    if not _is_complete(tree):
        _unpack(wheel, tree)
    return SglangSource(root=tree, release=release_of(tree), origin="path")


def _run_pip(arguments: Sequence[str]) -> tuple[int, str]:
    """Run ``python -m pip ARGUMENTS``; (exit status, stdout + stderr)."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pip", *arguments],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
            env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, str(exc)
    return done.returncode, done.stdout + done.stderr


#: Replaced in tests to simulate the network.
run_pip: PipRunner = _run_pip


def _pip_reason(output: str) -> str:
    """The line of pip's output that says why it failed."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith("ERROR:"):
            return line.removeprefix("ERROR:").strip()
    return lines[-1] if lines else "pip failed"


#: What pip says when no version matches: ``Could not find a version that
#: satisfies the requirement sglang==9.9.9 (from versions: 0.1.3, ..., 0.5.23)``.
_FROM_VERSIONS = re.compile(r"\(from versions: ([^)]*)\)")


def _listed_versions(output: str) -> list[str]:
    """The versions on the index that a failed ``pip download`` lists (none when
    it lists none, or pip could not reach the index)."""
    found: list[str] = []
    for listed in _FROM_VERSIONS.findall(output):
        found += [v.strip() for v in listed.split(",") if is_release(v.strip())]
    return found


def _not_on_the_index(release: str, listed: Sequence[str]) -> str | None:
    """Why ``release`` cannot be fetched when the index lists ``listed`` and not
    it: the newest release there and the supported range. None when the index
    listed nothing (offline, or no sglang there) or does list it."""
    if not listed:
        return None
    wanted = version_order(release)
    if any(version_order(v) == wanted for v in listed):
        return None
    newest = max(listed, key=version_order)
    return f"not on the package index (the newest there: {newest}); supported: {OLDEST} to {NEWEST}"


def _downloaded(wheels: Path, release: str) -> Path | None:
    found = sorted(wheels.glob(f"sglang-{release}-*.whl"))
    return found[0] if found else None


def _wheel_release(wheel: Path) -> str:
    """The release of a wheel named as pip saves it: ``sglang-0.5.23-cp311-...whl``."""
    return wheel.name.split("-")[1] if wheel.name.count("-") >= 2 else ""


def unpacked_wheels(cache_dir: Path | None = None) -> list[Path]:
    """The fetched wheels in the cache whose release's source is unpacked
    there (complete): no run reads them again."""
    root = _cache_root(cache_dir)
    wheels = root / "wheels"
    if not wheels.is_dir():
        return []
    return [
        wheel
        for wheel in sorted(wheels.glob("sglang-*.whl"))
        if is_release(_wheel_release(wheel)) and _is_complete(root / _wheel_release(wheel))
    ]


def fetch_release(release: str, cache_dir: Path | None = None) -> SglangSource:
    """sglang ``release``'s source, downloaded once into the cache.

    ``python -m pip download --no-deps sglang==RELEASE`` into
    ``<cache>/sglang/wheels/`` (retried for the cp311 wheel when the running
    interpreter has none), then ``sglang/**/*.py`` unpacked into
    ``<cache>/sglang/<release>/``. A complete tree (or a downloaded wheel) is
    reused without touching the network. ``cache_dir`` defaults to the gate's
    cache (``$SPEC_PROTOCOLS_CACHE_DIR``, ...).

    A release the index does not have is said so, with the newest it has:
    pip's own answer lists the versions there (``from versions: ...``), and
    nothing is downloaded for a version that is not among them. Both tries
    are asked (the plain one filters by the running interpreter's tags).
    """
    if not is_release(release):
        raise GateError(f"cannot fetch sglang {release!r}: not a release version (expected e.g. 0.5.23)")
    root = _cache_root(cache_dir)
    tree = root / release
    if _is_complete(tree):
        return SglangSource(root=tree, release=release, origin="fetched")
    wheels = root / "wheels"
    wheel = _downloaded(wheels, release)
    if wheel is None:
        wheels.mkdir(parents=True, exist_ok=True)
        base = ["download", "--no-deps", "--progress-bar", "off", "--dest", str(wheels), f"sglang=={release}"]
        status, output = run_pip(base)
        wheel = _downloaded(wheels, release)
        listed = _listed_versions(output)
        if wheel is None:
            # No wheel for this interpreter (or none at all): ask for the cp311
            # manylinux wheel explicitly; only its .py files are read.
            status, retried = run_pip([*base, *_CP311_FLAGS])
            listed += _listed_versions(retried)
            output = retried if status else output
            wheel = _downloaded(wheels, release)
        if wheel is None:
            reason = _not_on_the_index(release, listed) or _pip_reason(output)
            raise GateError(f"cannot fetch sglang {release}: {reason}")
    try:
        _unpack(wheel, tree)
    except GateError:
        # Another run may have unpacked the same wheel and deleted it while
        # this one was about to open it: its tree is as good as ours.
        if not _is_complete(tree):
            raise
    if os.environ.get(KEEP_WHEELS_ENV, "") in ("", "0"):
        wheel.unlink(missing_ok=True)
    return SglangSource(root=tree, release=release, origin="fetched")


def resolve_sglang(given: str | None) -> SglangSource | None:
    """The source a ``--sglang`` value names: ``None`` is the installed sglang
    (``None`` again when there is none), an existing path is read in place,
    and a release version is fetched into the cache.

    A release older than :data:`~spec_protocols._releases.OLDEST_READABLE`
    is refused before anything is fetched: sglang builds only its own
    speculative workers there, so the gate has nothing to check a plugin's
    worker against."""
    if given is None:
        return installed_source()
    if Path(given).expanduser().exists():
        return source_at(given)
    if is_release(given):
        if version_order(given) < version_order(OLDEST_READABLE):
            raise GateError(
                f"sglang {given} is older than any release the gate can read (before {OLDEST_READABLE}, sglang "
                f"constructs only its own speculative workers, by name: no plugin's worker is ever one); "
                f"supported: {OLDEST} to {NEWEST}, the oldest release the gate can read: {OLDEST_READABLE}"
            )
        return fetch_release(given)
    raise GateError(f"--sglang {given}: neither an existing path nor a release version (e.g. 0.5.23)")
