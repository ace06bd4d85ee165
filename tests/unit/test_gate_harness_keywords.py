"""The harness is Python for any keyword set a release's terms carry (issue 18).

A release's constructor keywords and its draft factory's come from its own
source, and either may be empty (a release whose construction passes none)
or absent (``draft_factory_keywords=None``: no ``build_draft_tp_worker(
draft_worker_cls=...)``). The harness must still be a module both checkers
can read: ``def _construct_0_spec_worker(*, ) -> None:`` once made mypy crash
("Expected one or more keyword parameter after '*' separator").

Fast: the harness is built and compiled, never checked.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from spec_protocols.gate._contract._terms import ReleaseTerms, release_terms
from spec_protocols.gate._harness._lines import LineKind, build_harness
from spec_protocols.gate._model import ClassRole, DiscoveredClass


def _classes() -> list[DiscoveredClass]:
    """A spec worker, and an injected draft worker class: both get a constructor line."""
    return [
        DiscoveredClass("plug.workers", "Spec", Path("/dev/null"), 1, frozenset({ClassRole.SPEC_WORKER})),
        DiscoveredClass(
            "plug.workers", "Draft", Path("/dev/null"), 2, frozenset({ClassRole.INJECTED, ClassRole.DRAFT_WORKER})
        ),
    ]


def _constructor_definitions(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("def _construct_")]


TERMS = {
    "no constructor keywords": {"constructor_keywords": ()},
    "no draft factory": {"draft_factory_keywords": None},
    "neither": {"constructor_keywords": (), "draft_factory_keywords": None},
    "an empty draft factory": {"constructor_keywords": (), "draft_factory_keywords": ()},
}


@pytest.mark.parametrize("changes", TERMS.values(), ids=list(TERMS))
def test_the_harness_compiles_for_any_keyword_set(changes: dict[str, object]) -> None:
    terms: ReleaseTerms = replace(release_terms(None), **changes)  # type: ignore[arg-type]
    harness = build_harness(_classes(), terms=terms)
    compile(harness.text, "spec_protocols_harness.py", "exec")
    definitions = _constructor_definitions(harness.text)
    assert len(definitions) == 2, definitions
    assert not any("(*, )" in line for line in definitions), definitions
    if terms.constructor_keywords == ():
        spec = next(line for line in definitions if line.endswith("_spec_worker() -> None:"))
        call = harness.text.splitlines()[harness.text.splitlines().index(spec) + 1]
        assert call.strip().endswith(".Spec()"), call
    constructor_tags = [t for t in harness.tags.values() if t.kind is LineKind.CONSTRUCTOR]
    assert {t.target for t in constructor_tags} == {"plug.workers.Spec", "plug.workers.Draft"}


def test_keywords_still_make_a_keyword_only_constructor() -> None:
    terms = replace(release_terms(None), constructor_keywords=("server_args", "gpu_id"))
    harness = build_harness(_classes()[:1], terms=terms)
    compile(harness.text, "spec_protocols_harness.py", "exec")
    (definition,) = _constructor_definitions(harness.text)
    assert definition.startswith("def _construct_0_spec_worker(*, server_args: ServerArgs, gpu_id: int)"), definition
