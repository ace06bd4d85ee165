"""``spec-protocols check``: the gate, and the exit status it decides."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from spec_protocols.gate._checkers import CHECKER_NAMES, default_names
from spec_protocols.gate._cli._output import say, write
from spec_protocols.gate._cli._parsing import Command, add_checker_limits, add_output
from spec_protocols.gate._model import Verdict

if TYPE_CHECKING:
    from spec_protocols.gate._checkers import Checker
    from spec_protocols.gate._request import GateOutcome, GateRequest

__all__ = ["CHECK", "remarks", "request_of"]

_HELP = "check workers (the gate)"
_DESCRIPTION = "Check every spec worker, draft worker and injected draft worker class in TARGET."

_EPILOG = """\
targets:
  sglang.srt.speculative        a dotted module or package (scanned recursively)
  my_plugin.workers:MyWorker    one class of a module
  path/to/plugin.py, path/pkg   a file or a package directory

With no TARGET the gate checks its embedded default: the installed sglang's
sglang.srt.speculative, or, without sglang, the reference workers shipped in
spec_protocols.reference.

What is checked:
  subclasses of BaseSpecWorker / SpecWorkerBase      against SpecWorker
  subclasses of EagleDraftWorkerBase / TpModelWorker against DraftWorker
  classes passed as draft_worker_cls=...             against DraftWorkerFactory
                                                     (and DraftWorker)
  each registration's spec_class (else sglang's      against SpecAlgorithm
  CustomSpecAlgo) and its factory                    (and WorkerClassFactory)
  what a registration hands sglang, as sglang builds and uses it (the
  checkers that import the plugin; docs/verdicts.md)

verdicts (per class and protocol, per checker):
  pass        the checker saw the real members and found no problem
  fail        a member is missing, of the wrong kind, or has an incompatible
              signature; the problem names the member
  unverified  the checker saw the class as Any/Unknown (untyped import,
              unresolved base): nothing was verified, and the gate fails
  skipped     {importing} could not import the module (e.g. it needs
              CUDA), or found nothing of the plugin's that registers the
              class with sglang; the static checkers still decide

which sglang release (see also `spec-protocols contract --help`):
  The checks are that release's: the members its scheduler calls, the keywords
  it builds workers with, what BaseSpecWorker's defaults need of a draft
  worker, all read from its own source (0.5.19 to 0.5.23 supported; another
  release is checked against its own source, with a note).
  (no --sglang)      the installed sglang, if any; else the newest supported
                     release, fetched as --sglang fetches it (where that
                     fails, offline say, every check is unverified)
  --sglang 0.5.21    that release, fetched (pip download --no-deps) into the
                     cache once, never installed; {static} only
  --sglang PATH      the source tree at PATH (a folder holding sglang/)
  --sglang A --sglang B ...
                     each release (or tree) in one run, side by side where
                     the CPUs allow: one report, a class x release table
                     (text, markdown: the verdict, and the member a check
                     fails on; * marks a release read from source only, where
                     the checkers that import (the installed sglang only)
                     did not run), a "sglang" object on every JSON
                     result, the release in each github title and junit test
                     name; exit 1 if any release fails. A value given twice
                     (or two spellings of one path) is refused (exit 2), as
                     is --write-baseline (it records one release's problems);
                     a --baseline entry is unused only if no release uses it

{Importing} {imports} the target and run its code. For
untrusted code use --no-import (or {static_flags}): static
discovery and the static checkers never import or run the target.

exit status: 0 all pass, 1 any fail or unverified (or an unused baseline
entry), 2 usage or environment error (one line; a checker that crashes says
its first error and the next step, and its input is kept under crashes/ in
the cache folder for a bug report)

baselines (see docs/verdicts.md):
  --baseline FILE  accept the problems recorded in FILE. An entry that accepts
      nothing although its checker looked fails the run (exit 1), one line
      on stderr each:
    spec-protocols: unused baseline entry: TARGET (PROTOCOL) MEMBER [CHECKER]
      --ignore-unused-baseline turns that off (e.g. for fewer targets than
      the baseline was written for).
  --write-baseline FILE  record every current problem in FILE, with --reason;
      exits 0 once FILE is written, whatever the verdicts (unverified checks
      cannot be recorded, and still fail a later --baseline run).

the verdict cache:
  A checker whose input is unchanged is not run again: its verdicts are
  reused from verdicts/ in the gate's cache folder ($SPEC_PROTOCOLS_CACHE_DIR,
  else $XDG_CACHE_HOME/spec-protocols or ~/.cache/spec-protocols). The key is
  the content of everything it reads: the code under check and what it
  imports from outside site-packages, sglang's package, this package and its
  stubs; and the checker's version, the options, the interpreter, the
  installed distributions and the SGLANG_*, CUDA_*, TORCH_*, PYTHON* (...)
  environment variables. The report is the same either way; the timings show
  "NAME (cached)", and one stderr line names the checkers reused. --no-cache
  (or SPEC_PROTOCOLS_NO_CACHE=1) runs every checker; deleting the folder is
  always safe. docs/performance.md says what the key does not cover.

watch mode (see docs/authoring.md, "Watch mode"):
  --watch checks once, then again each time a file the verdicts depend on
  changes (the targets, the local modules they import, the sglang tree),
  printing the whole report each round in --format's format. The static
  checkers stay warm between rounds ({static}: a daemon or a language
  server, same configuration, same verdicts as a one-shot run), and
  each checker that imports the target runs in a process of its own,
  started in advance where it can be. Bad input in the first round is one line and exit 2; in a later
  round it is reported in that round's place and watching goes on. Ctrl-C
  ends it with exit 130, SIGTERM with 0; --output and --write-baseline
  cannot be used with it.

examples:
  spec-protocols check
  spec-protocols check my_plugin --watch {static_flags}
  spec-protocols check my_plugin --format github
  spec-protocols check my_plugin --sglang 0.5.21     (no sglang install needed)
  spec-protocols check my_plugin --sglang 0.5.20 --sglang 0.5.23   (one table)
  spec-protocols check plugin.py --no-import --format junit > report.xml
  spec-protocols check --write-baseline known.json --reason "upstream #123"
"""


def _add_arguments(check: argparse.ArgumentParser) -> None:
    from spec_protocols.gate._reports import FORMATS

    check.add_argument("targets", nargs="*", metavar="TARGET", help="module, module:Class, or path (default: see below)")
    check.add_argument(
        "--checker",
        action="append",
        choices=CHECKER_NAMES,
        dest="checkers",
        metavar="NAME",
        help=f"run only this checker; repeatable ({', '.join(CHECKER_NAMES)}; default: {', '.join(default_names())}; "
        "the others are experimental, see docs/agreement.md)",
    )
    check.add_argument(
        "--sglang",
        action="append",
        metavar="RELEASE|PATH",
        help="check against this sglang release (fetched into the cache) or source tree, without installing it; "
        "static checkers only (default: the installed sglang); repeatable: one table over the releases",
    )
    check.add_argument("--no-import", action="store_true", help="never import the target: static checkers only")
    add_output(check, FORMATS, default="text", written="the report")
    check.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="accept the known deviations recorded in FILE; an unused entry fails the run",
    )
    check.add_argument(
        "--ignore-unused-baseline",
        action="store_true",
        help="with --baseline: do not fail (or report) entries that accepted nothing",
    )
    check.add_argument(
        "--write-baseline",
        type=Path,
        metavar="FILE",
        help="record every current problem in FILE (needs --reason); exit 0 once written",
    )
    check.add_argument("--reason", help="the reason stored with each new --write-baseline entry")
    add_checker_limits(check, cache_note=" (as $SPEC_PROTOCOLS_NO_CACHE=1 does; see 'the verdict cache' below)")
    check.add_argument(
        "--watch",
        action="store_true",
        help="check, then check again on every change to a file the verdicts depend on, printing the whole "
        "report each round; Ctrl-C (exit 130) or SIGTERM (exit 0) ends it (see 'watch mode' below)",
    )
    check.add_argument("--no-timings", action="store_true", help="leave timings out of the report (stable output)")


def request_of(args: argparse.Namespace, registry: Mapping[str, Checker] | None = None) -> GateRequest:
    """The :class:`~spec_protocols.gate._request.GateRequest` the command line makes."""
    from spec_protocols.gate._request import CachePolicy, GateRequest

    return GateRequest(
        targets=tuple(args.targets),
        releases=tuple(args.sglang or ()),
        checkers=tuple(args.checkers) if args.checkers else None,
        registry=registry,
        allow_import=not args.no_import,
        baseline=args.baseline,
        ignore_unused_baseline=args.ignore_unused_baseline,
        write_baseline=args.write_baseline,
        reason=args.reason,
        timeout=args.timeout,
        cache=CachePolicy.OFF if args.no_cache else CachePolicy.USE,
    )


def _run(args: argparse.Namespace, registry: Mapping[str, Checker] | None = None) -> int:
    """Run the gate (once, or on every change with ``--watch``), write its report, and exit as the outcome says."""
    request = request_of(args, registry)
    if args.watch:
        from spec_protocols.gate._watch import watch

        return watch(request, fmt=args.format, include_timings=not args.no_timings, output=args.output)
    from spec_protocols.gate._run import run

    outcome = run(request)
    from spec_protocols.gate._reports import render

    write(render(outcome.report, args.format, include_timings=not args.no_timings), args.output)
    for line in remarks(outcome):
        say(line)
    return outcome.exit_status()


def remarks(outcome: GateOutcome) -> list[str]:
    """What a run says on stderr, outside its report: each unused baseline
    entry, the checkers whose verdicts the cache gave (a report does not
    depend on the cache), the baseline written."""
    from spec_protocols.gate._baseline import unused_entry_line

    lines = [unused_entry_line(entry) for entry in outcome.unused]
    report = outcome.report
    if report.reused:
        where = [label for label, run in zip(report.labels, report.runs, strict=True) if run.report.reused]
        on = "" if len(report.runs) == 1 else " on every release" if len(where) == len(report.runs) else f" on sglang {', '.join(where)}"
        lines.append(
            f"{', '.join(report.reused if len(report.runs) > 1 else sorted(report.reused))}: verdicts reused from the "
            f"cache{on} (nothing they read changed; --no-cache runs them)"
        )
    if outcome.written is not None:
        path, count = outcome.written
        lines.append(f"wrote {count} baseline entr{'y' if count == 1 else 'ies'} to {path}")
        blind = sum(1 for r in outcome.single.results if r.verdict is Verdict.UNVERIFIED)
        if blind:
            lines.append(f"warning: {blind} unverified check{'s' if blind != 1 else ''} cannot be baselined and still fail the gate")
    return lines


CHECK = Command("check", _add_arguments, _run, help=_HELP, description=_DESCRIPTION, epilog=_EPILOG)
