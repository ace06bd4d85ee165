"""``spec-protocols check PLUGIN`` from the installed wheel, against an installed sglang.

The venv holds the wheel with its checkers and ``pip install --no-deps
sglang==0.5.23`` (README, docs/ci.md), without sglang's CPU dependency set
(torch alone is gigabytes): the static checkers decide. ``--no-import`` says
so; without it the runtime checker cannot import the workers and is skipped
with a note that names why, and the static checkers still decide.
"""

from __future__ import annotations

from pathlib import Path

from tests.installed._userland import (
    Venv,
    copy_plugin,
    expect,
    plugin_source,
    run,
    summary,
    user_env,
    verdict_table,
)


def _installed_against(ran_stdout: str) -> bool:
    return "against sglang 0.5.23 (installed: " in " ".join(ran_stdout.split())


def test_static_check_passes_the_example(sglang_venv: Venv, tree: Path, home: Path, cache: Path) -> None:
    copy_plugin(plugin_source("spec_example_plugin", tree), home)
    env = user_env(sglang_venv.bin, cache, tree)
    ran = expect(run(["spec-protocols", "check", "spec_example_plugin", "--no-import"], cwd=home, env=env, timeout=600), 0)
    columns, rows = verdict_table(ran)
    assert columns == ["Class", "Protocol", "mypy", "pyright", "Verdict"], ran.describe()
    assert rows == {
        ("ExampleAlgorithm", "SpecAlgorithm"): "pass",
        ("ExampleDraftWorker", "DraftWorker"): "pass",
        ("ExampleDraftWorker", "DraftWorkerFactory"): "pass",
        ("ExampleWorker", "SpecWorker"): "pass",
    }, ran.describe()
    assert summary(ran) == (4, 4, 0, 0), ran.describe()
    assert _installed_against(ran.stdout), ran.describe()


def test_static_check_fails_a_worker_without_forward_batch_generation(
    sglang_venv: Venv, tree: Path, home: Path, cache: Path
) -> None:
    copy_plugin(plugin_source("spec_forgetful_plugin", tree), home)
    env = user_env(sglang_venv.bin, cache, tree)
    ran = expect(run(["spec-protocols", "check", "spec_forgetful_plugin", "--no-import"], cwd=home, env=env, timeout=600), 1)
    assert verdict_table(ran)[1] == {("ForgetfulWorker", "SpecWorker"): "fail"}, ran.describe()
    assert "ForgetfulWorker has no forward_batch_generation" in " ".join(ran.stdout.split()), ran.describe()
    assert summary(ran) == (1, 0, 1, 0), ran.describe()
    assert _installed_against(ran.stdout), ran.describe()


def test_without_the_runtime_stack_the_runtime_checker_is_skipped_with_its_reason(
    sglang_venv: Venv, tree: Path, home: Path, cache: Path
) -> None:
    copy_plugin(plugin_source("spec_example_plugin", tree), home)
    env = user_env(sglang_venv.bin, cache, tree)
    ran = expect(run(["spec-protocols", "check", "spec_example_plugin"], cwd=home, env=env, timeout=600), 0)
    columns, rows = verdict_table(ran)
    assert columns == ["Class", "Protocol", "runtime", "replay", "mypy", "pyright", "Verdict"], ran.describe()
    assert set(rows.values()) == {"pass"} and len(rows) == 4, ran.describe()
    flat = " ".join(ran.stdout.split())
    assert "note: runtime and replay checkers: skipped every check (cannot import spec_example_plugin." in flat, ran.describe()
    assert "No module named" in flat, ran.describe()
    assert "Traceback" not in ran.output, ran.describe()
