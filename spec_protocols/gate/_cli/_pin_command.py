"""``spec-protocols pin``: the static checkers' settings that pin the protocols to one release."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from spec_protocols.gate._cli._parsing import Command
from spec_protocols.gate._model import GateError

if TYPE_CHECKING:
    from spec_protocols.gate._checkers import Checker

__all__ = ["PIN"]

_HELP = "print the static checkers' settings that pin the protocols to one sglang release"
_DESCRIPTION = (
    "Print the settings with which the plain type checkers (your IDE's, your CI's) read the protocols as "
    "one supported sglang release asks them. Without them, each reads the newest supported release's."
)

_EPILOG = """\
why:
  SpecWorker's members differ between releases (prewarm_sampling from 0.5.20,
  weight_update_runners from 0.5.21, draft_parallel_layout and draft_swa_window
  from 0.5.23). spec_protocols writes them under branches on named constants,
  SGLANG_0_5_19 ... SGLANG_0_5_23, as typeshed writes sys.version_info branches;
  each type checker's own settings (printed here) evaluate them. The gate
  sets these itself for the release it checks.

examples:
  spec-protocols pin 0.5.21                  (then merge each part into its file)
  spec-protocols pin 0.5.21 --format pyproject
"""


def _add_arguments(pin: argparse.ArgumentParser) -> None:
    pin.add_argument("release", metavar="RELEASE", help="a supported sglang release, e.g. 0.5.21")
    pin.add_argument(
        "--format",
        choices=["ini", "pyproject"],
        default="ini",
        help="ini: each checker's own configuration file; pyproject: its [tool.NAME] table (default: ini)",
    )


def _run(args: argparse.Namespace, registry: Mapping[str, Checker] | None = None) -> int:
    """Print the checker settings that pin the protocols to one release (``spec-protocols pin``)."""
    from spec_protocols._releases import NEWEST, OLDEST, SUPPORTED_RELEASES, pin_constants
    from spec_protocols.gate._checkers import default_checkers

    if args.release not in SUPPORTED_RELEASES:
        raise GateError(f"sglang {args.release} is not a supported release; choose one of {OLDEST} to {NEWEST}")
    constants = pin_constants(args.release)
    parts = [checker.pin(constants, args.format) for checker in default_checkers() if checker.pin is not None]
    sys.stdout.write(f"# spec_protocols pinned to sglang {args.release}\n" + "\n".join(parts))
    return 0


PIN = Command("pin", _add_arguments, _run, help=_HELP, description=_DESCRIPTION, epilog=_EPILOG)
