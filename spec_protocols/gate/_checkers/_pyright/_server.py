"""pyright kept warm between rounds: its language server, asked for diagnostics.

``pyright-langserver --stdio`` (the one installed beside ``pyright``) is
started in the watch session's own work folder, which holds the same
``pyrightconfig.json`` a one-shot run writes
(:func:`~spec_protocols.gate._checkers._pyright.pyright_config`). Each round:

* the files the one-shot run reports on (the configuration's ``include``:
  the harness, the plugin's modules that define checked classes, the
  shadows of injection sites) and the plugin's other local modules are open
  documents; a file whose text changed is sent again (``didChange``), so the
  server re-analyses only what depends on it;
* the diagnostics of each included file are asked for with LSP's pull
  request (``textDocument/diagnostic``), which pyright answers once that
  file's analysis is current: nothing is guessed from a quiet period;
* a changed configuration, or a change to a file the server reads but that
  is not open (sglang's modules, an installed package), restarts the server:
  a cold answer is slower, never stale.

Measured against ``pyright --watch``: its output is text only (no
``--outputjson``), and it says when it is done only by printing a summary;
the language server answers each file's diagnostics as structured data, the
same messages and rules as ``--outputjson`` (the watch test compares whole
reports).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from spec_protocols.gate._checkers._process import Invocation, Reported
from spec_protocols.gate._checkers._pyright._pyright_oneshot import find_pyright, pyright_config
from spec_protocols.gate._harness import CheckInput, StaticInput
from spec_protocols.gate._model import GateError
from spec_protocols.gate._paths import Stamp, in_installation, stamp
from spec_protocols.gate._source import find_module_file
from spec_protocols.gate._checkers._pyright._lsp import LspClient, LspError

__all__ = ["PyrightServer"]

_SEVERITY = {1: "error", 2: "warning", 3: "information", 4: "hint"}


def _langserver() -> str:
    """``pyright-langserver``, beside the ``pyright`` the one-shot run uses."""
    pyright = Path(find_pyright())
    server = pyright.with_name("pyright-langserver")
    if not server.exists():
        raise GateError(f"pyright-langserver is not installed beside {pyright}")
    return str(server)


def _reported(file: Path, item: Mapping[str, Any]) -> Reported:
    start = item["range"]["start"]
    code = item.get("code")
    return Reported(
        str(file),
        int(start["line"]) + 1,
        int(start["character"]),
        _SEVERITY.get(int(item.get("severity") or 1), "error"),
        str(code) if code is not None else None,
        str(item.get("message") or ""),
    )


class PyrightServer:
    """One pyright language server for one work folder, restarted when it must be."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self._client: LspClient | None = None
        self._config = ""
        self._open: dict[Path, tuple[int, str]] = {}
        self._unopened: dict[Path, Stamp | None] = {}

    # -- the rounds -------------------------------------------------------

    def invoke(self, check_input: CheckInput, static: StaticInput) -> Invocation:
        """pyright's diagnostics on ``static`` (written in :attr:`workdir`), as ``pyright --outputjson`` gives them."""
        start = time.perf_counter()
        config = pyright_config(check_input, static)
        text = json.dumps(config, indent=2)
        include = [(static.workdir / str(p)).resolve() for p in cast(list[str], config["include"])]
        local, unopened = self._files(check_input, include)
        stale = {f: stamp(f) for f in unopened} != self._unopened
        if self._client is None or not self._client.alive or text != self._config or stale:
            self._restart(text, unopened)
        client = self._client
        assert client is not None
        self._sync(client, [*include, *local])
        diagnostics: list[Reported] = []
        try:
            for file in include:
                answer = client.request(
                    "textDocument/diagnostic", {"textDocument": {"uri": file.as_uri()}}, timeout=check_input.timeout
                )
                items = cast(list[Mapping[str, Any]], (cast(Mapping[str, Any], answer or {})).get("items") or [])
                diagnostics.extend(_reported(file, item) for item in items)
        except LspError as error:
            self.close()
            raise GateError(f"pyright's language server: {error}") from None
        errors = any(d.severity == "error" for d in diagnostics)
        return Invocation(1 if errors else 0, tuple(diagnostics), "", "", time.perf_counter() - start)

    def _files(self, check_input: CheckInput, include: list[Path]) -> tuple[list[Path], list[Path]]:
        """The plugin's other local modules (opened too), and the files read but not opened."""
        local: list[Path] = []
        unopened: list[Path] = []
        for name, file in sorted(check_input.discovery.source_modules.items()):
            path = file.resolve()
            if path in include:
                continue
            top = name.partition(".")[0]
            if in_installation(path) or top in ("sglang", "spec_protocols"):
                unopened.append(path)
            else:
                local.append(path)
        # What the plugin imports from its own folders, though discovery did
        # not need it: pyright reads it all the same (mypy skips it).
        roots = [str(r) for r in check_input.discovery.search_roots]
        packages: dict[str, list[str]] = {}
        for name in sorted(check_input.discovery.imported_modules):
            if name.partition(".")[0] in ("sglang", "spec_protocols") or name in check_input.discovery.source_modules:
                continue
            found = find_module_file(name, roots, packages)
            if found is not None and found.is_file() and (path := found.resolve()) not in include and path not in local:
                local.append(path)
        return local, unopened

    def _restart(self, config_text: str, unopened: list[Path]) -> None:
        self.close()
        config_file = self.workdir / "pyrightconfig.json"
        config_file.write_text(config_text, encoding="utf-8")
        try:
            client = LspClient([_langserver(), "--stdio"], cwd=str(self.workdir))
        except OSError as error:
            raise GateError(f"cannot start pyright's language server: {error}") from None
        root = self.workdir.as_uri()
        capabilities = {
            "textDocument": {"diagnostic": {"dynamicRegistration": False}, "publishDiagnostics": {}},
            "workspace": {"configuration": True, "workspaceFolders": True},
        }
        try:
            client.request(
                "initialize",
                {
                    "processId": None,
                    "rootUri": root,
                    "workspaceFolders": [{"uri": root, "name": "spec-protocols-watch"}],
                    "capabilities": capabilities,
                },
                timeout=120,
            )
            client.notify("initialized", {})
        except LspError as error:
            client.close()
            raise GateError(f"pyright's language server did not start: {error}") from None
        self._client = client
        self._config = config_text
        self._open = {}
        self._unopened = {f: stamp(f) for f in unopened}

    def _sync(self, client: LspClient, files: list[Path]) -> None:
        """Open ``files``, send those whose text changed, close those no longer wanted."""
        wanted = dict.fromkeys(files)
        for file in [f for f in self._open if f not in wanted]:
            client.notify("textDocument/didClose", {"textDocument": {"uri": file.as_uri()}})
            del self._open[file]
        for file in wanted:
            try:
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            known = self._open.get(file)
            if known is None:
                client.notify(
                    "textDocument/didOpen",
                    {"textDocument": {"uri": file.as_uri(), "languageId": "python", "version": 1, "text": text}},
                )
                self._open[file] = (1, text)
            elif known[1] != text:
                version = known[0] + 1
                client.notify(
                    "textDocument/didChange",
                    {"textDocument": {"uri": file.as_uri(), "version": version}, "contentChanges": [{"text": text}]},
                )
                self._open[file] = (version, text)

    def close(self) -> None:
        """End the server (LSP's shutdown and exit; killed if it will not end)."""
        client, self._client = self._client, None
        if client is not None:
            client.close()
