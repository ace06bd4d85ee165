"""Discovery reads which classes a plugin hands sglang to build (fast: source only, no checker).

* registrations (``SpeculativeAlgorithm.register``, decorating or applied to
  a factory, inside an entry-point function with its own imports, and a
  registry decorator of the plugin's own) make their factories' classes spec
  workers that must be concrete, whatever their bases say;
* a ``spec_class``'s ``create_worker`` (replacing the base's, or wrapping
  its result in a ``functools.partial``) and its ``supports_*`` predicates;
* explicit subclasses of the ``SpecWorker``/``DraftWorker`` protocols are workers;
* ``self.attr`` injections are followed to the classes assigned to ``attr``;
  an injection that cannot be followed holds the ``TpModelWorker``
  subclasses its module can name to the factory call;
* :func:`spec_protocols.gate._roles.registered_terms` selects the scheduler
  branch (and its calls) a registration's flags leave;
* each registration's algorithm object is checked as ``SpecAlgorithm``: its
  ``spec_class``, or sglang's ``CustomSpecAlgo`` when it passes none, with
  the module-level factory it registers.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from spec_protocols.gate._discovery._selection import discover
from spec_protocols.gate._discovery._targets import resolve_target
from spec_protocols.gate._model import ClassRole, DiscoveredClass, Discovery, Registration
from spec_protocols.gate._roles import registered_terms

HEAD = """
from __future__ import annotations
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
"""


def _discover(tmp_path: Path, source: str, name: str = "plugin") -> Discovery:
    file = tmp_path / f"{name}.py"
    file.write_text(textwrap.dedent(HEAD) + textwrap.dedent(source), encoding="utf-8")
    return discover([resolve_target(str(file))])


def _by_name(found: Discovery) -> dict[str, DiscoveredClass]:
    return {c.qualname: c for c in found.classes}


def test_registered_class_that_lists_abc_must_be_concrete(tmp_path: Path) -> None:
    classes = _by_name(
        _discover(
            tmp_path,
            """
            class ProposerBase(BaseSpecWorker, ABC):
                @abstractmethod
                def propose(self) -> None: ...

            class Worker(ProposerBase, ABC):
                pass

            class Unregistered(BaseSpecWorker, ABC):
                pass

            def register() -> None:
                from sglang.srt.speculative.spec_info import SpeculativeAlgorithm as Algo

                @Algo.register("MINE", supports_overlap=True)
                def _factory(server_args):
                    return Worker
            """,
        )
    )
    assert not classes["Worker"].may_be_abstract
    registration = classes["Worker"].registrations[0]
    assert registration.name == "MINE" and registration.flags == (("supports_overlap", True),)
    lines = (tmp_path / "plugin.py").read_text(encoding="utf-8").splitlines()
    at = next(n for n, line in enumerate(lines, 1) if "@Algo.register" in line)
    assert registration.site == f"{tmp_path / 'plugin.py'}:{at}"
    # Nothing instantiates these: "abstract on purpose" still holds.
    assert classes["ProposerBase"].may_be_abstract and not classes["ProposerBase"].registrations
    assert classes["Unregistered"].may_be_abstract


def test_factory_returning_a_base_reaches_both(tmp_path: Path) -> None:
    classes = _by_name(
        _discover(
            tmp_path,
            """
            from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

            class Base(BaseSpecWorker):
                @abstractmethod
                def propose(self) -> None: ...

            class Wide(Base):
                def propose(self) -> None: ...

            class Narrow(Base):
                def propose(self) -> None: ...

            @SpeculativeAlgorithm.register("PICK")
            def _factory(server_args):
                chosen = Narrow if server_args.narrow else Base
                if server_args.wide:
                    return Wide
                return chosen
            """,
        )
    )
    workers = {n for n, c in classes.items() if c.registrations and ClassRole.SPEC_WORKER in c.roles}
    assert workers == {"Base", "Wide", "Narrow"}
    assert not classes["Base"].may_be_abstract  # subclassed, but the factory returns it
    assert classes["Base"].registrations[0].flags == ()  # supports_overlap left at its default


def test_applied_registration_and_register_algorithm(tmp_path: Path) -> None:
    classes = _by_name(
        _discover(
            tmp_path,
            """
            import sglang.srt.speculative.spec_registry as registry
            from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

            class Structural:
                def forward_batch_generation(self, batch, *, on_publish=None): ...

            class Lambda(BaseSpecWorker):
                pass

            def make(server_args):
                return Structural

            registry.register_algorithm("A", supports_overlap=False)(make)
            SpeculativeAlgorithm.register("B", supports_overlap=SOME_FLAG)(lambda server_args: Lambda)
            """,
        )
    )
    # A class a registration hands the scheduler is a spec worker, whatever its bases.
    assert classes["Structural"].roles == {ClassRole.SPEC_WORKER}
    assert classes["Structural"].registrations[0].flags == (("supports_overlap", False),)
    assert classes["Lambda"].registrations[0].dynamic == ("supports_overlap",)


def test_spec_class_create_worker_and_predicates(tmp_path: Path) -> None:
    classes = _by_name(
        _discover(
            tmp_path,
            """
            import functools
            from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
            from sglang.srt.speculative.spec_registry import CustomSpecAlgo

            class Quiet(CustomSpecAlgo):
                def create_worker(self, server_args):
                    return self.factory(server_args)

            class Bound(CustomSpecAlgo):
                def create_worker(self, server_args):
                    worker_cls = super().create_worker(server_args)
                    return functools.partial(worker_cls, block_size=4)

                def supports_grammar_overlap(self) -> bool:
                    return True

                def supports_mixed_chunk(self) -> bool:
                    return False

            class Direct(CustomSpecAlgo):
                def create_worker(self, server_args):
                    return Other

            class A(BaseSpecWorker): ...
            class B(BaseSpecWorker): ...
            class C(BaseSpecWorker, ABC): ...
            class Other(BaseSpecWorker, ABC): ...

            SpeculativeAlgorithm.register("A", spec_class=Quiet)(lambda s: A)
            SpeculativeAlgorithm.register("B", supports_overlap=True, spec_class=Bound)(lambda s: B)
            SpeculativeAlgorithm.register("C", spec_class=Direct)(lambda s: C)
            """,
        )
    )
    quiet = classes["A"].registrations[0]
    assert quiet.spec_class == "plugin.Quiet" and quiet.replaces_create_worker
    bound = classes["B"].registrations[0]
    assert not bound.replaces_create_worker
    assert bound.bound_keywords == ("block_size",)
    assert bound.capabilities == ("supports_grammar_overlap",)
    # create_worker returns Other, never the factory's C: only Other is built.
    assert classes["Other"].registrations and not classes["Other"].may_be_abstract
    assert not classes["C"].registrations and classes["C"].may_be_abstract


def test_own_registry_decorator_with_unpacked_options(tmp_path: Path) -> None:
    classes = _by_name(
        _discover(
            tmp_path,
            """
            _WORKERS = {}

            def speculative_worker(name, **options):
                def decorate(cls):
                    _WORKERS[name] = (cls, options)
                    return cls
                return decorate

            @speculative_worker("CHUNKED", supports_overlap=False)
            class Chunked(BaseSpecWorker, ABC):
                pass

            def register() -> None:
                from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

                for name, (cls, options) in _WORKERS.items():
                    SpeculativeAlgorithm.register(name, **options)(lambda server_args, cls=cls: cls)
            """,
        )
    )
    chunked = classes["Chunked"]
    assert [r.flags for r in chunked.registrations] == [(("supports_overlap", False),)]
    assert not chunked.may_be_abstract


def test_explicit_protocol_subclasses_are_workers(tmp_path: Path) -> None:
    classes = _by_name(
        _discover(
            tmp_path,
            """
            import spec_protocols as sp
            from spec_protocols import SpecWorker
            from spec_protocols._protocols import DraftWorker as Draft

            class Thin(SpecWorker):
                def forward_batch_generation(self, batch, /, *, on_publish=None): ...

            class Explicit(sp.SpecWorker):
                pass

            class MyDraft(Draft):
                pass

            class ViaInjectable(sp.InjectableDraftWorker):
                pass
            """,
        )
    )
    assert classes["Thin"].roles == {ClassRole.SPEC_WORKER}
    assert classes["Explicit"].roles == {ClassRole.SPEC_WORKER}
    assert classes["MyDraft"].roles == {ClassRole.DRAFT_WORKER}
    assert classes["ViaInjectable"].roles == {ClassRole.DRAFT_WORKER}
    # What the class inherits from the protocol is the protocol's stub, and says so.
    stub = classes["Thin"].definition("preloaded_weights_bytes")
    assert stub is not None and stub.owner == "spec_protocols._protocols.SpecWorker"
    own = classes["Thin"].definition("forward_batch_generation")
    assert own is not None and own.owner == "plugin.Thin"
    assert not classes["Thin"].may_be_abstract


INJECTING = """
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker

class Legacy(TpModelWorker):
    def __init__(self, server_args, gpu_id, nccl_port): ...

class Other(TpModelWorker):
    pass
"""


def test_self_attribute_injection_is_followed(tmp_path: Path) -> None:
    found = _discover(
        tmp_path,
        INJECTING
        + """
class Worker(BaseSpecWorker):
    draft_cls: type[TpModelWorker] = Legacy

    def __init__(self, server_args):
        build_draft_tp_worker(server_args=server_args, draft_worker_cls=self.draft_cls)

class Sub(Worker):
    draft_cls = Other
""",
    )
    classes = _by_name(found)
    assert ClassRole.INJECTED in classes["Legacy"].roles
    assert ClassRole.INJECTED in classes["Other"].roles  # a subclass's value reaches the same call
    assert classes["Legacy"].injection_sites
    assert not found.sites  # every value was followed: nothing is left to judge in place


def test_unfollowed_injection_holds_nameable_tp_model_workers(tmp_path: Path) -> None:
    (tmp_path / "elsewhere.py").write_text(
        "from sglang.srt.managers.tp_worker import TpModelWorker\n\nclass FarAway(TpModelWorker):\n    pass\n",
        encoding="utf-8",
    )
    found = discover(
        [
            resolve_target(str(_write(tmp_path, "plugin.py", INJECTING + _UNFOLLOWED))),
            resolve_target(str(tmp_path / "elsewhere.py")),
        ]
    )
    classes = _by_name(found)
    assert len(found.sites) == 1 and found.sites[0].text == "pick(server_args)"
    assert ClassRole.INJECTED in classes["Legacy"].roles
    assert ClassRole.INJECTED in classes["Other"].roles
    assert classes["Legacy"].injection_sites == (f"{tmp_path / 'plugin.py'}:{found.sites[0].line}",)
    # A module that cannot name a class cannot inject it.
    assert classes["FarAway"].roles == {ClassRole.DRAFT_WORKER}


_UNFOLLOWED = """
def pick(server_args) -> type[TpModelWorker]:
    return Legacy if server_args.legacy else Other

class Worker(BaseSpecWorker):
    def __init__(self, server_args):
        build_draft_tp_worker(server_args=server_args, draft_worker_cls=pick(server_args))
"""


def _write(root: Path, name: str, text: str) -> Path:
    file = root / name
    file.write_text(textwrap.dedent(HEAD) + text, encoding="utf-8")
    return file


# -- what registrations select -----------------------------------------------


@dataclass
class _Terms:
    """A stand-in for ReleaseTerms' branch fields, as sglang 0.5.23 reads."""

    branch_shapes: Mapping[str, Mapping[str, object]] = field(
        default_factory=lambda: {
            "overlap": {"forward_batch_generation": "(batch, on_publish=)"},
            "synchronous": {"forward_batch_generation": "(batch, pp_proxy_tensors=)"},
        }
    )
    overlap_flag: str | None = "supports_overlap"
    overlap_flag_default: bool = False
    branch_only: Mapping[str, str] = field(default_factory=lambda: {"last_shared_read_runner": "overlap"})

    def branches_for(self, registration: Mapping[str, object]) -> frozenset[str]:
        if registration.get("supports_overlap", self.overlap_flag_default) is False:
            return frozenset({"synchronous"})
        return frozenset({"overlap", "synchronous"})


def _registration(**kwargs: Any) -> Registration:
    return Registration("X", "plugin.py:1", **kwargs)


@pytest.mark.parametrize(
    ("registration", "branches"),
    [
        (_registration(), {"synchronous"}),  # register's default: supports_overlap=False
        (_registration(flags=(("supports_overlap", False),)), {"synchronous"}),
        (_registration(flags=(("supports_overlap", True),)), {"overlap"}),  # sglang's default schedule
        (_registration(dynamic=("supports_overlap",)), {"overlap"}),
        # create_worker replaced: its refusal of overlap scheduling is gone.
        (_registration(flags=(("supports_overlap", False),), replaces_create_worker=True), {"overlap"}),
        (_registration(dynamic=("**",)), {"overlap", "synchronous"}),  # nothing read: every branch
    ],
)
def test_registered_branches(registration: Registration, branches: set[str]) -> None:
    held = registered_terms([registration], _Terms())
    assert held.branches == branches
    expected = {"overlap": "(batch, on_publish=)", "synchronous": "(batch, pp_proxy_tensors=)"}
    assert set(held.calls["forward_batch_generation"]) == {expected[b] for b in branches}
    # What only the overlap loops use is required unless the algorithm never runs them.
    assert held.unreached == ({"last_shared_read_runner"} if branches == {"synchronous"} else set())


def test_registered_capabilities_and_bound_keywords() -> None:
    grammar = _registration(
        flags=(("supports_overlap", True),), capabilities=("supports_grammar_overlap",), bound_keywords=("block_size",)
    )
    held = registered_terms([grammar], _Terms())
    assert held.capabilities == ("SupportsGrammarOverlap",)
    assert held.bound_keywords == ("block_size",)
    # The scheduler adds grammar_barrier= on the overlap call only.
    sync_only = _registration(capabilities=("supports_grammar_overlap",))
    assert registered_terms([sync_only], _Terms()).capabilities == ()


def test_no_registration_holds_to_the_protocol() -> None:
    held = registered_terms([], _Terms())
    assert held.branches is None and not held.calls
    assert registered_terms([_registration()], _Terms(overlap_flag=None)).branches is None


def test_local_annotated_name_is_followed(tmp_path: Path) -> None:
    found = _discover(
        tmp_path,
        INJECTING
        + """
class Worker(BaseSpecWorker):
    def __init__(self, server_args, chosen):
        draft: type[TpModelWorker] = Legacy
        build_draft_tp_worker(server_args=server_args, draft_worker_cls=draft)
        other = chosen
        build_draft_tp_worker(server_args=server_args, draft_worker_cls=other)
""",
    )
    classes = _by_name(found)
    assert ClassRole.INJECTED in classes["Legacy"].roles
    # `other` holds a parameter's value: judged in place, and Other may be what it is.
    assert [s.text for s in found.sites] == ["other"]
    assert ClassRole.INJECTED in classes["Other"].roles


# -- the algorithm object ---------------------------------------------------------

_ALGORITHM_HEAD = """
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo

class Worker(BaseSpecWorker):
    def forward_batch_generation(self, batch, **kwargs): ...
"""


def test_a_default_registration_checks_sglangs_custom_spec_algo(tmp_path: Path) -> None:
    found = _discover(
        tmp_path,
        _ALGORITHM_HEAD
        + """
@SpeculativeAlgorithm.register("PLAIN", supports_overlap=True)
def _factory(server_args):
    return Worker
""",
    )
    algorithm = next(c for c in found.classes if ClassRole.ALGORITHM in c.roles)
    assert algorithm.dotted == "sglang.srt.speculative.spec_registry.CustomSpecAlgo"
    assert algorithm.checks[0].protocol == "SpecAlgorithm"
    (registration,) = algorithm.registrations
    assert registration.spec_class is None and registration.spec_class_text is None
    assert registration.factory == "plugin._factory"
    assert not algorithm.may_be_abstract


def test_a_spec_class_is_the_algorithm_object_and_custom_spec_algo_is_not_checked(tmp_path: Path) -> None:
    found = _discover(
        tmp_path,
        _ALGORITHM_HEAD
        + """
class Algo(CustomSpecAlgo):
    pass

SpeculativeAlgorithm.register("OWN", spec_class=Algo)(lambda server_args: Worker)
""",
    )
    algorithms = {c.dotted: c for c in found.classes if ClassRole.ALGORITHM in c.roles}
    assert set(algorithms) == {"plugin.Algo"}
    # A lambda has no name an importer can check: no factory to hold.
    assert algorithms["plugin.Algo"].registrations[0].factory is None


def test_a_spec_class_the_gate_cannot_read_is_not_taken_for_the_default(tmp_path: Path) -> None:
    found = _discover(
        tmp_path,
        _ALGORITHM_HEAD
        + """
from elsewhere_not_installed import Algo

@SpeculativeAlgorithm.register("ELSEWHERE", spec_class=Algo)
def _factory(server_args):
    return Worker
""",
    )
    assert not [c for c in found.classes if ClassRole.ALGORITHM in c.roles]
    worker = _by_name(found)["Worker"]
    assert worker.registrations[0].spec_class_text == "Algo" and worker.registrations[0].algorithm == ""
