"""The one codec for stored data (spec_protocols.gate._codec) and the runtime probe's channel.

Round trips of the gate's real values are in test_verdict_cache.py; here,
the JSON form of each kind of type, the errors (where, and why), atomic
writes, and the probe's records.
"""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Annotated, Literal

import pytest

from spec_protocols.gate._checkers._runtime._probe_channel import (
    Checking,
    Importing,
    ProbeAnswer,
    ProbeClass,
    ProbeFailed,
    RuntimeFinding,
    ProbeRelease,
    ProbeRequest,
    ProbeResult,
    Settled,
    progress_line,
    read_answer,
    read_progress,
    read_request,
    request_text,
    write_answer,
)
from spec_protocols.gate._codec import Undecodable, Valid, canonical, decode, encode, write_atomically
from spec_protocols.gate._contract._terms import CallShape
from spec_protocols.gate._model import Check, CheckerOutcome, Problem, ProtocolName, Verdict


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class Inner:
    name: str
    colour: Colour = Colour.RED


@dataclass(frozen=True, slots=True)
class Outer:
    by_name: Mapping[str, int]
    by_inner: Mapping[Inner, tuple[str, ...]]
    tags: frozenset[str]
    path: Path
    kind: Literal["a", "b"]
    maybe: Inner | None = None
    pair: tuple[int, str] = (0, "")
    ratio: float = 0.0
    extra: object = None
    named: Annotated[str, Valid(bool, "a non-empty string")] = "x"
    listed: list[Inner] = field(default_factory=list[Inner])


VALUE = Outer(
    by_name={"b": 2, "a": 1},
    by_inner={Inner("x", Colour.BLUE): ("p", "q"), Inner("y"): ()},
    tags=frozenset({"z", "m"}),
    path=Path("/tmp/some/file.py"),
    kind="b",
    maybe=Inner("m"),
    pair=(3, "three"),
    ratio=1.5,
    extra={"any": [1, "two"]},
    listed=[Inner("l")],
)


def test_the_json_form_of_each_kind() -> None:
    assert encode(VALUE) == {
        "by_name": {"b": 2, "a": 1},  # str keys: an object, in the mapping's order
        "by_inner": [[{"name": "x", "colour": "blue"}, ["p", "q"]], [{"name": "y", "colour": "red"}, []]],
        "tags": ["m", "z"],  # sorted
        "path": "/tmp/some/file.py",
        "kind": "b",
        "maybe": {"name": "m", "colour": "red"},
        "pair": [3, "three"],
        "ratio": 1.5,
        "extra": {"any": [1, "two"]},
        "named": "x",
        "listed": [{"name": "l", "colour": "red"}],
    }


def test_a_value_reads_back_equal_through_json_text() -> None:
    back = decode(Outer, json.loads(json.dumps(encode(VALUE))))
    assert back == VALUE
    assert isinstance(back.pair, tuple) and isinstance(back.tags, frozenset) and isinstance(back.path, Path)


def test_empty_mappings_keep_their_form() -> None:
    empty = Outer({}, {}, frozenset(), Path("p"), "a")
    assert encode(empty)["by_name"] == {} and encode(empty)["by_inner"] == []  # type: ignore[index]
    assert decode(Outer, json.loads(json.dumps(encode(empty)))) == empty


def test_omit_defaults_leaves_out_what_reads_back_as_the_default() -> None:
    written = encode(Inner("n"), omit_defaults=True)
    assert written == {"name": "n"}
    assert decode(Inner, written) == Inner("n")
    assert encode(Inner("n", Colour.BLUE), omit_defaults=True) == {"name": "n", "colour": "blue"}


def minimal() -> dict[str, object]:
    return {"by_name": {}, "by_inner": [], "tags": [], "path": "p", "kind": "a"}


@pytest.mark.parametrize(
    ("change", "path", "reason"),
    [
        ({"kind": "c"}, ("kind",), "'c' is none of ('a', 'b')"),
        ({"by_name": {"a": "1"}}, ("by_name", "a"), "'1' is no int"),
        ({"by_name": {"a": True}}, ("by_name", "a"), "True is no int"),
        ({"by_inner": [[{"name": "x", "colour": "green"}, []]]}, ("by_inner", 0, "colour"), "'green' is no Colour"),
        ({"by_inner": [["x"]]}, ("by_inner", 0), "expected a [key, value] pair"),
        ({"tags": ["a", 3]}, ("tags", 1), "3 is no str"),
        ({"pair": [1]}, ("pair",), "1 items for tuple[int, str]"),
        ({"maybe": {"colour": "red"}}, ("maybe",), "an object fits none of "),
        ({"path": 3}, ("path",), "3 is no path"),
        ({"named": ""}, ("named",), "'' is not a non-empty string"),
        ({"listed": {}}, ("listed",), "an object is no list"),
    ],
)
def test_an_error_says_where_and_why(change: dict[str, object], path: tuple[object, ...], reason: str) -> None:
    with pytest.raises(Undecodable) as info:
        decode(Outer, {**minimal(), **change})
    assert info.value.path == path
    assert info.value.reason == reason or (reason.endswith(" ") and info.value.reason.startswith(reason))
    assert not info.value.missing and not info.value.unknown


def test_a_missing_field_and_unknown_keys() -> None:
    with pytest.raises(Undecodable) as info:
        decode(Outer, {k: v for k, v in minimal().items() if k != "tags"})
    assert info.value.path == ("tags",) and info.value.missing
    assert str(info.value) == "tags: Outer.tags is missing"
    with pytest.raises(Undecodable) as info:
        decode(Outer, {**minimal(), "zz": 1, "aa": 2})
    assert info.value.unknown == ("aa", "zz")
    assert decode(Outer, {**minimal(), "zz": 1}, ignore_unknown=True) == decode(Outer, minimal())


def test_the_first_field_that_does_not_fit_is_reported() -> None:
    with pytest.raises(Undecodable) as info:
        decode(Outer, {**minimal(), "kind": "c", "path": 3})
    assert info.value.path == ("path",)  # path comes before kind


def test_scalars_are_strict_but_an_int_is_a_float() -> None:
    assert decode(Outer, {**minimal(), "ratio": 2}).ratio == 2.0
    with pytest.raises(Undecodable):
        decode(Outer, {**minimal(), "ratio": True})
    with pytest.raises(Undecodable):
        decode(Outer, [])


def test_what_the_codec_cannot_write_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        encode(Inner(3))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        encode(Outer({1: 1}, {}, frozenset(), Path("p"), "a"))  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        encode({"a": object()})


def test_a_str_enum_writes_as_its_string() -> None:
    check = Check("a.B", ProtocolName.SPEC_WORKER)
    outcome = CheckerOutcome("mypy", {check: Verdict.PASS}, {check: (Problem("mypy", None, "m"),)})
    written = json.loads(json.dumps(encode(outcome)))
    assert written["verdicts"] == [[{"target": "a.B", "protocol": "SpecWorker"}, "pass"]]
    assert decode(CheckerOutcome, written) == outcome


def test_canonical_text_is_independent_of_construction_order() -> None:
    one = canonical({"b": 1, "a": frozenset({2, 1})})
    two = canonical({"a": frozenset({1, 2}), "b": 1})
    assert one == two
    assert canonical(Inner("x")) != canonical({"name": "x", "colour": "red"})  # dataclasses are tagged
    assert canonical(PurePosixPath("/run/x"), lambda p: "<run>") == '"<run>"'


def test_write_atomically_replaces_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "file.json"
    write_atomically(target, "old")
    write_atomically(target, "new", durable=True)
    assert target.read_text() == "new"

    def fail(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        write_atomically(target, "lost")
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.json"]  # no temporary file left


# -- the runtime probe's channel ------------------------------------------------


def request() -> ProbeRequest:
    release = ProbeRelease(
        members={ProtocolName.SPEC_WORKER: ("forward_batch_generation",), "DraftWorker": ()},
        presence=("extra",),
        nominal_hooks={"hook": "SupportsHook"},
        constructor_keywords=("server_args",),
        factory_keywords=None,
        call_shapes={"SpecWorker": {"forward_batch_generation": CallShape((1, 2), ("batch",), ("flag",))}},
    )
    classes = (ProbeClass(0, "pkg.mod", "Worker", "pkg.mod.Worker", ("SpecWorker",), may_be_abstract=True),)
    return ProbeRequest(("/roots/a",), "/private/result.json", "/private/progress.jsonl", classes, release)


def test_a_request_reads_back_as_sent() -> None:
    sent = request()
    assert read_request(request_text(sent)) == sent
    assert read_request(b'{"search_roots": [], "result_file": "r", "progress_file": "p", "classes": []}').release == ProbeRelease()


def test_progress_records_are_told_apart_and_a_cut_line_is_skipped() -> None:
    result = ProbeResult("pkg.mod.Worker", "SpecWorker", Verdict.FAIL, (RuntimeFinding("x", "verification", "x", "missing"),), None)
    records = [Importing("pkg.mod"), Checking(0, "pkg.mod.Worker"), Settled(0, (result,)), ProbeFailed("Bug: here")]
    text = b"".join(progress_line(r) for r in records).decode()
    assert read_progress(text) == records
    cut = text + progress_line(Importing("pkg.other")).decode()[:-9]
    assert read_progress(cut) == records
    assert all(line.count(b"\n") == 1 and line.endswith(b"\n") for line in map(progress_line, records))


def test_the_answer_is_written_atomically_and_read_back(tmp_path: Path) -> None:
    result = ProbeResult("pkg.mod.Worker", "SpecWorker", Verdict.SKIPPED, note="not defined")
    answer = ProbeAnswer({0: (result,), 2: ()})
    write_answer(str(tmp_path / "result.json"), answer)
    assert read_answer(tmp_path / "result.json") == answer
    assert read_answer(tmp_path / "absent.json") is None
    (tmp_path / "damaged.json").write_text('{"results": [[0, [{"target": 1}]]]}')
    assert read_answer(tmp_path / "damaged.json") is None
