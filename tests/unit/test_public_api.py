"""The public surface: __all__, runtime-resolvable annotations, no heavy imports, static isinstance."""

from __future__ import annotations

import inspect
import subprocess
import sys
import typing
from typing import Any

import spec_protocols
from spec_protocols import DraftWorker, SpecWorker, SpecWorkerBase, SupportsGrammarOverlap, SupportsPipelineProxy


def test_star_import_exports_exactly_all() -> None:
    namespace: dict[str, Any] = {}
    exec("from spec_protocols import *", namespace)
    exported = {name for name in namespace if name != "__builtins__"}
    assert exported == set(spec_protocols.__all__)
    assert len(spec_protocols.__all__) == len(set(spec_protocols.__all__))


def test_every_public_name_has_a_docstring() -> None:
    for name in spec_protocols.__all__:
        obj = getattr(spec_protocols, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert inspect.getdoc(obj), name


def test_get_type_hints_works_on_every_public_class_and_function() -> None:
    for name in spec_protocols.__all__:
        obj = getattr(spec_protocols, name)
        if inspect.isfunction(obj):
            typing.get_type_hints(obj)
        elif inspect.isclass(obj):
            typing.get_type_hints(obj)
            for member_name, member in vars(obj).items():
                if isinstance(member, property) and member.fget is not None:
                    typing.get_type_hints(member.fget)
                elif inspect.isfunction(member):
                    typing.get_type_hints(member)
                elif isinstance(member, (staticmethod, classmethod)):
                    typing.get_type_hints(member.__func__)
                del member_name


def test_import_does_not_load_torch_or_sglang() -> None:
    code = (
        "import sys, spec_protocols\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'sglang'))\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


class Delegating:
    """Satisfies nothing itself; answers any attribute through __getattr__."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def test_isinstance_with_the_protocols_ignores_getattr() -> None:
    for protocol in (SpecWorker, DraftWorker, SupportsGrammarOverlap, SupportsPipelineProxy):
        assert not isinstance(Delegating(), protocol), protocol


def test_isinstance_accepts_a_real_implementation() -> None:
    class Worker(SpecWorkerBase):
        def forward_batch_generation(self, batch: Any, /, *, on_publish: Any = None) -> Any: ...

    assert isinstance(Worker(target_worker=object()), SpecWorker)


def test_version_comes_from_the_package_metadata() -> None:
    from importlib import metadata

    assert spec_protocols.__version__ == metadata.version("spec-protocols")
    # One source of truth: pyproject.toml. No version literal in the package.
    source = inspect.getsource(spec_protocols)
    assert metadata.version("spec-protocols") not in source


def test_the_gate_package_is_the_public_surface_of_the_gate() -> None:
    """spec_protocols.gate exports the pipeline API and the model; every other
    gate module is private by name (a leading underscore)."""
    import pkgutil

    import spec_protocols.gate as gate

    public = [m.name for m in pkgutil.walk_packages(gate.__path__, "spec_protocols.gate.") if not m.name.split(".")[-1].startswith("_")]
    assert public == []
    for name in gate.__all__:
        assert getattr(gate, name) is not None
    assert {"run_gate", "GateReport", "GateError", "Result", "Check", "Verdict", "Problem"} <= set(gate.__all__)


def test_one_name_one_concept() -> None:
    """The library's conformance problem and the gate's finding are different
    things, with different names."""
    import spec_protocols.gate as gate

    assert spec_protocols.ConformanceProblem is not gate.Problem
    assert "Problem" not in spec_protocols.__all__
