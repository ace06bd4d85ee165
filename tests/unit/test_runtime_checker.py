"""The runtime checker against targets that misbehave, and the checks it adds.

Every target is a small module written to ``tmp_path``: a worker on
:class:`spec_protocols.SpecWorkerBase` whose sglang types appear only under
``TYPE_CHECKING``, so it imports without sglang (and without torch). Each test
runs the real probe subprocess through ``run_runtime``; none needs a checker.

The misbehaviours are those of real plugin modules: printing at import and at
exit, writing to stderr, starting a thread that never ends, ``sys.exit`` or
``os._exit`` at import, classes that only exist for type checkers, and a
dependency that is not installed.
"""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

import pytest

from spec_protocols.gate._checkers._runtime import SITE_NOTE, run_runtime
from spec_protocols.gate._checkers._runtime._probe import NOT_DEFINED
from spec_protocols.gate._model import (
    ABSTRACT_BASE_NOTE,
    Check,
    CheckerOutcome,
    ClassRole,
    DiscoveredClass,
    GateError,
    InjectionSite,
    Verdict,
)

TIMEOUT = 60.0

HEADER = '''\
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from spec_protocols import SpecWorkerBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs
'''

WORKER = '''
class {name}(SpecWorkerBase):
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Any = None
    ) -> GenerationBatchResult:
        raise NotImplementedError
'''


def worker(name: str = "Worker") -> str:
    """The source of a conforming spec worker class called ``name``."""
    return WORKER.format(name=name)


def write(root: Path, module: str, *sources: str, header: bool = True) -> None:
    """Write ``module`` (dotted; packages get no ``__init__.py`` unless written) under ``root``.

    Each source piece is dedented on its own, then they are joined.
    """
    path = root.joinpath(*module.split(".")).with_suffix(".py")
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(textwrap.dedent(source) for source in sources)
    path.write_text((HEADER if header else "") + text, encoding="utf-8")


def spec(module: str, qualname: str = "Worker", *, may_be_abstract: bool = False) -> DiscoveredClass:
    return cls(module, qualname, ClassRole.SPEC_WORKER, may_be_abstract=may_be_abstract)


def cls(module: str, qualname: str, *roles: ClassRole, may_be_abstract: bool = False) -> DiscoveredClass:
    return DiscoveredClass(
        module=module,
        qualname=qualname,
        file=Path(f"{module}.py"),
        line=1,
        roles=frozenset(roles),
        may_be_abstract=may_be_abstract,
    )


def run(root: Path, *classes: DiscoveredClass, timeout: float = TIMEOUT) -> CheckerOutcome:
    return run_runtime(classes, [root], timeout)


def verdict(outcome: CheckerOutcome, target: str, protocol: str = "SpecWorker") -> Verdict:
    return outcome.verdicts[Check(target, protocol)]


def messages(outcome: CheckerOutcome, target: str, protocol: str = "SpecWorker") -> list[tuple[str | None, str]]:
    return [(p.member, p.message) for p in outcome.problems[Check(target, protocol)]]


# -- a target cannot break the result channel ----------------------------------


def test_printing_atexit_stderr_and_a_lingering_thread_change_nothing(tmp_path: Path) -> None:
    # Before: the last stdout line was the result, so the atexit print made
    # "the runtime checker crashed"; a non-daemon thread kept the probe alive.
    write(
        tmp_path,
        "noisy",
        '''
        import atexit
        import sys
        import threading
        import time

        print("imported noisy")
        print("a warning of the target's", file=sys.stderr)
        atexit.register(lambda: print('{"results": []}'))
        threading.Thread(target=time.sleep, args=(120,), daemon=False).start()
        ''',
        worker(),
    )
    start = time.monotonic()
    outcome = run(tmp_path, spec("noisy"))
    assert time.monotonic() - start < 30, "the probe waited for the target's thread"
    assert verdict(outcome, "noisy.Worker") is Verdict.PASS, outcome
    assert outcome.problems[Check("noisy.Worker", "SpecWorker")] == ()
    assert Check("noisy.Worker", "SpecWorker") not in outcome.notes


def test_sys_exit_at_import_skips_that_module_with_the_reason(tmp_path: Path) -> None:
    write(tmp_path, "quits", "import sys\n\nsys.exit(3)\n" + worker())
    write(tmp_path, "fine", worker())
    outcome = run(tmp_path, spec("quits"), spec("fine"))
    assert verdict(outcome, "quits.Worker") is Verdict.SKIPPED
    assert outcome.notes[Check("quits.Worker", "SpecWorker")] == (
        "cannot import quits: called sys.exit(3) while being imported"
    )
    assert verdict(outcome, "fine.Worker") is Verdict.PASS


def test_a_hard_exit_at_import_costs_only_that_module(tmp_path: Path) -> None:
    write(tmp_path, "before", worker() + worker("Second"))
    write(tmp_path, "dies", "import os\n\nos._exit(7)\n" + worker())
    write(tmp_path, "after", worker("NoInit").replace("def __init__", "def _unused"))
    outcome = run(tmp_path, spec("before"), spec("dies"), spec("after", "NoInit"), spec("before", "Second"))
    # Checked before the death: kept. The dying module: skipped, saying so.
    assert verdict(outcome, "before.Worker") is Verdict.PASS
    assert verdict(outcome, "before.Second") is Verdict.PASS
    assert verdict(outcome, "dies.Worker") is Verdict.SKIPPED
    assert outcome.notes[Check("dies.Worker", "SpecWorker")] == "the runtime probe died while importing dies (exit 7)"
    # After it: a fresh probe still gives a real verdict (here a failing one).
    assert verdict(outcome, "after.NoInit") is Verdict.FAIL
    assert len(outcome.verdicts) == 4


def test_two_hard_exits_still_terminate_with_every_verdict(tmp_path: Path) -> None:
    write(tmp_path, "one", "import os\n\nos._exit(1)\n" + worker())
    write(tmp_path, "two", "import os\n\nos._exit(2)\n" + worker())
    write(tmp_path, "fine", worker())
    outcome = run(tmp_path, spec("one"), spec("fine"), spec("two"))
    assert outcome.notes[Check("one.Worker", "SpecWorker")].endswith("(exit 1)")
    assert outcome.notes[Check("two.Worker", "SpecWorker")].endswith("(exit 2)")
    assert verdict(outcome, "fine.Worker") is Verdict.PASS


def test_a_hard_exit_while_checking_a_class_costs_only_that_class(tmp_path: Path) -> None:
    # inspect.signature(cls) reads the metaclass's __signature__: target code
    # runs during the check, not only during the import.
    write(
        tmp_path,
        "sneaky",
        '''
        import abc
        import os

        class ExitingMeta(abc.ABCMeta):
            @property
            def __signature__(cls) -> Any:
                os._exit(9)
        ''',
        worker(),
        worker("Sneaky").replace("(SpecWorkerBase):", "(SpecWorkerBase, metaclass=ExitingMeta):"),
    )
    outcome = run(tmp_path, spec("sneaky"), spec("sneaky", "Sneaky"))
    assert verdict(outcome, "sneaky.Worker") is Verdict.PASS
    assert verdict(outcome, "sneaky.Sneaky") is Verdict.SKIPPED
    assert outcome.notes[Check("sneaky.Sneaky", "SpecWorker")] == (
        "the runtime probe died while checking sneaky.Sneaky (exit 9)"
    )


def test_a_probe_that_cannot_start_is_a_gate_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\necho 'probe: cannot start' >&2\nexit 1\n", encoding="utf-8")
    broken.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(broken))
    write(tmp_path, "fine", worker())
    with pytest.raises(GateError, match=r"the runtime checker crashed \(exit 1\): probe: cannot start"):
        run(tmp_path, spec("fine"))


def test_a_timeout_is_a_gate_error_naming_the_module(tmp_path: Path) -> None:
    write(tmp_path, "slow", "import time\n\ntime.sleep(60)\n" + worker())
    start = time.monotonic()
    with pytest.raises(GateError, match=r"exceeded --timeout 2s while importing slow"):
        run(tmp_path, spec("slow"), timeout=2)
    assert time.monotonic() - start < 30


# -- per class, not per module --------------------------------------------------


def test_a_class_only_type_checkers_see_is_skipped_alone(tmp_path: Path) -> None:
    write(
        tmp_path,
        "typed",
        worker()
        + '''
if TYPE_CHECKING:
    class OnlyTyped(SpecWorkerBase):
        pass
''',
    )
    outcome = run(tmp_path, spec("typed", "OnlyTyped"), spec("typed"))
    assert verdict(outcome, "typed.OnlyTyped") is Verdict.SKIPPED
    assert outcome.notes[Check("typed.OnlyTyped", "SpecWorker")] == NOT_DEFINED
    assert NOT_DEFINED.startswith("not defined when the module is imported (a class that only exists for type checkers")
    assert verdict(outcome, "typed.Worker") is Verdict.PASS


def test_a_module_getattr_does_not_invent_a_class(tmp_path: Path) -> None:
    write(tmp_path, "lazy", worker() + "\n\ndef __getattr__(name: str) -> Any:\n    return Worker\n")
    outcome = run(tmp_path, spec("lazy", "Ghost"))
    assert outcome.notes[Check("lazy.Ghost", "SpecWorker")] == NOT_DEFINED


def test_nested_classes_are_found(tmp_path: Path) -> None:
    write(tmp_path, "nested", "class Outer:\n" + textwrap.indent(worker("Inner"), "    "))
    outcome = run(tmp_path, spec("nested", "Outer.Inner"))
    assert verdict(outcome, "nested.Outer.Inner") is Verdict.PASS


# -- true skip reasons ----------------------------------------------------------


def test_a_missing_dependency_is_the_reason(tmp_path: Path) -> None:
    write(tmp_path, "needs_dep", "import spec_protocols_not_installed_dep\n" + worker())
    outcome = run(tmp_path, spec("needs_dep"))
    assert outcome.notes[Check("needs_dep.Worker", "SpecWorker")] == (
        "cannot import needs_dep: ModuleNotFoundError: No module named 'spec_protocols_not_installed_dep'"
    )


def test_every_module_of_a_package_whose_init_fails_names_the_missing_dependency(tmp_path: Path) -> None:
    # sglang's shape when numpy is missing: the package's __init__ imports a
    # submodule of a namespace package (sglang/srt has no __init__.py), then
    # fails on the dependency. Python drops the package from sys.modules but
    # keeps fakepkg.core, whose namespace path is recomputed from
    # sys.modules["fakepkg"]: the second import used to fail with
    # "KeyError: 'fakepkg'" instead of the missing module.
    write(tmp_path, "fakepkg.__init__", "from fakepkg.core import env\nimport spec_protocols_missing_numpy\n", header=False)
    write(tmp_path, "fakepkg.core.env", "VALUE = 1\n", header=False)
    for name in ("worker_a", "worker_b", "worker_c"):
        write(tmp_path, f"fakepkg.core.{name}", "import fakepkg\n" + worker())
    modules = [f"fakepkg.core.{name}" for name in ("worker_a", "worker_b", "worker_c")]
    outcome = run(tmp_path, *(spec(module) for module in modules))
    for module in modules:
        assert outcome.notes[Check(f"{module}.Worker", "SpecWorker")] == (
            f"cannot import {module}: ModuleNotFoundError: No module named 'spec_protocols_missing_numpy'"
        ), outcome.notes


def test_a_target_that_swallows_the_import_error_does_not_spoil_the_next_reason(tmp_path: Path) -> None:
    # The same half-imported state, left by a successful import that caught
    # the ImportError itself (a common "optional dependency" guard).
    write(tmp_path, "fakepkg.__init__", "from fakepkg.core import env\nimport spec_protocols_missing_numpy\n", header=False)
    write(tmp_path, "fakepkg.core.env", "VALUE = 1\n", header=False)
    write(tmp_path, "fakepkg.core.worker", "import fakepkg\n", worker())
    write(tmp_path, "tolerant", "try:\n    import fakepkg.core.env\nexcept ImportError:\n    pass\n", worker())
    outcome = run(tmp_path, spec("tolerant"), spec("fakepkg.core.worker"))
    assert verdict(outcome, "tolerant.Worker") is Verdict.PASS
    assert outcome.notes[Check("fakepkg.core.worker.Worker", "SpecWorker")] == (
        "cannot import fakepkg.core.worker: ModuleNotFoundError: No module named 'spec_protocols_missing_numpy'"
    )


def test_an_error_message_that_starts_with_a_newline_is_still_read(tmp_path: Path) -> None:
    # sgl_kernel's ImportError starts with "\n[sgl_kernel] CRITICAL: ...".
    write(tmp_path, "kernel", 'raise ImportError("\\n[kernel] CRITICAL: no library\\n\\nmore detail")\n' + worker())
    outcome = run(tmp_path, spec("kernel"))
    assert outcome.notes[Check("kernel.Worker", "SpecWorker")] == (
        "cannot import kernel: ImportError: [kernel] CRITICAL: no library"
    )


# -- the constructor and abstract classes ---------------------------------------


def test_a_renamed_constructor_keyword_fails_on_init(tmp_path: Path) -> None:
    write(tmp_path, "renamed", worker().replace("gpu_id: int", "gpu: int"))
    outcome = run(tmp_path, spec("renamed"))
    assert verdict(outcome, "renamed.Worker") is Verdict.FAIL
    found = messages(outcome, "renamed.Worker")
    assert {member for member, _ in found} == {"__init__"}
    assert any("keyword 'gpu_id' cannot be passed" in message for _, message in found), found
    assert any("extra required parameter 'gpu'" in message for _, message in found), found
    assert "renamed.Worker(server_args" in found[-1][1]


def test_a_spec_worker_base_subclass_without_init_cannot_take_sglangs_call(tmp_path: Path) -> None:
    # SpecWorkerBase.__init__ takes target_worker= and draft_worker= only.
    write(tmp_path, "noinit", worker().replace("def __init__", "def _not_init"))
    outcome = run(tmp_path, spec("noinit"))
    assert verdict(outcome, "noinit.Worker") is Verdict.FAIL
    found = messages(outcome, "noinit.Worker")
    for keyword in ("server_args", "gpu_id", "nccl_port"):
        assert ("__init__", f"[signature] constructor: keyword {keyword!r} cannot be passed: no such parameter and no **kwargs") in found
    # target_worker= is accepted by SpecWorkerBase's own constructor.
    assert not any("'target_worker'" in message for _, message in found)


ABSTRACT = '''
class Abstract(SpecWorkerBase):
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)
'''


def test_an_abstract_class_sglang_would_instantiate_fails_naming_what_to_implement(tmp_path: Path) -> None:
    write(tmp_path, "abstract", ABSTRACT)
    outcome = run(tmp_path, spec("abstract", "Abstract"))
    assert verdict(outcome, "abstract.Abstract") is Verdict.FAIL
    assert messages(outcome, "abstract.Abstract") == [
        (
            "__init__",
            "abstract class: sglang cannot instantiate it; implement forward_batch_generation; expected "
            "SpecWorker.forward_batch_generation(self, batch: ScheduleBatch, /, *, on_publish: PublishCallback | None = ...)"
            " -> GenerationBatchResult",
        )
    ]
    assert Check("abstract.Abstract", "SpecWorker") not in outcome.notes


def test_an_intentional_abstract_base_passes_with_a_note(tmp_path: Path) -> None:
    # No constructor check either: this one's __init__ takes nothing sglang passes.
    write(tmp_path, "base", ABSTRACT.replace("server_args: ServerArgs, gpu_id: int, nccl_port: int, ", ""))
    outcome = run(tmp_path, spec("base", "Abstract", may_be_abstract=True))
    assert verdict(outcome, "base.Abstract") is Verdict.PASS
    assert outcome.problems[Check("base.Abstract", "SpecWorker")] == ()
    assert outcome.notes[Check("base.Abstract", "SpecWorker")] == ABSTRACT_BASE_NOTE


DRAFT = '''
import abc


class Draft:
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, **rest: Any) -> None: ...

    def alloc_memory_pool(self, **kwargs: Any) -> None: ...

    def init_attention_backends(self) -> None: ...

    def init_cuda_graphs(self) -> None: ...

    graph_memory_usage: dict[str, float] = {}
    graph_time_usage: dict[str, float] = {}
    weight_load_time = 0.0
    preloaded_weights_bytes = 0
    model_runner: Any = None  # build_draft_tp_worker reads it on what it built


class AbstractDraft(Draft, abc.ABC):
    @abc.abstractmethod
    def draft(self) -> None: ...


class BadDraft(Draft):
    def __init__(self, server_args: ServerArgs, tp_rank: int) -> None: ...

    def init_cuda_graphs(self, capture_decode_cuda_graph: bool) -> None: ...
'''


def test_draft_worker_abstract_rules(tmp_path: Path) -> None:
    write(tmp_path, "drafts", DRAFT)
    outcome = run(
        tmp_path,
        cls("drafts", "Draft", ClassRole.DRAFT_WORKER),
        cls("drafts", "AbstractDraft", ClassRole.DRAFT_WORKER, may_be_abstract=True),
        cls("drafts", "BadDraft", ClassRole.DRAFT_WORKER, may_be_abstract=True),
    )
    assert verdict(outcome, "drafts.Draft", "DraftWorker") is Verdict.PASS
    assert verdict(outcome, "drafts.AbstractDraft", "DraftWorker") is Verdict.PASS
    assert outcome.notes[Check("drafts.AbstractDraft", "DraftWorker")] == ABSTRACT_BASE_NOTE
    # A draft worker's constructor is its spec worker's business: not checked.
    assert [member for member, _ in messages(outcome, "drafts.BadDraft", "DraftWorker")] == ["init_cuda_graphs"]
    # may_be_abstract=False: an abstract draft worker fails.
    outcome = run(tmp_path, cls("drafts", "AbstractDraft", ClassRole.DRAFT_WORKER))
    assert messages(outcome, "drafts.AbstractDraft", "DraftWorker") == [
        ("__init__", "abstract class: sglang cannot instantiate it; implement draft")
    ]


def test_injected_draft_classes_carry_members(tmp_path: Path) -> None:
    write(tmp_path, "drafts", DRAFT)
    outcome = run(
        tmp_path,
        cls("drafts", "Draft", ClassRole.DRAFT_WORKER, ClassRole.INJECTED),
        cls("drafts", "BadDraft", ClassRole.INJECTED),
        # Injected: instantiated by build_draft_tp_worker, so abstract fails
        # whatever may_be_abstract says.
        cls("drafts", "AbstractDraft", ClassRole.INJECTED, may_be_abstract=True),
    )
    assert verdict(outcome, "drafts.Draft", "DraftWorker") is Verdict.PASS
    assert verdict(outcome, "drafts.Draft", "DraftWorkerFactory") is Verdict.PASS
    bad = messages(outcome, "drafts.BadDraft", "DraftWorkerFactory")
    assert {member for member, _ in bad} == {"__init__", "init_cuda_graphs"}
    assert any(member == "__init__" and "extra required parameter 'tp_rank'" in message for member, message in bad)
    assert any(member == "__init__" and message.startswith("(the constructor is drafts.BadDraft(") for member, message in bad)
    assert ("init_cuda_graphs", "instances would not satisfy InjectableDraftWorker: init_cuda_graphs [signature]: "
            "extra required parameter 'capture_decode_cuda_graph': callers never pass it") in bad
    abstract = messages(outcome, "drafts.AbstractDraft", "DraftWorkerFactory")
    assert abstract == [("__init__", "abstract class: it cannot be instantiated; implement draft")]
    assert Check("drafts.AbstractDraft", "DraftWorkerFactory") not in outcome.notes


# -- injection sites --------------------------------------------------------------


def test_injection_sites_are_skipped_without_a_probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # No class: no probe may start (a broken interpreter would show it).
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    site = InjectionSite(
        target="plugin.make_worker:draft_worker_cls",
        module="plugin",
        file=tmp_path / "plugin.py",
        line=3,
        col=20,
        end_line=3,
        end_col=45,
        text="functools.partial(Draft, x=1)",
    )
    outcome = run_runtime([], [tmp_path], TIMEOUT, sites=[site])
    check = Check("plugin.make_worker:draft_worker_cls", "DraftWorkerFactory")
    assert outcome.verdicts == {check: Verdict.SKIPPED}
    assert outcome.problems == {check: ()}
    assert outcome.notes == {check: SITE_NOTE}
    assert SITE_NOTE == "an expression, not a class: the static checkers judge it where it is written"
