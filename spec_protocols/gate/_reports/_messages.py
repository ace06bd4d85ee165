"""The words of a run's own notes, from what the pipeline decided.

A checker's findings are worded below the checkers
(:mod:`spec_protocols.gate._findings`); these are the notes the pipeline
adds to a report: where the sglang checked came from, a checker left out,
a runtime checker that could import nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from spec_protocols.gate._model import CheckerSkip, SkipReason

__all__ = [
    "NO_SOURCE",
    "fetched_release_note",
    "no_draft_factory_note",
    "no_source_note",
    "importing_skipped_note",
    "skip_note",
    "checkers_named",
]


def fetched_release_note(release: str) -> str:
    """No sglang installed and no ``--sglang``: the run fetched the newest release."""
    return (
        f"no sglang installed and no --sglang: checked against the newest supported release, sglang "
        f"{release}, read from its source; name another with --sglang"
    )


def checkers_named(names: Sequence[str]) -> str:
    """``runtime checker``, ``runtime and replay checkers``, ``a, b and c checkers``."""
    joined = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{joined} checker{'s' if len(names) > 1 else ''}"


def skip_note(skip: CheckerSkip) -> str:
    """Why the run left ``skip.checkers`` out."""
    assert skip.reason is SkipReason.SGLANG_NOT_INSTALLED
    left = checkers_named(skip.checkers)
    each = "it" if len(skip.checkers) == 1 else "each"
    return (
        f"{left}: skipped: --sglang reads sglang {skip.release}'s source without installing it, and {each} "
        f"can only import the installed sglang; {' and '.join(skip.kept)} decided"
    )


#: Why a check of a run without sglang's source is unverified (the run's note says why there is none).
NO_SOURCE = (
    "not checked on any sglang release's terms (no sglang source: see the note below): the members its scheduler "
    "calls, the keywords it constructs workers with, what BaseSpecWorker's defaults need of a draft worker"
)


def no_source_note(newest: str, missing: str) -> str:
    """No sglang source at all: none installed, none given, and the newest release could not be fetched."""
    return (
        f"no sglang source: none is installed, no --sglang was given, and the newest supported release, {newest}, "
        f"could not be fetched ({missing}); every check is unverified. Install sglang, pass --sglang PATH (a "
        "source tree or a wheel), or run once where the package index is reachable (the release is kept in the "
        "cache)"
    )


def no_draft_factory_note(release: str | None, oldest: str) -> str:
    """A release without ``draft_worker_cls``, and injected classes to check."""
    return (
        f"sglang {release} has no draft_worker_cls (build_draft_tp_worker takes none before "
        f"{oldest}): the injected draft worker classes are checked with the newest release's keywords"
    )


def release_lacks_note(release: str | None, lacking: Mapping[str, str]) -> str:
    """The protocols' sglang names the release checked against does not define where the checkers read them."""
    names = "; ".join(f"{name} (not in {module})" for name, module in sorted(lacking.items()))
    return (
        f"sglang {release} lacks names the protocols annotate with: {names}; the static checkers took each as Any, "
        "so the type of a parameter or return annotated with it is not checked"
    )


def importing_skipped_note(checkers: Sequence[str], first_reason: str) -> str:
    """The checkers that import the target could not import anything: the first reason, and the fix."""
    return (
        f"{checkers_named(checkers)}: skipped every check ({first_reason}); the static checkers decided alone. To "
        "run it, make the target importable in this environment (for sglang on CPU: pip install -r "
        "requirements/sglang-cpu.txt from a spec-protocols checkout), or pass --no-import to say you meant a "
        "static-only run"
    )
