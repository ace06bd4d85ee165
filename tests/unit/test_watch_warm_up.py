"""The watch starts the warm checkers its first round did not run (issue 29, item 10).

A first round answered by the verdict cache runs no checker: mypy's daemon,
pyright's language server and the runtime checker's next probe then started
on the first edit, whose round waited for them (0.56x a cold run for an edit
1 s after the first report). Now the session runs the reused checkers once in
the background after the first report (a round of them alone, through the
cache's ``OFF`` policy, its report discarded), and the next round waits for
that warm-up rather than driving the same checkers beside it. No time is
asserted: what is checked is which round runs, with what, and in what order.
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from spec_protocols.gate._checkers._persistent import STOPPING
from spec_protocols.gate._request import CachePolicy, GateRequest
from spec_protocols.gate._watch import _loop


def _outcome(reused: tuple[str, ...]) -> Any:
    """What warm_up reads of a round's outcome: each run's report's reused checkers."""
    return SimpleNamespace(report=SimpleNamespace(runs=[SimpleNamespace(report=SimpleNamespace(reused=reused))]))


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(tmp_path / "cache"))
    STOPPING.clear()  # one watch per process: an earlier test's session set it as it closed
    made = _loop._Session(GateRequest(targets=("plugin.py",), checkers=("mypy", "pyright")), "json", False)  # pyright: ignore[reportPrivateUsage]
    yield made
    made.close()
    STOPPING.clear()


def test_the_checkers_the_cache_answered_for_are_run_once_in_the_background(session: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[GateRequest] = []
    release = threading.Event()

    def fake_run(request: GateRequest) -> None:
        asked.append(request)
        release.wait(60)

    monkeypatch.setattr(_loop, "run", fake_run)
    session.warm_up(_outcome(("mypy", "pyright")))
    assert session.warming is not None
    release.set()
    session.warming.join(60)
    (request,) = asked
    assert request.checkers == ("mypy", "pyright")
    assert request.registry is session.checkers  # the session's warm checkers, not one-shot ones
    assert request.cache is CachePolicy.OFF and request.targets == ("plugin.py",)


def test_nothing_runs_when_the_first_round_ran_every_checker(session: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_run(request: GateRequest) -> None:
        pytest.fail(f"a warm-up ran: {request}")

    monkeypatch.setattr(_loop, "run", fake_run)
    session.warm_up(_outcome(()))
    assert session.warming is None


def test_the_next_round_waits_for_the_warm_up(session: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[str] = []
    release = threading.Event()

    def fake_run(request: GateRequest) -> None:
        release.wait(60)
        order.append("warm-up")

    monkeypatch.setattr(_loop, "run", fake_run)
    monkeypatch.setattr(session, "round", lambda: order.append("round") or _outcome(()))
    session.warm_up(_outcome(("mypy",)))
    threading.Timer(0.5, release.set).start()
    session.checked()
    assert order == ["warm-up", "round"]
