"""When a checker sees a worker's draft worker as ``Any``, the note says what to annotate.

The case from issue 18: a worker whose unannotated ``draft_worker`` property
returns ``None`` got "mypy sees this class's draft worker as Any: ... is not
checked", which reads as a gap in the worker with no way to close it. The
note now names where the type is missing and the annotation that closes it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from spec_protocols.gate import checkers_named, run_gate


UNANNOTATED_PROPERTY = '''\
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class NoDraftModelWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        self._target_worker = target_worker

    @property
    def draft_worker(self):
        return None

    def forward_batch_generation(self, batch, *, on_publish=None, pp_proxy_tensors=None, **kwargs):
        raise NotImplementedError
'''

UNTYPED_ATTRIBUTE = '''\
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


def _make_draft(server_args):
    return None


class UntypedDraftWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        self._target_worker = target_worker
        self._draft_worker = _make_draft(server_args)

    def forward_batch_generation(self, batch, *, on_publish=None, pp_proxy_tensors=None, **kwargs):
        raise NotImplementedError
'''


@pytest.mark.parametrize(
    ("source", "says"),
    [
        (UNANNOTATED_PROPERTY, "the class's draft_worker property has no return type it can read"),
        (UNTYPED_ATTRIBUTE, "self._draft_worker is untyped where the class sets it"),
    ],
    ids=["property", "attribute"],
)
def test_the_note_says_what_to_annotate(tmp_path: Path, source: str, says: str) -> None:
    path = tmp_path / "note_plugin.py"
    path.write_text(source, encoding="utf-8")
    report = run_gate([str(path)], checkers=checkers_named(["mypy"]), cache=False)
    (result,) = report.results
    notes = [n for n in result.notes if "sees this class's draft worker as Any" in n]
    assert notes, result
    assert says in notes[0], notes[0]
    assert "annotate it" in notes[0], notes[0]
