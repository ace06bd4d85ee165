"""``spec-protocols lsp``: the gate in the editor, a language server over stdio.

``_diagnostics``  the report as diagnostics: each problem on its file's line, in the checker's words
``_actions``      ``spec-protocols fix``'s edits of one file as code actions
``_language_server``  the server (pygls): a check on open and on save, warm checkers between them

It sits beside the watch mode (whose warm checkers it runs) and below the CLI.
pygls is an optional dependency (``spec-protocols[lsp]``): without it the
command is one line and exit 2.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from types import FrameType

from spec_protocols.gate._model import GateError
from spec_protocols.gate._request import GateRequest

__all__ = ["serve"]


def serve(request: GateRequest) -> int:
    """Serve the editor on stdin/stdout until it says exit; 0."""
    try:
        # The one optional dependency, asked for before anything starts.
        importlib.import_module("pygls.lsp.server")
    except ImportError:
        raise GateError("pygls is not installed: pip install 'spec-protocols[lsp]'") from None
    from spec_protocols import __version__
    from spec_protocols.gate._lsp._language_server import Checks, build_server

    if len(request.releases) > 1:
        raise GateError("lsp checks against one sglang: give --sglang once")
    # The protocol has stdout to itself: whatever else writes there (a checker,
    # a child process, a print in the plugin the runtime checker imports) goes
    # to stderr, which editors show as the server's log.
    sys.stdout.flush()
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    checks = Checks(request)
    # An editor that ends the server with SIGTERM (rather than exit) still has
    # its warm checkers stopped: the server's loop ends as on exit.
    signal.signal(signal.SIGTERM, _ended)
    try:
        build_server(checks, __version__).start_io(sys.stdin.buffer, protocol_out)
    finally:
        checks.close()
    return 0


def _ended(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)
