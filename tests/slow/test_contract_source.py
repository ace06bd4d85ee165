"""Where a release's source comes from (``_contract/_release_source.py``): never imported.

Version detection, the three kinds of path, the installed sglang, and
``fetch_release`` with pip simulated (offline, a missing release, a wheel only
the cp311 retry finds, the cache reused without the network). One slow test
asks the real package registry for a release that does not exist.

This module is the slow part; tests/unit/test_contract_source.py (fast, no checker) holds the rest.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from spec_protocols.gate._contract import fetch_release
from spec_protocols.gate._model import GateError


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(directory))
    return directory


def test_a_release_that_does_not_exist_on_the_registry(cache: Path) -> None:
    with pytest.raises(GateError) as raised:
        fetch_release("0.5.99")
    message = str(raised.value)
    assert message.startswith("cannot fetch sglang 0.5.99: ") and "\n" not in message
