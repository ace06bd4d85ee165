"""Where the static checkers look: the stub overlay, the static view, the cache.

Two decisions live here.

*Stubs never shadow the code under test.* The checkers get the sglang stubs
through an *overlay*: a directory of links to the stub files minus every
module that defines a class under check or one of its bases. Those modules
are read from sglang's real source, so a change to a real worker or base
class is judged as it is, not against a stale stub; the stubs only stand in
for the modules around them.

*The static view.* pyright resolves every import it meets, and on an
environment with torch and transformers installed that is thousands of files
(measured: 39 s for two workers). It is given a fake virtual environment whose
site-packages holds only sglang, typing_extensions and this package; other
third-party imports are unresolved, which is harmless for conformance (the
canary lines report a class that becomes ``Unknown``). mypy gets the same
effect with ``follow_imports = skip`` outside the modules it must read.

Both live under a cache directory so that mypy's incremental cache stays
valid between runs (it keys modules by path).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

from spec_protocols.gate.model import GateError

__all__ = [
    "cache_dir",
    "check_no_installed_stubs",
    "library_root",
    "static_view",
    "stub_modules",
    "stub_overlay",
    "stub_source",
]

_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def cache_dir() -> Path:
    """``$SPEC_PROTOCOLS_CACHE_DIR``, else ``$XDG_CACHE_HOME/spec-protocols``, else ``~/.cache/spec-protocols``."""
    explicit = os.environ.get("SPEC_PROTOCOLS_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "spec-protocols"


def library_root() -> Path:
    """The directory that holds the ``spec_protocols`` package."""
    return _PACKAGE_DIR.parent


def stub_source() -> Path:
    """The ``sglang`` stub tree: shipped inside the wheel, or ``stubs/`` of a checkout."""
    for candidate in (_PACKAGE_DIR / "_stubs" / "sglang", _PACKAGE_DIR.parent / "stubs" / "sglang"):
        if candidate.is_dir():
            return candidate
    raise GateError("the sglang stubs are missing from this installation of spec-protocols")


def stub_modules() -> dict[str, Path]:
    """Dotted module name -> .pyi file, for every stub."""
    root = stub_source()
    found: dict[str, Path] = {}
    for file in sorted(root.rglob("*.pyi")):
        parts = list(file.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = file
    return found


def _digest(parts: Iterable[str]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def _link_or_copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        dst.symlink_to(src)
    except OSError:
        shutil.copy2(src, dst)


def stub_overlay(exclude: Iterable[str]) -> tuple[Path, frozenset[str]]:
    """A directory holding ``sglang/`` stubs minus the modules in ``exclude``.

    Returns the directory (for mypy_path / pyright stubPath) and the stubbed
    module names that remain.
    """
    excluded = frozenset(exclude)
    modules = {name: file for name, file in stub_modules().items() if name not in excluded}
    source = stub_source()
    stamp = _digest(
        [str(source)]
        + sorted(excluded)
        + [f"{n}:{f.stat().st_mtime_ns}:{f.stat().st_size}" for n, f in sorted(modules.items())]
    )
    root = cache_dir() / "overlay" / stamp
    if not (root / ".complete").exists():
        tmp = root.with_name(root.name + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        for file in modules.values():
            _link_or_copy(file, tmp / file.relative_to(source.parent))
        _link_or_copy(source / "py.typed", tmp / "sglang" / "py.typed")
        (tmp / ".complete").write_text("")
        try:
            tmp.rename(root)
        except OSError:  # another run built it first
            shutil.rmtree(tmp, ignore_errors=True)
    return root, frozenset(modules)


def _site_packages() -> list[Path]:
    paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    return [Path(p) for p in sorted(paths)]


def _installed(top_level: str) -> Path | None:
    """Where the import system would load top-level ``top_level`` from.

    ``importlib.util.find_spec`` on a top-level name runs nothing. This package
    itself is located by its own ``__file__``: a stray ``spec_protocols``
    folder earlier on ``sys.path`` (left in site-packages by an old editable
    install, say) must not be what the checkers read.
    """
    if top_level == "spec_protocols":
        return _PACKAGE_DIR
    try:
        spec = importlib.util.find_spec(top_level)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin) if spec.origin else None


def static_view() -> Path:
    """A fake virtual environment for pyright: site-packages with only what the checks need."""
    py = f"python{sys.version_info.major}.{sys.version_info.minor}"
    entries = {name: _installed(name) for name in ("sglang", "typing_extensions", "spec_protocols")}
    stamp = _digest([sys.executable, *(f"{k}={v}" for k, v in sorted(entries.items()))])
    root = cache_dir() / "view" / stamp
    site = root / "lib" / py / "site-packages"
    if not (root / ".complete").exists():
        shutil.rmtree(root, ignore_errors=True)
        site.mkdir(parents=True)
        for path in entries.values():
            if path is not None:
                _link_or_copy(path, site / path.name)
        (root / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\n")
        (root / ".complete").write_text("")
    return root


def check_no_installed_stubs(source_modules: Iterable[str]) -> None:
    """Refuse to run when an installed ``sglang-stubs`` would shadow code under test.

    Both checkers prefer an installed stub package to the source, and neither
    can be told to ignore one, so the verdict would be about the stub.
    """
    for site in _site_packages():
        stubs = site / "sglang-stubs"
        if not stubs.is_dir():
            continue
        for module in sorted(source_modules):
            parts = module.split(".")
            if parts[0] != "sglang":
                continue
            rel = Path(*parts[1:]) if len(parts) > 1 else Path()
            if (stubs / rel).with_suffix(".pyi").exists() or (stubs / rel / "__init__.pyi").exists():
                raise GateError(
                    f"sglang-stubs is installed in {site} and would shadow {module}, which is under "
                    "check; run the gate from an environment without it (pip uninstall sglang-stubs)"
                )
