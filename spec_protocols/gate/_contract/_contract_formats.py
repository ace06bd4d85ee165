"""A :class:`~spec_protocols.gate._contract._release_contract.Contract` as JSON (for tools) or Markdown (for people).

Both renderings are pure functions of the contract, so the same release gives
byte-identical output run after run (the extractor already orders every use by
site, then member). The JSON carries ``"version": 1``: a consumer refuses a
version it does not know rather than misreading a changed layout. Its keys are
sorted, except that each list keeps the contract's own order.

The Markdown page reads top-down as a worker author needs it: what every spec
worker must have (with the call shapes and where sglang calls them), how the
scheduler constructs it, what ``build_draft_tp_worker`` passes to and does with
an injected draft worker class, what ``BaseSpecWorker``'s defaults need from a
worker that keeps them, and then every other use grouped by why it is not
required.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Sequence

from spec_protocols._releases import NEWEST, OLDEST, OLDEST_READABLE
from spec_protocols.gate._contract._exclusions import EXCLUSIONS, Exclusion, excluded
from spec_protocols.gate._contract._release_contract import Classification, Contract, DefaultNeeds, Hook, HookUse, ServerFlag, Site, Use

__all__ = ["JSON_VERSION", "contract_json", "contract_markdown", "releases_json", "releases_markdown", "value_words"]

#: The layout version of :func:`contract_json`.
JSON_VERSION = 1

#: What each classification means, in the order the page lists them.
MEANINGS: tuple[tuple[Classification, str], ...] = (
    ("required", "every algorithm reaches it: a worker must have it"),
    ("algorithm", "only under an algorithm predicate (`spec_algorithm.is_<algo>()` and the like): one algorithm's business"),
    ("isinstance", "only for workers that are `isinstance(w, BaseSpecWorker)`"),
    ("guarded", "read through `getattr(w, name, default)` / `hasattr`, or only where `hasattr` holds: a worker may lack it"),
    ("private", "a name with a leading underscore"),
    ("conditional", "on a path a server option selects (not given to a use by the extractor: see conditional keywords)"),
)

#: The legend's note on keywords passed only under a condition.
CONDITIONAL_KEYWORDS = (
    "a keyword in brackets in a call's shape (`(_, on_publish=[, grammar_barrier=])`) is passed only under "
    "a condition the call does not share, e.g. an algorithm predicate: a worker must accept it, and may "
    "not rely on it"
)


def _fields(value: object, *names: str) -> dict[str, object]:
    """``{name: value.name}`` for the fields named: the JSON layout lists its
    keys itself, so that a field added to the model is not published unasked."""
    return {name: getattr(value, name) for name in names}


def _site(site: Site | None) -> dict[str, object] | None:
    return None if site is None else _fields(site, "file", "function", "line")


def _use(use: Use) -> dict[str, object]:
    return {
        **_fields(use, "member", "receiver", "kind", "classification", "positional", "reason"),
        "site": _site(use.site),
        "keywords": list(use.keywords),
        "conditional_keywords": list(use.conditional_keywords),
        "branch": use.branch,
        "flags": [_flag(f) for f in use.flags],
        **({"value": "used" if use.value_used else "discarded"} if use.kind == "call" else {}),
        **({"value_uses": [_value_use(u) for u in use.value_uses]} if use.kind != "write" else {}),
    }


def _value_use(use: HookUse) -> dict[str, object]:
    return {**_fields(use, "kind", "positional", "detail"), "keywords": list(use.keywords), "site": _site(use.site)}


def _flag(flag: ServerFlag) -> dict[str, object]:
    return {
        "text": flag.text,
        "settings": [{"option": o, "value": v} for o, v in flag.settings],
        "decided_at_start": list(flag.decided_at_start),
    }


def _hook(hook: Hook) -> dict[str, object]:
    return {
        **_fields(hook, "member", "receiver", "lookup", "default", "classification", "branch"),
        "site": _site(hook.site),
        "uses": [_value_use(u) for u in hook.uses],
    }


def _default(default: DefaultNeeds) -> dict[str, object]:
    return {
        "method": default.method,
        "needs": [_use(u) for u in default.needs],
        "relies_on": list(default.relies_on),
        "relies_on_algorithm": list(default.relies_on_algorithm),
        "relies_on_flags": [{"default": r, "flags": [_flag(f) for f in flags]} for r, flags in default.relies_on_flags],
    }


def contract_json(contract: Contract) -> str:
    """The contract as JSON: stable, sorted keys, ending in a newline."""
    document = {
        "version": JSON_VERSION,
        "release": contract.release,
        "source": contract.source,
        "required_members": sorted(contract.required_members()),
        "spec_worker": [_use(u) for u in contract.spec_worker],
        "constructor": {
            "keywords": list(contract.constructor_keywords),
            "site": _site(contract.constructor_site),
        },
        "draft_factory": {
            "keywords": None if contract.draft_factory_keywords is None else list(contract.draft_factory_keywords),
            "site": _site(contract.draft_factory_site),
        },
        "built_draft": [_use(u) for u in contract.built_draft],
        "defaults": [_default(d) for d in contract.defaults],
        "built_in_workers": [
            {"module": w.module, "name": w.name, "site": _site(w.site)} for w in contract.built_in_workers
        ],
        "excluded": [_exclusion(e) for e in _exclusions(contract)],
        "hooks": [_hook(h) for h in contract.hooks],
        "overlap_flag": {"name": contract.overlap_flag, "default": contract.overlap_flag_default},
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def _exclusions(contract: Contract) -> list[Exclusion]:
    """The entries of the exclusion table that apply to this release."""
    return [e for e in EXCLUSIONS if e.applies_to(contract.release)]


def _exclusion(entry: Exclusion) -> dict[str, object]:
    return {"member": entry.member, "receiver": entry.receiver, "keyword": entry.keyword, "reason": entry.reason}


# -- Markdown ---------------------------------------------------------------------------


def _code(text: str) -> str:
    return f"`{text}`"


def _cell(text: str) -> str:
    """Markdown (code spans included) made safe for one table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _prose(text: str) -> str:
    """Free text holding source fragments (a reason): Markdown's special
    characters escaped, so that ``__init__`` or ``**kwargs`` show as written."""
    for character in "\\`*_<>[]":
        text = text.replace(character, "\\" + character)
    return text


def _where(site: Site) -> str:
    return f"{_code(f'{site.file}:{site.line}')} {_code(site.function)}"


def _shape(use: Use) -> str:
    """A call's shape: ``(_, batch_size=)``, conditional keywords in brackets."""
    if use.kind != "call":
        return use.kind
    parts = ["_"] * use.positional + [f"{k}=" for k in use.keywords]
    text = ", ".join(parts)
    if use.conditional_keywords:
        extra = ", ".join(f"{k}=" for k in use.conditional_keywords)
        text = f"{text}[, {extra}]" if text else f"[{extra}]"
    return f"({text})"


def _shown(use: Use) -> str:
    """A use's shape for a table cell: a call's in code (``_`` is Markdown emphasis)."""
    return _code(_shape(use)) if use.kind == "call" else use.kind


def _keywords(keywords: Iterable[str]) -> str:
    listed = ", ".join(_code(k) for k in keywords)
    return listed or "none"


def _required(contract: Contract) -> list[str]:
    lines = [
        "## What every spec worker must have",
        "",
        "Every algorithm reaches these on the serving path (`required`). A call's shape lists its "
        "positional arguments as `_` and its keywords; a keyword in brackets is passed only under a "
        "condition (see its site). A site made only by a server started with a flag the defaults do "
        "not set names it (`only with --enable-metrics`).",
        "",
        "| member | use | what sglang does with its value | sites |",
        "|---|---|---|---|",
    ]
    required = contract.required_uses()
    for member, uses in required.items():
        shapes = list(dict.fromkeys(_shown(u) for u in uses))
        values = value_words([v for u in uses for v in u.value_uses])
        sites = "<br>".join(_where(u.site) + _only_with(u.flags) for u in uses)
        lines.append(f"| {_code(member)} | {_cell('; '.join(shapes))} | {_cell(values)} | {sites} |")
    if not required:
        lines.append("| (none found) | | | |")
    return lines


def _only_with(flags: Sequence[ServerFlag]) -> str:
    """`` only with `--flag` `` for a site behind server flags (nothing else)."""
    return f" only with {_code(' and '.join(f.words() for f in flags))}" if flags else ""


def _construction(contract: Contract) -> list[str]:
    lines = ["", "## How the scheduler constructs a spec worker", ""]
    if contract.constructor_site is None:
        lines.append("No `...create_worker(...)` call whose result is constructed was found.")
    else:
        lines.append(
            f"The class `spec_algorithm.create_worker(...)` returns is called with keywords "
            f"{_keywords(contract.constructor_keywords)} ({_where(contract.constructor_site)})."
        )
    if contract.built_in_workers:
        listed = ", ".join(_code(w.dotted) for w in contract.built_in_workers)
        lines += [
            "",
            f"For a built-in algorithm `create_worker` returns one of {listed}. A plugin's worker runs under a "
            "custom algorithm, whose built-in `is_<algo>()` predicates are all false: in a default that "
            "dispatches on the algorithm it takes the path no predicate opens.",
        ]
    lines += ["", "## build_draft_tp_worker: an injected draft worker class", ""]
    if contract.draft_factory_keywords is None:
        lines.append(
            "This release's `build_draft_tp_worker` has no `draft_worker_cls` parameter: it builds its "
            "draft worker itself, so no draft worker class can be injected."
        )
    else:
        where = f" ({_where(contract.draft_factory_site)})" if contract.draft_factory_site else ""
        lines.append(f"`draft_worker_cls(...)` is called with keywords {_keywords(contract.draft_factory_keywords)}{where}.")
    if contract.built_draft:
        verbs = {"read": "reads", "write": "writes", "call": "calls"}
        done = "; ".join(
            f"{verbs[u.kind]} {_code('.' + u.member)} ({_code(f'{u.site.file}:{u.site.line}')})" for u in contract.built_draft
        )
        lines += ["", f"On the object it builds, it then {done}."]
    return lines


def _need(use: Use) -> str:
    text = _code(use.member + (_shape(use) if use.kind == "call" else ""))
    if use.kind == "write":
        text += " (written)"
    if use.classification != "required":
        text += f" ({use.classification}: {_prose(use.reason)})"
    elif use.reason:
        text += f" ({_prose(use.reason)})"
    return text


def _table_section(title: str, intro: str, columns: Sequence[str]) -> list[str]:
    """A section that is a table: its heading, what it says, and the table's head."""
    return ["", f"## {title}", "", intro, "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def _defaults(contract: Contract) -> list[str]:
    lines = _table_section(
        "BaseSpecWorker's defaults and what they need",
        "A worker that subclasses `BaseSpecWorker` and keeps a default (does not override it) "
        "inherits its needs: members of its `draft_worker` and `target_worker`, its own state, and "
        "the other defaults it relies on (whose needs are its needs too).",
        ("default", "on `draft_worker`", "on `target_worker`", "own state", "relies on"),
    )
    for default in contract.defaults:
        columns: list[str] = []
        for receiver in ("draft_worker", "target_worker", "self"):
            needs = list(dict.fromkeys(_need(u) for u in default.needs if u.receiver == receiver))
            columns.append("<br>".join(_cell(n) for n in needs) or "-")
        flagged = dict(default.relies_on_flags)
        relies = ", ".join(_code(r) + _cell(_only_with(flagged.get(r, ()))) for r in default.relies_on) or "-"
        lines.append(f"| {_code(default.method)} | {' | '.join(columns)} | {relies} |")
    if not contract.defaults:
        lines.append("| (BaseSpecWorker not found) | | | | |")
    return lines


def _others(contract: Contract) -> list[str]:
    lines = ["", "## Other uses (not required of every worker)", ""]
    others = [u for u in contract.spec_worker if u.classification != "required" or u.receiver != "spec_worker"]
    if not others:
        return [*lines, "None."]
    lines.append(
        "A receiver `spec_worker.draft_worker` is the spec worker's own draft worker "
        "(e.g. `getattr(spec_worker, \"draft_worker\", None)`): its members are not the spec worker's."
    )
    for classification, meaning in MEANINGS:
        group = [u for u in others if u.classification == classification]
        if not group:
            continue
        lines += [
            "",
            f"### {classification}: {meaning}",
            "",
            "| member | receiver | use | site | why |",
            "|---|---|---|---|---|",
        ]
        for use in group:
            lines.append(
                f"| {_code(use.member)} | {_code(use.receiver)} | {_cell(_shown(use))} | {_where(use.site)} | "
                f"{_cell(_prose(use.reason)) or '-'} |"
            )
    return lines


def _left_out(contract: Contract) -> list[str]:
    lines = _table_section(
        "What the protocols leave out, and why",
        "Required uses that no protocol member models (the gate does not check them); most are upstream defects "
        "(docs/findings.md).",
        ("use", "reason"),
    )
    for entry in _exclusions(contract):
        use = f"{entry.receiver}.{entry.member}" + (f"({entry.keyword}=)" if entry.keyword else "")
        lines.append(f"| {_code(use)} | {_cell(entry.reason)} |")
    return lines


def _hook_use(use: HookUse) -> str:
    if use.kind == "call":
        return "called `(" + ", ".join(["_"] * use.positional + [f"{k}=" for k in use.keywords]) + ")`"
    if use.kind == "attribute":
        return f"`.{use.detail}`"
    if use.kind == "operand":
        return f"operand of `{use.detail}`"
    if use.kind == "value":
        return _kept(use.detail)
    return use.kind


def _kept(detail: str) -> str:
    """A value kept: returned, stored, held in a container, or passed to a callee the gate could not read."""
    if detail == "Return":
        return "returned"
    if detail == "Expr":
        return "dropped"  # read as a statement of its own
    if detail == "stored" or not detail:
        return "stored"
    if isinstance(getattr(ast, detail, None), type):
        return "kept"  # in a container, a subscript, a comprehension's test...
    return f"passed to `{detail}`"


def value_words(uses: Sequence[HookUse]) -> str:
    """What sglang does with a value, in a few words (``"-"``: nothing it was seen to do)."""
    return ", ".join(dict.fromkeys(_hook_use(u) for u in uses)) or "-"


def _hooks(contract: Contract) -> list[str]:
    """The members found with getattr/hasattr, and what sglang does with them."""
    if not contract.hooks:
        return []
    lines = [
        "",
        "## Hooks: found with `getattr` / `hasattr`",
        "",
        "A worker may lack these; one that has them is used as listed (a class that defines one is held to it).",
        "",
        "| member | receiver | lookup | classification | used as | where |",
        "|---|---|---|---|---|---|",
    ]
    for hook in contract.hooks:
        found = f"getattr(..., {hook.default})" if hook.default else hook.lookup
        used = value_words(hook.uses)
        lines.append(
            f"| {_code(hook.member)} | {_code(hook.receiver)} | {_cell(_code(found))} | {hook.classification} "
            f"| {_cell(used)} | {_where(hook.site)} |"
        )
    if contract.overlap_flag is not None:
        lines += [
            "",
            f"Registration flag `{contract.overlap_flag}` (default {contract.overlap_flag_default}): an algorithm "
            "registered with it false runs only the scheduler's synchronous branch.",
        ]
    return lines


def contract_markdown(contract: Contract) -> str:
    """The contract as a Markdown page, ending in a newline."""
    members = sorted(contract.required_members())
    lines = [
        f"# The speculative-worker contract of sglang {contract.release}",
        "",
        f"Read from the release's own source in `{contract.source}` (parsed, never imported). "
        f"{len(members)} required member{'s' if len(members) != 1 else ''}: "
        + (", ".join(_code(m) for m in members) or "none")
        + ".",
        "",
        *_required(contract),
        *_construction(contract),
        *_defaults(contract),
        *_others(contract),
        *_hooks(contract),
        *_left_out(contract),
        "",
        "## Classifications",
        "",
        *(f"- `{c}`: {m}" for c, m in MEANINGS),
        f"- conditional keywords: {CONDITIONAL_KEYWORDS}",
    ]
    return "\n".join(lines) + "\n"


# -- Several releases: the release x member table ------------------------------------

#: How a cell of the release x member table reads.
_CELL_WORDS = {
    "checked": "required",
    "excluded": "excluded",
    "absent": "-",
}


def _cell_of(contract: Contract, member: str) -> str:
    """One member in one release: ``required`` (every worker needs it, and the
    gate checks it), ``excluded`` (required, but left out: see the exclusion
    table), another classification, or ``-`` (the release never uses it)."""
    uses = [u for u in contract.spec_worker if u.member == member and u.receiver == "spec_worker"]
    if any(u.classification == "required" for u in uses):
        return _CELL_WORDS["excluded" if excluded(member, contract.release) else "checked"]
    kinds = sorted({u.classification for u in uses})
    return ", ".join(kinds) if kinds else _CELL_WORDS["absent"]


def releases_json(contracts: Sequence[Contract]) -> str:
    """Several contracts as one JSON list (each as :func:`contract_json` writes it)."""
    return "[\n" + ",\n".join(contract_json(c).rstrip("\n") for c in contracts) + "\n]\n"


def releases_markdown(contracts: Sequence[Contract]) -> str:
    """The release x member table of several contracts, ending in a newline.

    Rows: every member the scheduler side uses on a spec worker in any of the
    releases (those some release requires first), then the constructor's and
    ``draft_worker_cls``'s keywords, then what ``BaseSpecWorker``'s defaults
    use on the draft worker.
    """
    releases = [c.release for c in contracts]
    header = ["| member | " + " | ".join(releases) + " |", "|---|" + "---|" * len(releases)]
    lines = [
        "# The speculative-worker contract, release by release",
        "",
        "Generated by `spec-protocols contract "
        + " ".join(f"--sglang {r}" for r in releases)
        + " --format markdown` from each release's own source (parsed, never imported); "
        "`tests/slow/test_docs_contract.py` fails when this page is stale. "
        "`spec-protocols contract --sglang RELEASE` shows one release with every call site.",
        "",
        f"The gate checks {OLDEST} to {NEWEST}. It reads every release from {OLDEST_READABLE}, the first whose "
        "algorithm registry constructs a plugin's worker: one outside the range is checked against its own "
        "contract (each method as that release calls it), with a note. An older release, whose scheduler "
        "constructs only sglang's own workers, is refused before it is fetched (one line, exit 2).",
        "",
        "## What the scheduler side uses on a spec worker",
        "",
        "`required`: every algorithm reaches it on the serving path, and the gate checks it for that release; "
        "`excluded`: required, but deliberately not modelled (the reason is in each release's "
        "`spec-protocols contract` output and in docs/findings.md); `guarded`, `algorithm`, `isinstance`, "
        "`private`: a worker may lack it; `-`: the release never uses it.",
        "",
        *header,
    ]
    lines += [f"| {_code(m)} | " + " | ".join(_cell_of(c, m) for c in contracts) + " |" for m in _used(contracts)]
    lines += _keyword_rows(
        "## The keywords the scheduler constructs a spec worker with", header, [c.constructor_keywords for c in contracts]
    )
    lines += _keyword_rows(
        "## The keywords `build_draft_tp_worker` passes `draft_worker_cls`",
        header,
        [c.draft_factory_keywords for c in contracts],
    )
    lines += ["", "## What `BaseSpecWorker`'s defaults use on the draft worker", "", *header, *_drafted_rows(contracts)]
    return "\n".join(lines) + "\n"


def _used(contracts: Sequence[Contract]) -> list[str]:
    """Every member the scheduler side uses on a spec worker in any release, those some release requires first."""
    used = {u.member for c in contracts for u in c.spec_worker if u.receiver == "spec_worker"}
    required = {m for c in contracts for m in c.required_members()}
    return sorted(used, key=lambda m: (m not in required, m))


def _keyword_rows(title: str, header: Sequence[str], keyword_sets: Sequence[tuple[str, ...] | None]) -> list[str]:
    """A keyword x release table: ``passed`` where the release passes it; a
    release without ``draft_worker_cls`` (None) says so in a row of its own."""
    names = list(dict.fromkeys(k for ks in keyword_sets for k in (ks or ())))
    rows = ["", title, "", header[0].replace("| member |", "| keyword |", 1), header[1]]
    for name in names:
        cells = ["-" if ks is None or name not in ks else "passed" for ks in keyword_sets]
        rows.append(f"| {_code(name)} | " + " | ".join(cells) + " |")
    if any(ks is None for ks in keyword_sets):
        cells = ["no `draft_worker_cls`" if ks is None else "" for ks in keyword_sets]
        rows.append("| (injection) | " + " | ".join(cells) + " |")
    return rows


def _drafted_rows(contracts: Sequence[Contract]) -> list[str]:
    """A row per member the defaults use on the draft worker: which defaults use it, per release."""
    drafted = sorted({u.member for c in contracts for d in c.defaults for u in d.needs if u.receiver == "draft_worker"})
    rows: list[str] = []
    for member in drafted:
        cells: list[str] = []
        for c in contracts:
            by = sorted({d.method for d in c.defaults for u in d.needs if u.receiver == "draft_worker" and u.member == member})
            cells.append("<br>".join(_code(m) for m in by) or "-")
        rows.append(f"| {_code(member)} | " + " | ".join(cells) + " |")
    return rows
