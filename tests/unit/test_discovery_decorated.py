"""Discovery reads this package's class decorators (fast: source only, no checker).

A class decorated with ``spec_protocols.spec_worker_class`` is a spec worker
and one with ``draft_worker_class`` an injected draft worker, whatever their
bases; the decorator is resolved through the module's imports (aliases, the
private path), never by its bare name, and a decorated class is never excused
as an intentional abstract base (sglang constructs it).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from spec_protocols.gate._discovery._selection import discover
from spec_protocols.gate._discovery._targets import resolve_target
from spec_protocols.gate._model import ClassRole, DiscoveredClass, GateError

SPEC = frozenset({ClassRole.SPEC_WORKER})
DRAFT = frozenset({ClassRole.INJECTED, ClassRole.DRAFT_WORKER})


def _classes(tmp_path: Path, source: str, extra: dict[str, str] | None = None) -> dict[str, DiscoveredClass]:
    for name, text in (extra or {}).items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    file = tmp_path / "plugin.py"
    file.write_text("from __future__ import annotations\n" + textwrap.dedent(source), encoding="utf-8")
    return {c.qualname: c for c in discover([resolve_target(str(file))]).classes}


@pytest.mark.parametrize(
    ("imports", "decorator"),
    [
        ("import spec_protocols", "spec_protocols.spec_worker_class"),
        ("import spec_protocols as sp", "sp.spec_worker_class"),
        ("from spec_protocols import spec_worker_class", "spec_worker_class"),
        ("from spec_protocols import spec_worker_class as w", "w"),
        ("from spec_protocols._class_decorators import spec_worker_class", "spec_worker_class"),
        ("import spec_protocols._class_decorators as d", "d.spec_worker_class"),
        ("from spec_protocols import spec_worker_class\nmark = spec_worker_class", "mark"),
    ],
)
def test_spec_decorator_through_any_binding_makes_a_baseless_class_a_spec_worker(
    tmp_path: Path, imports: str, decorator: str
) -> None:
    classes = _classes(
        tmp_path,
        f"""
{imports}

@{decorator}
class Worker:
    def __init__(self, server_args, gpu_id, nccl_port, target_worker) -> None: ...
""",
    )
    assert classes["Worker"].roles == SPEC
    assert not classes["Worker"].may_be_abstract


def test_draft_decorator_gives_the_injected_roles(tmp_path: Path) -> None:
    classes = _classes(
        tmp_path,
        """
        import spec_protocols as sp
        from spec_protocols import draft_worker_class as draft

        @sp.draft_worker_class
        class Draft:
            pass

        @draft
        class Other:
            pass
        """,
    )
    assert classes["Draft"].roles == DRAFT
    assert classes["Other"].roles == DRAFT
    assert not classes["Draft"].may_be_abstract


def test_decorator_reexported_by_a_plugin_module(tmp_path: Path) -> None:
    classes = _classes(
        tmp_path,
        """
        from compat import mark

        @mark
        class Worker:
            pass
        """,
        extra={"compat": "from spec_protocols import spec_worker_class as mark\n"},
    )
    assert classes["Worker"].roles == SPEC


def test_abstract_decorated_class_is_not_excused(tmp_path: Path) -> None:
    classes = _classes(
        tmp_path,
        """
        from abc import ABC, abstractmethod
        from spec_protocols import SpecWorkerBase, draft_worker_class, spec_worker_class
        from sglang.srt.managers.tp_worker import TpModelWorker

        @spec_worker_class
        class Worker(SpecWorkerBase, ABC):
            @abstractmethod
            def propose(self) -> None: ...

        class Sub(Worker):
            pass

        @draft_worker_class
        class Draft(TpModelWorker, ABC):
            pass

        class Base(SpecWorkerBase, ABC):
            pass
        """,
    )
    assert classes["Worker"].roles == SPEC and not classes["Worker"].may_be_abstract
    assert classes["Draft"].roles == DRAFT and not classes["Draft"].may_be_abstract
    # The undecorated ones keep the rule: an ABC nothing the plugin builds may be abstract.
    assert classes["Base"].may_be_abstract
    assert classes["Sub"].roles == SPEC


def test_undecorated_and_otherwise_decorated_classes_are_unaffected(tmp_path: Path) -> None:
    classes = _classes(
        tmp_path,
        """
        import dataclasses
        import functools
        from spec_protocols import spec_worker_class

        @dataclasses.dataclass
        class Config:
            x: int = 0

        @functools.total_ordering
        class Plain:
            pass

        class Undecorated:
            pass

        @spec_worker_class
        class Worker:
            pass
        """,
    )
    assert set(classes) == {"Worker"}


@pytest.mark.parametrize(
    "imports",
    [
        "from other_pkg import spec_worker_class",
        "from spec_protocols_extra import spec_worker_class",
        "def spec_worker_class(cls):\n    return cls",
        "import other_pkg as spec_protocols",
    ],
)
def test_same_named_decorator_of_another_package_is_not_recognised(tmp_path: Path, imports: str) -> None:
    decorator = "spec_protocols.spec_worker_class" if "as spec_protocols" in imports else "spec_worker_class"
    with pytest.raises(GateError, match="no workers found"):
        _classes(
            tmp_path,
            f"""
{imports}

@{decorator}
class Worker:
    pass
""",
        )


def test_decorated_class_keeps_the_roles_of_its_bases(tmp_path: Path) -> None:
    classes = _classes(
        tmp_path,
        """
        from spec_protocols import spec_worker_class
        from sglang.srt.managers.tp_worker import TpModelWorker

        @spec_worker_class
        class Both(TpModelWorker):
            pass
        """,
    )
    assert classes["Both"].roles == SPEC | {ClassRole.DRAFT_WORKER}
