"""``check --watch`` with the runtime checker warm (gate._checkers._runtime._warm).

Each round's probe was started before the round, sglang already imported;
its report must equal a one-shot run's, pass -> fail -> pass, a plugin
whose module-level code sets the environment gets a fresh probe (and says
so), and SIGTERM leaves no process behind, the waiting warm one included.
"""

from __future__ import annotations

import shutil
import signal
import time
from pathlib import Path

import pytest

from spec_protocols.gate._watch._processes import descendants, naming
from tests.checkers.test_watch import EXAMPLE, Watch, _alive, edit, env, one_shot, plugin

__all__ = ["env", "plugin"]  # the fixtures, used by name

OPTIONS = ("--checker", "runtime", "--format", "json", "--no-timings", "--no-cache")
NOT_USED = "the warm runtime probe is not used this round"


def _warm_pids(root: int) -> list[int]:
    found = []
    for pid in descendants(root):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"_checkers._runtime._warm" in command:  # the runtime checker's warm probe (gate/_checkers/_runtime/_warm.py)
            found.append(pid)
    return found


@pytest.mark.sglang_runtime
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc for the processes left")
def test_warm_runtime_rounds_equal_one_shot_runs_and_sigterm_leaves_nothing(plugin: Path, env: dict[str, str]) -> None:
    draft = plugin / "draft.py"
    watch = Watch(env, str(plugin), *OPTIONS)
    warm: list[int] = []
    try:
        first = watch.report(1)
        assert first["summary"]["fail"] == 0 and first["summary"]["pass"] > 0
        assert first == one_shot(env, plugin, *OPTIONS)

        edit(draft, "def __init__(", "def __init__(self2, ")
        failing = watch.report(2)
        assert failing["summary"]["fail"] > 0
        assert failing == one_shot(env, plugin, *OPTIONS)

        shutil.copyfile(EXAMPLE / "draft.py", draft)
        again = watch.report(3)
        assert again == first == one_shot(env, plugin, *OPTIONS)
        assert not any(NOT_USED in line for line in watch.err), "".join(watch.err)

        # module-level code that sets the environment before sglang is imported: a fresh probe, said in one line
        (plugin / "extra.py").write_text(
            "import os\n\nos.environ.setdefault('SGLANG_SPEC_PROTOCOLS_TEST', '1')\n\n"
            "from spec_example_plugin.draft import ExampleDraftWorker\n\n\n"
            "class ExtraDraftWorker(ExampleDraftWorker):\n    pass\n",
            encoding="utf-8",
        )
        added = watch.report(4)
        assert added == one_shot(env, plugin, *OPTIONS)
        said = [line for line in watch.err if NOT_USED in line]
        assert len(said) == 1 and "extra.py" in said[0], said

        # the next round's process is waiting already
        warm = watch.wait_for(lambda: _warm_pids(watch.proc.pid) or None, "the warm probe of the next round", 120)
        children = descendants(watch.proc.pid)
    finally:
        status = watch.stopped(signal.SIGTERM)
    assert status == 0, "".join(watch.err)[-2000:]
    time.sleep(1.0)
    cache = Path(env["SPEC_PROTOCOLS_CACHE_DIR"])
    left = [pid for pid in [*warm, *children, *naming(str(cache / "runs"))] if _alive(pid)]
    assert not left, f"processes left after SIGTERM: {left}"
    assert not any("Traceback" in line for line in watch.err), "".join(watch.err)
