"""A watch ends within ``END_WITHIN_S`` of Ctrl-C or SIGTERM, whatever holds it.

The clean end stops each warm checker in turn; a checker that will not answer,
or a thread the interpreter would wait for at exit, must not keep a watch
alive after the user asked it to end. Run in a subprocess: the hard end
leaves the process with ``os._exit``.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests._paths import REPO_ROOT


def test_a_watch_held_past_the_deadline_ends_with_the_signals_status(tmp_path: Path) -> None:
    code = textwrap.dedent(
        f"""
        import threading, time
        from pathlib import Path
        import spec_protocols.gate._watch._loop as loop
        loop.END_WITHIN_S = 0.5
        # Not a daemon: the interpreter's exit would wait for it.
        threading.Thread(target=time.sleep, args=(120,)).start()
        loop._end_hard_after(130, Path({str(tmp_path)!r}))
        loop._end_hard_after(0, Path({str(tmp_path)!r}))  # a second signal changes nothing
        time.sleep(120)
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip() == "spec-protocols: the checkers did not stop within 0.5s of the signal; ending them"


def test_a_clean_end_in_time_stands_the_hard_end_down(tmp_path: Path) -> None:
    """Nothing left that the interpreter would wait for: the clock stops, and
    the process goes on (a caller in the same process is not ended)."""
    code = textwrap.dedent(
        f"""
        import time
        from pathlib import Path
        import spec_protocols.gate._watch._loop as loop
        loop.END_WITHIN_S = 0.5
        loop._end_hard_after(130, Path({str(tmp_path)!r}))
        loop._stand_down()
        time.sleep(1.5)
        print("still here")
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert (proc.returncode, proc.stdout.strip(), proc.stderr) == (0, "still here", "")
