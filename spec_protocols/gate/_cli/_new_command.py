"""``spec-protocols new``: write a worker or draft worker skeleton that passes the gate."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from spec_protocols.gate._cli._parsing import Command

if TYPE_CHECKING:
    from spec_protocols.gate._checkers import Checker

__all__ = ["NEW"]

_HELP = "write a conforming worker or draft worker skeleton"
_DESCRIPTION = "Write <snake_case(NAME)>.py in the current directory: a skeleton that passes the gate."


def _add_arguments(new: argparse.ArgumentParser) -> None:
    new.add_argument("kind", choices=["worker", "draft"], help="worker: a SpecWorkerBase subclass; draft: a TpModelWorker subclass")
    new.add_argument("name", metavar="NAME", help="the class name, e.g. MyDraftWorker")
    new.add_argument("--directory", type=Path, default=Path.cwd(), help="where to write it (default: .)")


def _run(args: argparse.Namespace, registry: Mapping[str, Checker] | None = None) -> int:
    from spec_protocols.gate._scaffold import write_skeleton

    path = write_skeleton(args.kind, args.name, args.directory)
    sys.stdout.write(f"wrote {path}\n")
    return 0


NEW = Command("new", _add_arguments, _run, help=_HELP, description=_DESCRIPTION)
