"""The contract room: what one sglang release asks of a speculative worker, read from its own source.

The protocols in :mod:`spec_protocols._protocols` were transcribed by hand
from one release; this room derives the same knowledge from any release's
source, so that the contract follows sglang instead of a transcription:

``_model``    the data: a :class:`Contract` of located, classified :class:`Use` s
``_source``   where a release's source comes from: the installed sglang, a path
              (a folder, the ``sglang/`` folder, a wheel) or a release fetched
              with ``pip download`` into the gate's cache; never imported
``_extract``  :func:`extract_contract`: reads the scheduler side
              (``managers/``, ``disaggregation/``), ``BaseSpecWorker``'s
              defaults, the constructor call and ``build_draft_tp_worker``
              with ``ast``; structural, never anchored on a line or a release
              (a package: the flow walker, classification and one reader per
              thing read, each a room of its own)
``_render``   :func:`contract_json` (for tools) and :func:`contract_markdown`
              (for people)

It sits in front of discovery (``spec-protocols contract``); nothing here
imports a later stage, a checker or sglang.
"""

from __future__ import annotations

from spec_protocols.gate._contract._extract import extract_contract
from spec_protocols.gate._contract._release_contract import (
    OVERLAP,
    SYNCHRONOUS,
    AlgorithmObject,
    BuiltInWorker,
    Contract,
    DefaultNeeds,
    Hook,
    HookUse,
    ServerFlag,
    Site,
    Use,
    flags_claim,
    ruled_out,
)
from spec_protocols.gate._contract._contract_formats import contract_json, contract_markdown, releases_json, releases_markdown
from spec_protocols.gate._contract._release_source import (
    SglangSource,
    fetch_release,
    installed_root,
    installed_source,
    release_of,
    resolve_sglang,
    source_at,
    tree_root,
)
from spec_protocols.gate._contract._terms import (
    CallShape,
    DraftNeed,
    HookTerm,
    ReleaseTerms,
    call_shapes,
    flags_words,
    kept_default_needs,
    release_terms,
)

__all__ = [
    "OVERLAP",
    "SYNCHRONOUS",
    "AlgorithmObject",
    "BuiltInWorker",
    "CallShape",
    "Contract",
    "DefaultNeeds",
    "DraftNeed",
    "Hook",
    "HookTerm",
    "HookUse",
    "ReleaseTerms",
    "ServerFlag",
    "SglangSource",
    "Site",
    "Use",
    "call_shapes",
    "contract_json",
    "contract_markdown",
    "extract_contract",
    "fetch_release",
    "flags_claim",
    "flags_words",
    "installed_root",
    "installed_source",
    "kept_default_needs",
    "release_of",
    "release_terms",
    "releases_json",
    "releases_markdown",
    "resolve_sglang",
    "ruled_out",
    "source_at",
    "tree_root",
]
