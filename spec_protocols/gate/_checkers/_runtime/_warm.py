"""The watch mode's runtime checker, warm: a probe process started before its round.

A fresh runtime probe (:mod:`spec_protocols.gate._checkers._runtime._probe`)
spends most of its time importing sglang and torch, before the target's
first line runs. Here the next round's probe is started as soon as the
previous round begins (and when the watch starts): it imports the sglang
modules that sglang's scheduler has imported before it builds a plugin's
worker (:data:`PRELOAD`), says it is ready in a file, and then waits on its
stdin for the round's request, from where on it is the one-shot probe
(``_runtime_probe.main``): it imports the plugin and checks its classes. A
process serves one round only (an import cannot be undone in a process);
a probe that dies mid-run is followed by fresh ones, as in one-shot mode.

Why the verdicts are those of a fresh probe: in real serving sglang is
imported before the plugin (``Scheduler.__init__`` imports
``sglang.srt.speculative.*`` before ``SpeculativeAlgorithm.create_worker``
imports the plugin's worker), so a plugin meets sglang already imported, as
here. The warm process is only used when nothing that could have made the
fresh probe's sglang differ has changed or could change:

* the environment, current folder and interpreter are the ones the process
  was started with (a fresh probe inherits them);
* no search root of the round holds a module or package named as one the
  warm process imported (a fresh probe, with the roots first on
  ``sys.path``, would import that one);
* no module of the target (its files, and the local modules they import)
  assigns to ``os.environ``, calls ``os.putenv`` / ``os.environ.setdefault``
  and the like, or changes ``sys.path`` in its module-level code (read with
  :mod:`ast`): such code, run before an ``import sglang``, would give the
  fresh probe a differently configured sglang.

Otherwise the round runs a fresh probe and says why in one line on stderr.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import cast

from spec_protocols.gate._checkers._interface import StandsFor
from spec_protocols.gate._checkers._runtime._runtime_oneshot import RuntimeChecker
from spec_protocols.gate._harness import CheckInput
from spec_protocols.gate._model import CheckerCrashed, CheckerOutcome
from spec_protocols.gate._source import assigned
from spec_protocols.gate._checkers._persistent import STOPPING

__all__ = ["PRELOAD", "WarmRuntime", "environment_changes"]

#: The sglang modules imported in advance: those the probe itself reads
#: (``_runtime_probe._BASE_SPEC_WORKER_MODULE``, ``_injection._SGLANG_MODULE``),
#: the registry a plugin registers with, and the target worker the
#: scheduler has built before it builds a spec worker (``Scheduler.init_tp_model_worker``).
PRELOAD = (
    "sglang.srt.speculative.base_spec_worker",
    "sglang.srt.speculative.draft_worker_common",
    "sglang.srt.speculative.spec_info",
    "sglang.srt.managers.tp_worker",
)

#: Exit status of a warm process whose preloading failed (it never reads a request).
_PRELOAD_FAILED = 3

_OS_ENV_CALLS = frozenset({"putenv", "unsetenv"})
_ENVIRON_CALLS = frozenset({"setdefault", "update", "pop", "popitem", "clear", "__setitem__", "__delitem__"})
_PATH_CALLS = frozenset({"insert", "append", "extend", "remove", "pop", "clear", "__setitem__", "__delitem__"})


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def _changes_environment(node: ast.AST) -> bool:
    """Whether ``node`` (one expression or statement, not looked into
    functions or classes) writes ``os.environ``, calls ``os.putenv`` or
    changes ``sys.path``."""
    for sub in _walk_module_level(node):
        targets = sub.targets if isinstance(sub, ast.Delete) else assigned(sub)
        for target in targets:
            base = target.value if isinstance(target, ast.Subscript) else target
            if _dotted(base).endswith(("environ", "sys.path")) or _dotted(target) == "sys.path":
                return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            owner, name = _dotted(sub.func.value), sub.func.attr
            if (owner == "os" and name in _OS_ENV_CALLS) or (owner.endswith("environ") and name in _ENVIRON_CALLS):
                return True
            if owner.endswith("sys.path") and name in _PATH_CALLS:
                return True
    return False


def _walk_module_level(node: ast.AST) -> Iterable[ast.AST]:
    """``node`` and what it holds, short of function and class bodies (and lambdas)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def environment_changes(files: Iterable[Path]) -> Path | None:
    """The first file whose module-level code changes the environment or
    ``sys.path`` (:func:`_changes_environment`); None when none does. A file
    that cannot be read or parsed counts as one that does."""
    for file in sorted(set(files)):
        try:
            tree = ast.parse(file.read_bytes(), filename=str(file))
        except (OSError, SyntaxError, ValueError):
            return file
        if _changes_environment(tree):
            return file
    return None


def _shadowed(roots: Iterable[Path], loaded: Mapping[str, str]) -> str | None:
    """A file or folder in ``roots`` named as a top-level module of ``loaded``
    (name -> its file, "" when it has none) that is not that module."""
    for root in roots:
        try:
            entries = os.listdir(root)
        except OSError:
            continue
        for entry in entries:
            name = entry.split(".", 1)[0]
            if name not in loaded or not (entry == name or entry.endswith((".py", ".so", ".pyd", ".pyc"))):
                continue
            there = (root / entry).resolve()
            if not loaded[name] or not Path(loaded[name]).resolve().is_relative_to(there):
                return str(root / entry)
    return None


@dataclass
class _Process:
    """One warm process: started, maybe ready, used at most once."""

    process: subprocess.Popen[bytes]
    folder: Path
    environment: Mapping[str, str]
    cwd: str
    executable: str

    @property
    def ready_file(self) -> Path:
        return self.folder / "ready.json"

    @property
    def stderr_file(self) -> Path:
        return self.folder / "stderr.txt"

    def loaded(self, timeout: float) -> dict[str, str] | None:
        """The top-level modules it imported (name -> file), once it is ready; None when its preloading failed."""
        end = time.monotonic() + timeout
        while not self.ready_file.exists():
            if self.process.poll() is not None or time.monotonic() > end:
                return None
            time.sleep(0.02)
        try:
            names: object = json.loads(self.ready_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(names, dict):
            return None
        return {str(k): str(v) for k, v in cast(dict[object, object], names).items()}

    def launch(self, request: bytes, stderr_file: Path, timeout: float) -> int:
        """The round's probe (``_runtime.Launch``)."""
        try:
            self.process.communicate(request, timeout=timeout)
        except subprocess.TimeoutExpired:
            self.end()
            raise
        finally:
            try:
                shutil.copyfile(self.stderr_file, stderr_file)
            except OSError:
                pass
        return self.process.returncode

    def end(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)


def _start(root: Path) -> _Process:
    folder = Path(tempfile.mkdtemp(prefix="runtime-", dir=root))
    with (folder / "stderr.txt").open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "spec_protocols.gate._checkers._runtime._warm", str(folder / "ready.json")],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    return _Process(process, folder, dict(os.environ), os.getcwd(), sys.executable)


@dataclass
class WarmRuntime(StandsFor[RuntimeChecker]):
    """The runtime checker with its next probe started in advance."""

    #: The watch's private folder; each warm process has a folder below it.
    root: Path
    one_shot: RuntimeChecker
    next: _Process | None = field(default=None)

    def warm(self, root: Path) -> WarmRuntime:
        return self

    def prepare(self) -> None:
        """Start the next round's process, unless one waits or the watch is ending."""
        if self.next is None and not STOPPING.is_set():
            self.next = _start(self.root)

    def run(self, check_input: CheckInput) -> CheckerOutcome:
        warm, self.next = self.next, None
        # The next round's process starts now: it has this round and the wait
        # for the next edit to import sglang in.
        self.prepare()
        try:
            # The wait for the warm process to be ready is the checker's time too.
            start = time.perf_counter()
            why = self._unusable(warm, check_input)
            waited = time.perf_counter() - start
            if warm is None or why is not None:
                if warm is not None:
                    print(f"spec-protocols: the warm runtime probe is not used this round: {why}", file=sys.stderr, flush=True)
                outcome = self.one_shot.run(check_input)
            else:
                outcome = self._warm_run(check_input, warm)
            return replace(outcome, seconds=outcome.seconds + waited)
        finally:
            if warm is not None:
                warm.end()
            self.prepare()  # one that failed to start, or a first round without one

    def _warm_run(self, check_input: CheckInput, warm: _Process) -> CheckerOutcome:
        """The round with ``warm`` as its first probe; one that crashed (killed
        before it read the request, say) is run again one-shot, with a line on
        stderr: never a weaker check, only a slower one."""
        try:
            return self.one_shot.run_with(check_input, warm.launch)
        except CheckerCrashed as error:
            if STOPPING.is_set():
                raise
            print(f"spec-protocols: the warm runtime probe failed ({error}); this round runs it one-shot", file=sys.stderr, flush=True)
            return self.one_shot.run(check_input)

    def _unusable(self, warm: _Process | None, check_input: CheckInput) -> str | None:
        """Why ``warm`` cannot stand for a fresh probe this round; None when it can."""
        if warm is None:
            return None
        if (dict(os.environ), os.getcwd(), sys.executable) != (warm.environment, warm.cwd, warm.executable):
            return "the environment, folder or interpreter changed since it started"
        loaded = warm.loaded(check_input.timeout)
        if loaded is None:
            return "its import of sglang failed"
        roots = self.one_shot.probe_roots(check_input)
        shadow = _shadowed(roots, loaded)
        if shadow is not None:
            return f"{shadow} is named as a module it imported"
        changes = environment_changes(_target_files(check_input, roots))
        if changes is not None:
            return f"{changes} changes os.environ or sys.path at module level"
        return None

    def close(self) -> None:
        warm, self.next = self.next, None
        if warm is not None:
            warm.end()


def _target_files(check_input: CheckInput, roots: list[Path]) -> list[Path]:
    """The target's files and the local modules they import (below a search root)."""
    from spec_protocols.gate._paths import search_path
    from spec_protocols.gate._source import find_module_file

    found = check_input.discovery
    files = set(found.source_modules.values())
    path = search_path(roots)
    resolved = [r.resolve() for r in roots]
    for name in sorted({*found.imported_modules, *found.runtime_built}):
        file = find_module_file(name, path)
        if file is not None and any(file.resolve().is_relative_to(r) for r in resolved):
            files.add(file)
    return sorted(files)


def main() -> None:
    """The warm process: import :data:`PRELOAD`, say so, then be the one-shot probe."""
    from spec_protocols.gate._checkers._runtime import _probe as _runtime_probe

    ready = Path(sys.argv[1])
    try:
        for name in PRELOAD:
            importlib.import_module(name)
    except BaseException:  # noqa: BLE001 - the round runs a fresh probe, which meets it itself
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(_PRELOAD_FAILED)
    loaded = {name: str(getattr(module, "__file__", None) or "") for name, module in sys.modules.items() if "." not in name}
    partial = ready.with_suffix(".part")
    partial.write_text(json.dumps(loaded), encoding="utf-8")
    os.replace(partial, ready)
    try:
        _runtime_probe.main()
    except BaseException:  # noqa: BLE001
        # As _runtime_probe's own __main__: explain on stderr, end without the target's atexit handlers.
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)


if __name__ == "__main__":
    main()
