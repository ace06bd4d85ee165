"""The language server: the gate on the open file, on open and on save, its findings as diagnostics.

One :class:`Checks` holds the checkers as the watch mode runs them (mypy's
daemon, pyright's language server, the runtime checker's next probe: each
checker's own ``warm``), so a save is answered at a watch round's cost, not a
cold run's. A check runs in a thread, one at a time (two never drive one warm
checker), while the server goes on reading the editor's messages.

A file the gate finds no worker in, or cannot read (a syntax error the editor
shows anyway), gets no diagnostics, and the reason goes to the editor's log.
The code actions are ``spec-protocols fix``'s edits (:mod:`._actions`),
offered while the editor's text is the saved text the check read.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from spec_protocols.gate._lsp._actions import mends_for
from spec_protocols.gate._lsp._diagnostics import Spot, spots_by_file
from spec_protocols.gate._model import GateError, GateReport
from spec_protocols.gate._request import GateRequest
from spec_protocols.gate._run import run
from spec_protocols.gate._watch import end_checkers, warm_rounds

if TYPE_CHECKING:
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer

__all__ = ["Checks", "build_server", "checked_for"]


class Checks:
    """The gate on one file at a time, its checkers warm between checks."""

    def __init__(self, request: GateRequest) -> None:
        # Each check is a watch round: every stage runs, its stored results reused.
        self.root, self.checkers, self.request = warm_rounds(request, "lsp-")
        self._lock = threading.Lock()

    def check(self, path: Path) -> GateReport:
        """The gate's report on what holds the file at ``path``, as saved; a :class:`GateError` on bad input."""
        with self._lock:
            return run(replace(self.request, targets=(str(checked_for(path)),))).single

    def close(self) -> None:
        """Stop the warm checkers and every process they left; remove their folder."""
        end_checkers(self.checkers.values(), self.root)
        shutil.rmtree(self.root, ignore_errors=True)


def checked_for(path: Path) -> Path:
    """What the gate checks for a file: the outermost package that holds it, else the file.

    A worker's verdict depends on its package (the registration in
    ``__init__.py`` decides the path sglang runs it on), so a file of a
    package is checked as ``spec-protocols check PACKAGE/`` would; the
    diagnostics then go to each file they are in."""
    top = path
    while (top.parent / "__init__.py").is_file() and top.parent != top.parent.parent:
        top = top.parent
    return top


def build_server(checks: Checks, version: str) -> LanguageServer:
    """The server, its features registered, not started."""
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer
    from pygls.uris import from_fs_path, to_fs_path

    server = LanguageServer("spec-protocols", version, text_document_sync_kind=types.TextDocumentSyncKind.Full)
    #: The last report of each checked file, and the files it published diagnostics for.
    reports: dict[Path, GateReport] = {}
    published: dict[Path, set[str]] = {}

    def path_of(uri: str) -> Path | None:
        fs_path = to_fs_path(uri)
        return Path(fs_path).resolve() if fs_path and fs_path.endswith(".py") else None

    async def check(ls: LanguageServer, uri: str) -> None:
        path = path_of(uri)
        if path is None:
            return
        try:
            report: GateReport | None = await asyncio.to_thread(checks.check, path)
        except GateError as error:
            ls.window_log_message(types.LogMessageParams(types.MessageType.Info, f"spec-protocols: {path.name}: {error}"))
            report = None
        shown = spots_by_file(report) if report is not None else {}
        if report is not None:
            reports[path] = report
        else:
            reports.pop(path, None)
        now = {from_fs_path(str(file)) or str(file): spots for file, spots in shown.items()}
        # A file shown last time and clean now is cleared; the checked file always gets its (maybe empty) list.
        for stale in published.get(path, set()) - set(now):
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(stale, []))
        now.setdefault(uri, [])
        for file_uri, spots in now.items():
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(file_uri, [_diagnostic(spot) for spot in spots]))
        published[path] = set(now)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        await check(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    async def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        await check(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(ls: LanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        path = path_of(uri)
        report = reports.get(path) if path is not None else None
        if path is None or report is None:
            return []
        text = ls.workspace.get_text_document(uri).source
        try:
            saved = path.read_text(encoding="utf-8")
        except OSError:
            return []
        if text != saved:
            return []  # the edits are made on the saved text the check read
        actions: list[types.CodeAction] = []
        for mend in mends_for(report, path):
            answered = [d for d in params.context.diagnostics if _member_of(d) in mend.members]
            edit = types.WorkspaceEdit(changes={uri: [types.TextEdit(_whole(text), mend.text)]})
            actions.append(
                types.CodeAction(mend.title, kind=types.CodeActionKind.QuickFix, diagnostics=answered or None, is_preferred=mend.preferred, edit=edit)
            )
        return actions

    return server


def _diagnostic(spot: Spot) -> types.Diagnostic:
    from lsprotocol import types

    line = spot.line - 1
    severity = types.DiagnosticSeverity.Error if spot.severity == "error" else types.DiagnosticSeverity.Warning
    return types.Diagnostic(
        range=types.Range(types.Position(line, 0), types.Position(line + 1, 0)),
        message=spot.message,
        severity=severity,
        code=spot.code,
        source=spot.source,
    )


def _member_of(diagnostic: types.Diagnostic) -> str | None:
    """The member a diagnostic of ours is about (its code is ``Protocol.member``)."""
    code = diagnostic.code
    if not isinstance(code, str) or not (diagnostic.source or "").startswith("spec-protocols"):
        return None
    return code.partition(".")[2] or None


def _whole(text: str) -> types.Range:
    """The range of all of ``text``, its last position in UTF-16 units as LSP counts them."""
    from lsprotocol import types

    lines = text.split("\n")
    return types.Range(types.Position(0, 0), types.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2))

