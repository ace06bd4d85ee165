"""``spec-protocols lsp`` end to end with a real LSP client (issue 30, item 4).

pytest-lsp's client starts the server as an editor does (``spec-protocols lsp``
on stdin/stdout), initializes it, opens the broken worker of
test_fix_command.py (a renamed constructor keyword, a missing member, an
``async`` member sglang calls without awaiting, a forward without the overlap
loop's ``on_publish=``) and receives its diagnostics on the right lines; asks
for code actions, applies the one that makes every edit, saves, and receives
none. mypy and pyright are the checkers (the runtime checker would import the
plugin; the editor's round is the same either way).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tests._paths import REPO_ROOT
from tests.checkers.test_fix_command import INIT, WORKERS

pytest.importorskip("pytest_lsp", reason="pytest-lsp is in the dev extra")

from lsprotocol import types  # noqa: E402 - after the skip
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

#: Seconds one check may take before the test gives up (a cold mypy and pyright on a loaded machine).
ROUND_S = 600


def _server(cwd: Path) -> ClientServerConfig:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(cwd), str(REPO_ROOT)])}
    command = [sys.executable, "-m", "spec_protocols.gate._cli", "lsp", "--checker", "mypy", "--checker", "pyright"]
    return ClientServerConfig(server_command=command, server_env=env)


async def _published(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """The diagnostics the server publishes next for ``uri`` (the client's own
    handler files them under ``client.diagnostics``; the caller dropped the
    last ones before asking for the round)."""

    async def wait() -> list[types.Diagnostic]:
        while uri not in client.diagnostics:
            if client.error is not None:
                raise AssertionError(f"the server failed: {client.error}")
            await asyncio.sleep(0.2)
        return client.diagnostics[uri]

    return await asyncio.wait_for(wait(), ROUND_S)


async def _editing_round(tmp_path: Path) -> None:
    package = tmp_path / "fxp"
    package.mkdir()
    (package / "__init__.py").write_text(INIT, encoding="utf-8")
    workers = package / "workers.py"
    workers.write_text(WORKERS, encoding="utf-8")
    uri = workers.resolve().as_uri()

    client = await _server(tmp_path).start()
    try:
        await client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri()))
        client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, WORKERS)))
        found = await _published(client, uri)

        # Each finding on its line, in the checker's words, with what to change.
        lines = WORKERS.splitlines()
        by_line = {d.range.start.line: d for d in found}
        init_line = next(i for i, line in enumerate(lines) if line.startswith("    def __init__"))
        assert init_line in by_line, [(d.range.start.line, d.message) for d in found]
        assert "gpu_id" in by_line[init_line].message
        assert {d.source for d in found} >= {"spec-protocols (mypy)", "spec-protocols (pyright)"}
        assert any("init_attention_backends" in (d.code or "") for d in found)
        assert all(d.severity == types.DiagnosticSeverity.Error for d in found)

        # The code actions are fix's edits; the preferred one makes them all.
        whole = types.Range(types.Position(0, 0), types.Position(len(lines), 0))
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(types.TextDocumentIdentifier(uri), whole, types.CodeActionContext(diagnostics=found))
        )
        assert actions, "no code action offered"
        titles = [a.title for a in actions if isinstance(a, types.CodeAction)]
        assert any("rename parameter gpu to gpu_id" in title for title in titles), titles
        every = next(a for a in actions if isinstance(a, types.CodeAction) and a.is_preferred)
        assert every.edit is not None and every.edit.changes is not None
        (edit,) = every.edit.changes[uri]

        # The editor applies it and saves: the server checks again and clears the file.
        workers.write_text(edit.new_text, encoding="utf-8")
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(2, uri), [types.TextDocumentContentChangeWholeDocument(edit.new_text)]
            )
        )
        client.diagnostics.pop(uri, None)
        client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
        after = await _published(client, uri)
        assert not after, [(d.range.start.line, d.message) for d in after]
        await asyncio.wait_for(client.shutdown_session(), ROUND_S)
    finally:
        server = client._server  # noqa: SLF001 - a failed round leaves the server up: end it, or stop() waits for it
        if server is not None and server.returncode is None:
            server.terminate()
        await client.stop()


def test_an_editing_round_diagnostics_then_the_fix_then_none(tmp_path: Path) -> None:
    asyncio.run(_editing_round(tmp_path))


def test_without_pygls_the_command_is_one_line_exit_2(tmp_path: Path) -> None:
    import subprocess

    # A folder named pygls that is no package's import shadows the installed one.
    blocker = tmp_path / "pygls.py"
    blocker.write_text("raise ImportError('pygls hidden for this test')\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO_ROOT)])}
    ran = subprocess.run(
        [sys.executable, "-m", "spec_protocols.gate._cli", "lsp"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert ran.stderr.strip() == "spec-protocols: error: pygls is not installed: pip install 'spec-protocols[lsp]'"
