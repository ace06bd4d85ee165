"""``spec-protocols upgrade``: what a plugin that passes on one sglang release must change to pass on another."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spec_protocols.gate._cli._output import write
from spec_protocols.gate._cli._parsing import Command, add_checker_limits, add_output
from spec_protocols.gate._model import GateError

if TYPE_CHECKING:
    from spec_protocols.gate._checkers import Checker
    from spec_protocols.gate._contract import Contract, ReleaseTerms, SglangSource
    from spec_protocols.gate._model import DiscoveredClass, GateReport

from spec_protocols.gate._checkers._registry import is_default

__all__ = ["FORMAT_NAMES", "UPGRADE"]

_HELP = "what a plugin that passes on one sglang release must change to pass on another"
_DESCRIPTION = (
    "What a plugin that passes on sglang release --from must change to pass on --to: from the two\n"
    "releases' contracts and the gate's reports on TARGET against each, constructor keywords first."
)


_EPILOG = """\
what it does:
  Reads both releases' contracts from their own source (as `spec-protocols
  contract` does), runs the gate on TARGET against each ({static}:
  `spec-protocols check TARGET --sglang A`, then `--sglang B`), and lists
  what changed between A and B, step by step, for the classes of TARGET it
  concerns, in the order an author works through it:

    1. constructor      the keywords the scheduler constructs the spec worker
                        with (0.5.20 passes ps=, 0.5.21 on do not)
    2. new member       members B calls (or its BaseSpecWorker defaults use on
                        the draft worker) that A did not: B's call site and the
                        signature expected
    3. inherited need   a BaseSpecWorker default the worker keeps that needs
                        more of the draft worker on B
    4. signature        members B calls otherwise than A
    5. no longer called members A called and B does not: they may be removed
    6. draft factory    the keywords build_draft_tp_worker passes draft_worker_cls
    7. hook/capability  members sglang finds by name, capabilities, the
                        registration flag that picks the scheduler's branch

  The verdict comes first: TARGET passes on B as it is, or how many steps
  must change it and what would still fail on B after them (a problem A has
  too is not the upgrade's, and stays). Then what already fails on A; then
  each step with a class that must change (the gate's problem on B follows
  it), numbered; the steps that change nothing for any class, in one line
  (--format json lists every step in full, with its "must_change").

--from / --to:
  0.5.23          a release, fetched (pip download --no-deps) into the cache
  path            a folder holding sglang/, the sglang/ folder, or a .whl file

--apply:
  After the plan, writes the edits `spec-protocols fix TARGET --sglang B
  --write` would (the gate's findings on B made LibCST edits of TARGET's own
  files, each [safe] or [review]), checks TARGET on B and on A again, and says
  whether it passes each; its exit status is then B's (0 passes B).

exit status: 0 TARGET passes on B as it is (nothing to change), 1 something
must change (or still fails), 2 usage or environment error (one line): an
unknown release, one the gate cannot read, A the same as B, a missing TARGET

examples:
  spec-protocols upgrade --from 0.5.20 --to 0.5.23 my_plugin/
  spec-protocols upgrade --from 0.5.20 --to 0.5.23 my_plugin/ --format markdown -o UPGRADING.md
  spec-protocols upgrade --from 0.5.22 --to ~/src/sglang/python my_plugin.workers:MyWorker
"""


#: ``--format``'s choices, the default first: the keys of ``_upgrade.FORMATS``
#: (a unit test holds them equal), written here so that building the parser
#: imports no stage.
FORMAT_NAMES = ("text", "markdown", "json")


def _add_arguments(upgrade: argparse.ArgumentParser) -> None:
    upgrade.add_argument("targets", nargs="+", metavar="TARGET", help="module, module:Class, or path (as for check)")
    upgrade.add_argument(
        "--from", dest="source", required=True, metavar="RELEASE|PATH", help="the release the plugin passes on now"
    )
    upgrade.add_argument(
        "--to", dest="destination", required=True, metavar="RELEASE|PATH", help="the release to pass on"
    )
    upgrade.add_argument(
        "--checker",
        action="append",
        choices=_static(),
        dest="checkers",
        metavar="NAME",
        help=f"run only this checker; repeatable ({', '.join(_static())}; default: the default ones, "
        f"{', '.join(n for n in _static() if is_default(n))})",
    )
    add_output(upgrade, FORMAT_NAMES, default="text", written="the plan")
    add_checker_limits(upgrade)
    upgrade.add_argument(
        "--apply",
        action="store_true",
        help="write the edits that answer the gate's findings on --to (as `spec-protocols fix TARGET --sglang B "
        "--write`), then check TARGET on both releases and say whether it passes each",
    )


def _source(given: str, flag: str) -> SglangSource:
    """The source ``--from``/``--to`` names; its errors name that option, not ``--sglang``."""
    from spec_protocols.gate._contract import resolve_sglang

    try:
        source = resolve_sglang(given)
    except GateError as error:
        raise GateError(str(error).replace(f"--sglang {given}", f"{flag} {given}")) from None
    if source is None:  # resolve_sglang returns None only when given nothing
        raise GateError(f"{flag} {given}: no sglang there")
    return source


def _release(given: str, flag: str) -> tuple[Contract, ReleaseTerms, SglangSource]:
    """One release's contract and terms, read before any checker runs (a bad release is said at once)."""
    from spec_protocols.gate._contract import extract_contract, release_terms

    source = _source(given, flag)
    contract = extract_contract(source)
    # A GateError for a tree whose scheduler constructs no plugin's worker.
    return contract, release_terms(contract), source


def _report(given: str, args: argparse.Namespace, registry: Mapping[str, Checker] | None) -> GateReport:
    """The gate's report on TARGET against ``given`` (``check TARGET --sglang GIVEN``, static checkers)."""
    from spec_protocols.gate._request import CachePolicy, GateRequest
    from spec_protocols.gate._run import run

    # A fetched release is checked statically: a checker that imports the
    # target can import the installed sglang only.
    request = GateRequest(
        targets=tuple(args.targets),
        releases=(given,),
        checkers=tuple(args.checkers) if args.checkers else None,
        registry=registry,
        allow_import=False,
        timeout=args.timeout,
        cache=CachePolicy.OFF if args.no_cache else CachePolicy.USE,
    )
    return run(request).single


def _static() -> list[str]:
    """The registry's checkers that never import the target: an upgrade's choices."""
    from spec_protocols.gate._checkers import CHECKER_NAMES, CHECKERS

    return [name for name in CHECKER_NAMES if not CHECKERS[name].imports_target]


def _classes(targets: Sequence[str], root: Path) -> list[DiscoveredClass]:
    """What discovery finds of ``targets`` on B's source: which members each class defines.

    Read target by target (two files may be the same module name); a target
    discovery refuses here was refused by the gate's run first."""
    from spec_protocols.gate._discovery import discover, resolve_target

    found: dict[str, DiscoveredClass] = {}
    for target in targets:
        for cls in discover([resolve_target(target, [root])], [root]).classes:
            found.setdefault(cls.dotted, cls)
    return list(found.values())


def _run(args: argparse.Namespace, registry: Mapping[str, Checker] | None = None) -> int:
    """Build the upgrade plan and write it; its exit status (0 nothing to change, 1 something must)."""
    from spec_protocols.gate._upgrade import ReleaseSide, build_plan, render_plan

    if args.source == args.destination:
        raise GateError(f"--from and --to are the same ({args.source}): name two releases")
    old_contract, old_terms, old_source = _release(args.source, "--from")
    new_contract, new_terms, new_source = _release(args.destination, "--to")
    if old_source.root.resolve() == new_source.root.resolve():
        raise GateError(f"--from {args.source} and --to {args.destination} are the same sglang ({new_source.release})")
    # B first: a missing target is said before A's checkers run.
    after = ReleaseSide(new_contract, new_terms, _report(args.destination, args, registry))
    before = ReleaseSide(old_contract, old_terms, _report(args.source, args, registry))
    plan = build_plan(before, after, _classes(args.targets, new_source.root))
    write(render_plan(plan, args.format), args.output)
    if args.apply:
        return _apply(args, registry, after.report)
    return plan.exit_status


def _apply(args: argparse.Namespace, registry: Mapping[str, Checker] | None, on_b: GateReport) -> int:
    """The plan made edits (the fix command's, from the gate's findings on B), written; then TARGET checked on B and on A.

    Its exit status: 0 TARGET passes B after the edits, 1 not. Whether it
    still passes A is said (a keyword added with a default keeps A's call),
    not required: an upgrade is to B."""
    from spec_protocols.gate._fix import counts, describe, editable, left_lines, plan_fixes, write_plan
    from spec_protocols.gate._paths import shown

    # The plan is the output (JSON or a file, maybe): what was written goes to stderr then.
    out = sys.stdout if args.format == "text" and args.output is None else sys.stderr
    fixes = plan_fixes(on_b, editable(args.targets))
    out.write(describe(fixes))
    for path in write_plan(fixes):
        out.write(f"wrote {shown(path)}\n")
    b = _report(args.destination, args, registry)
    a = _report(args.source, args, registry)
    out.write(f"after the edits: on --to {args.destination}: {counts(b)}; on --from {args.source}: {counts(a)}\n")
    out.write("it passes both releases\n" if b.ok and a.ok else "it passes --to only\n" if b.ok else "")
    out.write(left_lines(plan_fixes(b, editable(args.targets)).left))
    return 0 if b.ok else 1


UPGRADE = Command("upgrade", _add_arguments, _run, help=_HELP, description=_DESCRIPTION, epilog=_EPILOG)
