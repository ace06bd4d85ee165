"""``spec-protocols cache``: what the gate's cache folder holds, by kind, and pruning it.

Every stage writes under one folder (:func:`~spec_protocols.gate._paths.cache_dir`),
each in a folder of its own; :data:`KINDS` names the stages' folders, so
that the command can say what each costs and delete one kind alone. A
checker's own folders are named after it (``<checker>/``, ``<checker>-*/``):
each is a kind of its own, found from the checker registry's names, so that
adding a checker touches nothing here (no literal here names one). Decisions:

- **Sizes are the disk's**: the blocks each file takes (what ``du`` counts),
  read without following links, in binary units (MiB, as ``du -h``).
- **Nothing unknown is deleted.** ``--clear`` deletes the kinds it knows and
  then the folder only if it is empty: ``$SPEC_PROTOCOLS_CACHE_DIR`` pointed
  at a folder that holds something else loses nothing else. What no kind
  names is shown as ``other``.
- **--prune deletes only what no run reads again**: a fetched wheel whose
  release's source is unpacked (the fetch deletes it itself unless
  ``SPEC_PROTOCOLS_KEEP_WHEELS=1``; caches written before it did keep them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from spec_protocols.gate._cli._output import say
from spec_protocols.gate._cli._parsing import Command
from spec_protocols.gate._model import GateError

if TYPE_CHECKING:
    from spec_protocols.gate._checkers import Checker

__all__ = ["CACHE", "KINDS", "Holding", "inventory", "kinds_in"]

_HELP = "show what the gate's cache folder holds, by kind, and prune it"
_DESCRIPTION = (
    "Show the gate's cache folder: its size, and what it holds by kind (fetched sglang releases, their wheels, the verdict cache, "
    "the checkers' own caches and views...). --prune deletes what no run reads again; --clear deletes kinds, or all of it."
)


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of thing the cache holds: its name (``--clear`` takes it),
    what it is, its folder, and how its items are counted."""

    name: str
    what: str
    #: The kind's folder, relative to the cache folder.
    folder: tuple[str, ...]
    #: How its items are counted, and the noun they are counted with.
    counted: Callable[[list[Path]], int]
    noun: str
    #: Where the kind is some of its folder's entries only (the releases, in
    #: sglang/ beside the wheels): which, in the order they are listed.
    entries: Callable[[Path], list[Path]] | None = None

    def paths(self, root: Path) -> list[Path]:
        """The kind's paths in the cache folder ``root`` (none: it holds none of this kind)."""
        folder = root.joinpath(*self.folder)
        if self.entries is not None:
            return self.entries(folder) if folder.is_dir() else []
        return [folder] if folder.exists() else []


def _releases(sglang: Path) -> list[Path]:
    from spec_protocols._releases import version_order
    from spec_protocols.gate._contract._release_source import is_release

    found = [p for p in sglang.iterdir() if p.is_dir() and is_release(p.name)]
    return sorted(found, key=lambda p: version_order(p.name))


def _children(paths: list[Path]) -> int:
    return sum(len(list(p.iterdir())) for p in paths if p.is_dir())


def _files(paths: list[Path]) -> int:
    return sum(1 for path in paths for entry in _walk(path) if not entry.is_dir(follow_symlinks=False))


#: What the gate keeps in its cache folder, in the order the command lists them.
KINDS: tuple[Kind, ...] = (
    Kind("releases", "fetched sglang releases' source (sglang/RELEASE/), read by the contract and the checkers",
         ("sglang",), len, "releases", entries=_releases),
    Kind("wheels", "the wheels those releases were fetched as (sglang/wheels/)", ("sglang", "wheels"),
         _children, "wheels"),
    Kind("given-wheels", "source unpacked from a wheel given as --sglang PATH (sglang/from-wheel/)",
         ("sglang", "from-wheel"), _children, "wheels"),
    Kind("verdicts", "the verdict cache: each checker's verdicts, contracts, discoveries, run memos (verdicts/)",
         ("verdicts",), _files, "files"),
    Kind("overlays", "the stub overlays the static checkers read, one per set of stubbed modules (overlay/)",
         ("overlay",), _children, "overlays"),
    Kind("views", "the views of site-packages the static checkers read (view/)", ("view",), _children, "views"),
    Kind("shadows", "copies of modules that hold injection sites, as the checkers read them (shadow/)",
         ("shadow",), _children, "shadows"),
    Kind("runs", "work folders of runs under way; any other is left by a run that was killed (runs/)",
         ("runs",), _children, "folders"),
    Kind("crashes", "what a checker that crashed was given, kept for a bug report (crashes/)",
         ("crashes",), _children, "reports"),
)



def _checker_kinds(root: Path) -> list[Kind]:
    """The folders of ``root`` named after a checker (``<checker>``, ``<checker>-*``), each a kind."""
    from spec_protocols.gate._checkers import CHECKER_NAMES

    found = [
        entry.name
        for entry in (sorted(root.iterdir()) if root.is_dir() else [])
        if entry.is_dir() and any(entry.name == name or entry.name.startswith(f"{name}-") for name in CHECKER_NAMES)
    ]
    return [Kind(name, f"what that checker keeps between runs ({name}/)", (name,), _files, "files") for name in found]


#: What the cache folder holds that no kind names (its count: its entries).
_OTHER = Kind("other", "what no kind names: left as it is by --clear", (), len, "entries")


def kinds_in(root: Path) -> list[Kind]:
    """The kinds of the cache folder ``root``: the stages' (:data:`KINDS`), then its checkers' folders."""
    return [*KINDS, *_checker_kinds(root)]


def _is_checker_folder(name: str) -> bool:
    from spec_protocols.gate._checkers import CHECKER_NAMES

    return any(name == checker or name.startswith(f"{checker}-") for checker in CHECKER_NAMES)


def _walk(path: Path) -> Iterator[os.DirEntry[str]]:
    """Every entry below ``path`` (links are entries, never followed)."""
    try:
        entries = list(os.scandir(path))
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return
    for entry in entries:
        yield entry
        if entry.is_dir(follow_symlinks=False):
            yield from _walk(Path(entry.path))


def _size(path: Path) -> int:
    """The disk ``path`` takes, links not followed (``du``'s count)."""

    def taken(info: os.stat_result) -> int:
        blocks = getattr(info, "st_blocks", None)
        return blocks * 512 if blocks is not None else info.st_size

    try:
        total = taken(path.lstat())
    except FileNotFoundError:
        return 0
    for entry in _walk(path):
        try:
            total += taken(entry.stat(follow_symlinks=False))
        except FileNotFoundError:
            continue  # deleted meanwhile by a run finishing
    return total


@dataclass(frozen=True, slots=True)
class Holding:
    """What the cache holds of one kind (:data:`_OTHER`: what no kind names)."""

    kind: Kind
    paths: tuple[Path, ...]
    bytes: int
    #: The kind's count of them (``Kind.counted``).
    items: int


def inventory(root: Path) -> list[Holding]:
    """What ``root`` (the cache folder) holds, kind by kind, ``other`` last; kinds it has none of are left out."""
    held: list[Holding] = []
    claimed: set[Path] = set()
    for kind in kinds_in(root):
        paths = kind.paths(root)
        claimed.update(paths)
        if paths:
            held.append(Holding(kind, tuple(paths), sum(map(_size, paths)), kind.counted(paths)))
    # What no kind claims: top-level entries, and those of sglang/ (which only
    # holds kinds' folders), never the parents of claimed paths.
    parents = {parent for path in claimed for parent in path.parents}
    others = sorted(
        p
        for folder in (root, root / "sglang")
        if folder.is_dir()
        for p in folder.iterdir()
        if p not in claimed and p not in parents
    )
    if others:
        held.append(Holding(_OTHER, tuple(others), sum(map(_size, others)), len(others)))
    return held


def human(size: int) -> str:
    """``size`` bytes in binary units, as ``du -h`` counts them (``77 MiB``, ``1.3 GiB``)."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1000 or unit == "GiB":  # 1000, not 1024: "1.0 GiB" rather than "1023 MiB"
            break
        value /= 1024
    if unit == "B":
        return f"{size} B"
    return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"


def _counted(count: int, noun: str) -> str:
    """``2 releases``, ``1 release``, ``1 entry``: nouns are given in the plural."""
    if count != 1:
        return f"{count} {noun}"
    return f"1 {noun[:-3]}y" if noun.endswith("ies") else f"1 {noun.removesuffix('s')}"


def _held_line(holding: Holding, root: Path) -> str:
    counted = _counted(holding.items, holding.kind.noun)
    if holding.kind.name == "releases":
        names = [p.name for p in holding.paths]
        listed = ", ".join(names) if len(names) <= 6 else f"{names[0]} ... {names[-1]}"
        return f"{counted} ({listed})"
    if holding.kind.name == "wheels":
        from spec_protocols.gate._contract._release_source import unpacked_wheels

        unpacked = len(unpacked_wheels(root))
        their = "its" if unpacked == 1 else "their"
        return f"{counted}, {unpacked} with {their} source unpacked (--prune deletes those)" if unpacked else counted
    if holding.kind is _OTHER:
        return f"{counted}: " + ", ".join(p.relative_to(root).as_posix() for p in holding.paths)
    return counted


def _chosen_by() -> str:
    """Which setting named the cache folder (:func:`~spec_protocols.gate._paths.cache_dir`'s order)."""
    if os.environ.get("SPEC_PROTOCOLS_CACHE_DIR"):
        return "$SPEC_PROTOCOLS_CACHE_DIR"
    if os.environ.get("XDG_CACHE_HOME"):
        return "$XDG_CACHE_HOME/spec-protocols; $SPEC_PROTOCOLS_CACHE_DIR moves it"
    return "the default; $SPEC_PROTOCOLS_CACHE_DIR moves it"


def _text(root: Path, held: Sequence[Holding]) -> str:
    from spec_protocols.gate._contract._release_source import unpacked_wheels

    total = sum(h.bytes for h in held)
    if not held:
        return f"the gate's cache: {root} ({_chosen_by()}): empty, no run has written it\n"
    width = max(len(h.kind.name) for h in held)
    sizes = [human(h.bytes) for h in held]
    size_width = max(map(len, sizes))
    lines = [f"the gate's cache: {root} ({_chosen_by()}): {human(total)}", ""]
    for holding, size in zip(held, sizes):
        lines.append(f"  {holding.kind.name:<{width}}  {size:>{size_width}}  {_held_line(holding, root)}")
    lines.append("")
    for holding in held:
        lines.append(f"  {holding.kind.name}: {holding.kind.what}")
    lines.append("")
    lines.append("Deleting any of it is safe while no gate runs: a run makes again what it needs.")
    unpacked = unpacked_wheels(root)
    if unpacked:
        lines.append(
            f"spec-protocols cache --prune deletes the {_counted(len(unpacked), 'wheels')} whose source is unpacked "
            f"({human(sum(map(_size, unpacked)))})."
        )
    return "\n".join(lines) + "\n"


def _json(root: Path, held: Sequence[Holding]) -> str:
    data = {
        "folder": str(root),
        "bytes": sum(h.bytes for h in held),
        "kinds": [
            {"kind": h.kind.name, "what": h.kind.what, "bytes": h.bytes, "items": h.items, "paths": [str(p) for p in h.paths]}
            for h in held
        ],
    }
    return json.dumps(data, indent=2) + "\n"


def _delete(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def prune(root: Path) -> list[str]:
    """Delete what no run reads again (fetched wheels whose source is unpacked); what was done, in lines."""
    from spec_protocols.gate._contract._release_source import unpacked_wheels

    wheels = unpacked_wheels(root)
    if not wheels:
        return ["nothing to prune: no fetched wheel whose source is unpacked"]
    freed = _delete_all(wheels)
    return [f"deleted {_counted(len(wheels), 'fetched wheels')} whose source is unpacked ({human(freed)})"]


def _delete_all(paths: Sequence[Path]) -> int:
    """Delete ``paths``; the bytes they took."""
    freed = sum(map(_size, paths))
    for path in paths:
        _delete(path)
    return freed


def _chosen_kinds(root: Path, kinds: Sequence[str]) -> list[Kind]:
    """The kinds present in ``root`` that ``kinds`` names (none named: every
    kind present); a name neither a kind nor a checker's folder is an error."""
    present = {kind.name: kind for kind in kinds_in(root)}
    unknown = [name for name in kinds if name not in present and not _is_checker_folder(name)]
    if unknown:
        raise GateError(
            f"no cache kind named {unknown[0]!r}; the kinds: {', '.join(k.name for k in KINDS)}, "
            "and a checker's own folder (spec-protocols cache lists those it has)"
        )
    return [present[name] for name in kinds if name in present] if kinds else list(present.values())


def _delete_kind(root: Path, kind: Kind) -> str | None:
    """Delete one kind's paths; the line that says so, or None where it had none."""
    paths = kind.paths(root)
    if not paths:
        return None
    return f"deleted {kind.name} ({human(_delete_all(paths))})"


def _remove_emptied_folders(root: Path) -> list[str]:
    """After every kind is deleted: remove the folders left empty; a line where the cache folder stays."""
    for folder in (root / "sglang", root):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    return [f"kept {root}: it holds what no kind names (spec-protocols cache lists it as other)"] if root.exists() else []


def clear(root: Path, kinds: Sequence[str]) -> list[str]:
    """Delete the ``kinds`` named (none: every kind, then the folder if that leaves it empty); what was done, in lines."""
    done = [line for kind in _chosen_kinds(root, kinds) if (line := _delete_kind(root, kind)) is not None]
    if not kinds and root.is_dir():
        done += _remove_emptied_folders(root)
    return done or ["nothing to delete"]


_EPILOG = """\
what it holds (each kind in a folder of its own):
  releases      sglang releases fetched for --sglang RELEASE (or for a run with no sglang
                installed): their .py files, 57 to 77 MiB each for 0.5.19 to 0.5.23
  wheels        the wheels those came from: the fetch deletes each once unpacked, unless
                SPEC_PROTOCOLS_KEEP_WHEELS=1; --prune deletes the ones a cache still has
  given-wheels  the .py files of a wheel given as --sglang PATH
  verdicts      the verdict cache: a run whose inputs did not change answers from it
  overlays, views, shadows
                what the static checkers are given to read, remade when missing
  CHECKER, CHECKER-*
                a checker's own folders, named after it (an incremental cache, its views)
  runs          each run's work folder, deleted when the run ends (one left: a killed run's)
  crashes       what a checker that crashed was given, for a bug report

  Deleting any of it is safe while no gate runs: the next run makes again what it
  needs (fetching a release again, running a checker again), slower, never wrong.

where:
  $SPEC_PROTOCOLS_CACHE_DIR, else $XDG_CACHE_HOME/spec-protocols, else ~/.cache/spec-protocols

examples:
  spec-protocols cache                  the folder, its size, and what each kind takes
  spec-protocols cache --prune          delete the fetched wheels whose source is unpacked
  spec-protocols cache --clear releases delete the fetched releases (fetched again when needed)
  spec-protocols cache --clear          delete every kind (what no kind names is left)
"""


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--prune", action="store_true", help="delete what no run reads again: fetched wheels whose source is unpacked")
    action.add_argument(
        "--clear",
        nargs="*",
        metavar="KIND",
        help=f"delete the kinds named ({', '.join(k.name for k in KINDS)}, or a checker's folder); "
        "none named: every kind",
    )
    parser.add_argument(
        "--format", choices=["text", "json"], default="text",
        help="how the folder's contents are shown, after any deletion (said on stderr); default: text",
    )


def _run(args: argparse.Namespace, registry: Mapping[str, Checker] | None = None) -> int:
    from spec_protocols.gate._paths import cache_dir

    root = cache_dir()
    done: list[str] = []
    if args.prune:
        done = prune(root)
    elif args.clear is not None:
        done = clear(root, args.clear)
    for line in done:
        say(line)
    held = inventory(root)
    sys.stdout.write(_json(root, held) if args.format == "json" else _text(root, held))
    return 0


CACHE = Command("cache", _add_arguments, _run, help=_HELP, description=_DESCRIPTION, epilog=_EPILOG)
