"""The installed tier's fixtures: the product as users get it.

The two wheels are built once per session with ``scripts/build-wheels``
from the tree under test (this checkout, or ``$SPEC_PROTOCOLS_INSTALLED_TREE``)
and installed into fresh virtual environments (``python3.11 -m venv``) in a
temporary folder outside the checkout. Every command runs there, from a
folder outside the checkout, in a user's environment (``_userland.user_env``:
no PYTHONPATH, no PATH entry into the checkout or another venv, a private
``SPEC_PROTOCOLS_CACHE_DIR``). Nothing here imports ``spec_protocols``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.installed._userland import (
    Venv,
    clone_with_working_tree,
    expect,
    git,
    is_outside,
    make_venv,
    pins,
    pip_install,
    run,
    tree_under_test,
    user_env,
)

#: The sglang release the docs install (docs/ci.md: pip install --no-deps sglang==0.5.23).
INSTALLED_SGLANG = "0.5.23"


@dataclass(frozen=True)
class Wheels:
    library: Path
    stubs: Path


@pytest.fixture(scope="session")
def tree() -> Path:
    """The source tree under test."""
    return tree_under_test()


@pytest.fixture(scope="session")
def userland(tmp_path_factory: pytest.TempPathFactory, tree: Path) -> Path:
    """The session's folder for venvs, wheels and clones, outside the checkout and the tree."""
    root = tmp_path_factory.mktemp("installed")
    assert is_outside(root, tree), f"{root} is inside the checkout or {tree}: the tier must run elsewhere"
    (root / "home").mkdir()
    return root


@pytest.fixture(scope="session")
def wheels(tree: Path, userland: Path) -> Wheels:
    """``scripts/build-wheels DIR``, run once, from the tree under test."""
    out = userland / "dist"
    env = user_env(None, userland / "build-cache", tree)
    ran = expect(run([tree / "scripts" / "build-wheels", out], cwd=userland / "home", env=env, timeout=900), 0)
    library = sorted(out.glob("spec_protocols-*.whl"))
    stubs = sorted(out.glob("sglang_stubs-*.whl"))
    assert len(library) == 1 and len(stubs) == 1, f"expected one wheel of each in {out}\n{ran.describe()}"
    return Wheels(library[0], stubs[0])


def _venv(userland: Path, name: str, tree: Path) -> tuple[Path, dict[str, str]]:
    path = userland / name
    return path, user_env(path / "bin", userland / f"{name}-cache", tree)


@pytest.fixture(scope="session")
def bare_venv(userland: Path, wheels: Wheels, tree: Path) -> Venv:
    """``pip install 'spec_protocols-*.whl[checkers]'`` and pytest (the dev extra's pin); no sglang."""
    path, env = _venv(userland, "venv-bare", tree)
    return make_venv(path, env, f"{wheels.library}[checkers]", pins()["pytest"], home=userland / "home")


@pytest.fixture(scope="session")
def sglang_venv(userland: Path, wheels: Wheels, tree: Path) -> Venv:
    """The wheel with its checkers and pytest, then ``pip install --no-deps sglang==0.5.23``:
    sglang's source without its runtime stack (no CPU dependency set: torch
    alone is gigabytes, and the static checkers need none of it)."""
    path, env = _venv(userland, "venv-sglang", tree)
    home = userland / "home"
    venv = make_venv(path, env, f"{wheels.library}[checkers]", pins()["pytest"], home=home)
    pip_install(venv, env, "--no-deps", f"sglang=={INSTALLED_SGLANG}", home=home)
    return venv


@pytest.fixture(scope="session")
def precommit_venv(userland: Path, tree: Path) -> Venv:
    """pre-commit from the registry, at the tier's pin, in a venv of its own."""
    path, env = _venv(userland, "venv-pre-commit", tree)
    return make_venv(path, env, pins()["pre-commit"], home=userland / "home")


@dataclass(frozen=True)
class Checkout:
    """A maintainer's clone of the tree under test (its working tree
    committed), whose ``origin`` is a bare repository of its own: what the
    docs' maintainer pushes to, and where pre-commit gets the hooks from."""

    path: Path
    origin: Path
    tree: Path


@pytest.fixture(scope="session")
def make_checkout(userland: Path, tree: Path) -> Callable[[], Checkout]:
    """A new :class:`Checkout` on each call (``git tag`` in one never touches another)."""
    numbers = itertools.count()
    env = user_env(None, userland / "git-cache", tree)

    def make() -> Checkout:
        number = next(numbers)
        path, origin = userland / f"checkout-{number}", userland / f"origin-{number}.git"
        clone_with_working_tree(tree, path, env)
        git(["init", "-q", "--bare", origin], cwd=userland, env=env)
        git(["remote", "set-url", "origin", origin], cwd=path, env=env)
        git(["push", "-q", "origin", "HEAD:refs/heads/main"], cwd=path, env=env)
        git(["symbolic-ref", "HEAD", "refs/heads/main"], cwd=origin, env=env)
        return Checkout(path, origin, tree)

    return make


@pytest.fixture(scope="session")
def pre_commit_home(userland: Path) -> Path:
    """``PRE_COMMIT_HOME`` for the session: the hook's environment is built once and reused, as for a user."""
    return userland / "pre-commit-home"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The working folder of one test's commands (outside the checkout)."""
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    """One test's private ``SPEC_PROTOCOLS_CACHE_DIR``: every test is a first run."""
    return tmp_path / "spec-protocols-cache"
