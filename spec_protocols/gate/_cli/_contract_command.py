"""``spec-protocols contract``: what an sglang release asks of a worker, read from its source."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import TYPE_CHECKING

from spec_protocols.gate._cli._output import write
from spec_protocols.gate._cli._parsing import Command, add_output
from spec_protocols.gate._model import GateError

if TYPE_CHECKING:
    from spec_protocols.gate._checkers import Checker

__all__ = ["CONTRACT"]

_HELP = "derive what an sglang release asks of a worker, from its own source"
_DESCRIPTION = (
    "Read an sglang release's source (never importing it) and write its speculative-worker contract: every use of the spec "
    "worker, classified and located, the constructor and draft-factory keywords, and what BaseSpecWorker's defaults need."
)

_EPILOG = """\
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

server flags (each use's "flags" in the JSON; "only with" in Markdown):
  a use made only by a server started with an option the defaults do not set
  (--disaggregation-mode decode, --enable-hierarchical-cache) names it; the
  default is read from the option's declaration in the release

what a call returns (each call's "value" in the JSON):
  "discarded" where sglang makes the call as a statement (any return type
  will do: prewarm_sampling, init_cuda_graphs), "used" where it keeps it

exit status: 0 the contract was written, 2 usage or environment error (one line)

examples:
  spec-protocols contract
  spec-protocols contract --sglang 0.5.21 --format markdown -o contract-0.5.21.md
  spec-protocols contract --sglang ~/src/sglang/python --format json
  spec-protocols contract --sglang 0.5.19 --sglang 0.5.23 --format markdown
                                        the release x member table of both
"""


def _add_arguments(contract: argparse.ArgumentParser) -> None:
    contract.add_argument(
        "--sglang",
        metavar="RELEASE|PATH",
        action="append",
        help="a release to fetch (e.g. 0.5.23) or a path to its source (default: the installed sglang); "
        "repeat it for the release x member table of several releases",
    )
    add_output(contract, ("json", "markdown"), default="json", written="the contract")


def _run(args: argparse.Namespace, registry: Mapping[str, Checker] | None = None) -> int:
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
    write(text, args.output)
    return 0


CONTRACT = Command("contract", _add_arguments, _run, help=_HELP, description=_DESCRIPTION, epilog=_EPILOG)
