"""Where a release's source comes from (``_contract/_release_source.py``): never imported.

Version detection, the three kinds of path, the installed sglang, and
``fetch_release`` with pip simulated (offline, a missing release, a wheel only
the cp311 retry finds, the cache reused without the network). One slow test
asks the real package registry for a release that does not exist.

This module is the fast part; tests/slow/test_contract_source.py (slow, no checker) holds the rest.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from spec_protocols.gate._contract import _release_source as _source
from spec_protocols.gate._contract import SglangSource, fetch_release, installed_source, release_of, source_at
from spec_protocols.gate._model import GateError


def make_tree(root: Path, version_py: str | None = '__version__ = "0.5.23"\n') -> Path:
    package = root / "sglang"
    (package / "srt").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    if version_py is not None:
        (package / "version.py").write_text(version_py, encoding="utf-8")
    return root


def make_wheel(path: Path, release: str) -> Path:
    """A wheel holding a little sglang source, a compiled module and metadata."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("sglang/__init__.py", "")
        archive.writestr("sglang/version.py", "from sglang._version import __version__\n")
        archive.writestr("sglang/_version.py", f"__version__ = version = '{release}'\n")
        archive.writestr("sglang/srt/managers/scheduler.py", "class Scheduler:\n    pass\n")
        archive.writestr("sglang/srt/stub.pyi", "x: int\n")
        archive.writestr("sglang/py.typed", "")
        archive.writestr("sglang/srt/kernel.so", b"\x7fELF")
        archive.writestr("sglang/srt/data.json", "{}")
        archive.writestr(f"sglang-{release}.dist-info/METADATA", f"Name: sglang\nVersion: {release}\n")
    return path


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(directory))
    return directory


def no_pip(arguments: Sequence[str]) -> tuple[int, str]:
    raise AssertionError(f"pip must not run: {list(arguments)}")


# -- release_of ---------------------------------------------------------------------------


def test_release_from_version_py(tmp_path: Path) -> None:
    assert release_of(make_tree(tmp_path)) == "0.5.23"


def test_release_from_version_py_with_an_annotation_and_a_chain(tmp_path: Path) -> None:
    root = make_tree(tmp_path, "import os\n__version__: str = '0.6.0rc1'\n")
    assert release_of(root) == "0.6.0rc1"


def test_release_from_the_generated_version_module(tmp_path: Path) -> None:
    # What current releases ship: version.py imports it from _version.py.
    root = make_tree(tmp_path, "try:\n    from sglang._version import __version__\nexcept ImportError:\n    __version__ = None\n")
    (root / "sglang" / "_version.py").write_text("version: str\n__version__ = version = '0.5.21'\n", encoding="utf-8")
    assert release_of(root) == "0.5.21"


def test_release_from_dist_info_metadata(tmp_path: Path) -> None:
    root = make_tree(tmp_path, version_py=None)
    info = root / "sglang-0.5.19.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.19\n\nVersion: wrong\n", encoding="utf-8")
    assert release_of(root) == "0.5.19"


def test_no_release_is_a_one_line_error(tmp_path: Path) -> None:
    root = make_tree(tmp_path, "__version__ = compute()\n")
    with pytest.raises(GateError, match="cannot tell which sglang release") as raised:
        release_of(root)
    assert "\n" not in str(raised.value)


# -- source_at -----------------------------------------------------------------------------


def test_a_folder_holding_sglang(tmp_path: Path) -> None:
    source = source_at(make_tree(tmp_path))
    assert source == SglangSource(root=tmp_path.resolve(), release="0.5.23", origin="path")
    assert source.srt == tmp_path.resolve() / "sglang" / "srt"


def test_the_sglang_folder_itself(tmp_path: Path) -> None:
    make_tree(tmp_path)
    assert source_at(tmp_path / "sglang").root == tmp_path.resolve()
    assert source_at(str(tmp_path / "sglang")).release == "0.5.23"


def test_a_wheel_is_unpacked_into_the_cache(tmp_path: Path, cache: Path) -> None:
    wheel = make_wheel(tmp_path / "sglang-0.5.22-cp311-cp311-manylinux_2_34_x86_64.whl", "0.5.22")
    source = source_at(wheel)
    assert (source.release, source.origin) == ("0.5.22", "path")
    assert cache in source.root.parents
    assert (source.srt / "managers" / "scheduler.py").is_file()
    assert (source.srt / "stub.pyi").is_file() and (source.root / "sglang" / "py.typed").is_file()
    assert not (source.srt / "kernel.so").exists() and not (source.srt / "data.json").exists()
    assert (source.root / ".complete").is_file()
    assert source_at(wheel) == source  # unpacked once, reused


def a_plain_file(folder: Path) -> Path:
    path = folder / "file.txt"
    path.write_text("x", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p, "holds no sglang source"),
        (lambda p: p / "missing", "does not exist"),
        (a_plain_file, "is not sglang source"),
    ],
    ids=["folder-without-sglang", "missing", "a-plain-file"],
)
def test_a_path_that_is_not_sglang_source(tmp_path: Path, make: Callable[[Path], Path], message: str) -> None:
    with pytest.raises(GateError, match=message) as raised:
        source_at(make(tmp_path))
    assert "\n" not in str(raised.value)


def test_a_broken_wheel(tmp_path: Path, cache: Path) -> None:
    wheel = tmp_path / "sglang-0.5.22-py3-none-any.whl"
    wheel.write_bytes(b"not a zip")
    with pytest.raises(GateError, match="cannot unpack") as raised:
        source_at(wheel)
    assert "\n" not in str(raised.value)


# -- installed_source ------------------------------------------------------------------------


def test_the_installed_sglang_is_found_without_importing_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_tree(tmp_path / "site")
    (root / "sglang" / "__init__.py").write_text("raise RuntimeError('imported!')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(root))
    source = installed_source()
    assert source == SglangSource(root=root, release="0.5.23", origin="installed")


def test_no_installed_sglang(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_source, "find_module_file", lambda name, path: None)
    assert installed_source() is None


# -- fetch_release ------------------------------------------------------------------------------


@pytest.mark.parametrize("release", ["0.5.2x", "../x", "", "0.5.23; rm -rf /", "latest", "0.5.23/.."])
def test_a_release_that_is_not_a_version_is_refused_before_pip(
    release: str, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_source, "run_pip", no_pip)
    with pytest.raises(GateError, match="not a release version") as raised:
        fetch_release(release)
    assert "\n" not in str(raised.value)
    assert not cache.exists()


def test_offline_with_an_empty_cache(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []

    def offline(arguments: Sequence[str]) -> tuple[int, str]:
        calls.append(list(arguments))
        return 1, (
            "WARNING: Retrying (Retry(total=4...)) after connection broken\n"
            "ERROR: Could not find a version that satisfies the requirement sglang==0.5.99 (from versions: none)\n"
            "ERROR: No matching distribution found for sglang==0.5.99\n"
        )

    monkeypatch.setattr(_source, "run_pip", offline)
    with pytest.raises(GateError) as raised:
        fetch_release("0.5.99")
    assert str(raised.value) == "cannot fetch sglang 0.5.99: No matching distribution found for sglang==0.5.99"
    assert len(calls) == 2 and "--python-version" in calls[1]  # the cp311 retry was tried too
    assert not (cache / "sglang" / "0.5.99").exists()


def test_the_cp311_wheel_is_fetched_when_the_interpreter_has_none(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []

    def registry(arguments: Sequence[str]) -> tuple[int, str]:
        calls.append(list(arguments))
        if "--abi" not in arguments:
            return 1, "ERROR: No matching distribution found for sglang==0.5.20\n"
        assert arguments[arguments.index("--abi") + 1] == "cp311"
        dest = Path(arguments[arguments.index("--dest") + 1])
        make_wheel(dest / "sglang-0.5.20-cp311-cp311-manylinux_2_34_x86_64.whl", "0.5.20")
        return 0, "Saved\n"

    monkeypatch.setattr(_source, "run_pip", registry)
    source = fetch_release("0.5.20")
    assert (source.release, source.origin, source.root) == ("0.5.20", "fetched", cache / "sglang" / "0.5.20")
    assert [c[:2] for c in calls] == [["download", "--no-deps"], ["download", "--no-deps"]]
    assert (source.root / ".complete").is_file() and (source.srt / "managers" / "scheduler.py").is_file()
    # Nothing half-done is left beside it.
    assert sorted(p.name for p in (cache / "sglang").iterdir()) == ["0.5.20", "wheels"]
    # A complete tree is reused without pip.
    monkeypatch.setattr(_source, "run_pip", no_pip)
    assert fetch_release("0.5.20") == source


def _registry_saving(release: str) -> Callable[[Sequence[str]], tuple[int, str]]:
    def registry(arguments: Sequence[str]) -> tuple[int, str]:
        dest = Path(arguments[arguments.index("--dest") + 1])
        make_wheel(dest / f"sglang-{release}-py3-none-any.whl", release)
        return 0, "Saved\n"

    return registry


@pytest.mark.parametrize("keep", ["", "0", "1"])
def test_the_fetched_wheel_is_deleted_once_unpacked_unless_kept(
    keep: str, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_source.KEEP_WHEELS_ENV, keep)
    monkeypatch.setattr(_source, "run_pip", _registry_saving("0.5.21"))
    source = fetch_release("0.5.21")
    assert (source.srt / "managers" / "scheduler.py").is_file()
    left = [p.name for p in (cache / "sglang" / "wheels").iterdir()]
    assert left == (["sglang-0.5.21-py3-none-any.whl"] if keep == "1" else [])
    assert _source.unpacked_wheels() == [cache / "sglang" / "wheels" / n for n in left]


def test_a_wheel_another_run_unpacked_and_deleted_first_is_no_error(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheels = cache / "sglang" / "wheels"
    wheels.mkdir(parents=True)
    wheel = make_wheel(wheels / "sglang-0.5.22-py3-none-any.whl", "0.5.22")
    real = _source._unpack

    def beaten(given: Path, destination: Path) -> None:
        real(given, destination)  # the other run: its tree is complete, its wheel deleted
        given.unlink()
        raise GateError(f"cannot unpack {given.name}: [Errno 2] No such file or directory")

    monkeypatch.setattr(_source, "_unpack", beaten)
    monkeypatch.setattr(_source, "run_pip", no_pip)
    assert fetch_release("0.5.22").root == cache / "sglang" / "0.5.22"
    assert not wheel.exists()


def test_a_downloaded_wheel_and_a_stale_tree(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wheels = cache / "sglang" / "wheels"
    wheels.mkdir(parents=True)
    make_wheel(wheels / "sglang-0.5.18-cp311-cp311-manylinux_2_34_x86_64.whl", "0.5.18")
    stale = cache / "sglang" / "0.5.18"
    (stale / "sglang").mkdir(parents=True)  # an interrupted unpack: no .complete
    (stale / "sglang" / "half.py").write_text("", encoding="utf-8")
    monkeypatch.setattr(_source, "run_pip", no_pip)
    source = fetch_release("0.5.18", cache)
    assert source.root == stale and (stale / ".complete").is_file()
    assert not (stale / "sglang" / "half.py").exists()


def test_an_explicit_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wheels = tmp_path / "elsewhere" / "sglang" / "wheels"
    wheels.mkdir(parents=True)
    make_wheel(wheels / "sglang-0.5.19-py3-none-any.whl", "0.5.19")
    monkeypatch.setattr(_source, "run_pip", no_pip)
    assert fetch_release("0.5.19", tmp_path / "elsewhere").root == tmp_path / "elsewhere" / "sglang" / "0.5.19"
