"""Ending what a watch started: every descendant process, by its id.

A watch ended in the middle of a round leaves checker processes running (a
runtime probe importing sglang, a one-shot pyright): they are found by
walking ``/proc`` from this process down (Linux; elsewhere nothing is found
and the checkers' own timeouts end them), sent SIGTERM, and after a moment
SIGKILL. Only this process's own descendants are touched, and the
processes whose command line names the watch's private folder
(:func:`end_naming`): mypy's daemon detaches from the gate, and one that a
round was starting as the watch ended never wrote its status file.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

__all__ = ["descendants", "end_children", "end_naming", "naming"]


def _parents() -> dict[int, int]:
    """Every process's parent, read from ``/proc/PID/stat``."""
    parents: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return parents
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = Path("/proc", entry, "stat").read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses.
        fields = stat.rpartition(")")[2].split()
        if len(fields) >= 2 and fields[1].isdigit() and fields[0] != "Z":  # a zombie is gone already
            parents[int(entry)] = int(fields[1])
    return parents


def descendants(pid: int | None = None) -> list[int]:
    """The processes below ``pid`` (default: this one), children first."""
    root = os.getpid() if pid is None else pid
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found: list[int] = []
    frontier = [root]
    while frontier:
        below = [c for p in frontier for c in children.get(p, [])]
        found.extend(below)
        frontier = below
    return found


def _signal(pids: list[int], number: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, number)
        except (ProcessLookupError, PermissionError):
            pass


def end_children(*, grace: float = 2.0) -> None:
    """SIGTERM to every descendant, SIGKILL to those left after ``grace`` seconds."""
    pids = descendants()
    if not pids:
        return
    _signal(pids, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not [p for p in pids if p in set(descendants())]:
            return
        time.sleep(0.05)
    _signal(descendants(), signal.SIGKILL)


def naming(marker: str) -> list[int]:
    """This user's processes (this one aside) whose command line holds ``marker``."""
    found: list[int] = []
    uid = os.getuid()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        folder = Path("/proc", entry)
        try:
            if folder.stat().st_uid != uid:
                continue
            cmdline = (folder / "cmdline").read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(int(entry))
    return found


def end_naming(marker: str, *, grace: float = 2.0) -> None:
    """SIGTERM to every process :func:`naming` ``marker``, SIGKILL to those left after ``grace``."""
    pids = naming(marker)
    if not pids:
        return
    _signal(pids, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and naming(marker):
        time.sleep(0.05)
    _signal(naming(marker), signal.SIGKILL)
