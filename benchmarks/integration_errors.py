"""pyright and mypy errors in the files the sglang series changes, before and after, in one run.

    .venv/bin/python benchmarks/integration_errors.py [--no-package]

The series is integrations/sglang/0.5.23/. Two mirrors of the installed
sglang 0.5.23 are built in a temporary folder (directories real, files
linked to the installed ones): one left as the wheel ships it, one with the
series applied (``patch -p1``). In each, both checkers check the files the
series touches, inside their tree, under one configuration:

* pyright (the pinned 1.1.414): ``typeCheckingMode = "standard"`` (pyright's
  default), ``pythonVersion = "3.11"``, ``--pythonpath`` this interpreter (so
  torch and sglang's other dependencies resolve from this environment), run
  from the mirror's root with the touched files as arguments;
* mypy (the pinned 2.4.1): its default strictness, ``python_version = 3.11``,
  ``follow_imports = silent`` (imported modules are analysed, their errors not
  reported), run from the mirror's root with the touched files as arguments,
  a fresh cache per mirror.

spec_protocols comes from this environment (the checkout, installed
editable); entries of ``PYTHONPATH`` are passed to both checkers as extra
search paths, ahead of it.

With ``--no-package`` skipped: pyright on the whole ``sglang/srt/speculative``
folder as well, before and after, to show what typing ``BaseSpecWorker``
does to the workers that subclass it (files the series does not touch).

Prints a table and writes benchmarks/results/integration_errors.json.
Error counts do not depend on the machine; nothing here is asserted by a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # integrations/ (run as a script, benchmarks/ is sys.path[0])

from integrations.series import apply_series, mirror, modified_against_record, series, touched_files  # noqa: E402

RELEASE = "0.5.23"
RESULTS = ROOT / "benchmarks" / "results"
VENV_BIN = Path(sys.executable).parent
PACKAGE = "sglang/srt/speculative"

# "path/to/file.py:12: error: ..." (mypy's default output).
_MYPY_ERROR = re.compile(r"^(?P<file>[^:\n]+\.py):\d+: error: ", re.MULTILINE)


def _extra_paths() -> list[str]:
    return [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]


def _installed_root() -> Path:
    from spec_protocols.gate._contract import installed_source

    source = installed_source()
    if source is None or source.release != RELEASE:
        sys.exit(f"needs the installed sglang {RELEASE} (scripts/setup); found {source and source.release}")
    files = touched_files(series("sglang", RELEASE))
    modified = modified_against_record(source.root, "sglang", RELEASE, files)
    if modified:
        sys.exit(f"the installed sglang differs from its wheel in {modified}")
    return source.root


def pyright_errors(tree: Path, targets: list[str]) -> tuple[Counter[str], float]:
    """Errors per file (relative to ``tree``) reported by pyright for ``targets``."""
    config = {"pythonVersion": "3.11", "typeCheckingMode": "standard", "extraPaths": _extra_paths()}
    (tree / "pyrightconfig.json").write_text(json.dumps(config))
    start = time.perf_counter()
    proc = subprocess.run(
        [str(VENV_BIN / "pyright"), "--pythonpath", sys.executable, "--outputjson", *targets],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    report = json.loads(proc.stdout)
    counts: Counter[str] = Counter()
    for diagnostic in report["generalDiagnostics"]:
        if diagnostic["severity"] == "error":
            counts[_relative(diagnostic["file"], tree)] += 1
    return counts, elapsed


def mypy_errors(tree: Path, targets: list[str], cache: Path) -> tuple[Counter[str], float]:
    """Errors per file reported by mypy for ``targets`` (defaults, follow_imports = silent)."""
    lines = ["[mypy]", "python_version = 3.11", "follow_imports = silent", f"cache_dir = {cache}"]
    if _extra_paths():
        lines.append(f"mypy_path = {os.pathsep.join(_extra_paths())}")
    (tree / "mypy.ini").write_text("\n".join(lines) + "\n")
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-error-summary", "--hide-error-context", *targets],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"mypy failed in {tree}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    counts = Counter(_relative(match["file"], tree) for match in _MYPY_ERROR.finditer(proc.stdout))
    return counts, elapsed


def _relative(file: str, tree: Path) -> str:
    """``sglang/...`` for a file of the tree (pyright may report the link's target)."""
    text = file.replace(os.sep, "/")
    index = text.rfind("sglang/srt/")
    return text[index:] if index >= 0 else text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-package", action="store_true", help=f"skip pyright on the whole {PACKAGE} folder")
    args = parser.parse_args()
    installed = _installed_root()
    patches = series("sglang", RELEASE)
    files = list(touched_files(patches))
    record: dict[str, object] = {
        "python": platform.python_version(),
        "sglang": RELEASE,
        "patches": [p.name for p in patches],
        "files": files,
    }
    with tempfile.TemporaryDirectory(prefix="integration-errors-") as tmp:
        trees = {"before": mirror(installed / "sglang", Path(tmp) / "before"), "after": mirror(installed / "sglang", Path(tmp) / "after")}
        apply_series(trees["after"], patches)
        counts: dict[str, dict[str, Counter[str]]] = {"pyright": {}, "mypy": {}}
        seconds: dict[str, float] = {}
        for side, tree in trees.items():
            counts["pyright"][side], seconds[f"pyright {side}"] = pyright_errors(tree, files)
            counts["mypy"][side], seconds[f"mypy {side}"] = mypy_errors(tree, files, Path(tmp) / f"mypy-cache-{side}")
        package: dict[str, Counter[str]] = {}
        if not args.no_package:
            for side, tree in trees.items():
                package[side], seconds[f"pyright {PACKAGE} {side}"] = pyright_errors(tree, [PACKAGE])

    print(f"{'file (sglang/srt/...)':58} {'pyright':>15} {'mypy':>15}")
    for name in files:
        short = name.removeprefix("sglang/srt/")
        cells = [f"{counts[c]['before'][name]:>6} -> {counts[c]['after'][name]:<5}" for c in ("pyright", "mypy")]
        print(f"{short:58} {cells[0]:>15} {cells[1]:>15}")
    totals = {c: {side: sum(counts[c][side][n] for n in files) for side in ("before", "after")} for c in counts}
    cells = [f"{totals[c]['before']:>6} -> {totals[c]['after']:<5}" for c in ("pyright", "mypy")]
    print(f"{'total':58} {cells[0]:>15} {cells[1]:>15}")
    record["errors"] = {c: {side: {n: counts[c][side][n] for n in files} for side in ("before", "after")} for c in counts}
    record["totals"] = totals
    if package:
        before, after = package["before"], package["after"]
        print(f"\npyright on {PACKAGE}/ (every file, touched or not): {sum(before.values())} -> {sum(after.values())}")
        grew = {n: (before[n], after[n]) for n in sorted(set(before) | set(after)) if after[n] > before[n]}
        print("files with more errors after: " + (", ".join(f"{n} {b} -> {a}" for n, (b, a) in grew.items()) or "none"))
        record["package"] = {"before": dict(before), "after": dict(after)}
    record["seconds"] = seconds
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "integration_errors.json").write_text(json.dumps(record, indent=2))
    print(f"wrote {RESULTS / 'integration_errors.json'}")


if __name__ == "__main__":
    main()
