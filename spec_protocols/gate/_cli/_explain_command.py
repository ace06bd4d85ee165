"""``spec-protocols explain``: a protocol's members, their sglang call sites and defaults."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from spec_protocols.gate._cli._parsing import Command

if TYPE_CHECKING:
    from spec_protocols.gate._checkers import Checker

__all__ = ["EXPLAIN"]


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    from spec_protocols.gate._roles import CAPABILITIES

    protocols = "SpecWorker, DraftWorker, DraftWorkerFactory, or a capability: " + ", ".join(CAPABILITIES)
    parser.add_argument("protocol", metavar="PROTOCOL", help=protocols)


def _run(args: argparse.Namespace, registry: Mapping[str, Checker] | None = None) -> int:
    from spec_protocols.gate._explanation import explain

    sys.stdout.write(explain(args.protocol).rstrip("\n") + "\n")
    return 0


EXPLAIN = Command(
    name="explain",
    help="list a protocol's members, their sglang call sites and defaults",
    description="Print each member of a protocol: its signature, the sglang call site it comes "
    "from, and whether SpecWorkerBase gives a default.",
    add_arguments=_add_arguments,
    run=_run,
)
