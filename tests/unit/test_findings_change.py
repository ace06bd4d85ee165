"""What to change, in words, and a checker's own words said once (issue 29, item 4).

A problem's fix was read off an ``expected ... got ...`` pair; now
:func:`spec_protocols.gate._findings.change` says it (``rename gpu to
gpu_id``), and the text report shows it under the problem. A checker's own
error at a class's line was worded "pyright reports at __init__ (line 57):
...", beside a head that already said "pyright: __init__ (f.py:57)".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from spec_protocols.gate._findings import ClassDiagnostic, Finding, Got, Wrong, change, message

CALL = "SpecWorkerFactory.__call__(self, *, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> SpecWorker"
FBG = "SpecWorker.forward_batch_generation(self, batch: ScheduleBatch, /, *, on_publish: PublishCallback | None = ...) -> GenerationBatchResult"


def _ctor(got: str, wrong: Wrong = Wrong.CONSTRUCTOR, expected: str = CALL) -> Finding:
    return Finding(wrong, "mypy", "__init__", expected=expected, got=Got("__init__", got, "W"))


@pytest.mark.parametrize(
    ("got", "said"),
    [
        ("W.__init__(self, server_args: ServerArgs, gpu: int, nccl_port: int, target_worker: TpModelWorker) -> None",
         "rename gpu to gpu_id"),
        ("W.__init__(self, server_args: ServerArgs, nccl_port: int, target_worker: TpModelWorker) -> None", "accept gpu_id"),
        ("W.__init__(self, server_args: ServerArgs, nccl_port: int, target_worker: TpModelWorker, **kwargs: Any) -> None", None),
        ("W.__init__(self, *, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker, "
         "mode: str, ps: int) -> None", "give mode and ps a default, or remove them"),
    ],
)
def test_a_constructor_change_in_words(got: str, said: str | None) -> None:
    assert change(_ctor(got)) == said


def test_a_wider_parameter_annotation_is_no_change() -> None:
    got = "W.__init__(self, *, server_args: ServerArgs, gpu: int, nccl_port: int, target_worker: TpModelWorker | None = None) -> None"
    assert change(_ctor(got)) == "rename gpu to gpu_id"


def test_a_signature_change_names_the_default_and_the_annotation() -> None:
    got = "W.forward_batch_generation(self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object]) -> GenerationBatchResult"
    finding = _ctor(got, Wrong.SIGNATURE, FBG)
    assert change(finding) == "give on_publish a default; annotate on_publish as PublishCallback | None"


def test_a_missing_member_and_an_abstract_class_say_what_to_write() -> None:
    assert change(Finding(Wrong.MISSING, "pyright", "clear_cache_pool", expected="SpecWorker.clear_cache_pool(self) -> None")) == (
        "define clear_cache_pool with the expected signature"
    )
    assert change(Finding(Wrong.ABSTRACT, "mypy", "__init__", detail="forward_batch_generation")) == (
        "implement forward_batch_generation"
    )


def test_no_change_where_the_halves_do_not_parse() -> None:
    assert change(_ctor("no __init__ the gate could read")) is None


def test_a_checkers_own_error_is_its_words_alone() -> None:
    said = message(ClassDiagnostic("pyright", "__init__", Path("w.py"), 57, ('No parameter named "gpu_id"',), "reportCallIssue"))
    assert said == 'No parameter named "gpu_id" [reportCallIssue]'
