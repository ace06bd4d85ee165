"""``spec-protocols pin``: the mypy and pyright settings that pin the protocols to one release."""

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

_EPILOG = """\
why:
  SpecWorker's members differ between releases (prewarm_sampling from 0.5.20,
  weight_update_runners from 0.5.21, draft_parallel_layout and draft_swa_window
  from 0.5.23). spec_protocols writes them under branches on named constants,
  SGLANG_0_5_19 ... SGLANG_0_5_23, as typeshed writes sys.version_info branches;
  mypy's always_true/always_false and pyright's defineConstant evaluate them.
  The gate sets these itself for the release it checks.

examples:
  spec-protocols pin 0.5.21 >> mypy.ini      (then merge the pyright part)
  spec-protocols pin 0.5.21 --format pyproject
"""


def _add_arguments(pin: argparse.ArgumentParser) -> None:
    pin.add_argument("release", metavar="RELEASE", help="a supported sglang release, e.g. 0.5.21")
    pin.add_argument(
        "--format",
        choices=["ini", "pyproject"],
        default="ini",
        help="ini: mypy.ini + pyrightconfig.json; pyproject: [tool.mypy] + [tool.pyright] (default: ini)",
    )


def _run(args: argparse.Namespace, registry: Mapping[str, Checker] | None = None) -> int:
    """Print the checker settings that pin the protocols to one release (``spec-protocols pin``)."""
    import json

    from spec_protocols._releases import NEWEST, OLDEST, SUPPORTED_RELEASES, pin_constants

    if args.release not in SUPPORTED_RELEASES:
        raise GateError(f"sglang {args.release} is not a supported release; choose one of {OLDEST} to {NEWEST}")
    constants = pin_constants(args.release)
    true = [n for n, v in constants.items() if v]
    false = [n for n, v in constants.items() if not v]
    if args.format == "pyproject":
        define = ", ".join(f"{n} = {'true' if v else 'false'}" for n, v in constants.items())
        text = (
            f"# spec_protocols pinned to sglang {args.release}\n"
            "[tool.mypy]\n"
            f"always_true = {json.dumps(true)}\n"
            f"always_false = {json.dumps(false)}\n\n"
            "[tool.pyright]\n"
            f"defineConstant = {{ {define} }}\n"
        )
    else:
        text = (
            f"# spec_protocols pinned to sglang {args.release}\n"
            "# mypy.ini (or setup.cfg), in the [mypy] section:\n"
            f"always_true = {','.join(true)}\n"
            f"always_false = {','.join(false)}\n\n"
            "# pyrightconfig.json, at the top level:\n"
            f'"defineConstant": {json.dumps(constants)}\n'
        )
    sys.stdout.write(text)
    return 0


PIN = Command(
    name="pin",
    help="print the mypy and pyright settings that pin the protocols to one sglang release",
    description="Print the settings with which plain mypy and pyright (your IDE, your CI) read the "
    "protocols as one supported sglang release asks them. Without them, both read the newest supported "
    "release's.",
    add_arguments=_add_arguments,
    run=_run,
    epilog=_EPILOG,
)
