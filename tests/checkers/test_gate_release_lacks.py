"""An older release's harness imports only names that release has (issue 29, item 8).

The protocols annotate with sglang names a release before the supported range
may not define: ``LoadGroup`` (``DraftWorkerFactory``'s ``load_group``) is not
in 0.5.5's or 0.5.10's ``sglang/srt/configs/load_config.py``. A plugin that
imports that module has it read from the release's own source, and the
harness's import of the name was pyright's error on the harness: the column
``unverified`` from an internal error ("pyright could not check the harness
(line 6: "LoadGroup" is unknown import symbol)"). Now each lacking name is
written as ``Any`` in the harness, both checkers give a verdict, and the
run's note names the name and its module.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from spec_protocols.gate._contract import SglangSource
from spec_protocols.gate._scaffold import write_skeleton

from tests._gate_json import gate, gate_env  # noqa: F401 (gate_env: a fixture)


@pytest.mark.parametrize("release", ["0.5.5", "0.5.10"])
def test_a_name_the_release_lacks_is_no_internal_error(
    release: str, tmp_path: Path, sglang_release: Callable[[str], SglangSource], gate_env: dict[str, str]
) -> None:
    # The draft skeleton imports sglang.srt.configs.load_config for LoadGroup.
    draft = write_skeleton("draft", "MyDraft", tmp_path)
    root = sglang_release(release).root
    code, data, err = gate(gate_env, str(draft), "--sglang", str(root), "--checker", "mypy", "--checker", "pyright")
    assert data is not None, err
    text = json.dumps(data, indent=1)
    assert "could not check the harness" not in text
    assert code == 1, text  # 0.5.5's TpModelWorker takes none of the skeleton's newer keywords
    for result in data["results"]:
        assert set(result["checkers"].values()) <= {"pass", "fail"}, result
    notes = [n for n in data["notes"] if "lacks names the protocols annotate with" in n]
    assert notes == [
        f"sglang {release} lacks names the protocols annotate with: LoadGroup (not in "
        "sglang.srt.configs.load_config); the static checkers took each as Any, so the type of a parameter or "
        "return annotated with it is not checked"
    ], data["notes"]


def test_the_newest_release_lacks_nothing(tmp_path: Path, sglang_release: Callable[[str], SglangSource], gate_env: dict[str, str]) -> None:
    draft = write_skeleton("draft", "MyDraft", tmp_path)
    root = sglang_release("0.5.23").root
    code, data, err = gate(gate_env, str(draft), "--sglang", str(root), "--checker", "pyright")
    assert data is not None and code == 0, err
    assert not [n for n in data["notes"] if "lacks names" in n], data["notes"]
