"""With no sglang installed and no ``--sglang``, the gate is never silently weaker.

Before issue 18 such a run checked against the protocols alone, and a worker
that keeps ``BaseSpecWorker``'s defaults without ever setting
``_draft_worker`` passed (``3 checked: 3 pass``) while ``--sglang 0.5.23``
failed it. Now the run fetches the newest supported release's source, as
``--sglang`` does, and checks on its terms; when that fetch fails, every
check is ``unverified`` (exit 1), with one note saying why and what to do.

"No sglang installed" is made by the pipeline's own seam: the installed
source it would find is taken away, so the fetch is what remains.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from spec_protocols._releases import NEWEST
from spec_protocols.gate import GateError, Verdict, checkers_named, run_gate
from spec_protocols.gate._contract import SglangSource

from tests._paths import FIXTURES


NO_DRAFT = '''\
"""Keeps BaseSpecWorker's defaults and never sets _draft_worker: they raise at start-up."""
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class NoDraftWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        self._target_worker = target_worker

    def forward_batch_generation(self, batch, *, on_publish=None, pp_proxy_tensors=None, **kwargs):
        raise NotImplementedError
'''


@pytest.fixture
def no_installed_sglang(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pipeline finds no installed sglang (the one in this venv is hidden from it)."""
    import spec_protocols.gate._contract._release_source as source_module
    import spec_protocols.gate._pipeline as pipeline

    real = pipeline.resolve_sglang

    def resolve(given: str | None) -> SglangSource | None:
        return None if given is None else real(given)

    monkeypatch.setattr(pipeline, "resolve_sglang", resolve)
    monkeypatch.setattr(pipeline, "installed_source", lambda: None)
    monkeypatch.setattr(source_module, "installed_source", lambda: None)


@pytest.fixture
def worker(tmp_path: Path) -> Path:
    path = tmp_path / "no_draft_plugin.py"
    path.write_text(NO_DRAFT, encoding="utf-8")
    return path


def test_the_newest_release_is_fetched_and_its_terms_checked(
    no_installed_sglang: None,
    worker: Path,
    monkeypatch: pytest.MonkeyPatch,
    sglang_release: Callable[[str], SglangSource],
) -> None:
    import spec_protocols.gate._pipeline as pipeline

    fetched = sglang_release(NEWEST)
    asked: list[str] = []

    def fetch(release: str) -> SglangSource:
        asked.append(release)
        return fetched

    monkeypatch.setattr(pipeline, "fetch_release", fetch)
    report = run_gate([str(worker)], checkers=checkers_named(["mypy", "pyright"]), cache=False)
    assert asked == [NEWEST]
    assert report.sglang is not None and report.sglang.release == NEWEST
    (result,) = report.results
    # The same verdict --sglang NEWEST gives: the kept defaults read _draft_worker.
    assert result.verdict is Verdict.FAIL, result
    assert result.checkers == {"mypy": Verdict.FAIL, "pyright": Verdict.FAIL}
    assert any("_draft_worker" in p.message for p in result.problems), result.problems
    assert any(f"checked against the newest supported release, sglang {NEWEST}" in n for n in report.notes), report.notes


def test_a_failed_fetch_makes_every_check_unverified(
    no_installed_sglang: None, worker: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import spec_protocols.gate._pipeline as pipeline

    def offline(release: str) -> SglangSource:
        raise GateError(f"cannot fetch sglang {release}: no network")

    monkeypatch.setattr(pipeline, "fetch_release", offline)
    # A worker that imports nothing of sglang gets no plain pass either: the
    # members and constructor keywords it is held to are a release's, and no
    # release was read.
    structural = FIXTURES / "structural" / "structural_workers.py"
    targets = [str(worker), f"{structural}:CompleteWorker"]
    report = run_gate(targets, checkers=checkers_named(["mypy", "pyright"]), cache=False)
    assert report.results
    assert all(r.verdict is not Verdict.PASS for r in report.results), report.results
    assert all(any(p.unverified and p.checker == "gate" for p in r.problems) for r in report.results)
    assert any("could not be fetched (cannot fetch sglang" in n and "no network" in n for n in report.notes), report.notes
    assert not report.ok
