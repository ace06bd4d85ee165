"""The watch mode's fast parts: change detection, the options it refuses, ending
processes, the LSP framing. No checker runs here (tests/checkers/test_watch.py
runs the watch itself)."""

from __future__ import annotations

import io
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from spec_protocols.gate._cli import main
from spec_protocols.gate._watch._changes import WatchSet, changed_paths, snapshot, wait_for_change
from spec_protocols.gate._checkers._pyright._lsp import _frame, _read_message
from spec_protocols.gate._watch._processes import descendants, end_children


def _bump(file: Path, text: str) -> None:
    """Write ``text``, with an mtime certainly not the one before (coarse clocks)."""
    before = file.stat().st_mtime_ns if file.exists() else 0
    file.write_text(text, encoding="utf-8")
    stat = file.stat()
    if stat.st_mtime_ns == before:
        import os

        os.utime(file, ns=(stat.st_atime_ns, before + 1_000_000))


@pytest.fixture
def package(tmp_path: Path) -> Path:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "worker.py").write_text("x = 1\n", encoding="utf-8")
    (pkg / "__pycache__").mkdir()
    return pkg


def test_an_edited_file_is_a_change(package: Path) -> None:
    watched = WatchSet(files=frozenset({package / "worker.py"}))
    before = snapshot(watched)
    assert changed_paths(before, snapshot(watched)) == []
    _bump(package / "worker.py", "x = 2\n")
    assert changed_paths(before, snapshot(watched)) == [package / "worker.py"]


def test_a_file_added_to_or_removed_from_a_watched_package_is_a_change(package: Path) -> None:
    watched = WatchSet(folders=frozenset({package}))
    before = snapshot(watched)
    assert set(before) == {package / "__init__.py", package / "worker.py"}
    (package / "extra.py").write_text("", encoding="utf-8")
    (package / "__pycache__" / "worker.cpython-311.pyc").write_bytes(b"")  # not source: no change
    (package / "notes.txt").write_text("", encoding="utf-8")
    assert changed_paths(before, snapshot(watched)) == [package / "extra.py"]
    (package / "worker.py").unlink()
    assert package / "worker.py" in changed_paths(before, snapshot(watched))


def test_a_missing_file_that_appears_is_a_change(tmp_path: Path) -> None:
    file = tmp_path / "later.py"
    watched = WatchSet(files=frozenset({file}))
    before = snapshot(watched)
    assert before == {}
    file.write_text("", encoding="utf-8")
    assert changed_paths(before, snapshot(watched)) == [file]


def test_slow_folders_are_kept_from_the_previous_snapshot_between_their_polls(package: Path) -> None:
    watched = WatchSet(slow_folders=frozenset({package}))
    first = snapshot(watched)
    (package / "new.py").write_text("", encoding="utf-8")
    assert snapshot(watched, slow=False, previous=first) == first
    assert package / "new.py" in snapshot(watched, slow=True, previous=first)


def test_wait_for_change_returns_what_changed_after_the_debounce(package: Path) -> None:
    watched = WatchSet(folders=frozenset({package}))
    before = snapshot(watched)

    def edit() -> None:
        time.sleep(0.3)
        _bump(package / "worker.py", "x = 3\n")
        time.sleep(0.1)
        (package / "more.py").write_text("", encoding="utf-8")  # within the debounce: the same round

    thread = threading.Thread(target=edit)
    thread.start()
    found = wait_for_change(watched, before, interval=0.05, debounce=0.5)
    thread.join()
    assert found is not None
    changed, after = found
    assert changed == [package / "more.py", package / "worker.py"]
    assert changed_paths(after, snapshot(watched)) == []


def test_wait_for_change_ends_when_told_to_stop(package: Path) -> None:
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    watched = WatchSet(folders=frozenset({package}))
    assert wait_for_change(watched, snapshot(watched), interval=0.05, stop=stop) is None


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--output", "report.txt"], "--output"),
        (["--write-baseline", "b.json", "--reason", "r"], "--write-baseline"),
        (["--sglang", "0.5.21", "--sglang", "0.5.22", "--checker", "mypy"], "one sglang"),
    ],
)
def test_watch_refuses_what_it_cannot_honour_in_one_line(
    extra: list[str], words: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["check", str(tmp_path / "plugin.py"), "--watch", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("spec-protocols: error: ") and words in err
    assert not (tmp_path / "report.txt").exists()


def test_check_help_teaches_watch(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = capsys.readouterr().out
    assert "--watch" in out and "watch mode" in out and "130" in out


def test_end_children_ends_every_descendant() -> None:
    if not Path("/proc").is_dir():
        pytest.skip("reads /proc")
    # a child that starts a grandchild
    child = subprocess.Popen(
        [sys.executable, "-c", "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"]
    )
    try:
        deadline = time.monotonic() + 30
        while len(descendants(child.pid)) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        below = [child.pid, *descendants(child.pid)]
        assert len(below) == 2
        end_children(grace=5)
        child.wait(30)
        time.sleep(0.2)
        assert not [p for p in below if not _zombie(p)]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


def test_lsp_messages_are_framed_and_read_back() -> None:
    stream = io.BytesIO(_frame({"id": 1, "result": {"items": ["é"]}}) + _frame({"method": "x", "params": None}))
    assert _read_message(stream) == {"id": 1, "result": {"items": ["é"]}}
    assert _read_message(stream) == {"method": "x", "params": None}
    assert _read_message(stream) is None
