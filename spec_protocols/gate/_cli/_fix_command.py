"""``spec-protocols fix``: the gate's findings as edits of the plugin's files, shown or written, then checked again."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from spec_protocols.gate._cli._parsing import Command

if TYPE_CHECKING:
    from spec_protocols.gate._checkers import Checker
    from spec_protocols.gate._model import GateReport

__all__ = ["FIX"]

_HELP = "make the gate's mechanical findings edits of your files (a diff, or --write)"
_DESCRIPTION = "Show (or write, with --write) the edits that mend what the gate found in TARGET's classes, then check again."

_EPILOG = """\
what it does:
  Runs the gate on TARGET (as `spec-protocols check TARGET` does), and makes
  each finding that says mechanically what to change an edit of the file
  that defines the class (LibCST: every line an edit does not touch keeps
  its text, comments and layout):

    add        a member sglang uses and the class lacks, with the expected
               signature and a body that raises NotImplementedError [review]
    signature  a parameter renamed to the keyword sglang passes (and its uses
               in the body) [review]; a keyword-only parameter added as
               sglang passes it [safe with a default, else review]; a
               parameter sglang never passes given "= None" [review]
    sync       "async" dropped from a method sglang calls without awaiting [safe]
    kind       "@property" added where sglang reads a value and the class has
               a method, or dropped where sglang calls it [review]
    registration  a SpeculativeAlgorithm.register(...) call without spec_class=
               given one: a class deriving from SpecAlgorithmBase and
               sglang's CustomSpecAlgo, defined right before it [review]
    imports    the names an added annotation uses, under "if TYPE_CHECKING:" [safe]

  [safe] keeps what the code does; [review] changes it: read the diff. With
  --write the edits are written and the gate runs again on the result; what
  is left (a type, a finding in a file outside TARGET) is listed for you.

  It never touches a file outside TARGET, and never writes a file whose new
  text does not parse.

exit status: 0 nothing left to fix, 1 edits to make (without --write) or
findings left after them, 2 usage or environment error (one line)

examples:
  spec-protocols fix my_plugin/                  show the edits as a diff (--diff)
  spec-protocols fix my_plugin/ --write          write them, then check again
  spec-protocols fix my_plugin/ --sglang 0.5.23 {static_flags}
"""


def _add_arguments(fix: argparse.ArgumentParser) -> None:
    fix.add_argument("targets", nargs="+", metavar="TARGET", help="what to fix: a path, a package or module (as for check)")
    shown = fix.add_mutually_exclusive_group()
    shown.add_argument("--diff", action="store_true", help="show the edits as a unified diff and write nothing (the default)")
    shown.add_argument("--write", action="store_true", help="write the edits, then check again")
    fix.add_argument("--sglang", metavar="RELEASE|PATH", help="check against that release or source tree (as for check)")
    fix.add_argument("--checker", action="append", default=[], metavar="NAME", help="run only this checker (repeatable; default: the gate's)")
    fix.add_argument("--no-import", action="store_true", help="never import the targets (the static checkers only)")


def _run(args: argparse.Namespace, registry: Mapping[str, Checker] | None = None) -> int:
    from spec_protocols.gate._fix import counts, describe, editable, left_lines, plan_fixes, write_plan
    from spec_protocols.gate._paths import shown

    report = _check(args, registry)
    allowed = editable(args.targets)
    plan = plan_fixes(report, allowed)
    out = sys.stdout
    out.write(describe(plan))
    changed = plan.changed
    if not args.write:
        for file_plan in changed:
            out.write(file_plan.diff(shown(file_plan.path)))
        out.write(left_lines(plan.left))
        if changed:
            out.write(f"{len(changed)} file(s) to change; --write writes them and checks again\n")
        elif not plan.left and report.ok:
            out.write("nothing to fix: the gate passes\n")
        return 1 if changed or plan.left or not report.ok else 0
    for path in write_plan(plan):
        out.write(f"wrote {shown(path)}\n")
    after = _check(args, registry) if changed else report
    out.write(f"after the edits: {counts(after)}\n")
    out.write(left_lines(plan_fixes(after, allowed).left if changed else plan.left))
    return 0 if after.ok else 1


def _check(args: argparse.Namespace, registry: Mapping[str, Checker] | None) -> GateReport:
    from spec_protocols.gate._run import run_gate
    from spec_protocols.gate._checkers import checkers_named

    checkers = checkers_named(args.checker, registry) if args.checker else None
    return run_gate(args.targets, checkers=checkers, sglang=args.sglang, allow_import=not args.no_import)


FIX = Command("fix", _add_arguments, _run, help=_HELP, description=_DESCRIPTION, epilog=_EPILOG)
