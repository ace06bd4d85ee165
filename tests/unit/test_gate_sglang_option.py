"""``spec-protocols check --sglang`` and ``spec-protocols pin``: the bad inputs, each one line and exit 2.

Fast: nothing here fetches a release or runs a checker (pip is simulated);
the gate on real releases is tests/checkers/test_gate_releases.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spec_protocols._releases import SUPPORTED_RELEASES, pin_constants
from spec_protocols.gate import _cli as cli
from spec_protocols.gate._contract import _release_source as _source


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_offline_with_an_empty_cache_exits_2_naming_the_release(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(_source, "run_pip", lambda arguments: (1, "ERROR: Could not connect to the package index\n"))
    code, out, err = run(capsys, "check", "spec_protocols.reference", "--sglang", "0.5.21")
    assert (code, out) == (2, "")
    assert err == "spec-protocols: error: cannot fetch sglang 0.5.21: Could not connect to the package index\n"


@pytest.mark.parametrize("value", ["0.5.2x", "no/such/dir"])
def test_a_bad_sglang_value_exits_2(capsys: pytest.CaptureFixture[str], value: str) -> None:
    code, out, err = run(capsys, "check", "spec_protocols.reference", "--sglang", value)
    assert (code, out) == (2, "")
    assert err.startswith("spec-protocols: error: ") and err.count("\n") == 1


def test_only_the_runtime_checker_with_a_release_elsewhere_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--sglang is static: the runtime checker imports the installed sglang, not that tree."""
    tree = tmp_path / "sglang"
    (tree / "srt").mkdir(parents=True)
    (tree / "version.py").write_text('__version__ = "0.5.21"\n')
    code, out, err = run(capsys, "check", "spec_protocols.reference", "--sglang", str(tmp_path), "--checker", "runtime")
    assert (code, out) == (2, "")
    assert "checked statically" in err and "--checker mypy" in err and err.count("\n") == 1


@pytest.mark.parametrize("release", SUPPORTED_RELEASES)
def test_pin_prints_both_checkers_settings(capsys: pytest.CaptureFixture[str], release: str) -> None:
    code, out, _ = run(capsys, "pin", release)
    assert code == 0
    constants = pin_constants(release)
    true = [n for n, v in constants.items() if v]
    assert f"always_true = {','.join(true)}" in out
    assert f'"defineConstant": {json.dumps(constants)}' in out
    code, out, _ = run(capsys, "pin", release, "--format", "pyproject")
    assert code == 0 and "[tool.mypy]" in out and "[tool.pyright]" in out


def test_pin_refuses_an_unsupported_release(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "pin", "0.5.18")
    assert (code, out) == (2, "")
    assert err == "spec-protocols: error: sglang 0.5.18 is not a supported release; choose one of 0.5.19 to 0.5.23\n"


def test_check_help_teaches_the_release_choice(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["check", "--help"])
    text = capsys.readouterr().out
    for needle in ("--sglang RELEASE|PATH", "0.5.19 to 0.5.23", "fetched", "never installed", "no sglang install needed"):
        assert needle in " ".join(text.split()), needle
