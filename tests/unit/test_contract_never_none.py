"""Keywords a call site never passes ``None`` (issue 20): extracted, and typed less ``None`` by the harness.

sglang's overlap branch passes ``on_publish=partial(self.future_map.publish,
future_indices)`` through a ``fwd_kwargs`` dict (managers/scheduler.py
``Scheduler.run_batch``); the synchronous branch passes
``pp_proxy_tensors=pp_proxy_tensors``, a name that may be ``None``. The first
is recorded as ``never_none`` and its harness annotation drops ``None``; the
second keeps the protocol's ``PPProxyTensors | None``. Fast: no checker runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from spec_protocols._members import protocol_definitions
from spec_protocols.gate._contract._extract._never_none import never_none
from spec_protocols.gate._contract._terms import CallShape, branch_shapes
from spec_protocols.gate._harness._keyword_types import without_none
from spec_protocols.gate._harness._protocol_source import as_called
from spec_protocols.gate._model import ProtocolName
from tests.unit.test_contract_rules import contract_of, uses


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("partial(self.future_map.publish, idx)", True),
        ("functools.partial(f, 1)", True),
        ("lambda x: x", True),
        ("(1, 2)", True),
        ("{'a': 1}", True),
        ("'text'", True),
        ("0", True),
        ("dict(a=1)", True),
        ("partial(f) if c else (lambda: 0)", True),
        ("None", False),
        ("pp_proxy_tensors", False),
        ("self._advance_pending_grammar", False),
        ("make_callback()", False),
        ("batch.seq_lens + 1", False),
        ("partial(f) if c else None", False),
    ],
)
def test_never_none_is_only_what_is_certain(source: str, expected: bool) -> None:
    assert never_none(ast.parse(source, mode="eval").body) is expected


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        ("PublishCallback | None", "PublishCallback"),
        ("None | A | B", "A | B"),
        ("Optional[A]", "A"),
        ("typing.Optional[A]", "A"),
        ("Union[A, None, B]", "A | B"),
        ("A", "A"),
        ("None", "None"),
        ("A | B", "A | B"),
    ],
)
def test_without_none(annotation: str, expected: str) -> None:
    assert ast.unparse(without_none(ast.parse(annotation, mode="eval").body)) == expected


_RUN_BATCH = """
def run_batch(self, batch, pp_proxy_tensors=None):
    if self.enable_overlap:
        fwd_kwargs = {}
        if not batch.spec_algorithm.is_none():
            fwd_kwargs["on_publish"] = partial(self.future_map.publish, batch.req_pool_indices)
        self.model_worker.forward_batch_generation(batch, **fwd_kwargs)
    else:
        self.model_worker.forward_batch_generation(batch, pp_proxy_tensors=pp_proxy_tensors)

def other(self, batch):
    d = {"a": partial(f), "b": maybe}
    d.update(c=lambda: 0, e=value)
    d.setdefault("g", None)
    self.draft_worker.shaped(**d, h=(1,), i=name)
    either = {"on_publish": partial(f)} if self.flag else {}
    self.draft_worker.either(**either)
"""


def test_the_extractor_records_the_keywords_never_none(tmp_path: Path) -> None:
    contract = contract_of(tmp_path, _RUN_BATCH)
    overlap, synchronous = sorted(uses(contract, "forward_batch_generation"), key=lambda u: u.site.line)
    assert overlap.keywords == ("on_publish",) and overlap.never_none == ("on_publish",)
    assert synchronous.keywords == ("pp_proxy_tensors",) and synchronous.never_none == ()
    (shaped,) = uses(contract, "shaped")
    assert set(shaped.never_none) == {"a", "c", "h"}
    (either,) = uses(contract, "either")
    assert either.never_none == ("on_publish",)


def test_a_branch_shape_carries_never_none_only_where_every_call_agrees(tmp_path: Path) -> None:
    contract = contract_of(tmp_path, _RUN_BATCH)
    shapes = branch_shapes(contract, ("forward_batch_generation",))
    assert shapes["overlap"]["forward_batch_generation"].never_none == ("on_publish",)
    assert shapes["synchronous"]["forward_batch_generation"].never_none == ()


def _keyword_annotations(shape: CallShape) -> dict[str, str]:
    (member,) = [m for m in protocol_definitions(ProtocolName.SPEC_WORKER) if m.name == "forward_batch_generation"]
    called = as_called(member, shape)
    return {a.arg: ast.unparse(a.annotation) for a in called.node.args.kwonlyargs if a.annotation is not None}


def test_the_harness_drops_none_only_for_a_keyword_never_none() -> None:
    certain = CallShape((1, 1), ("on_publish",), (), ("on_publish",))
    assert _keyword_annotations(certain) == {"on_publish": "PublishCallback"}
    uncertain = CallShape((1, 1), ("on_publish",), ())
    assert _keyword_annotations(uncertain) == {"on_publish": "PublishCallback | None"}


def test_a_keyword_a_capability_declares_takes_its_annotation() -> None:
    # SupportsPipelineProxy declares pp_proxy_tensors on forward_batch_generation: not Any.
    synchronous = CallShape((1, 1), (), ("pp_proxy_tensors",))
    assert _keyword_annotations(synchronous) == {"pp_proxy_tensors": "PPProxyTensors | None"}
    unknown = CallShape((1, 1), ("nobody_declares",), ())
    assert _keyword_annotations(unknown) == {"nobody_declares": "Any"}
