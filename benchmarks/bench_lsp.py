"""``spec-protocols lsp``'s cost: the diagnostics after a save, beside a cold one-shot ``check``.

    .venv/bin/python benchmarks/bench_lsp.py [--rounds N]

The plugin is tests/checkers/test_fix_command.py's (one worker with four
mechanical mistakes). Each round, on a fresh copy and an empty cache folder,
each figure with the 1-minute load average taken just before it:

* the anchor: ``spec-protocols check fxp --checker mypy --checker pyright``, cold;
* the server (same checkers), driven by pytest-lsp's client as an editor does:
  ``open`` (its first check: the warm checkers start), then the code action
  that makes every edit applied and saved: ``save``, the seconds from the
  save to the file's diagnostics (none, the worker now passes).

The figure is save/check: what an author waits for after a save, as a
fraction of a cold run. Writes benchmarks/results/bench_lsp.json. Timings are
noisy on shared machines: read the ratios of one run. Nothing here is
asserted by a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.checkers.test_fix_command import INIT, WORKERS  # noqa: E402 - the checkout's own test plugin

CHECKERS = ("--checker", "mypy", "--checker", "pyright")


def _plugin(folder: Path) -> tuple[Path, dict[str, str]]:
    (folder / "fxp").mkdir()
    (folder / "fxp" / "__init__.py").write_text(INIT, encoding="utf-8")
    (folder / "fxp" / "workers.py").write_text(WORKERS, encoding="utf-8")
    env = {**os.environ, "SPEC_PROTOCOLS_CACHE_DIR": str(folder / "cache"), "PYTHONPATH": f"{folder}{os.pathsep}{ROOT}"}
    env.pop("SPEC_PROTOCOLS_NO_CACHE", None)
    return folder / "fxp" / "workers.py", env


def _check() -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        _, env = _plugin(Path(tmp))
        load = os.getloadavg()[0]
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "spec_protocols.gate._cli", "check", "fxp", *CHECKERS], cwd=tmp, env=env, capture_output=True, check=False)
        return time.perf_counter() - start, load


async def _served() -> tuple[float, float, float]:
    from lsprotocol import types
    from pytest_lsp import ClientServerConfig

    with tempfile.TemporaryDirectory() as tmp:
        workers, env = _plugin(Path(tmp))
        uri = workers.as_uri()
        command = [sys.executable, "-m", "spec_protocols.gate._cli", "lsp", *CHECKERS]
        client = await ClientServerConfig(server_command=command, server_env=env).start()
        try:
            await client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities()))
            load = os.getloadavg()[0]
            start = time.perf_counter()
            client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, WORKERS)))
            while uri not in client.diagnostics:
                await asyncio.sleep(0.05)
            opened = time.perf_counter() - start
            lines = len(WORKERS.splitlines())
            actions = await client.text_document_code_action_async(
                types.CodeActionParams(
                    types.TextDocumentIdentifier(uri),
                    types.Range(types.Position(0, 0), types.Position(lines, 0)),
                    types.CodeActionContext(diagnostics=list(client.diagnostics[uri])),
                )
            )
            every = next(a for a in actions or [] if isinstance(a, types.CodeAction) and a.is_preferred)
            assert every.edit is not None and every.edit.changes is not None
            text = every.edit.changes[uri][0].new_text
            workers.write_text(text, encoding="utf-8")
            change = types.TextDocumentContentChangeWholeDocument(text)
            client.text_document_did_change(types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(2, uri), [change]))
            client.diagnostics.pop(uri)
            start = time.perf_counter()
            client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
            while uri not in client.diagnostics:
                await asyncio.sleep(0.05)
            saved = time.perf_counter() - start
            if client.diagnostics[uri]:
                raise SystemExit(f"the fixed worker still has diagnostics: {client.diagnostics[uri]}")
            await client.shutdown_session()
        finally:
            await client.stop()
        return opened, saved, load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rows: list[dict[str, float]] = []
    for _ in range(args.rounds):
        check, check_load = _check()
        opened, saved, served_load = asyncio.run(_served())
        rows.append({"check_s": check, "check_load": check_load, "open_s": opened, "save_s": saved, "served_load": served_load})
        print(f"check {check:6.1f}s (load {check_load:.1f})   lsp open {opened:6.1f}s  save {saved:5.2f}s (load {served_load:.1f})")
    check_median = statistics.median(r["check_s"] for r in rows)
    save_median = statistics.median(r["save_s"] for r in rows)
    open_median = statistics.median(r["open_s"] for r in rows)
    summary = {
        "rounds": rows,
        "check_median_s": check_median,
        "open_median_s": open_median,
        "save_median_s": save_median,
        "save_over_check": save_median / check_median,
        "open_over_check": open_median / check_median,
    }
    print(f"median: check {check_median:.1f}s, open {open_median:.1f}s, save {save_median:.2f}s; "
          f"save/check {summary['save_over_check']:.3f}, open/check {summary['open_over_check']:.2f}")
    out = ROOT / "benchmarks" / "results" / "bench_lsp.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
