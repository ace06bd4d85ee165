"""What a checker's verdict depends on outside its input value, as digests.

*Files by content.* Every tree that enters a key (sglang's package, the
packages of the code under check and what they import from outside
site-packages, this package and its stubs) is digested file by file, by
sha256 of the bytes, every file (data files and extension modules too: the
runtime checker imports them), ``__pycache__`` left out.

*Through a stat memo.* Reading sglang's 10,000 files (200 MB) costs about
0.8 s, more than a warm gate run should. So each tree has a memo, as git's
index is one: a file whose size, mtime, ctime and inode are all what the memo
recorded is taken to have the content recorded; any other file is read again.
ctime cannot be set from user space, so resetting a file's mtime after
editing it does not fool the memo; what would is a file system that keeps all
four through a content change. A file changed within two seconds of being
recorded is not memoised (git's "racy" case: the clock may not have ticked).

*The import closure.* The code under check imports other code; mypy and
pyright read it through their search path, the runtime checker imports it.
Starting from the top-level names that the checked modules (and discovery)
name, each name is located as the import system would, and:

* in the standard library: the interpreter's version stands for it;
* in site-packages, and not sglang or a package under check: the
  installed distributions stand for it (:func:`distributions`);
* anywhere else (a search root, the current directory, PYTHONPATH, an
  editable install): its tree is digested, and the top-level names its
  Python files import are followed in turn.

The names a file imports are found by a pattern over its text (``import a.b,
c``, ``from a import ...``), not by parsing: a name in a string or comment is
followed too, which only widens the key. What the pattern cannot see is an
import by a computed name (``importlib.import_module(name)``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
import sysconfig
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import cast

from spec_protocols.gate._checkers._registry import CHECKER_NAMES
from spec_protocols.gate._codec import decode, encode, write_atomically
from spec_protocols.gate._paths import in_installation

__all__ = [
    "ENVIRONMENT_PREFIXES",
    "RACY_NS",
    "Signature",
    "StatMemo",
    "Tree",
    "signature",
    "distributions",
    "environment",
    "in_standard_library",
    "interpreter",
    "locate",
    "locations",
    "static_environment",
    "sealed",
    "static_interpreter",
    "unsealed",
    "write_json",
]

_MEMO_FORMAT = 1
#: A file (or folder) changed this recently may change again within the same clock tick.
RACY_NS = 2_000_000_000
_RACY_NS = RACY_NS
_SKIPPED_DIRS = frozenset({"__pycache__"})
#: An import statement at the start of a line, the newline before it included
#: (the text is searched with one put before its first line): a pattern
#: that opens with a literal is searched for that literal, where ``^`` under
#: re.M would be tried at every position (half the time on sglang's tree).
_IMPORT = re.compile(rb"\n[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import|import[ \t]+([A-Za-z_][\w., \t]*))")

#: Environment variables in every key: those the checkers or code imported
#: at check time commonly read (sglang reads SGLANG_* at import, torch CUDA_*
#: and TORCH_*, a checker its own, by its name: MYPYPATH; pyright's launcher NODE_*). A variable outside
#: them that the target reads at import time is not in the key.
ENVIRONMENT_PREFIXES = (
    "PYTHON", "SGLANG", "SGL_", "CUDA", "NVIDIA", "TORCH", "PYTORCH", "HF_", "HUGGINGFACE", "TRANSFORMERS",
    "TOKENIZERS", "TRITON", "FLASHINFER", "OMP_", "MKL_", "LD_", "NODE_", "SPEC_PROTOCOLS_",
    # Each checker's own (MYPYPATH, ...), by its name.
    *(name.upper() for name in CHECKER_NAMES),
)
_ENVIRONMENT_NAMES = frozenset({"PATH", "VIRTUAL_ENV", "CONDA_PREFIX"})
# Where the cache is and whether it is used decide nothing about a verdict;
# nor does whether, or where, Python keeps bytecode.
_ENVIRONMENT_IGNORED = frozenset(
    {"SPEC_PROTOCOLS_CACHE_DIR", "SPEC_PROTOCOLS_NO_CACHE", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"}
)


@dataclass(frozen=True, slots=True)
class Tree:
    """A digested file or folder: its content digest and the top-level names its Python files import."""

    digest: str
    imports: frozenset[str]
    #: Each file's sha256 by its path relative to the root ("/"-separated;
    #: "" for a root that is a file): a stage that read files before the tree
    #: was digested checks that it read this content.
    files: Mapping[str, str] = field(default_factory=dict[str, str])


@dataclass(frozen=True, slots=True)
class _Memo:
    """A tree's stat memo as its file holds it."""

    format: int
    root: str
    #: Each file's [size, mtime_ns, ctime_ns, inode, sha256, [imported names]] by
    #: its relative path; read as it is (10,000 lists: checked where used).
    files: Mapping[str, object]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _imports(data: bytes) -> list[str]:
    names: set[str] = set()
    for match in _IMPORT.finditer(b"\n" + data):
        if match.group(1):
            names.add(match.group(1).split(b".")[0].decode())
        else:
            for part in match.group(2).split(b","):
                words = part.split()
                if words:
                    names.add(words[0].split(b".")[0].decode())
    return sorted(n for n in names if n.isidentifier())


def _walk(root: str, prefix: str = "") -> Iterator[tuple[str, str, os.stat_result | None, bool]]:
    """Every file below ``root`` (relative name, path, stat, False), in a fixed
    order, and every folder walked (its relative name ending in "/", path,
    stat, True), the folder's stat taken before it is listed: a folder whose
    stat is unchanged since has the entries listed then.

    A symbolic link to a folder is not followed (a cycle would never end):
    it stands as its target's path (stat None). A file that cannot be read
    stands as such. Paths stay strings: building ``Path`` objects cost more
    than the stat calls on sglang's tree.
    """
    try:
        listed = os.stat(root)
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    yield prefix, root, listed, True
    for entry in entries:
        rel = prefix + entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in _SKIPPED_DIRS:
                    yield from _walk(entry.path, rel + "/")
                continue
            if entry.is_symlink() and os.path.isdir(entry.path):
                yield rel + "/", os.readlink(entry.path), None, False
                continue
            yield rel, entry.path, entry.stat(follow_symlinks=True), False
        except OSError:
            yield rel, entry.path, None, False


#: What a path's stat says of it: [size, mtime_ns, ctime_ns, inode]; None: absent.
Signature = list[int] | None


def signature(st: os.stat_result) -> list[int]:
    """The stat fields the memo trusts: size, mtime, ctime, inode."""
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


class StatMemo:
    """Content digests of trees, re-read only where a file's stat changed.

    ``store``: the folder holding one memo file per tree; ``None`` keeps
    nothing between runs (every file is read). A memo that cannot be read
    is an empty one; it is written atomically (a temporary file, then
    ``os.replace``), so a reader sees the old memo or the new one.
    """

    def __init__(self, store: Path | None) -> None:
        self._store = store
        self._trees: dict[Path, Tree] = {}
        #: Every path a digest of this run rests on (each file digested, each
        #: folder listed, a root found absent) and its signature as it was
        #: when read: the run memo's witnesses (:mod:`._runs`).
        self.witnesses: dict[str, Signature] = {}
        #: Whether one of them had changed within RACY_NS of being read (its
        #: stat cannot promise its content: the run memo is then not kept).
        self.racy = False

    def tree(self, root: Path) -> Tree:
        """The digest of the file or folder at ``root`` (once per run and root)."""
        if root not in self._trees:
            self._trees[root] = self._digest(root)
        return self._trees[root]

    def _memo_file(self, root: Path) -> Path | None:
        if self._store is None:
            return None
        return self._store / f"{_sha(str(root).encode())[:32]}.json"

    def _load(self, memo_file: Path | None, root: Path) -> Mapping[str, object]:
        if memo_file is None:
            return {}
        try:
            memo = decode(_Memo, json.loads(memo_file.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return {}
        return memo.files if memo.format == _MEMO_FORMAT and memo.root == str(root) else {}

    def _digest(self, root: Path) -> Tree:
        memo_file = self._memo_file(root)
        memo = self._load(memo_file, root)
        kept: dict[str, object] = {}
        digest = hashlib.sha256()
        imports: set[str] = set()
        shas: dict[str, str] = {}
        now = time.time_ns()
        files: list[tuple[str, str, os.stat_result | None, bool]]
        if root.is_dir():
            files = list(_walk(str(root)))
        else:
            try:
                files = [("", str(root), root.stat(), False)]
            except OSError:
                files = [("", str(root), None, False)]
                self.witnesses[str(root)] = None
        for rel, path, st, folder in files:
            if folder:
                self._witness(path, st, now)
                continue
            if st is None or not stat.S_ISREG(st.st_mode):
                digest.update(f"{rel}\0{path}\0-\0".encode())
                # A link to a folder is witnessed by its folder's listing; a
                # file that could not be stat'ed by nothing (no run memo).
                if st is not None or not rel.endswith("/"):
                    self._witness(path, st, now)
                continue
            signature = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
            known = _remembered(memo.get(rel), signature)
            if known is not None:
                sha, names = known
            else:
                try:
                    with open(path, "rb") as handle:
                        data = handle.read()
                except OSError:
                    digest.update(f"{rel}\0unreadable\0".encode())
                    self.racy = True  # nothing to witness: keep no run memo
                    continue
                sha = _sha(data)
                names = _imports(data) if path.endswith((".py", ".pyi")) else []
            if now - max(st.st_mtime_ns, st.st_ctime_ns) > _RACY_NS:
                kept[rel] = [*signature, sha, names]
            self._witness(path, st, now)
            digest.update(f"{rel}\0{sha}\0".encode())
            shas[rel] = sha
            imports.update(names)
        if memo_file is not None and kept != memo:
            write_json(memo_file, encode(_Memo(_MEMO_FORMAT, str(root), kept)))
        return Tree(digest.hexdigest(), frozenset(imports), shas)

    def _witness(self, path: str, st: os.stat_result | None, now: int) -> None:
        if st is None:
            self.racy = True
            return
        self.witnesses[path] = signature(st)
        if now - max(st.st_mtime_ns, st.st_ctime_ns) <= _RACY_NS:
            self.racy = True


def _remembered(known: object, signature: list[int]) -> tuple[str, list[str]] | None:
    """A memo line's digest and imported names, when its stat is ``signature``."""
    if not isinstance(known, list):
        return None
    line = cast(list[object], known)
    if len(line) != 6 or line[:4] != signature or not isinstance(line[5], list):
        return None
    return str(line[4]), [str(n) for n in cast(list[object], line[5])]


#: The field of an entry that holds the sha256 of the rest of it.
_SEAL = "sha256"


def _digest_of(document: Mapping[str, object]) -> str:
    return _sha(json.dumps(document, sort_keys=True, separators=(",", ":")).encode())


def sealed(data: object) -> object:
    """An entry's JSON ``data`` (an object) with the sha256 of its content added.

    The seal makes an entry that was damaged, or edited by hand without
    working out the digest again (a "fail" rewritten as "pass"), read as no
    entry: its stage or checker runs again. It is a checksum, not a
    signature: whoever can write the cache folder can write a sealed entry."""
    if not isinstance(data, dict):
        return data
    document = cast(dict[str, object], data)
    return {**document, _SEAL: _digest_of(document)}


def unsealed(data: object) -> object:
    """``data`` without its seal; ``ValueError`` when it has none or the content is not what was sealed."""
    if not isinstance(data, dict):
        raise ValueError("an entry is a JSON object")
    document = dict(cast(dict[str, object], data))
    seal = document.pop(_SEAL, None)
    if seal != _digest_of(document):
        raise ValueError("the entry's content is not what was stored")
    return document


def write_json(path: Path, data: object) -> None:
    """Write JSON ``data`` to ``path`` atomically (:func:`~spec_protocols.gate._codec.write_atomically`),
    its folder made if need be; a cache that cannot be written is no error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps(data, separators=(",", ":")))
    except OSError:
        pass


def locate(name: str, search: Iterable[str]) -> Path | None:
    """Where top-level module ``name`` would be imported from: a package's
    folder, a module's file (of any kind: an extension module too), or None."""
    found = locations(name, search)
    return found[0] if found else None


def locations(name: str, search: Iterable[str]) -> list[Path] | None:
    """Everything top-level module ``name`` would be imported from: a
    package's folder, every portion of a namespace package (its submodules
    may be in any), a module's file; ``[]`` for a built-in or frozen module,
    None when it is not found. Found by the gate's one locator
    (:func:`~spec_protocols.gate._source.module_locations`)."""
    # Imported here: the run memo (._runs) imports this module and needs no source reading.
    from spec_protocols.gate._source import module_locations

    return module_locations(name, search)


@cache
def _standard_library() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    return tuple(Path(paths[k]).resolve() for k in ("stdlib", "platstdlib") if k in paths)


def in_standard_library(path: Path) -> bool:
    """Whether ``path`` is part of the interpreter's standard library (outside site-packages)."""
    resolved = path.resolve()
    if in_installation(resolved):
        return False
    return any(resolved == lib or lib in resolved.parents for lib in _standard_library())


def distributions() -> list[str]:
    """Every installed distribution on ``sys.path``: its ``.dist-info`` /
    ``.egg-info`` folder name (name and version) and its RECORD's size and
    mtime (a reinstall rewrites it), and every ``.pth`` / ``.egg-link`` with
    its content (editable installs). Reading folder names costs milliseconds;
    reading every METADATA would cost a tenth of a second."""
    found: list[str] = []
    for entry in dict.fromkeys(p for p in sys.path if p):
        folder = Path(entry)
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                try:
                    record = (folder / name / "RECORD").stat()
                    found.append(f"{entry}/{name}:{record.st_size}:{record.st_mtime_ns}")
                except OSError:
                    found.append(f"{entry}/{name}")
            elif name.endswith((".pth", ".egg-link")):
                try:
                    found.append(f"{entry}/{name}:{_sha((folder / name).read_bytes())}")
                except OSError:
                    found.append(f"{entry}/{name}")
    return found


def environment() -> dict[str, str]:
    """The environment variables in every key (:data:`ENVIRONMENT_PREFIXES`, PATH, VIRTUAL_ENV, CONDA_PREFIX)."""
    return {
        name: value
        for name, value in sorted(os.environ.items())
        if name not in _ENVIRONMENT_IGNORED and (name in _ENVIRONMENT_NAMES or name.startswith(ENVIRONMENT_PREFIXES))
    }


def static_environment() -> dict[str, str]:
    """The variables a static checker's verdict may depend on: :func:`environment`
    without those that only say which environment runs (PATH, VIRTUAL_ENV,
    CONDA_PREFIX; the checkers' versions are keyed apart)."""
    return {name: value for name, value in environment().items() if name not in _ENVIRONMENT_NAMES}


def _machine() -> str:
    """``platform.machine()``, which is ``os.uname().machine`` where there is one
    (importing platform costs a cached run several regular expressions)."""
    uname = getattr(os, "uname", None)
    if uname is not None:
        return str(uname().machine)
    import platform

    return platform.machine()


def static_interpreter() -> list[str]:
    """What a static checker's verdict depends on of the interpreter: the
    Python version it is told to check for and the platform, not where it is."""
    return [sys.version, sys.platform, _machine()]


def interpreter() -> list[str]:
    """The interpreter that runs the checkers (and imports the target)."""
    # Its real file and the environment's prefix, not ``sys.executable`` as
    # typed: the console script says ``bin/python3.11`` where ``python -m``
    # says ``bin/python``, the same interpreter in the same environment.
    executable = os.path.realpath(sys.executable)
    return [sys.prefix, executable, sys.version, sys.implementation.cache_tag or "", sys.platform, _machine()]
