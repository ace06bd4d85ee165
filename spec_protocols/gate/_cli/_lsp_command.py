"""``spec-protocols lsp``: the gate as a language server on stdin/stdout, for an editor to start."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import TYPE_CHECKING

from spec_protocols.gate._cli._parsing import Command

if TYPE_CHECKING:
    from spec_protocols.gate._checkers import Checker

__all__ = ["LSP"]

_HELP = "the gate in your editor: a language server on stdio (diagnostics on save, fix's edits as code actions)"
_DESCRIPTION = "Serve the gate's diagnostics and fixes to an editor over the Language Server Protocol (stdin/stdout)."

_EPILOG = """\
what it does:
  Speaks the Language Server Protocol on stdin/stdout; an editor starts it
  (you do not run it in a terminal). On opening and on saving a Python file
  it runs the gate on that file, as `spec-protocols check FILE` would, and
  shows each problem on its line, in the checker's words, with what to
  change. A file with no worker gets no diagnostics. The checkers stay warm
  between saves (as in `check --watch`), so a save costs a watch round, not a
  cold run.

  Code actions ("quick fixes") are the edits `spec-protocols fix` would make
  in that file, one per edit and one making them all; they are offered
  while the editor's text is saved (the check read the saved file).

  Needs pygls: pip install 'spec-protocols[lsp]'. Set-up for VS Code,
  Neovim and Helix: docs/editors.md.

exit status: 0 the editor ended the session, 2 usage or environment error
(one line on stderr)

examples:
  spec-protocols lsp                              the gate's checkers, the installed sglang
  spec-protocols lsp --sglang 0.5.23 {static_flags}
"""


def _add_arguments(lsp: argparse.ArgumentParser) -> None:
    lsp.add_argument("--sglang", metavar="RELEASE|PATH", help="check against that release or source tree (as for check)")
    lsp.add_argument("--checker", action="append", default=[], metavar="NAME", help="run only this checker (repeatable; default: the gate's)")
    lsp.add_argument("--no-import", action="store_true", help="never import the files (the static checkers only)")
    lsp.add_argument("--no-cache", action="store_true", help="neither reuse nor store anything in the gate's cache")


def _run(args: argparse.Namespace, registry: Mapping[str, Checker] | None = None) -> int:
    from spec_protocols.gate._lsp import serve
    from spec_protocols.gate._request import CachePolicy, GateRequest

    request = GateRequest(
        releases=(args.sglang,) if args.sglang else (),
        checkers=tuple(args.checker) if args.checker else None,
        registry=registry,
        allow_import=not args.no_import,
        cache=CachePolicy.OFF if args.no_cache else CachePolicy.USE,
    )
    return serve(request)


LSP = Command("lsp", _add_arguments, _run, help=_HELP, description=_DESCRIPTION, epilog=_EPILOG)
