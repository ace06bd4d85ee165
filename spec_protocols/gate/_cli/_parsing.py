"""What every subcommand's parser shares: one-line usage errors, and its help.

Each subcommand is a module of this package with a :class:`Command`: its help
texts, how to add its arguments, and how to run it. The modules import only
argparse and this at the top; what a command needs to run it imports when it
runs, so ``spec-protocols --help`` (and a command that does not need the
checkers) never pays for them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from spec_protocols.gate._checkers import Checker

__all__ = ["Command", "Parser", "Runner", "add_command", "add_checker_limits", "add_output"]

#: Runs a parsed command and returns its exit status; ``checkers`` is the
#: registry ``--checker`` names are looked up in (None: the gate's own).
Runner = Callable[[argparse.Namespace, "Mapping[str, Checker] | None"], int]


class Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2, and a help text
    that names the checkers is written only when help is asked for (naming
    them imports them: a run of the command must not pay for that)."""

    #: Makes the epilog, when help is printed.
    epilog_of: Callable[[], str] | None = None

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"spec-protocols: error: {message} (see --help)\n")

    def format_help(self) -> str:
        if self.epilog_of is not None:
            self.epilog = self.epilog_of()
        return super().format_help()


def checker_words() -> dict[str, str]:
    """How help texts name the gate's default checkers: ``{static}`` ("mypy
    and pyright"), ``{static_flags}`` (their ``--checker`` options),
    ``{importing}`` / ``{Importing}`` (the checkers that import the target:
    "the runtime checker", "the runtime and replay checkers"), and the verb
    that agrees with it, ``{imports}`` ("imports", "import")."""
    from spec_protocols.gate._checkers import default_checkers

    chosen = default_checkers()
    static = [c.name for c in chosen if not c.imports_target]
    names = [c.name for c in chosen if c.imports_target]
    if len(names) == 1:
        importing = next(c.label for c in chosen if c.imports_target)
    elif names:
        importing = f"the {', '.join(names[:-1])} and {names[-1]} checkers"
    else:
        importing = "a checker that imports the target"
    return {
        "static": " and ".join(static),
        "static_flags": " ".join(f"--checker {name}" for name in static),
        "importing": importing,
        "Importing": importing[:1].upper() + importing[1:],
        "imports": "imports" if len(names) <= 1 else "import",
    }


def add_output(parser: argparse.ArgumentParser, formats: Iterable[str], *, default: str, written: str) -> None:
    """``--format`` (one of ``formats``) and ``--output``/``-o``, the file
    that gets ``written`` (``the report``) instead of stdout."""
    parser.add_argument("--format", choices=list(formats), default=default, help=f"output format (default: {default})")
    parser.add_argument("--output", "-o", type=Path, metavar="FILE", help=f"write {written} to FILE instead of stdout")


def add_checker_limits(parser: argparse.ArgumentParser, *, cache_note: str = "") -> None:
    """``--timeout``, how long each checker may run, and ``--no-cache``,
    which runs every checker (``cache_note`` follows its help text)."""
    parser.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS", help="limit per checker (default 600)")
    parser.add_argument(
        "--no-cache", action="store_true", help="run every checker: neither reuse nor store cached verdicts" + cache_note
    )


@dataclass(frozen=True, slots=True)
class Command:
    """One subcommand: what ``--help`` says of it, its arguments, and what runs it."""

    name: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Runner
    help: str
    description: str
    #: Teaching text after the options, printed with its own line breaks (a
    #: template naming the checkers as :func:`checker_words` does, made when help is printed).
    epilog: str | None = None


def add_command(sub: Any, command: Command, *, arguments: bool = True) -> None:
    """Add ``command``'s parser to ``sub`` (argparse's subparsers action);
    ``arguments=False`` leaves its arguments out (a run of another command)."""
    parser: argparse.ArgumentParser
    if command.epilog is None:
        parser = sub.add_parser(command.name, help=command.help, description=command.description)
    else:
        parser = sub.add_parser(
            command.name,
            help=command.help,
            description=command.description,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        template = command.epilog
        if isinstance(parser, Parser):
            parser.epilog_of = lambda: template.format_map(checker_words())
        else:
            parser.epilog = template.format_map(checker_words())
    if arguments:
        command.add_arguments(parser)
    parser.set_defaults(run=command.run)
