"""The one table of required uses that the protocols deliberately do not model.

Every use a release's own source makes of a worker on the serving path (a
``required`` use in its :class:`~spec_protocols.gate._contract._release_contract.Contract`)
is either a protocol member, with a signature that accepts the call, or an
entry here with its reason. ``tests/slow/test_contract_coverage.py`` holds every
supported release to that, so a release that starts calling something new
fails the suite until a member or an entry covers it.

An entry is never a silent gap: ``spec-protocols contract`` lists the entries
that apply to the release it reads (``excluded`` in JSON, "What the protocols
leave out" in Markdown), and docs/findings.md explains the upstream defects
behind most of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from spec_protocols._releases import release_key

__all__ = ["EXCLUSIONS", "Exclusion", "excluded", "excluded_at"]


@dataclass(frozen=True, slots=True)
class Exclusion:
    """A required use the protocols leave out, and why."""

    #: The member, on the receiver (``spec_worker``, ``draft_worker``, ``built_draft``).
    member: str
    receiver: str = "spec_worker"
    #: One keyword of the member's calls, rather than the whole member.
    keyword: str | None = None
    #: First and last release it applies to (inclusive; ``None``: open end).
    first: str | None = None
    last: str | None = None
    reason: str = ""
    #: Only the uses made in a function of this name (the last part of
    #: ``Site.function``): the member stays required where other uses make
    #: it so; the entry only keeps these uses from holding a worker to it.
    function: str | None = None

    def applies_to(self, release: str) -> bool:
        key = release_key(release)
        return (self.first is None or release_key(self.first) <= key) and (
            self.last is None or key <= release_key(self.last)
        )


EXCLUSIONS: tuple[Exclusion, ...] = (
    Exclusion(
        "model_runner",
        # Before 0.5.13 the scheduler also read draft_worker.model_runner on the
        # serving path (the disaggregated decode queue's draft KV pool, the
        # hierarchical cache's draft pool): there it is required.
        first="0.5.13",
        reason="read only by SchedulerWeightUpdaterManager.save_remote_model (an administrative RPC that saves "
        "the draft to remote storage); sglang's own EAGLE, standalone, frozen-KV MTP and multi-layer EAGLE "
        "workers have none in any release (an upstream defect, docs/findings.md): requiring it would fail "
        "sglang itself",
    ),
    Exclusion(
        "update_weights_from_disk",
        last="0.5.20",
        reason="in-place weight-update RPC until 0.5.21 replaced it with weight_update_runners; BaseSpecWorker's "
        "default reads draft_worker.draft_runners, which DFlash, DSpark and NGRAM do not have (an upstream "
        "defect, docs/findings.md)",
    ),
    Exclusion(
        "update_weights_from_ipc",
        last="0.5.20",
        reason="as update_weights_from_disk: an in-place weight-update RPC until 0.5.21, broken upstream for "
        "DFlash, DSpark and NGRAM",
    ),
    Exclusion(
        "update_weights_from_tensor",
        last="0.5.20",
        reason="in-place weight-update RPC until 0.5.21; sglang's own multi-layer EAGLE worker lacks it in "
        "0.5.18-0.5.20 (an upstream defect, docs/findings.md)",
    ),
    Exclusion(
        "forward_batch_generation",
        keyword="pp_proxy_tensors",
        reason="passed only on the path without overlap scheduling (and for non-last pipeline stages); "
        "frozen-KV MTP and Uno do not take it (an upstream defect, docs/findings.md): modelled as the "
        "capability SupportsPipelineProxy",
    ),
    Exclusion(
        "draft_runner",
        receiver="built_draft",
        reason="build_draft_tp_worker sets draft_worker.draft_runner itself, right after construction: any "
        "object that accepts a new attribute will do, and no protocol can require that",
    ),
    Exclusion(
        "get_platform_worker_cls",
        receiver="spec_algorithm",
        first="0.5.23",
        reason="called only by speculative/adaptive_spec_params.py adaptive_unsupported_reason, after it has "
        "returned for every algorithm but EAGLE and EAGLE3 (a name test, not a predicate): a plugin's "
        "algorithm object never meets it; CustomSpecAlgo does not define it",
    ),
    Exclusion(
        "model_runner",
        last="0.5.12",
        function="save_remote_model",
        reason="as from 0.5.13 on: the administrative RPC that saves the draft to remote storage reads it, and "
        "sglang's own V2 workers have none (an upstream defect, docs/findings.md); until 0.5.13 the serving path "
        "reads it too (the disaggregation and hierarchical-cache draft pools), on paths each release's own "
        "create_worker decides, so the member stays required where those reads reach a worker",
    ),
)


def excluded(member: str, release: str, *, receiver: str = "spec_worker", keyword: str | None = None) -> Exclusion | None:
    """The entry that excludes this use in ``release``, if any."""
    for entry in EXCLUSIONS:
        if (
            entry.member == member
            and entry.receiver == receiver
            and entry.keyword == keyword
            and entry.function is None
            and entry.applies_to(release)
        ):
            return entry
    return None


def excluded_at(member: str, function: str, release: str, *, receiver: str = "spec_worker") -> Exclusion | None:
    """The entry that leaves out the uses of ``member`` made in ``function``
    (a ``Site.function``) in ``release``, if any: a whole-member entry, or one
    for that function alone."""
    whole = excluded(member, release, receiver=receiver)
    if whole is not None:
        return whole
    name = function.rsplit(".", 1)[-1]
    for entry in EXCLUSIONS:
        if entry.member == member and entry.receiver == receiver and entry.function == name and entry.applies_to(release):
            return entry
    return None
