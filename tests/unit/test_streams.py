"""get_plan_stream: off by default; the flag parsed like sglang's EnvBool; torch only when on."""

from __future__ import annotations

import sys
import types
import warnings
from contextlib import nullcontext
from typing import Any

import pytest

from spec_protocols import get_plan_stream
from spec_protocols._streams import PLAN_STREAM_ENV, plan_stream_enabled


class FakeDeviceModule:
    def __init__(self) -> None:
        self.made: list[object] = []

    def Stream(self) -> object:  # noqa: N802 - torch's spelling
        stream = object()
        self.made.append(stream)
        return stream

    def stream(self, stream: object) -> tuple[str, object]:
        return ("stream-context", stream)


@pytest.fixture
def fake_torch(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    seen: dict[str, Any] = {"devices": [], "module": FakeDeviceModule()}
    torch = types.ModuleType("torch")

    def get_device_module(device: str) -> FakeDeviceModule:
        seen["devices"].append(device)
        return seen["module"]

    torch.get_device_module = get_device_module  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch", torch)
    return seen


def test_off_by_default(monkeypatch: pytest.MonkeyPatch, fake_torch: dict[str, Any]) -> None:
    monkeypatch.delenv(PLAN_STREAM_ENV, raising=False)
    stream, ctx = get_plan_stream("cuda")
    assert stream is None
    assert isinstance(ctx, nullcontext)
    with ctx:
        pass
    assert fake_torch["devices"] == []  # torch not touched


@pytest.mark.parametrize("value", ["true", "1", "yes", "y", "TRUE", "Yes", "Y"])
def test_true_spellings_turn_it_on(monkeypatch: pytest.MonkeyPatch, fake_torch: dict[str, Any], value: str) -> None:
    monkeypatch.setenv(PLAN_STREAM_ENV, value)
    stream, ctx = get_plan_stream("npu")
    assert fake_torch["devices"] == ["npu"]
    assert fake_torch["module"].made == [stream]
    assert ctx == ("stream-context", stream)


@pytest.mark.parametrize("value", ["false", "0", "no", "n", "FALSE", "No"])
def test_false_spellings_keep_it_off_silently(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(PLAN_STREAM_ENV, value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert plan_stream_enabled() is False
        stream, ctx = get_plan_stream("cuda")
    assert stream is None and isinstance(ctx, nullcontext)


@pytest.mark.parametrize("value", ["on", "2", "", "truthy"])
def test_invalid_values_warn_and_are_off(monkeypatch: pytest.MonkeyPatch, fake_torch: dict[str, Any], value: str) -> None:
    monkeypatch.setenv(PLAN_STREAM_ENV, value)
    with pytest.warns(UserWarning, match=PLAN_STREAM_ENV):
        stream, ctx = get_plan_stream("cuda")
    assert stream is None and isinstance(ctx, nullcontext)
    assert fake_torch["devices"] == []


def test_the_flag_name_is_sglangs() -> None:
    assert PLAN_STREAM_ENV == "SGLANG_ENABLE_OVERLAP_PLAN_STREAM"
