"""What the watch mode watches, and how it sees a change: polling, no dependency.

The verdicts of a round depend on the targets' files, the local modules
they import (discovery's ``source_modules`` outside site-packages), and the
sglang tree checked against. :class:`WatchSet` names them: single files,
folders whose ``*.py`` files are listed again on every poll (a target
package: a file added to it counts), and slow folders (sglang's whole
package, thousands of files) listed only every :data:`SLOW_EVERY` polls.

A file is its ``(mtime_ns, size)``; a folder's listing is the files in it.
:func:`wait_for_change` polls every ``interval`` seconds (0.1) and, once something
differs, waits until nothing has changed for ``debounce`` seconds (0.1; an editor
writing a file in steps, a ``git checkout`` of several files), then returns
what changed. watchdog would do the same with inotify; it is not a
dependency of this package, and polling a few dozen files costs nothing.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from spec_protocols.gate._model import ReadSet
from spec_protocols.gate._paths import Stamp, stamp

__all__ = ["SLOW_EVERY", "Snapshot", "WatchSet", "changed_paths", "snapshot", "wait_for_change"]

#: Slow folders are listed on one poll in this many.
SLOW_EVERY = 20

#: Every watched path and its state (a missing file is absent).
Snapshot = Mapping[Path, Stamp]


#: What a watch polls: what the last good round read.
WatchSet = ReadSet


def _walk(folder: Path, into: dict[Path, Stamp]) -> None:
    """Every ``*.py`` and ``*.pyi`` below ``folder`` (``__pycache__`` and hidden folders aside)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__" and not entry.name.startswith("."):
                    _walk(Path(entry.path), into)
            elif entry.name.endswith((".py", ".pyi")):
                info = entry.stat()
                into[Path(entry.path)] = (info.st_mtime_ns, info.st_size)
        except OSError:
            continue


def snapshot(watched: WatchSet, *, slow: bool = True, previous: Snapshot | None = None) -> dict[Path, Stamp]:
    """The state of everything ``watched`` names; ``slow=False`` keeps the slow
    folders' entries from ``previous`` instead of listing them again."""
    state: dict[Path, Stamp] = {}
    for file in watched.files:
        stat = stamp(file)
        if stat is not None:
            state[file] = stat
    for folder in watched.folders:
        _walk(folder, state)
    if slow or previous is None:
        for folder in watched.slow_folders:
            _walk(folder, state)
    else:
        state.update({p: s for p, s in previous.items() if p not in state and _below(p, watched.slow_folders)})
    return state


def _below(path: Path, folders: Iterable[Path]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)


def changed_paths(before: Snapshot, after: Snapshot) -> list[Path]:
    """The paths added, removed or changed between two snapshots, sorted."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def wait_for_change(
    watched: WatchSet,
    before: Snapshot,
    *,
    interval: float = 0.1,
    debounce: float = 0.1,
    stop: threading.Event | None = None,
) -> tuple[list[Path], dict[Path, Stamp]] | None:
    """Block until something in ``watched`` differs from ``before`` and then
    stays put for ``debounce`` seconds; what changed and the new snapshot.
    None when ``stop`` is set first."""
    polls = 0
    current = dict(before)
    while True:
        if stop is not None and stop.wait(interval):
            return None
        if stop is None:
            time.sleep(interval)
        polls += 1
        current = snapshot(watched, slow=polls % SLOW_EVERY == 0, previous=current)
        if changed_paths(before, current):
            break
    settled_at = time.monotonic()
    while time.monotonic() - settled_at < debounce:
        time.sleep(min(interval, debounce))
        again = snapshot(watched, slow=False, previous=current)
        if changed_paths(current, again):
            current, settled_at = again, time.monotonic()
    return changed_paths(before, current), current
