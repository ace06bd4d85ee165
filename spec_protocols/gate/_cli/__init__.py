"""The ``spec-protocols`` command.

Exit codes: 0 everything conforms; 1 something is ``fail`` or ``unverified``;
2 a usage or environment error, printed as one line, never a traceback.

One module per subcommand (``_check_command``, ``_contract_command``,
``_pin_command``, ``_explain_command``, ``_new_command``, ``_fix_command``, ``_upgrade_command``,
``_cache_command``, ``_lsp_command``), each a :class:`~spec_protocols.gate._cli._parsing.Command`; this
module builds the parser from them and turns errors into exit 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from spec_protocols.gate._cli._cache_command import CACHE
from spec_protocols.gate._cli._check_command import CHECK
from spec_protocols.gate._cli._contract_command import CONTRACT
from spec_protocols.gate._cli._explain_command import EXPLAIN
from spec_protocols.gate._cli._fix_command import FIX
from spec_protocols.gate._cli._lsp_command import LSP
from spec_protocols.gate._cli._new_command import NEW
from spec_protocols.gate._cli._parsing import Command, Parser, add_command
from spec_protocols.gate._cli._pin_command import PIN
from spec_protocols.gate._cli._upgrade_command import UPGRADE
from spec_protocols.gate._model import GateError

if TYPE_CHECKING:
    from spec_protocols.gate._checkers import Checker

__all__ = ["main"]

#: The subcommands, in the order ``--help`` lists them.
COMMANDS: tuple[Command, ...] = (CHECK, FIX, EXPLAIN, CONTRACT, PIN, NEW, UPGRADE, CACHE, LSP)

_EPILOG = """\
start here:
  spec-protocols check                  check the installed sglang's workers
  spec-protocols check my_plugin/       check your plugin (module, module:Class or path)
  spec-protocols fix my_plugin/ --write write the edits that mend what check found, then check again
  spec-protocols explain SpecWorker     what a worker must provide, and where sglang calls it
  spec-protocols new worker MyWorker    write my_worker.py, a skeleton that passes the gate
  spec-protocols contract --sglang 0.5.21  what that sglang release asks of a worker, from its source
  spec-protocols pin 0.5.21             type checker settings for code that targets that release
  spec-protocols upgrade --from 0.5.20 --to 0.5.23 my_plugin/
                                        what my_plugin must change to pass on 0.5.23
  spec-protocols cache                  what the gate's cache folder holds, and pruning it
  spec-protocols lsp                    the gate in your editor (a language server; docs/editors.md)

`spec-protocols check --help` explains targets, verdicts and exit codes.
"""


def _build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``only``, a command's name, that command's
    alone (another word gets every command, without arguments: their names
    stand for the error's list of choices), so that a run builds, and imports
    for, its own arguments only."""
    parser = Parser(
        prog="spec-protocols",
        description="Check sglang speculative-decoding workers against the spec_protocols protocols "
        "with several independent checkers.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show program's version number and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    # A run of one command needs no other's parser; any other word (a typo)
    # gets them all, for the error's list of choices.
    named = [command for command in COMMANDS if command.name == only]
    for command in named or COMMANDS:
        add_command(sub, command, arguments=only is None or command.name == only)
    return parser


def _version() -> str:
    from spec_protocols import __version__

    return __version__


class _Version(argparse.Action):
    """``--version``, its version read (from the package metadata, which
    costs importlib.metadata) only when asked for, not on every run."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: object, values: object, option_string: object = None) -> None:
        sys.stdout.write(f"{parser.prog} {_version()}\n")
        parser.exit()


def main(argv: Sequence[str] | None = None, *, checkers: Mapping[str, Checker] | None = None) -> int:
    """Entry point of the ``spec-protocols`` console script.

    ``checkers``: the registry ``--checker`` names are looked up in (default:
    the gate's; a test passes fakes)."""
    given = sys.argv[1:] if argv is None else argv
    # The command is the first word that is no option (the top level's take no values).
    parser = _build_parser(next((word for word in given if not word.startswith("-")), None))
    args = parser.parse_args(argv)
    if args.command is None:
        # No command: a usage error, so the help goes to stderr with exit 2.
        parser.print_help(sys.stderr)
        return 2
    try:
        status: int = args.run(args, checkers)
        return status
    except GateError as exc:
        sys.stderr.write(f"spec-protocols: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("spec-protocols: interrupted\n")
        return 2
    except OSError as exc:
        # e.g. --output to a directory that does not exist
        sys.stderr.write(f"spec-protocols: error: {exc.strerror or exc}: {exc.filename or ''}\n".replace(": \n", "\n"))
        return 2
