"""Helpers of the installed tier: commands run as a user runs them, away from the checkout.

Nothing here imports ``spec_protocols``: the tier checks the product through
the wheels that ``scripts/build-wheels`` builds and the commands the docs
give, in virtual environments made for it, never the checkout's editable
install.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

TIER = Path(__file__).resolve().parent
CHECKOUT = TIER.parent.parent
PLUGINS = TIER / "plugins"

#: Names the source tree whose wheels, docs and example plugin are tested
#: (default: this checkout). ``git worktree add /tmp/before COMMIT`` and
#: ``SPEC_PROTOCOLS_INSTALLED_TREE=/tmp/before scripts/test tests/installed``
#: run the tier against another commit.
TREE_VARIABLE = "SPEC_PROTOCOLS_INSTALLED_TREE"

#: Variables that would let a command see the checkout, the suite's own
#: settings or pytest's, rather than what a user's shell has.
_DROPPED = {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "VIRTUAL_ENV", "MYPYPATH", "PRE_COMMIT_HOME"}
_DROPPED_PREFIXES = ("SPEC_PROTOCOLS_", "PYTEST_", "PYRIGHT_PYTHON_", "GIT_")

#: One identity for the commits the tier makes (the hook repository's, the consumers').
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "installed tier",
    "GIT_AUTHOR_EMAIL": "installed-tier@example.invalid",
    "GIT_COMMITTER_NAME": "installed tier",
    "GIT_COMMITTER_EMAIL": "installed-tier@example.invalid",
}


def tree_under_test() -> Path:
    """The source tree the tier builds wheels from (``$SPEC_PROTOCOLS_INSTALLED_TREE``, else this checkout)."""
    named = os.environ.get(TREE_VARIABLE)
    tree = Path(named).resolve() if named else CHECKOUT
    if not (tree / "scripts" / "build-wheels").is_file():
        pytest.fail(f"{TREE_VARIABLE}={tree}: no scripts/build-wheels there (not a spec-protocols tree)")
    return tree


def pins() -> dict[str, str]:
    """``{"pytest": "pytest==9.2.0", ...}`` from ``tests/installed/requirements.txt``."""
    found: dict[str, str] = {}
    for line in (TIER / "requirements.txt").read_text(encoding="utf-8").splitlines():
        requirement = line.split("#", 1)[0].strip()
        if requirement:
            name, sep, version = requirement.partition("==")
            assert sep and version, f"tests/installed/requirements.txt: {line!r} is not pinned exactly"
            found[name.strip().lower()] = requirement
    return found


def is_outside(path: Path, *trees: Path) -> bool:
    resolved = path.resolve()
    return not any(resolved == t or t in resolved.parents for t in (CHECKOUT, *trees))


# -- running commands --------------------------------------------------------------


@dataclass(frozen=True)
class Ran:
    """A finished command, with what it printed."""

    argv: tuple[str, ...]
    cwd: Path
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def describe(self) -> str:
        def tail(text: str) -> str:
            return text if len(text) <= 8000 else "[...]\n" + text[-8000:]

        return (
            f"$ {shlex.join(self.argv)}\n(in {self.cwd}: exit status {self.returncode})\n"
            f"--- stdout ---\n{tail(self.stdout)}\n--- stderr ---\n{tail(self.stderr)}"
        )


def run(argv: Sequence[str | Path], *, cwd: Path, env: Mapping[str, str], timeout: float) -> Ran:
    """Run ``argv`` in ``cwd`` with exactly ``env``; a time-out fails the test with what it had printed."""
    words = tuple(str(a) for a in argv)
    try:
        proc = subprocess.run(words, cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        def text(part: object) -> str:
            return part.decode(errors="replace") if isinstance(part, bytes) else str(part or "")

        partial = Ran(words, cwd, -1, text(exc.stdout), text(exc.stderr))
        pytest.fail(f"timed out after {timeout:.0f} s\n{partial.describe()}", pytrace=False)
    return Ran(words, cwd, proc.returncode, proc.stdout, proc.stderr)


def expect(ran: Ran, returncode: int) -> Ran:
    """``ran``, after asserting its exit status (the message shows the command and its output)."""
    assert ran.returncode == returncode, f"expected exit status {returncode}\n{ran.describe()}"
    return ran


def user_env(bindir: Path | None, cache: Path, *trees: Path, **extra: str) -> dict[str, str]:
    """A user's shell: this machine's environment (its pip configuration included)
    without the suite's and pytest's variables, PYTHONPATH or an active venv;
    ``PATH`` without an entry in the checkout, the tree under test or any
    virtual environment, and ``bindir`` (a venv's ``bin``) first; a private
    ``SPEC_PROTOCOLS_CACHE_DIR``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in _DROPPED and not k.startswith(_DROPPED_PREFIXES)
    }
    kept = [
        entry
        for entry in os.environ.get("PATH", "").split(os.pathsep)
        if entry and is_outside(Path(entry), *trees) and not (Path(entry).parent / "pyvenv.cfg").exists()
    ]
    env["PATH"] = os.pathsep.join([*([str(bindir)] if bindir else []), *kept])
    env["SPEC_PROTOCOLS_CACHE_DIR"] = str(cache)
    env.update(GIT_IDENTITY)
    env.update(extra)
    return env


def python311(env: Mapping[str, str]) -> str:
    """The interpreter users make their venv with (``python3.11``, found on the user's ``PATH``)."""
    found = shutil.which("python3.11", path=env["PATH"])
    if found is None:
        pytest.fail(f"python3.11 is not on PATH ({env['PATH']}); the installed tier makes its venvs with it")
    return found


# -- virtual environments -----------------------------------------------------------


@dataclass(frozen=True)
class Venv:
    path: Path

    @property
    def bin(self) -> Path:
        return self.path / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"

    @property
    def site_packages(self) -> Path:
        (found,) = self.path.glob("lib/python3.*/site-packages")
        return found


def make_venv(path: Path, env: Mapping[str, str], *requirements: str, home: Path) -> Venv:
    """``python3.11 -m venv PATH``, then ``pip install REQUIREMENTS`` (run from ``home``, outside the checkout)."""
    expect(run([python311(env), "-m", "venv", path], cwd=home, env=env, timeout=300), 0)
    venv = Venv(path)
    if requirements:
        pip_install(venv, env, *requirements, home=home)
    return venv


def pip_install(venv: Venv, env: Mapping[str, str], *args: str, home: Path) -> Ran:
    return expect(run([venv.python, "-m", "pip", "install", *args], cwd=home, env=env, timeout=900), 0)


# -- what the commands are run on ---------------------------------------------------------


def copy_plugin(source: Path, into: Path) -> Path:
    """A copy of the plugin package ``source`` in ``into`` (bytecode left behind)."""
    into.mkdir(parents=True, exist_ok=True)
    dest = into / source.name
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def plugin_source(name: str, tree: Path) -> Path:
    """The tier's plugins (``tests/installed/plugins/``) and the tree's example plugin, by package name."""
    if name == "spec_example_plugin":
        return tree / "examples" / "sglang_plugin_example" / "spec_example_plugin"
    return PLUGINS / name


def git(args: Sequence[str | Path], *, cwd: Path, env: Mapping[str, str]) -> str:
    return expect(run(["git", *args], cwd=cwd, env=env, timeout=300), 0).stdout.strip()


def clone_with_working_tree(tree: Path, dest: Path, env: Mapping[str, str]) -> str:
    """``git clone --no-local TREE DEST`` at TREE's HEAD, plus TREE's uncommitted
    changes (tracked files changed or deleted, untracked files git does not
    ignore) committed in DEST: the hook repository pre-commit installs is
    then the working tree under test. Returns DEST's commit."""
    head = git(["rev-parse", "HEAD"], cwd=tree, env=env)
    git(["clone", "-q", "--no-local", "--no-checkout", tree, dest], cwd=dest.parent, env=env)
    git(["checkout", "-q", "--detach", head], cwd=dest, env=env)
    listed = git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=tree, env=env)
    for name in dict.fromkeys(n for n in listed.split("\0") if n):
        source, target = tree / name, dest / name
        if target.is_symlink() or target.is_file():
            target.unlink()
        if source.is_symlink():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(os.readlink(source))
        elif source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    if git(["status", "--porcelain"], cwd=dest, env=env):
        git(["add", "-A"], cwd=dest, env=env)
        git(["commit", "-q", "--no-verify", "-m", "the working tree under test"], cwd=dest, env=env)
    return git(["rev-parse", "HEAD"], cwd=dest, env=env)


# -- the docs ----------------------------------------------------------------------------


def doc_block(doc: Path, language: str, containing: str) -> str:
    """The first fenced ``language`` block of ``doc`` that contains ``containing``."""
    text = doc.read_text(encoding="utf-8")
    for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M):
        if lang == language and containing in body:
            return str(body)
    raise AssertionError(f"{doc}: no ```{language} block containing {containing!r}")


def substitute(text: str, replacements: Mapping[str, str]) -> str:
    """``text`` with each key replaced by its value; each key must occur (the docs changed otherwise)."""
    for old, new in replacements.items():
        assert old in text, f"{old!r} is not in the documented snippet any more:\n{text}"
        text = text.replace(old, new)
    return text


# -- reading the gate's text report --------------------------------------------------------

_SUMMARY = re.compile(r"^(\d+) checked: (\d+) pass, (\d+) fail, (\d+) unverified", re.M)


def verdict_table(ran: Ran) -> tuple[list[str], dict[tuple[str, str], str]]:
    """The text report's column names and ``{(class, protocol): verdict}``."""
    lines = ran.stdout.splitlines()
    header = next((i for i, line in enumerate(lines) if line.split()[:2] == ["Class", "Protocol"]), None)
    assert header is not None, f"no verdict table in the report\n{ran.describe()}"
    columns = lines[header].split()
    rows: dict[tuple[str, str], str] = {}
    for line in lines[header + 2 :]:
        if not line.strip():
            break
        words = line.split()
        if len(words) == len(columns) and not line.startswith(" "):
            rows[(words[0], words[1])] = words[-1]
    return columns, rows


def summary(ran: Ran) -> tuple[int, int, int, int]:
    """``(checked, pass, fail, unverified)`` from the report's last line."""
    match = _SUMMARY.search(ran.stdout)
    assert match is not None, f"no summary line in the report\n{ran.describe()}"
    checked, passed, failed, unverified = (int(g) for g in match.groups())
    return checked, passed, failed, unverified
