"""The ``spec-protocols`` pre-commit hook, configured verbatim as docs/ci.md shows it, where the tag is missing.

docs/ci.md's own blocks run in tests/installed/test_installed_docs.py: the
maintainer tags a checkout (``git tag v0.1.0``, ``git push origin v0.1.0``)
and the configuration, ``rev: v0.1.0``, passes ``my_plugin``. This module
takes the other path the page describes: a repository without the tag.
pre-commit (the tier's pin, in a venv of its own) stops at ``git checkout
v0.1.0``; ``pre-commit autoupdate --freeze``, the page's remedy, pins a
commit, and the hook then runs ``spec-protocols check my_plugin --sglang
0.5.23`` in pre-commit's own environment (no sglang installed) on a
``my_plugin`` whose worker forgets ``forward_batch_generation``: it fails.
The configuration is the page's block; the one thing replaced is its
placeholder ``repo:`` URL (the tier's bare copy of the tree under test).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tests._doc_blocks import run_blocks
from tests.installed._userland import Venv, expect, git, plugin_source, run, user_env
from tests.installed.test_installed_docs import PLACEHOLDER_REPO

if TYPE_CHECKING:
    from tests.installed.conftest import Checkout


def _configuration(tree: Path) -> str:
    (block,) = [b for b in run_blocks(tree / "docs" / "ci.md") if b.marker is not None and b.marker.runner == "pre-commit"]
    return block.text


def test_without_the_tag_pre_commit_stops_and_autoupdate_freeze_pins_a_commit(
    tree: Path,
    home: Path,
    cache: Path,
    precommit_venv: Venv,
    make_checkout: Callable[[], Checkout],
    pre_commit_home: Path,
) -> None:
    checkout = make_checkout()  # its origin has no tag
    env = user_env(precommit_venv.bin, cache, tree, PRE_COMMIT_HOME=str(pre_commit_home))
    consumer = home / "consumer"
    shutil.copytree(plugin_source("spec_forgetful_plugin", tree), consumer / "my_plugin",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    config = _configuration(tree)
    rev = re.search(r"^\s*rev:\s*(\S+)", config, flags=re.M)
    assert rev is not None, config
    (consumer / ".pre-commit-config.yaml").write_text(config.replace(PLACEHOLDER_REPO, str(checkout.origin)), encoding="utf-8")
    git(["init", "-q"], cwd=consumer, env=env)
    git(["add", "-A"], cwd=consumer, env=env)
    git(["commit", "-q", "-m", "a plugin"], cwd=consumer, env=env)

    stopped = run(["pre-commit", "run", "--all-files"], cwd=consumer, env=env, timeout=900)
    assert stopped.returncode != 0 and f"checkout', '{rev[1]}'" in stopped.output.replace('"', "'"), stopped.describe()

    expect(run(["pre-commit", "autoupdate", "--freeze"], cwd=consumer, env=env, timeout=900), 0)
    head = git(["rev-parse", "HEAD"], cwd=checkout.path, env=env)
    frozen = (consumer / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert f"rev: {head}" in frozen, frozen

    ran = expect(run(["pre-commit", "run", "--all-files"], cwd=consumer, env=env, timeout=900), 1)
    assert "Failed" in ran.stdout and "- exit code: 1" in ran.stdout, ran.describe()
    flat = " ".join(ran.stdout.split())
    assert "ForgetfulWorker has no forward_batch_generation" in flat, ran.describe()
    assert f"against sglang 0.5.23 (fetched: {cache / 'sglang' / '0.5.23'})" in flat, ran.describe()
    # The hook fetched 0.5.23's source into the cache; it installed no sglang.
    assert (cache / "sglang" / "0.5.23" / "sglang" / "srt" / "speculative").is_dir(), ran.describe()
