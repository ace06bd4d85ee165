"""Classification: each use the walker recorded, with the facts where it runs, as the contract names it.

How a use is classified (the first rule that applies; see
:mod:`~spec_protocols.gate._contract._release_contract`; the facts are those of
:mod:`~spec_protocols.gate._contract._extract._facts`):

1. *dropped*: a ``nonspec`` fact holds (the server's algorithm is none):
   there the scheduler's ``model_worker`` is the plain ``tp_worker`` and
   ``draft_worker`` is None.
2. ``algorithm``: an ``algorithm`` fact holds (a predicate that names some
   algorithms). A *negated* predicate does not make a use
   algorithm-specific: it is the general path, which every other algorithm
   takes (the ground truth reads ``_draft_model_runners``'s fall-through
   ``draft_runners`` so). Also: a member whose presence a class validates
   with ``hasattr`` only under such a predicate is that algorithm's business
   everywhere in the class (the validate-then-apply pairs of
   ``set_internal_state``).
3. ``isinstance``: ``isinstance(<receiver>, ...)`` holds.
4. ``guarded``: ``getattr(w, "x", default)``, ``hasattr(w, "x")``, or a use of
   ``x`` where ``hasattr(w, "x")`` holds.
5. ``private``: a leading underscore.
6. ``required``: anything else. Guards that only mean "speculative mode"
   (``w is not None``, ``if w:``, ``not batch.spec_algorithm.is_none()``) and
   server options (``self.enable_overlap``) do not change that: every
   algorithm reaches the use once the option is set.

``conditional`` is never given to a use: a path a server option selects
(``if self.enable_overlap``) is reached by every algorithm once the option is
set, so its uses are required (the ground truth agrees); what does depend on
a condition is a keyword, recorded on its call as a conditional keyword.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from spec_protocols.gate._contract._extract._facts import Facts
from spec_protocols.gate._contract._release_contract import Classification, ServerFlag, Site, Use, UseKind, fewest_flags

__all__ = ["Raw", "Skips", "Via", "branch_of", "finish", "flags_of", "skips_of", "use_order"]

Via = Literal["", "getattr", "getattr-default", "hasattr", "setattr"]

#: From the least restrictive: a use reached twice keeps the first of these.
_ORDER: Mapping[Classification, int] = {
    "required": 0,
    "conditional": 1,
    "private": 2,
    "guarded": 3,
    "isinstance": 4,
    "algorithm": 5,
}


@dataclass(frozen=True, slots=True)
class Raw:
    """One use as the walker met it: where, how, and the facts that hold there."""

    member: str
    receiver: str
    kind: UseKind
    site: Site
    col: int
    facts: Facts
    via: Via = ""
    positional: int = 0
    keywords: tuple[str, ...] = ()
    conditional_keywords: tuple[str, ...] = ()
    #: The keywords whose value is certain not to be None (``on_publish=partial(...)``).
    never_none: tuple[str, ...] = ()
    #: The class (or module-level function) the use is in: validations cover it.
    owner: str = ""
    #: For a call: whether sglang uses what it returns (False: a call made as a statement).
    value_used: bool = True


def _under(facts: Iterable[str]) -> str:
    return "only under " + "; ".join(dict.fromkeys(facts))


def _reasons(raw: Raw) -> list[tuple[Classification, str]]:
    """Every rule from 2 on that applies to ``raw``, in order, with why."""
    reasons: list[tuple[Classification, str]] = []
    algorithm = [f.text for f in raw.facts if f.kind == "algorithm"]
    if algorithm:
        reasons.append(("algorithm", _under(algorithm)))
    owned = [f.text for f in raw.facts if f.kind == "isinstance" and f.receiver == raw.receiver]
    if owned:
        reasons.append(("isinstance", _under(owned)))
    if raw.via in ("getattr-default", "hasattr"):
        reasons.append(("guarded", f"read through {'hasattr' if raw.via == 'hasattr' else 'getattr with a default'}"))
    else:
        checked = [f for f in raw.facts if f.kind == "hasattr" and f.receiver == raw.receiver and f.member == raw.member]
        if checked:
            reasons.append(("guarded", "only under " + checked[0].text))
    if raw.member.startswith("_"):
        reasons.append(("private", "a private name"))
    return reasons


def classify(raw: Raw) -> tuple[Classification, str] | None:
    """The classification of one use and why; None when it never reaches a spec worker."""
    if any(f.kind == "nonspec" for f in raw.facts):
        return None
    reasons = _reasons(raw)
    if not reasons:
        return "required", ""
    primary = reasons[0]
    also = [r for c, r in reasons[1:] if c != primary[0]]
    reason = primary[1] + "".join(f"; also {r}" for r in also)
    return primary[0], reason


_Key = tuple[str, str, int, int, str, str, str]


Skips = frozenset[tuple[tuple[str, ...], str]]


def skips_of(facts: Facts) -> Skips:
    """The ``excludes`` facts of a path: who never reaches a use on it (``Use.skipped_by``)."""
    return frozenset((f.algorithms, f.branch) for f in facts if f.kind == "excludes")


def flags_of(facts: Facts) -> frozenset[ServerFlag]:
    """The server flags of a path (``Use.flags``)."""
    return frozenset(f.flag for f in facts if f.flag is not None)


def _merged(raw: Iterable[Raw]) -> tuple[dict[_Key, tuple[Raw, Classification, str]], dict[_Key, tuple[Skips, frozenset[ServerFlag]]]]:
    """Each use once (a node reached twice), keeping its least restrictive
    classification, and who skips it and the server flags that hold on
    every path that reaches it."""
    classified: dict[_Key, tuple[Raw, Classification, str]] = {}
    skips: dict[_Key, tuple[Skips, frozenset[ServerFlag]]] = {}
    for item in raw:
        verdict = classify(item)
        if verdict is None:
            continue
        key = (item.site.file, item.site.function, item.site.line, item.col, item.member, item.receiver, item.kind)
        known = classified.get(key)
        if known is None or _ORDER[verdict[0]] < _ORDER[known[1]]:
            classified[key] = (item, verdict[0], verdict[1])
        here = (skips_of(item.facts), flags_of(item.facts))
        skips[key] = (skips[key][0] & here[0], skips[key][1] & here[1]) if key in skips else here
    return classified, skips


def _validated(classified: Iterable[tuple[Raw, Classification, str]]) -> dict[tuple[str, str, str], str]:
    """(owner, receiver, member) -> why, for each member whose presence a class
    validates (hasattr) only for one algorithm: that algorithm's business
    wherever the class uses it."""
    validated: dict[tuple[str, str, str], str] = {}
    for item, classification, _reason in classified:
        if item.via == "hasattr" and classification == "algorithm":
            under = "; ".join(dict.fromkeys(f.text for f in item.facts if f.kind == "algorithm"))
            validated.setdefault(
                (item.owner, item.receiver, item.member),
                f"its presence is validated (hasattr) only under {under} "
                f"({item.site.file}:{item.site.line} {item.site.function})",
            )
    return validated


def finish(raw: Iterable[Raw]) -> tuple[Use, ...]:
    """Classify, merge duplicates (a use reached twice keeps its least
    restrictive classification), apply validations, sort."""
    classified, skips = _merged(raw)
    validated = _validated(classified.values())
    uses: list[Use] = []
    for key, (item, classification, reason) in classified.items():
        if classification in ("required", "private", "guarded"):
            because = validated.get((item.owner, item.receiver, item.member))
            if because is not None:
                reason = because + (f"; also {reason}" if reason else "")
                classification = "algorithm"
        uses.append(
            Use(
                member=item.member,
                receiver=item.receiver,
                kind=item.kind,
                classification=classification,
                site=item.site,
                positional=item.positional,
                keywords=item.keywords,
                conditional_keywords=item.conditional_keywords,
                never_none=item.never_none,
                reason=reason,
                branch=branch_of(item.facts),
                skipped_by=tuple(sorted(skips[key][0])),
                flags=fewest_flags(skips[key][1]),
                value_used=item.value_used,
            )
        )
    return tuple(sorted(uses, key=use_order))


def branch_of(facts: Facts) -> str:
    """The scheduler branch (``overlap`` / ``synchronous``) ``facts`` put a use on; ``""``: both
    (or, facts that contradict, none the gate can name: both, to stay on the safe side)."""
    branches = {f.branch for f in facts if f.kind == "branch"}
    return branches.pop() if len(branches) == 1 else ""


def use_order(use: Use) -> tuple[Site, str, str, str, str]:
    """The order the contract lists uses in."""
    return (use.site, use.member, use.receiver, use.kind, use.classification)
