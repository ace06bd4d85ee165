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

_HELP = "list a protocol's members, their sglang call sites and defaults"
_DESCRIPTION = (
    "Print each member of a protocol: its signature, the sglang call site it comes from, and whether SpecWorkerBase gives a default; "
    "for SpecWorker, also what sglang does with what forward_batch_generation returns and with every other member's value."
)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    from spec_protocols.gate._roles import CAPABILITIES

    protocols = "SpecWorker, DraftWorker, DraftWorkerFactory, or a capability: " + ", ".join(CAPABILITIES)
    parser.add_argument("protocol", metavar="PROTOCOL", help=protocols)
    parser.add_argument(
        "--sglang",
        metavar="RELEASE|PATH",
        help="for SpecWorker, read what that release (fetched into the cache) or source tree does with "
        "forward_batch_generation's result and with every member's value (default: the installed sglang)",
    )


def _run(args: argparse.Namespace, registry: Mapping[str, Checker] | None = None) -> int:
    from spec_protocols.gate._explanation import explain, member_value_uses, result_uses
    from spec_protocols.gate._model import ProtocolName

    text = explain(args.protocol).rstrip("\n") + "\n"
    if args.protocol == ProtocolName.SPEC_WORKER:
        from spec_protocols.gate._contract import resolve_sglang

        source = resolve_sglang(args.sglang)
        if source is None:
            text += "\nWhat sglang does with what forward_batch_generation returns: no sglang is installed here; --sglang RELEASE reads it from that release.\n"
        else:
            text += "\n" + result_uses(source.root / "sglang" / "srt", source.release)
            text += "\n" + member_value_uses(source)
    sys.stdout.write(text)
    return 0


EXPLAIN = Command("explain", _add_arguments, _run, help=_HELP, description=_DESCRIPTION)
