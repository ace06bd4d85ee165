"""The harness holds a registered class to what its registrations select
(``gate._roles.registered_terms``): the scheduler branch's calls in place of
the protocol's signature, the capabilities its ``spec_class`` turns on, and
the keywords a ``create_worker`` partial binds (fast: built and parsed, never
checked)."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from spec_protocols.gate._contract import ReleaseTerms, extract_contract, release_terms
from spec_protocols.gate._contract._release_source import resolve_sglang
from spec_protocols.gate._harness._lines import LineKind, LineTag, build_harness
from spec_protocols.gate._model import ClassRole, DiscoveredClass, ProtocolName, Registration

FBG = "forward_batch_generation"


@pytest.fixture(scope="module")
def terms() -> ReleaseTerms:
    """The installed sglang's terms: its scheduler's two branches."""
    if importlib.util.find_spec("sglang") is None:
        pytest.skip("sglang is not installed")
    source = resolve_sglang(None)
    if source is None:
        pytest.skip("no sglang source to read")
    found = release_terms(extract_contract(source))
    if found.overlap_flag is None or not found.branch_shapes:
        pytest.skip("the installed sglang has no overlap flag")
    return found


def _cls(*registrations: Registration) -> DiscoveredClass:
    found = DiscoveredClass("plugin", "Worker", Path("/dev/null"), 1, frozenset({ClassRole.SPEC_WORKER}))
    return dataclasses.replace(found, registrations=registrations)


def _reg(**kwargs: Any) -> Registration:
    return Registration("X", "plugin.py:1", **kwargs)


def _signature_lines(text: str, tags: Mapping[int, LineTag], member: str) -> list[str]:
    lines = text.splitlines()
    return [lines[n - 1] for n, t in tags.items() if t.kind is LineKind.MEMBER_SIGNATURE and t.member == member]


def _callback(text: str, line: str) -> str:
    """The callback protocol a ``_u...: Name = w.m`` line names, as text."""
    name = line.split(":", 1)[1].split("=", 1)[0].strip()
    for node in ast.parse(text).body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return ast.unparse(node)
    raise AssertionError(name)


def test_no_registrations_same_text(terms: ReleaseTerms) -> None:
    plain = DiscoveredClass("plugin", "Worker", Path("/dev/null"), 1, frozenset({ClassRole.SPEC_WORKER}))
    assert build_harness([plain], terms=terms).text == build_harness([_cls()], terms=terms).text


def test_synchronous_registration_checks_the_synchronous_call(terms: ReleaseTerms) -> None:
    harness = build_harness([_cls(_reg(flags=(("supports_overlap", False),)))], terms=terms)
    ast.parse(harness.text)
    lines = _signature_lines(harness.text, harness.tags, FBG)
    assert lines, harness.text
    callbacks = [_callback(harness.text, line) for line in lines]
    # scheduler.py's synchronous branch: forward_batch_generation(batch, pp_proxy_tensors=...).
    assert all("pp_proxy_tensors" in c and "on_publish" not in c for c in callbacks), callbacks
    # The whole protocol would ask for on_publish too.
    assert f": {ProtocolName.SPEC_WORKER} = w" not in harness.text


def test_overlap_registration_checks_the_overlap_call(terms: ReleaseTerms) -> None:
    harness = build_harness([_cls(_reg(flags=(("supports_overlap", True),)))], terms=terms)
    callbacks = [_callback(harness.text, line) for line in _signature_lines(harness.text, harness.tags, FBG)]
    assert callbacks and all("on_publish" in c and "pp_proxy_tensors" not in c for c in callbacks), callbacks


def test_grammar_overlap_capability_line(terms: ReleaseTerms) -> None:
    reg = _reg(flags=(("supports_overlap", True),), capabilities=("supports_grammar_overlap",))
    harness = build_harness([_cls(reg)], terms=terms)
    expected = [harness.tags[n].expected or "" for n in harness.tags if harness.tags[n].member == FBG]
    assert any(e.startswith("SupportsGrammarOverlap.") for e in expected), expected
    assert "grammar_barrier" in harness.text


def test_partial_bound_keywords_are_passed_to_the_constructor(terms: ReleaseTerms) -> None:
    harness = build_harness([_cls(_reg(bound_keywords=("block_size",)))], terms=terms)
    lines = harness.text.splitlines()
    constructor = [lines[n - 1] for n, t in harness.tags.items() if t.kind is LineKind.CONSTRUCTOR]
    assert any("block_size: Any" in line for line in constructor), constructor
    assert any("block_size=block_size" in line for line in constructor), constructor
