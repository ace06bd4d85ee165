"""``spec-protocols check PLUGIN --sglang RELEASE`` from the installed wheel, with no sglang installed.

docs/ci.md: "Or install no sglang: ``--sglang 0.5.23`` runs mypy and pyright
on that release's source" (fetched once into the cache); the runtime checker
is skipped with a note. Each case is a first run (a private cache) from a
folder outside the checkout, with a copy of the plugin there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

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


EXAMPLE = {
    ("ExampleAlgorithm", "SpecAlgorithm"): "pass",
    ("ExampleDraftWorker", "DraftWorker"): "pass",
    ("ExampleDraftWorker", "DraftWorkerFactory"): "pass",
    ("ExampleWorker", "SpecWorker"): "pass",
}
PORTABLE = {
    ("PortableDraftWorker", "DraftWorker"): "pass",
    ("PortableDraftWorker", "DraftWorkerFactory"): "pass",
    ("PortableWorker", "SpecWorker"): "pass",
}
FORGETFUL = {("ForgetfulWorker", "SpecWorker"): "fail"}

#: (release, plugin, exit status, verdicts, what the report must name)
CASES: list[tuple[str, str, int, dict[tuple[str, str], str], list[str]]] = [
    ("0.5.23", "spec_example_plugin", 0, EXAMPLE, []),
    ("0.5.23", "spec_portable_plugin", 0, PORTABLE, []),
    ("0.5.23", "spec_forgetful_plugin", 1, FORGETFUL, ["ForgetfulWorker has no forward_batch_generation"]),
    ("0.5.21", "spec_portable_plugin", 0, PORTABLE, []),
    # The example targets 0.5.23: its draft requires load_group, which
    # 0.5.21's build_draft_tp_worker does not pass, and hands it on to
    # TpModelWorker.__init__, which in 0.5.21 takes none (the checkers' own
    # error in its constructor: the DraftWorker row fails too). ExampleWorker
    # injects it in its own constructor, which the factory call's TypeError
    # would end: it fails too.
    ("0.5.21", "spec_example_plugin", 1,
     {**EXAMPLE, ("ExampleDraftWorker", "DraftWorkerFactory"): "fail", ("ExampleDraftWorker", "DraftWorker"): "fail",
      ("ExampleWorker", "SpecWorker"): "fail"},
     ['Argument missing for parameter "load_group"', 'No parameter named "load_group"']),
    ("0.5.21", "spec_forgetful_plugin", 1, FORGETFUL, ["ForgetfulWorker has no forward_batch_generation"]),
]


@pytest.mark.parametrize(
    ("release", "plugin", "status", "verdicts", "named"),
    CASES,
    ids=[f"{release}-{plugin}" for release, plugin, *_ in CASES],
)
def test_check_against_a_release_with_no_sglang_installed(
    bare_venv: Venv,
    tree: Path,
    home: Path,
    cache: Path,
    release: str,
    plugin: str,
    status: int,
    verdicts: dict[tuple[str, str], str],
    named: list[str],
) -> None:
    copy_plugin(plugin_source(plugin, tree), home)
    env = user_env(bare_venv.bin, cache, tree)
    ran = expect(run(["spec-protocols", "check", plugin, "--sglang", release], cwd=home, env=env, timeout=600), status)

    columns, rows = verdict_table(ran)
    assert columns == ["Class", "Protocol", "mypy", "pyright", "Verdict"], ran.describe()
    assert rows == verdicts, ran.describe()
    failing = sum(1 for v in verdicts.values() if v == "fail")
    assert summary(ran) == (len(verdicts), len(verdicts) - failing, failing, 0), ran.describe()
    for text in named:
        assert text in " ".join(ran.stdout.split()), f"the report does not say {text!r}\n{ran.describe()}"
    # Fetched into this test's own cache, and the report names it whole.
    assert f"against sglang {release} (fetched: {cache / 'sglang' / release})" in " ".join(ran.stdout.split()), ran.describe()
    assert (cache / "sglang" / release / "sglang" / "srt" / "speculative").is_dir(), ran.describe()
    # The wheel pip downloaded is deleted once its source is unpacked.
    assert not list((cache / "sglang" / "wheels").glob("*.whl")), ran.describe()
    assert "note: runtime and replay checkers: skipped: --sglang reads" in ran.stdout, ran.describe()
    assert "Traceback" not in ran.output, ran.describe()
