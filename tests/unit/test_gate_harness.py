"""The generated harness (fast: it is built, parsed and inspected, never checked)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from spec_protocols.gate._discovery._selection import discover
from spec_protocols.gate._discovery._targets import resolve_target
from spec_protocols.gate._harness._lines import CANARY_MEMBER, LineKind, build_harness, protocol_members
from spec_protocols.gate._model import ClassRole, DiscoveredClass, GateError


def _cls(module: str, qualname: str, *roles: ClassRole) -> DiscoveredClass:
    return DiscoveredClass(module, qualname, Path("/dev/null"), 1, frozenset(roles or {ClassRole.SPEC_WORKER}))


@pytest.fixture(scope="module")
def sglang_classes() -> tuple[DiscoveredClass, ...]:
    if importlib.util.find_spec("sglang") is None:
        pytest.skip("sglang is not installed")
    return discover([resolve_target("sglang.srt.speculative")]).classes


@pytest.fixture(scope="module")
def harness(sglang_classes):
    return build_harness(sglang_classes)


def test_harness_is_valid_python(harness) -> None:
    ast.parse(harness.text)


def test_every_protocol_member_has_a_tagged_line(harness, sglang_classes) -> None:
    lines = harness.text.splitlines()
    for cls in sglang_classes:
        for check in cls.checks:
            tags = [(n, t) for n, t in harness.tags.items() if t.target == cls.dotted and t.check == check]
            if check.protocol == "DraftWorkerFactory":
                kinds = {t.kind for _, t in tags}
                assert kinds == {LineKind.FACTORY, LineKind.CONSTRUCTOR}, (cls.dotted, kinds)
                continue
            members = {t.member for _, t in tags if t.kind is LineKind.MEMBER}
            assert members == {m.name for m in protocol_members(check.protocol)}, cls.dotted
            assert [t for _, t in tags if t.kind is LineKind.PROTOCOL]
            for n, tag in tags:
                if tag.member is not None and tag.member != "__init__":
                    assert f".{tag.member}" in lines[n - 1], (n, lines[n - 1])
    assert sorted(harness.checks) == sorted({c for cls in sglang_classes for c in cls.checks})


def test_properties_get_a_type_line(harness) -> None:
    props = {m.name for m in protocol_members("SpecWorker") if m.is_property}
    assert "draft_parallel_layout" in props
    typed = {t.member for t in harness.tags.values() if t.kind is LineKind.MEMBER_TYPE}
    assert props <= typed


def test_canary_lines_exist_for_every_class(harness, sglang_classes) -> None:
    lines = harness.text.splitlines()
    assert f"    def {CANARY_MEMBER}(self) -> None: ..." in lines
    for cls in sglang_classes:
        kinds: dict[LineKind, int] = {}
        for n, t in sorted(harness.tags.items()):
            if t.target == cls.dotted:
                kinds.setdefault(t.kind, n)  # the first line of each kind
        assert lines[kinds[LineKind.CANARY_INSTANCE] - 1].strip() == f"w.{CANARY_MEMBER}"
        assert lines[kinds[LineKind.CANARY_CLASS] - 1].strip().endswith(f"{cls.qualname}.{CANARY_MEMBER}")
        assert lines[kinds[LineKind.IMPORT] - 1].startswith(f"import {cls.module} as ")


def test_tags_point_inside_the_text(harness) -> None:
    count = len(harness.text.splitlines())
    assert all(1 <= n <= count for n in harness.tags)


@pytest.mark.parametrize(
    ("protocol", "constructor", "expected"),
    [
        ("DraftWorkerFactory", "DraftWorkerFactory", {"server_args", "gpu_id", "nccl_port", "is_draft_worker", "random_seed", "load_group"}),
        ("SpecWorker", "SpecWorkerFactory", {"server_args", "gpu_id", "nccl_port", "target_worker"}),
    ],
)
def test_constructor_lines_make_sglangs_calls(harness, protocol: str, constructor: str, expected: set[str]) -> None:
    """Injected classes are built as build_draft_tp_worker builds them; spec
    workers as the scheduler builds them."""
    (factory,) = protocol_members(constructor)
    keywords = {a.arg for a in factory.node.args.kwonlyargs}
    assert expected <= keywords
    lines = harness.text.splitlines()
    calls = [
        lines[n - 1]
        for n, t in harness.tags.items()
        if t.kind is LineKind.CONSTRUCTOR and t.check is not None and t.check.protocol == protocol
        and not lines[n - 1].startswith("def ")
    ]
    assert calls
    for line in calls:
        call = ast.parse(line.strip(), mode="eval").body
        assert isinstance(call, ast.Call)
        assert {k.arg for k in call.keywords} == keywords


@pytest.mark.parametrize(
    ("module", "qualname"),
    [
        ("x;import os", "W"),
        ("pkg", "W; import os"),
        ("os.system('x')", "W"),
        ("pkg", "class"),
        ("import", "W"),
        ("pkg", "W\nimport os"),
        ("pkg", ""),
    ],
)
def test_identifiers_are_validated(module: str, qualname: str) -> None:
    with pytest.raises(GateError, match="not a valid"):
        build_harness([_cls(module, qualname)])


def test_nested_and_injected_class(tmp_path: Path) -> None:
    harness = build_harness(
        [
            _cls("plug.mod", "Outer.Inner"),
            _cls("plug.mod", "Made", ClassRole.INJECTED, ClassRole.DRAFT_WORKER),
        ]
    )
    ast.parse(harness.text)
    assert "import plug.mod as _m" in harness.text
    assert any(t.kind is LineKind.CONSTRUCTOR and t.target == "plug.mod.Made" for t in harness.tags.values())
    assert {c.protocol for c in harness.checks} == {"SpecWorker", "DraftWorker", "DraftWorkerFactory"}


def test_deterministic(sglang_classes) -> None:
    assert build_harness(sglang_classes).text == build_harness(tuple(reversed(sglang_classes))).text
