"""``spec-protocols cache``: the gate's cache folder by kind, ``--prune`` and ``--clear`` (gate/_cli/_cache_command.py).

Each test builds a cache folder of its own (``SPEC_PROTOCOLS_CACHE_DIR``),
laid out as the gate's stages write it, and runs the command on it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from spec_protocols.gate import _cli as cli
from spec_protocols.gate._checkers import CHECKER_NAMES
from spec_protocols.gate._cli._cache_command import KINDS
from tests._paths import REPO_ROOT


def _write(path: Path, size: int = 100) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    return path


def _release(cache: Path, release: str) -> Path:
    tree = cache / "sglang" / release
    _write(tree / "sglang" / "srt" / "managers" / "scheduler.py", 5000)
    (tree / ".complete").write_text(f"sglang-{release}-py3-none-any.whl\n", encoding="utf-8")
    return tree


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder with one thing of each kind, a wheel not unpacked yet, and a file no kind names."""
    root = tmp_path / "cache"
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(root))
    _release(root, "0.5.23")
    _release(root, "0.5.9")
    _write(root / "sglang" / "wheels" / "sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl", 40_000)
    _write(root / "sglang" / "wheels" / "sglang-0.5.22-py3-none-any.whl", 30_000)  # its download's unpack was cut short
    _write(root / "sglang" / "from-wheel" / "sglang-0.5.21-abc" / "sglang" / "__init__.py")
    _write(root / "verdicts" / "entries" / "ab" / "ab12.json")
    _write(root / "verdicts" / "memo" / "cd" / "cd34.json")
    _write(root / "mypy" / "3.11" / "spec_protocols" / "_protocols.data.json")
    _write(root / "overlay" / "0123" / "sglang-stubs" / "__init__.pyi")
    (root / "view" / "4567").mkdir(parents=True)
    (root / "view" / "4567" / "typing_extensions.py").symlink_to("/nonexistent/typing_extensions.py")
    _write(root / "ty-view" / "cdef" / "pyvenv.cfg")  # a checker's views, named after it
    _write(root / "shadow" / "89ab" / "plugin.py")
    (root / "runs" / "run-killed").mkdir(parents=True)
    _write(root / "crashes" / "mypy-20261201-000000-1" / "mypy-output.txt")
    _write(root / "notes.txt")
    return root


def _cache(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = cli.main(["cache", *argv])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _kinds(out: str) -> dict[str, dict[str, Any]]:
    return {k["kind"]: k for k in json.loads(out)["kinds"]}


def test_each_kind_with_its_size_and_count_and_what_no_kind_names(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cache(capsys, "--format", "json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["folder"] == str(cache)
    kinds = _kinds(out)
    # The stages' kinds, then the folders named after a checker, then the rest.
    assert list(kinds) == [*(k.name for k in KINDS), "mypy", "ty-view", "other"]
    assert kinds["releases"]["paths"] == [str(cache / "sglang" / "0.5.9"), str(cache / "sglang" / "0.5.23")]
    assert {name: kinds[name]["items"] for name in kinds} == {
        "releases": 2, "wheels": 2, "given-wheels": 1, "verdicts": 2, "overlays": 1, "views": 1,
        "shadows": 1, "runs": 1, "crashes": 1, "mypy": 1, "ty-view": 1, "other": 1,
    }
    assert kinds["other"]["paths"] == [str(cache / "notes.txt")]
    assert kinds["wheels"]["bytes"] >= 70_000 and kinds["releases"]["bytes"] >= 10_000
    assert data["bytes"] == sum(k["bytes"] for k in kinds.values())


def test_the_text_says_where_what_and_what_prune_would_free(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cache(capsys)
    assert code == 0
    assert out.startswith(f"the gate's cache: {cache} ($SPEC_PROTOCOLS_CACHE_DIR): ")
    table = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ") and not line.startswith("   ")}
    assert "2 releases (0.5.9, 0.5.23)" in table["releases"]
    assert "2 wheels, 1 with its source unpacked (--prune deletes those)" in table["wheels"]
    assert "1 entry: notes.txt" in table["other"]
    assert "Deleting any of it is safe while no gate runs" in out
    assert "spec-protocols cache --prune deletes the 1 wheel whose source is unpacked" in out


def test_an_empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(tmp_path / "none"))
    assert _cache(capsys) == (0, f"the gate's cache: {tmp_path / 'none'} ($SPEC_PROTOCOLS_CACHE_DIR): empty, no run has written it\n", "")


def test_prune_deletes_the_wheels_whose_source_is_unpacked_only(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cache(capsys, "--prune", "--format", "json")
    assert code == 0
    assert err.startswith("spec-protocols: deleted 1 fetched wheel whose source is unpacked (")
    assert sorted(p.name for p in (cache / "sglang" / "wheels").iterdir()) == ["sglang-0.5.22-py3-none-any.whl"]
    assert _kinds(out)["wheels"]["items"] == 1
    assert (cache / "sglang" / "0.5.23" / ".complete").is_file()  # the source stays
    assert _cache(capsys, "--prune")[2] == "spec-protocols: nothing to prune: no fetched wheel whose source is unpacked\n"


def test_clear_deletes_the_kinds_named(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cache(capsys, "--clear", "releases", "crashes", "mypy", "--format", "json")
    assert code == 0
    deleted = re.findall(r"^spec-protocols: deleted (\S+) \(.*\)$", err, flags=re.M)
    assert deleted == ["releases", "crashes", "mypy"], err
    assert not any((cache / p).exists() for p in ("sglang/0.5.23", "crashes", "mypy"))
    assert {"releases", "crashes", "mypy"}.isdisjoint(_kinds(out)) and {"wheels", "ty-view"} <= set(_kinds(out))
    # A checker's folder it does not have is a kind, with nothing to delete.
    assert _cache(capsys, "--clear", "mypy")[:3:2] == (0, "spec-protocols: nothing to delete\n")


def test_clear_with_no_kind_deletes_every_kind_and_leaves_what_it_does_not_know(
    cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cache(capsys, "--clear", "--format", "json")
    assert code == 0
    assert f"kept {cache}: it holds what no kind names" in err
    assert sorted(p.name for p in cache.iterdir()) == ["notes.txt"]
    assert list(_kinds(out)) == ["other"]
    (cache / "notes.txt").unlink()
    _release(cache, "0.5.23")
    assert _cache(capsys, "--clear")[0] == 0
    assert not cache.exists()  # nothing else was in it: the folder goes too


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--clear", "everything"], "spec-protocols: error: no cache kind named 'everything'; the kinds: releases, wheels,"),
        (["--prune", "--clear"], "spec-protocols: error: argument --clear: not allowed with argument --prune"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cache: Path, capsys: pytest.CaptureFixture[str], argv: list[str], said: str) -> None:
    code, out, err = _cache(capsys, *argv)
    assert (code, out) == (2, "") and len(err.strip().splitlines()) == 1 and err.startswith(said), err
    assert (cache / "sglang" / "0.5.23").is_dir()


def test_the_help_teaches_each_kind_and_is_listed_in_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cache(capsys, "--help")
    assert code == 0
    for kind in KINDS:
        assert kind.name in out.split("examples:")[0], kind.name
    assert "SPEC_PROTOCOLS_KEEP_WHEELS=1" in out and "safe while no gate runs" in out
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "spec-protocols cache" in capsys.readouterr().out


#: What each stage writes its folder under the cache with: ``cache_dir() / "verdicts"``,
#: ``cache / "shadow"`` (a stage handed cache_dir()), ``cache_dir / "sglang"``.
_WRITTEN = re.compile(r"""\bcache(?:_dir\(\)|_dir)?\s*/\s*["'](\w[\w-]*)["']""")


def test_every_folder_the_gate_writes_in_its_cache_is_a_kind() -> None:
    written = {
        name
        for path in (REPO_ROOT / "spec_protocols" / "gate").rglob("*.py")
        if "_cache_command" not in path.name
        for name in _WRITTEN.findall(path.read_text(encoding="utf-8"))
    }
    assert {"verdicts", "mypy", "overlay", "view", "shadow", "runs", "crashes", "sglang"} <= written, written
    known = {kind.folder[0] for kind in KINDS}
    unnamed = {name for name in written - known if not any(name == c or name.startswith(f"{c}-") for c in CHECKER_NAMES)}
    assert not unnamed, f"written under the cache, neither a kind of spec-protocols cache nor a checker's: {sorted(unnamed)}"
