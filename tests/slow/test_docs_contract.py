"""docs/contract.md is the extractor's release x member table, never a hand edit (issue 12, item 7).

Regenerate it with ``SPEC_PROTOCOLS_UPDATE_DOCS=1`` (or the command on the
page's first lines). Slow: it reads six releases, fetched once into the cache.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from spec_protocols._releases import SUPPORTED_RELEASES
from spec_protocols.gate._contract import SglangSource, extract_contract
from spec_protocols.gate._contract._contract_formats import releases_markdown

from tests._paths import REPO_ROOT


PAGE = REPO_ROOT / "docs" / "contract.md"
#: The supported releases, and the one before them (no draft_worker_cls yet), for contrast.
RELEASES = ("0.5.18", *SUPPORTED_RELEASES)


def test_docs_contract_is_current(sglang_release: Callable[[str], SglangSource]) -> None:
    text = releases_markdown([extract_contract(sglang_release(r)) for r in RELEASES])
    if os.environ.get("SPEC_PROTOCOLS_UPDATE_DOCS"):
        PAGE.write_text(text, encoding="utf-8")
    assert PAGE.read_text(encoding="utf-8") == text, (
        "docs/contract.md is stale: run SPEC_PROTOCOLS_UPDATE_DOCS=1 pytest tests/slow/test_docs_contract.py"
    )
