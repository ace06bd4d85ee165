"""The draft class a kept default reads, where the worker keeps what build_draft_tp_worker built (``_harness/_draft_reads``)."""

from __future__ import annotations

from pathlib import Path

from spec_protocols.gate._harness._draft_reads import built_drafts
from spec_protocols.gate._model import ClassRole, DiscoveredClass

KEEPS = '''\
class Worker(Base):
    def __init__(self):
        bundle = build_draft_tp_worker(draft_worker_cls=Draft)
        self._draft_worker = bundle.draft_worker
'''
WRAPS = '''\
class Worker(Base):
    def __init__(self):
        bundle = build_draft_tp_worker(draft_worker_cls=Draft)
        self._draft_worker = Wrapper(bundle.draft_worker)
'''


def _classes(tmp_path: Path, source: str, injected_by: tuple[str, ...]) -> tuple[DiscoveredClass, DiscoveredClass]:
    file = tmp_path / "plugin.py"
    file.write_text(source)
    worker = DiscoveredClass("plugin", "Worker", file, 1, frozenset({ClassRole.SPEC_WORKER}))
    draft = DiscoveredClass("plugin", "Draft", file, 9, frozenset({ClassRole.INJECTED}), injected_by=injected_by)
    return worker, draft


def test_the_injected_class_where_the_bundles_draft_worker_is_kept(tmp_path: Path) -> None:
    worker, draft = _classes(tmp_path, KEEPS, ("plugin.Worker",))
    assert built_drafts(worker, [worker, draft]) == (draft,)


def test_as_declared_where_the_worker_keeps_something_else(tmp_path: Path) -> None:
    worker, draft = _classes(tmp_path, WRAPS, ("plugin.Worker",))
    assert built_drafts(worker, [worker, draft]) == ()


def test_as_declared_where_another_class_injects_it(tmp_path: Path) -> None:
    worker, draft = _classes(tmp_path, KEEPS, ("plugin.Other",))
    assert built_drafts(worker, [worker, draft]) == ()
