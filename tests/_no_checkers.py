"""The guard of tests/unit/ and tests/slow/: a test there starts no static checker.

``no_static_checker`` is an autouse fixture (the two folders' conftest.py
import it). While a test runs, it fails the test, with one line saying where
the test belongs, when the test

* starts a subprocess (``subprocess.Popen``, which ``subprocess.run`` uses)
  whose argv runs mypy or pyright: a ``mypy``, ``dmypy``,
  ``stubtest`` or ``pyright`` executable, ``-m mypy`` / ``-m mypy.stubtest`` /
  ``-m pyright``, pyright's node script, or the gate's ``check``
  (``spec-protocols check``, ``-m spec_protocols.gate check``) unless its
  ``--checker`` options choose the runtime checker only or it asks for
  ``--help``. The gate's static checkers (``StaticChecker.run``, whether
  through ``run_gate``, ``cli.main(["check", ...])`` or the pytest plugin's
  gate) always run mypy and pyright this way (``_process.run_command``), so
  they are caught there; a test that replaces that process layer with a
  fake (a crashing mypy, a timeout) or points it at a missing executable
  starts nothing and passes;
* calls ``mypy.api.run`` (mypy in this process).

The checker is killed as soon as it starts, and the test fails there
(``pytest.fail`` raises a ``BaseException``, which no ``except Exception`` of
the code under test catches; a bare ``except:`` that swallows it is not seen).

Limits: a grandchild process is not seen (a shell script or ``bash -c``,
``pre-commit``, or another pytest that starts mypy; the gate's own subprocesses are seen only
through its argv); a gate whose checkers come from somewhere other than its
argv (a configuration file, an environment variable) is judged by its argv;
a gate ``check`` that stops on a usage error (exit 2) before any checker runs
counts as running one: give it ``--checker runtime``; processes started
without ``subprocess.Popen`` (``os.system``, ``os.posix_spawn``,
``multiprocessing``) are not seen.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import PurePath
from typing import Any

import pytest

#: Executables that are a static checker.
_EXECUTABLES = {"mypy", "dmypy", "stubtest", "pyright", "pyright-python", "basedpyright"}
#: ``python -m`` modules that are one (the first part of the dotted name).
_MODULES = {"mypy", "pyright", "basedpyright"}
#: ``python -m`` modules that are the gate's command line.
_GATE_MODULES = {"spec_protocols", "spec_protocols.gate", "spec_protocols.gate._cli"}


def _words(args: Any) -> list[str]:
    if isinstance(args, (str, bytes, os.PathLike)):
        text = os.fsdecode(args)
        try:
            return shlex.split(text)
        except ValueError:
            return text.split()
    return [os.fsdecode(arg) if isinstance(arg, (str, bytes, os.PathLike)) else str(arg) for arg in args]


def _runtime_only_gate(rest: Sequence[str]) -> bool:
    """``rest`` (what follows ``check``) chooses the runtime checker only, or asks for help."""
    if "--help" in rest or "-h" in rest:
        return True
    chosen = [rest[i + 1] for i, word in enumerate(rest[:-1]) if word == "--checker"]
    chosen += [word.split("=", 1)[1] for word in rest if word.startswith("--checker=")]
    return bool(chosen) and all(name == "runtime" for name in chosen)


def checker_in_argv(args: Any) -> str | None:
    """The static checker ``args`` (a subprocess's argv or command string) runs, or None."""
    words = _words(args)
    if not words:
        return None
    names = [PurePath(word).name for word in words]
    if names[0] in _EXECUTABLES:
        return names[0]
    if any(PurePath(word).parts[-2:] in (("pyright", "index.js"), ("dist", "pyright.js")) for word in words):
        return "pyright"
    gate_at: int | None = None
    if names[0] == "spec-protocols":
        gate_at = 1
    for i, word in enumerate(words[:-1]):
        if word == "-m":
            module = words[i + 1]
            if module.split(".")[0] in _MODULES:
                return module
            if module in _GATE_MODULES:
                gate_at = i + 2
            break  # what follows -m MODULE is the module's argv
    if gate_at is not None and words[gate_at : gate_at + 1] == ["check"]:
        if not _runtime_only_gate(words[gate_at + 1 :]):
            return "the gate's static checkers (no --checker runtime)"
    return None


def _message(what: str) -> str:
    return f"this test runs {what}: it belongs in tests/checkers/"


@pytest.fixture(autouse=True)
def no_static_checker(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail the test that starts a static checker (see this module's docstring)."""

    def refuse(what: str) -> None:
        pytest.fail(_message(what), pytrace=False)

    execute_child = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def guarded_execute_child(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        what = checker_in_argv(args)
        execute_child(self, args, *rest, **kwargs)  # raises where nothing could start (no such file)
        if what is not None:
            self.kill()  # started: stopped before it checks anything
            self.wait()
            refuse(what)

    monkeypatch.setattr(subprocess.Popen, "_execute_child", guarded_execute_child)

    try:
        import mypy.api
    except ImportError:  # a venv without mypy: nothing to guard there
        pass
    else:
        monkeypatch.setattr(mypy.api, "run", lambda *args, **kwargs: refuse("mypy"))

    yield
