"""``spec-protocols check --watch``, run as a user runs it, against one-shot runs.

A copy of the example plugin is watched while a test edits it (passing ->
failing -> a syntax error -> passing): every round's JSON report must equal
a one-shot run's on the same files, and SIGTERM / Ctrl-C must end the watch
with the daemon, the language server and every child process gone. Static
checkers only (mypy's daemon and pyright's language server are what the
watch keeps warm; the runtime checker runs as in one-shot mode). Nothing
here asserts a time: the timeouts are generous for a loaded machine.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from spec_protocols.gate._watch._processes import descendants, naming
from tests._paths import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "sglang_plugin_example" / "spec_example_plugin"
STATIC = ("--checker", "mypy", "--checker", "pyright")
#: How long one round may take on a loaded 2-core machine (the first starts both checkers).
ROUND_TIMEOUT = 300.0
SUMMARY = re.compile(r"^\d+ checked: ")


class Watch:
    """A ``check --watch`` subprocess, its stdout and stderr read as they come."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "spec_protocols.gate._cli", "check", "--watch", *args],
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self.lock = threading.Lock()
        for stream, into in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._pump, args=(stream, into), daemon=True).start()

    def _pump(self, stream: Any, into: list[str]) -> None:
        for line in stream:
            with self.lock:
                into.append(line)

    def wait_for(self, test: Any, what: str, timeout: float = ROUND_TIMEOUT) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                found = test()
            if found is not None:
                return found
            if self.proc.poll() is not None:
                time.sleep(0.5)  # what it printed last
                with self.lock:
                    found = test()
                if found is not None:
                    return found
                pytest.fail(f"the watch ended ({self.proc.returncode}) before {what}: {''.join(self.err)[-2000:]}")
            time.sleep(0.1)
        pytest.fail(f"no {what} in {timeout:g}s: {''.join(self.err)[-2000:]}")

    def documents(self) -> list[dict[str, Any]]:
        """The JSON reports printed so far, in order."""
        text = "".join(self.out)
        decoder = json.JSONDecoder()
        found: list[dict[str, Any]] = []
        at = 0
        while True:
            while at < len(text) and text[at].isspace():
                at += 1
            if at >= len(text):
                return found
            try:
                value, at = decoder.raw_decode(text, at)
            except json.JSONDecodeError:
                return found  # a document still being written
            found.append(value)

    def report(self, number: int) -> dict[str, Any]:
        """The ``number``-th report (1-based), once printed."""
        return self.wait_for(lambda: d[number - 1] if len(d := self.documents()) >= number else None, f"report {number}")

    def stopped(self, signum: int) -> int:
        self.proc.send_signal(signum)
        try:
            # Stopping closes the warm checkers; on a loaded machine that takes
            # as long as a round may (the full suite beside it: over 120 s twice).
            return self.proc.wait(ROUND_TIMEOUT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    target = tmp_path / "src" / "spec_example_plugin"
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "SPEC_PROTOCOLS_CACHE_DIR": str(tmp_path / "cache")}


def one_shot(env: dict[str, str], target: Path, *args: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", "check", str(target), *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert proc.stdout.strip(), proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def edit(file: Path, old: str, new: str) -> None:
    text = file.read_text(encoding="utf-8")
    assert old in text
    file.write_text(text.replace(old, new, 1), encoding="utf-8")


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def _daemon_pids(cache: Path) -> Iterator[int]:
    for status in cache.glob("runs/watch-*/*/dmypy.json"):
        try:
            yield int(json.loads(status.read_text())["pid"])
        except (OSError, ValueError, KeyError):
            continue


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc for the processes left")
def test_each_round_equals_a_one_shot_run_and_sigterm_leaves_nothing(plugin: Path, env: dict[str, str]) -> None:
    options = (*STATIC, "--format", "json", "--no-timings", "--no-cache")
    draft = plugin / "draft.py"
    watch = Watch(env, str(plugin), *options)
    try:
        first = watch.report(1)
        assert first["summary"]["fail"] == 0 and first["summary"]["pass"] > 0
        assert first == one_shot(env, plugin, *options)

        # failing: the draft worker's constructor no longer takes what build_draft_tp_worker passes
        edit(draft, "def __init__(", "def __init__(self2, ")
        failing = watch.report(2)
        assert failing["summary"]["fail"] > 0
        assert failing == one_shot(env, plugin, *options)

        # a syntax error in an edited file: said in the round's place (stderr for JSON), no traceback
        text = draft.read_text(encoding="utf-8")
        draft.write_text(text + "\nbroken = (\n", encoding="utf-8")
        line = watch.wait_for(
            lambda: next((l for l in watch.err if "syntax error" in l), None), "the syntax error's line"
        )
        assert line.startswith("spec-protocols: error: ") and "draft.py" in line
        assert not any("Traceback" in l for l in watch.err)

        # passing again
        shutil.copyfile(EXAMPLE / "draft.py", draft)
        again = watch.report(3)
        assert again == first
        assert again == one_shot(env, plugin, *options)

        # a file added to the target package counts
        (plugin / "extra.py").write_text(
            "from spec_example_plugin.draft import ExampleDraftWorker\n\n\n"
            "class ExtraDraftWorker(ExampleDraftWorker):\n    pass\n",
            encoding="utf-8",
        )
        added = watch.report(4)
        assert added == one_shot(env, plugin, *options)
        assert any("ExtraDraftWorker" in r["target"] for r in added["results"]), added["results"]

        children = descendants(watch.proc.pid)
        daemons = list(_daemon_pids(Path(env["SPEC_PROTOCOLS_CACHE_DIR"])))
        assert children and daemons  # the language server (and its node), the mypy daemon
    finally:
        status = watch.stopped(signal.SIGTERM)
    assert status == 0, "".join(watch.err)[-2000:]
    time.sleep(1.0)
    left = [pid for pid in [*children, *daemons, *naming(str(Path(env["SPEC_PROTOCOLS_CACHE_DIR"]) / "runs"))] if _alive(pid)]
    assert not left, f"processes left after SIGTERM: {left}"
    assert not any("Traceback" in l for l in watch.err), "".join(watch.err)


def test_text_rounds_end_with_the_summary_line_and_ctrl_c_is_130(plugin: Path, env: dict[str, str]) -> None:
    watch = Watch(env, str(plugin), *STATIC, "--no-timings")
    try:
        summary = watch.wait_for(lambda: next((l for l in watch.out if SUMMARY.match(l)), None), "the summary line")
        assert summary.startswith("4 checked: 4 pass")
        edit(plugin / "worker.py", "def forward_batch_generation(", "def forward_batch_generation_renamed(")
        watch.wait_for(lambda: [l for l in watch.out if SUMMARY.match(l)][1:] or None, "a second summary line")
        second = [l for l in watch.out if SUMMARY.match(l)][1]
        assert "0 fail" not in second
        children = descendants(watch.proc.pid)
    finally:
        status = watch.stopped(signal.SIGINT)
    assert status == 130, "".join(watch.err)[-2000:]
    time.sleep(1.0)
    assert not [pid for pid in children if _alive(pid)]


def test_bad_input_in_the_first_round_is_one_line_and_exit_2(env: dict[str, str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", "check", "--watch", "no_such_module_h21", *STATIC],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("spec-protocols: error: "), proc.stderr


@pytest.mark.sglang_runtime
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc for the processes left")
def test_with_the_runtime_checker_a_round_equals_one_shot_and_sigterm_mid_round_leaves_nothing(
    plugin: Path, env: dict[str, str]
) -> None:
    options = ("--format", "json", "--no-timings", "--no-cache")
    watch = Watch(env, str(plugin), *options)
    try:
        first = watch.report(1)
        assert set(first["checkers"]) == {"runtime", "replay", "mypy", "pyright"}
        assert first == one_shot(env, plugin, *options)
        edit(plugin / "draft.py", "def __init__(", "def __init__(self2, ")
        # SIGTERM while the round runs (the runtime probe imports sglang for seconds)
        watch.wait_for(lambda: next((l for l in watch.err if "changed:" in l), None), "the change noticed")
        time.sleep(1.0)
        children = descendants(watch.proc.pid)
        daemons = list(_daemon_pids(Path(env["SPEC_PROTOCOLS_CACHE_DIR"])))
    finally:
        status = watch.stopped(signal.SIGTERM)
    assert status == 0, "".join(watch.err)[-2000:]
    time.sleep(1.0)
    assert not [pid for pid in [*children, *daemons] if _alive(pid)]
    # nor any process started later in the round (a daemon being restarted), by its folder
    assert not [pid for pid in naming(str(Path(env["SPEC_PROTOCOLS_CACHE_DIR"]) / "runs")) if _alive(pid)]
    assert not any("Traceback" in l for l in watch.err), "".join(watch.err)
