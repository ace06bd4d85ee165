"""The runtime checker's stand-in for a native package that cannot load here (gate/_checkers/_runtime/_stand_ins.py).

``fakekernel`` plays sglang-kernel on a machine without a GPU driver: an
installed package that ships a compiled extension module and raises
``ImportError`` while it initialises. A worker module that imports it is
imported again with a stand-in for it; a class is then checked as it is when
nothing the checker reads comes from the stand-in, and skipped, saying which
part does, when something does. Nothing else is stood in: a package that is
absent, one that ships no compiled code, the code under check itself.
"""

from __future__ import annotations

import importlib.machinery
from pathlib import Path

from spec_protocols.gate._model import Check, CheckerOutcome, Verdict

from tests.unit.test_runtime_checker import run, spec, verdict, worker, write

#: What fakekernel's initialisation raises, as sgl_kernel's does without libcuda.so.1.
KERNEL_ERROR = "[fakekernel] CRITICAL: Could not load any common_ops library!"


def _kernel(root: Path, *, native: bool = True, name: str = "fakekernel") -> None:
    package = root / name
    package.mkdir()
    (package / "__init__.py").write_text(f"from {name}._load import load\n\nops = load()\n")
    # sgl_kernel's message starts with a newline.
    (package / "_load.py").write_text(f"def load():\n    raise ImportError({chr(10) + KERNEL_ERROR!r})\n")
    if native:
        (package / f"common_ops{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"")


def _note(outcome: CheckerOutcome, target: str) -> str:
    return outcome.notes.get(Check(target, "SpecWorker"), "")


def test_a_worker_that_only_uses_the_package_is_checked_with_a_stand_in_for_it(tmp_path: Path) -> None:
    _kernel(tmp_path)
    write(tmp_path, "uses", "from fakekernel.speculative import reconstruct_tree\n", worker())
    write(tmp_path, "broken", "import fakekernel\n", worker().replace("on_publish: Any = None", "on_publish: Any"))
    outcome = run(tmp_path, spec("uses"), spec("broken"))
    assert verdict(outcome, "uses.Worker") is Verdict.PASS, outcome
    assert _note(outcome, "uses.Worker") == (
        f"the runtime checker imported it with a stand-in for fakekernel, which cannot load here (ImportError: {KERNEL_ERROR}); "
        "nothing it checked comes from one"
    )
    # Its own members decide, a failing one too.
    assert verdict(outcome, "broken.Worker") is Verdict.FAIL


def test_a_class_whose_base_member_or_metaclass_comes_from_the_stand_in_is_skipped(tmp_path: Path) -> None:
    _kernel(tmp_path)
    write(
        tmp_path,
        "depends",
        "import fakekernel\n",
        worker("Based").replace("(SpecWorkerBase):", "(SpecWorkerBase, fakekernel.KernelMixin):"),
        worker("Assigned") + "\n    forward_batch_generation = fakekernel.fused_forward\n",
        worker("Decorated").replace("    def forward_batch_generation", "    @fakekernel.jit\n    def forward_batch_generation"),
        worker("Stored").replace("    def forward_batch_generation", "    graph_memory_usage = fakekernel.usage\n\n    def forward_batch_generation"),
        "import abc\n\nclass KernelMeta(abc.ABCMeta, fakekernel.MetaMixin):\n    pass\n",
        worker("Meta").replace("(SpecWorkerBase):", "(SpecWorkerBase, metaclass=KernelMeta):"),
    )
    names = ("Based", "Assigned", "Decorated", "Stored", "Meta")
    outcome = run(tmp_path, *(spec("depends", name) for name in names))
    said = {name: _note(outcome, f"depends.{name}") for name in names}
    for name in said:
        assert verdict(outcome, f"depends.{name}") is Verdict.SKIPPED, (name, outcome)
    tail = "comes from a stand-in for fakekernel, which cannot load here: nothing about it can be verified at run time"
    assert said == {
        "Based": f"its base KernelMixin {tail}",
        "Assigned": f"its member forward_batch_generation {tail}",
        "Decorated": f"its member forward_batch_generation {tail}",
        "Stored": f"its member graph_memory_usage {tail}",
        "Meta": f"its metaclass KernelMeta {tail}",
    }


def test_nothing_else_is_stood_in(tmp_path: Path) -> None:
    # No compiled code in the package; a package that is absent; the code under check raising ImportError itself.
    _kernel(tmp_path, native=False, name="purekernel")
    write(tmp_path, "pure", "import purekernel\n", worker())
    write(tmp_path, "absent", "import no_such_kernel\n", worker())
    own = tmp_path / "ownkernel"
    own.mkdir()
    (own / "__init__.py").write_text("raise ImportError('libown.so.1: cannot open shared object file')\n")
    (own / f"ops{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    write(tmp_path, "ownkernel.worker", worker())
    outcome = run(tmp_path, spec("pure"), spec("absent"), spec("ownkernel.worker"))
    assert verdict(outcome, "pure.Worker") is Verdict.SKIPPED
    assert _note(outcome, "pure.Worker") == f"cannot import pure: ImportError: {KERNEL_ERROR}"
    assert verdict(outcome, "absent.Worker") is Verdict.SKIPPED
    assert _note(outcome, "absent.Worker") == "cannot import absent: ModuleNotFoundError: No module named 'no_such_kernel'"
    assert verdict(outcome, "ownkernel.worker.Worker") is Verdict.SKIPPED
    assert "stand-in" not in _note(outcome, "ownkernel.worker.Worker")
