"""The ``spec-protocols`` command.

Exit codes: 0 everything conforms; 1 something is ``fail`` or ``unverified``;
2 a usage or environment error, printed as one line, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NoReturn

from spec_protocols.gate._model import CHECKER_NAMES, GateError, GateReport, Verdict

if TYPE_CHECKING:
    from spec_protocols.gate._baseline import Baseline, BaselineEntry
    from spec_protocols.gate._checkers import Checker

__all__ = ["main"]

_CHECK_EPILOG = """\
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

verdicts (per class and protocol, per checker):
  pass        the checker saw the real members and found no problem
  fail        a member is missing, of the wrong kind, or has an incompatible
              signature; the problem names the member
  unverified  the checker saw the class as Any/Unknown (untyped import,
              unresolved base): nothing was verified, and the gate fails
  skipped     the runtime checker could not import the module (e.g. it needs
              CUDA); the static checkers still decide

which sglang release (see also `spec-protocols contract --help`):
  The checks are that release's: the members its scheduler calls, the keywords
  it builds workers with, what BaseSpecWorker's defaults need of a draft
  worker, all read from its own source (0.5.19 to 0.5.23 supported; another
  release is checked against its own source, with a note).
  (no --sglang)      the installed sglang, if any; else the newest supported
                     release, fetched as --sglang fetches it (where that
                     fails, offline say, every check is unverified)
  --sglang 0.5.21    that release, fetched (pip download --no-deps) into the
                     cache once, never installed; mypy and pyright only
  --sglang PATH      the source tree at PATH (a folder holding sglang/)

The runtime checker IMPORTS the target, running its module-level code. For
untrusted code use --no-import (or --checker mypy --checker pyright): static
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

examples:
  spec-protocols check
  spec-protocols check my_plugin --format github
  spec-protocols check my_plugin --sglang 0.5.21     (no sglang install needed)
  spec-protocols check plugin.py --no-import --format junit > report.xml
  spec-protocols check --write-baseline known.json --reason "upstream #123"
"""


_CONTRACT_EPILOG = """\
what it reads:
  sglang's own source, with Python's ast: the scheduler side (sglang/srt/managers/,
  sglang/srt/disaggregation/ and what they pass the worker to), BaseSpecWorker's
  defaults, the constructor call and build_draft_tp_worker. sglang is NEVER
  imported: no sglang code runs, and no torch or GPU is needed.

--sglang:
  (absent)        the sglang the import system would find (located, not imported)
  0.5.23          a release: `pip download --no-deps sglang==0.5.23` into the
                  cache ($SPEC_PROTOCOLS_CACHE_DIR or ~/.cache/spec-protocols),
                  only its .py files unpacked; reused without network next time
  path            a folder holding sglang/, the sglang/ folder, or a .whl file

classifications (of each use of the spec worker):
  required     every algorithm reaches it on the serving path: a worker must have it
  guarded      read through getattr(w, "x", default) / hasattr (or where hasattr
               holds): a worker may lack it
  algorithm    only under spec_algorithm.is_<algo>() or an equivalent algorithm
               predicate: one algorithm's business
  isinstance   only for isinstance(w, BaseSpecWorker) workers
  private      a name with a leading underscore
  conditional  a keyword passed only under a condition (grammar_barrier=) is
               listed as a conditional keyword of its call; a path a server
               option selects (--disable-overlap-schedule) stays required: every
               algorithm reaches it once the option is set

exit status: 0 the contract was written, 2 usage or environment error (one line)

examples:
  spec-protocols contract
  spec-protocols contract --sglang 0.5.21 --format markdown -o contract-0.5.21.md
  spec-protocols contract --sglang ~/src/sglang/python --format json
  spec-protocols contract --sglang 0.5.19 --sglang 0.5.23 --format markdown
                                        the release x member table of both
"""


_PIN_EPILOG = """\
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


_MAIN_EPILOG = """\
start here:
  spec-protocols check                  check the installed sglang's workers
  spec-protocols check my_plugin/       check your plugin (module, module:Class or path)
  spec-protocols explain SpecWorker     what a worker must provide, and where sglang calls it
  spec-protocols new worker MyWorker    write my_worker.py, a skeleton that passes the gate
  spec-protocols contract --sglang 0.5.21  what that sglang release asks of a worker, from its source
  spec-protocols pin 0.5.21             mypy/pyright settings for code that targets that release

`spec-protocols check --help` explains targets, verdicts and exit codes.
"""


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"spec-protocols: error: {message} (see --help)\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="spec-protocols",
        description="Check sglang speculative-decoding workers against the spec_protocols protocols "
        "with the runtime checker, mypy and pyright.",
        epilog=_MAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    _add_check(sub)
    _add_explain(sub)
    _add_contract(sub)
    _add_pin(sub)
    _add_new(sub)
    return parser



@dataclass(frozen=True, slots=True)
class _Command:
    """What ``--help`` says of one subcommand."""

    help: str
    description: str
    #: Teaching text after the options, printed with its own line breaks.
    epilog: str | None = None


_COMMANDS: Final[Mapping[str, _Command]] = {
    "check": _Command(
        help="check workers (the gate)",
        description="Check every spec worker, draft worker and injected draft worker class in TARGET.",
        epilog=_CHECK_EPILOG,
    ),
    "explain": _Command(
        help="list a protocol's members, their sglang call sites and defaults",
        description="Print each member of a protocol: its signature, the sglang call site it comes "
        "from, and whether SpecWorkerBase gives a default.",
    ),
    "contract": _Command(
        help="derive what an sglang release asks of a worker, from its own source",
        description="Read an sglang release's source (never importing it) and write its speculative-worker "
        "contract: every use of the spec worker, classified and located, the constructor and draft-factory "
        "keywords, and what BaseSpecWorker's defaults need.",
        epilog=_CONTRACT_EPILOG,
    ),
    "pin": _Command(
        help="print the mypy and pyright settings that pin the protocols to one sglang release",
        description="Print the settings with which plain mypy and pyright (your IDE, your CI) read the "
        "protocols as one supported sglang release asks them. Without them, both read the newest supported "
        "release's.",
        epilog=_PIN_EPILOG,
    ),
    "new": _Command(
        help="write a conforming worker or draft worker skeleton",
        description="Write <snake_case(NAME)>.py in the current directory: a skeleton that passes the gate.",
    ),
}


def _command(sub: Any, name: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``name``, with what :data:`_COMMANDS` says of it."""
    spec = _COMMANDS[name]
    parser: argparse.ArgumentParser
    if spec.epilog is None:
        parser = sub.add_parser(name, help=spec.help, description=spec.description)
    else:
        parser = sub.add_parser(
            name,
            help=spec.help,
            description=spec.description,
            epilog=spec.epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    return parser


def _add_check(sub: Any) -> None:
    """``spec-protocols check``: the gate."""
    from spec_protocols.gate._reports import FORMATS

    check = _command(sub, "check")
    check.add_argument("targets", nargs="*", metavar="TARGET", help="module, module:Class, or path (default: see below)")
    check.add_argument(
        "--checker",
        action="append",
        choices=CHECKER_NAMES,
        dest="checkers",
        metavar="NAME",
        help=f"run only this checker; repeatable ({', '.join(CHECKER_NAMES)}; default: all three)",
    )
    check.add_argument(
        "--sglang",
        metavar="RELEASE|PATH",
        help="check against this sglang release (fetched into the cache) or source tree, without installing it; "
        "static checkers only (default: the installed sglang)",
    )
    check.add_argument("--no-import", action="store_true", help="never import the target: static checkers only")
    check.add_argument("--format", choices=list(FORMATS), default="text", help="output format (default: text)")
    check.add_argument("--output", "-o", type=Path, metavar="FILE", help="write the report to FILE instead of stdout")
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
    check.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS", help="limit per checker (default 600)")
    check.add_argument("--no-timings", action="store_true", help="leave timings out of the report (stable output)")
    check.add_argument(
        "--no-cache",
        action="store_true",
        help="run every checker: neither reuse nor store cached verdicts (as $SPEC_PROTOCOLS_NO_CACHE=1 does; "
        "see 'the verdict cache' below)",
    )


def _add_explain(sub: Any) -> None:
    """``spec-protocols explain``: a protocol's members."""
    from spec_protocols.gate._roles import CAPABILITIES

    protocols = "SpecWorker, DraftWorker, DraftWorkerFactory, or a capability: " + ", ".join(CAPABILITIES)
    _command(sub, "explain").add_argument("protocol", metavar="PROTOCOL", help=protocols)


def _add_contract(sub: Any) -> None:
    """``spec-protocols contract``: what a release asks of a worker."""
    contract = _command(sub, "contract")
    contract.add_argument(
        "--sglang",
        metavar="RELEASE|PATH",
        action="append",
        help="a release to fetch (e.g. 0.5.23) or a path to its source (default: the installed sglang); "
        "repeat it for the release x member table of several releases",
    )
    contract.add_argument("--format", choices=["json", "markdown"], default="json", help="output format (default: json)")
    contract.add_argument("--output", "-o", type=Path, metavar="FILE", help="write the contract to FILE instead of stdout")


def _add_pin(sub: Any) -> None:
    """``spec-protocols pin``: the checker settings for one release."""
    pin = _command(sub, "pin")
    pin.add_argument("release", metavar="RELEASE", help="a supported sglang release, e.g. 0.5.21")
    pin.add_argument(
        "--format",
        choices=["ini", "pyproject"],
        default="ini",
        help="ini: mypy.ini + pyrightconfig.json; pyproject: [tool.mypy] + [tool.pyright] (default: ini)",
    )


def _add_new(sub: Any) -> None:
    """``spec-protocols new``: a skeleton that passes the gate."""
    new = _command(sub, "new")
    new.add_argument("kind", choices=["worker", "draft"], help="worker: a SpecWorkerBase subclass; draft: a TpModelWorker subclass")
    new.add_argument("name", metavar="NAME", help="the class name, e.g. MyDraftWorker")
    new.add_argument("--directory", type=Path, default=Path.cwd(), help="where to write it (default: .)")


def _version() -> str:
    from spec_protocols import __version__

    return __version__


def _check(args: argparse.Namespace, registry: Mapping[str, Checker] | None = None) -> int:
    """Run the gate and decide the exit status.

    The exit decision lives here, not in ``run_gate`` or :class:`GateReport`:
    "unused baseline entry" and "a baseline was written" are properties of this
    invocation (its flags), not of the verdicts, and the pytest plugin makes
    the same decision with the same helpers from :mod:`spec_protocols.gate._baseline`.

    * ``--write-baseline FILE``: 0 once FILE is written, whatever the verdicts
      (recording a baseline is the step's job; the report still shows them).
    * otherwise 1 if any check is not ``pass``, or (with ``--baseline`` and
      without ``--ignore-unused-baseline``) any entry is unused; else 0.
    """
    from spec_protocols.gate._baseline import note_unused, unused_entries, unused_entry_line, write_baseline
    from spec_protocols.gate._pipeline import run_gate
    from spec_protocols.gate._reports import render

    baseline = _baselines(args)
    report = run_gate(
        args.targets,
        checkers=_chosen_checkers(args, registry),
        baseline=args.baseline,
        timeout=args.timeout,
        allow_import=not args.no_import,
        sglang=args.sglang,
        cache=not args.no_cache,
    )
    unused: tuple[BaselineEntry, ...] = ()
    if baseline is not None and not args.ignore_unused_baseline and not args.write_baseline:
        # When writing, unused entries are what the new file drops: not an error.
        unused = unused_entries(report, baseline)
        report = note_unused(report, unused)
    written = write_baseline(report, args.write_baseline, reason=args.reason) if args.write_baseline else None
    _write(render(report, args.format, include_timings=not args.no_timings), args.output)
    for entry in unused:
        _say(unused_entry_line(entry))
    if report.reused:
        # Said outside the report, so that a report does not depend on the cache.
        _say(
            f"{', '.join(sorted(report.reused))}: verdicts reused from the cache (nothing they read changed; "
            "--no-cache runs them)"
        )
    if written is not None:
        _said_written(report, len(written.entries), args.write_baseline)
        return 0
    return 0 if report.ok and not unused else 1


def _baselines(args: argparse.Namespace) -> Baseline | None:
    """The ``--baseline`` to apply, read now (as is ``--write-baseline``'s file):
    a typo in a baseline is exit 2 at once, before the checkers run (minutes).
    The file to be written is read as its writer will read it (whole-class
    entries without message are replaced)."""
    from spec_protocols.gate._baseline import load_baseline

    if args.write_baseline and not args.reason:
        raise GateError("--write-baseline needs --reason: every baseline entry states why it is accepted")
    baseline = load_baseline(args.baseline) if args.baseline else None
    if args.write_baseline and args.write_baseline.exists():
        load_baseline(args.write_baseline, lenient=True)
    return baseline


def _chosen_checkers(args: argparse.Namespace, registry: Mapping[str, Checker] | None) -> tuple[Checker, ...]:
    """``--checker``'s checkers (default: all), less those ``--no-import`` refuses."""
    from spec_protocols.gate._checkers import checkers_named

    chosen = checkers_named(args.checkers or CHECKER_NAMES, registry)
    if not args.no_import:
        return chosen
    importing = [c for c in chosen if c.imports_target]
    if args.checkers and importing:
        raise GateError(f"--no-import and --checker {importing[0].name} contradict each other")
    return tuple(c for c in chosen if not c.imports_target)


def _write(text: str, output: Path | None) -> None:
    """The report, on stdout or in ``--output``'s file, ending with a newline."""
    text = text if text.endswith("\n") else text + "\n"
    if output:
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def _say(line: str) -> None:
    sys.stderr.write(f"spec-protocols: {line}\n")


def _said_written(report: GateReport, count: int, path: Path) -> None:
    """What ``--write-baseline`` did, and what it could not record."""
    _say(f"wrote {count} baseline entr{'y' if count == 1 else 'ies'} to {path}")
    blind = sum(1 for r in report.results if r.verdict is Verdict.UNVERIFIED)
    if blind:
        _say(f"warning: {blind} unverified check{'s' if blind != 1 else ''} cannot be baselined and still fail the gate")


def _contract(args: argparse.Namespace) -> int:
    """Extract a release's contract and write it (``spec-protocols contract``)."""
    from spec_protocols.gate._contract import Contract, contract_json, contract_markdown, extract_contract, resolve_sglang
    from spec_protocols.gate._contract import releases_json, releases_markdown

    contracts: list[Contract] = []
    for given in args.sglang or [None]:
        source = resolve_sglang(given)
        if source is None:
            raise GateError("no sglang is installed: name a release (--sglang 0.5.23) or a path (--sglang DIR)")
        contracts.append(extract_contract(source))
    if len(contracts) == 1:
        (contract,) = contracts
        text = contract_json(contract) if args.format == "json" else contract_markdown(contract)
    else:
        text = releases_json(contracts) if args.format == "json" else releases_markdown(contracts)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _pin(args: argparse.Namespace) -> int:
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


def main(argv: Sequence[str] | None = None, *, checkers: Mapping[str, Checker] | None = None) -> int:
    """Entry point of the ``spec-protocols`` console script.

    ``checkers``: the registry ``--checker`` names are looked up in (default:
    the gate's; a test passes fakes)."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return _check(args, checkers)
        if args.command == "contract":
            return _contract(args)
        if args.command == "pin":
            return _pin(args)
        if args.command == "explain":
            from spec_protocols.gate._explain import explain

            sys.stdout.write(explain(args.protocol).rstrip("\n") + "\n")
            return 0
        if args.command == "new":
            from spec_protocols.gate._scaffold import write_skeleton

            path = write_skeleton(args.kind, args.name, args.directory)
            sys.stdout.write(f"wrote {path}\n")
            return 0
        # No command: a usage error, so the help goes to stderr with exit 2.
        parser.print_help(sys.stderr)
        return 2
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


if __name__ == "__main__":
    raise SystemExit(main())
