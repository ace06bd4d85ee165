"""mypy kept warm between rounds: its daemon, ``dmypy``.

The daemon reads the same ``mypy.ini`` a one-shot run writes
(:func:`~spec_protocols.gate._checkers._mypy.mypy_config`), in the watch
session's own work folder, on the same harness file, so its diagnostics are
the one-shot run's. ``dmypy run`` starts the daemon on the first round and
restarts it by itself when the configuration changed; otherwise it
re-analyses only what changed (fine-grained incremental mode). The status
file lives in that private folder, so two sessions never share a daemon,
and an idle daemon ends itself after :data:`IDLE_TIMEOUT` seconds (should
the gate itself be killed with SIGKILL).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from spec_protocols.gate._checkers._mypy._mypy_oneshot import mypy_config, mypy_invocation
from spec_protocols.gate._checkers._process import Invocation, run_command
from spec_protocols.gate._harness import CheckInput, StaticInput
from spec_protocols.gate._model import GateError
from spec_protocols.gate._paths import in_installation

__all__ = ["IDLE_TIMEOUT", "MypyDaemon"]

#: The daemon ends itself after this long without a request.
IDLE_TIMEOUT = 3600

#: What dmypy itself prints around mypy's report.
_OWN_LINES = ("Daemon started", "Daemon stopped", "Restarting:", "Daemon crashed")


def _local_sources(check_input: CheckInput, static: StaticInput) -> list[Path]:
    """The plugin's own modules, given to the daemon as sources beside the harness.

    A one-shot run gives mypy the harness alone and reaches these by
    import. The daemon, in fine-grained mode, does not see an edit to a
    module it only followed (measured with mypy 2.4.1: the round after an
    edit kept the old verdict), so they are named as sources, which changes
    no verdict: each is analysed either way, and what mypy reports in one
    that the one-shot run keeps silent is in no file a verdict is read from
    (:func:`~spec_protocols.gate._checkers._static_checker.harness_diagnostics`).
    A module holding an injection site is checked as its shadow (a
    content-addressed tree: an edit there changes the configuration, which
    restarts the daemon), so its original is not named (mypy would see one
    module twice).
    """
    shadowed = set(static.shadow.files) if static.shadow is not None else set[str]()
    return [
        file
        for name, file in sorted(check_input.discovery.source_modules.items())
        if name not in shadowed and name.partition(".")[0] not in ("sglang", "spec_protocols") and not in_installation(file)
    ]


class MypyDaemon:
    """One mypy daemon for one work folder."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.status_file = workdir / "dmypy.json"
        self._config = ""
        self._pid: int | None = None

    def _argv(self, *command: str) -> list[str]:
        return [sys.executable, "-m", "mypy.dmypy", "--status-file", str(self.status_file), *command]

    def invoke(self, check_input: CheckInput, static: StaticInput) -> Invocation:
        """mypy's diagnostics on ``static`` (written in :attr:`workdir`), as ``mypy --output json`` gives them."""
        config = static.workdir / "mypy.ini"
        text = mypy_config(check_input, static)
        if text != self._config:
            config.write_text(text, encoding="utf-8")
            self._config = text
        argv = self._argv(
            "run",
            "--timeout",
            str(IDLE_TIMEOUT),
            "--",
            "--config-file",
            str(config),
            "--output",
            "json",
            str(static.harness_file),
            *map(str, _local_sources(check_input, static)),
        )
        start = time.perf_counter()
        proc = run_command("mypy", argv, cwd=static.workdir, timeout=check_input.timeout)
        seconds = time.perf_counter() - start
        self._pid = self._pid or self._daemon_pid()
        return mypy_invocation(proc, seconds, ignore=_OWN_LINES)

    def _daemon_pid(self) -> int | None:
        try:
            data = json.loads(self.status_file.read_text(encoding="utf-8"))
            return int(data["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def close(self) -> None:
        """``dmypy stop``; the daemon is killed if it is still there after that."""
        pid = self._daemon_pid() or self._pid
        if pid is None and not self.status_file.exists():
            return
        try:
            subprocess.run(self._argv("stop"), capture_output=True, timeout=30, stdin=subprocess.DEVNULL, check=False)
        except (OSError, subprocess.TimeoutExpired):
            pass
        if pid is not None:
            _kill(pid)
        try:
            self.status_file.unlink()
        except OSError:
            pass
        self._pid = None


def _kill(pid: int) -> None:
    """Kill ``pid`` if it still runs (the daemon is no child of ours: it detached)."""
    for _ in range(50):
        if not Path(f"/proc/{pid}").exists() and sys.platform.startswith("linux"):
            return
        try:
            os.kill(pid, signal.SIGKILL if _ else signal.SIGTERM)
        except ProcessLookupError:
            return
        except PermissionError:
            raise GateError(f"cannot end mypy's daemon (pid {pid})") from None
        time.sleep(0.1)
