"""The ``spec-protocols`` pre-commit hook, configured exactly as docs/ci.md shows.

pre-commit comes from the registry (``tests/installed/requirements.txt``'s
pin) in a venv of its own. The hook repository is a local clone of the tree
under test, its working tree committed (``_userland.clone_with_working_tree``),
and the consumer's ``.pre-commit-config.yaml`` is docs/ci.md's block with
three substitutions: ``repo:`` that clone's path, ``rev:`` its commit, and
the plugin for ``my_plugin``. pre-commit installs the hook repository into
its own environment with pip (this machine's pip configuration applies), with
the ``additional_dependencies`` the docs name, and runs
``spec-protocols check PLUGIN --sglang 0.5.23`` there: no sglang installed.
"""

from __future__ import annotations

from pathlib import Path

from tests.installed._userland import (
    Ran,
    Venv,
    copy_plugin,
    doc_block,
    expect,
    git,
    plugin_source,
    run,
    substitute,
    user_env,
)


def _pre_commit_run(
    plugin: str,
    *,
    tree: Path,
    home: Path,
    cache: Path,
    precommit_venv: Venv,
    hook_repo: tuple[Path, str],
    pre_commit_home: Path,
) -> Ran:
    repo, commit = hook_repo
    env = user_env(precommit_venv.bin, cache, tree, PRE_COMMIT_HOME=str(pre_commit_home))
    consumer = home / "consumer"
    copy_plugin(plugin_source(plugin, tree), consumer)
    config = substitute(
        doc_block(tree / "docs" / "ci.md", "yaml", "id: spec-protocols"),
        {"https://github.com/OWNER/spec-protocols": str(repo), "rev: v0.1.0": f"rev: {commit}", "my_plugin": plugin},
    )
    (consumer / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    git(["init", "-q"], cwd=consumer, env=env)
    git(["add", "-A"], cwd=consumer, env=env)
    git(["commit", "-q", "-m", "a plugin"], cwd=consumer, env=env)
    return run(["pre-commit", "run", "--all-files"], cwd=consumer, env=env, timeout=900)


def test_hook_passes_a_conforming_plugin(
    tree: Path, home: Path, cache: Path, precommit_venv: Venv, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    ran = expect(
        _pre_commit_run("spec_example_plugin", tree=tree, home=home, cache=cache, precommit_venv=precommit_venv,
                        hook_repo=hook_repo, pre_commit_home=pre_commit_home),
        0,
    )
    assert "spec-protocols gate" in ran.stdout and "Passed" in ran.stdout, ran.describe()
    # The hook fetched 0.5.23's source into the cache; it installed no sglang.
    assert (cache / "sglang" / "0.5.23" / "sglang" / "srt" / "speculative").is_dir(), ran.describe()


def test_hook_fails_a_worker_without_forward_batch_generation(
    tree: Path, home: Path, cache: Path, precommit_venv: Venv, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    ran = expect(
        _pre_commit_run("spec_forgetful_plugin", tree=tree, home=home, cache=cache, precommit_venv=precommit_venv,
                        hook_repo=hook_repo, pre_commit_home=pre_commit_home),
        1,
    )
    assert "Failed" in ran.stdout and "- exit code: 1" in ran.stdout, ran.describe()
    flat = " ".join(ran.stdout.split())
    assert "ForgetfulWorker has no forward_batch_generation" in flat, ran.describe()
    assert f"against sglang 0.5.23 (fetched: {cache / 'sglang' / '0.5.23'})" in flat, ran.describe()
