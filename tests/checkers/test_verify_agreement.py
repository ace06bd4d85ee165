"""``verify_conformance`` agrees with pyright (and mypy) on generated near-misses of ``DraftWorker``.

150 classes are generated deterministically by ``tests/agreement_study.py``
(``random.Random`` with a fixed seed; see docs/agreement.md for the mutations),
written into ONE module, checked at runtime with ``verify_conformance`` and by
each checker in ONE run. Verdicts are compared per class (the whole protocol)
and per member (a one-member protocol cut from ``DraftWorker``'s own source).

Nothing is loosened: every disagreement must belong to a documented category
(``expected_disagreement`` in the study, explained in docs/agreement.md),
every member predicted to fall in such a category must actually disagree, and
the set of categories seen is asserted exactly.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import agreement_study as bench  # tests/agreement_study.py: the study itself

N = 150


def _have_pyright() -> bool:
    return (Path(sys.executable).parent / "pyright").exists() or shutil.which("pyright") is not None


@pytest.fixture(scope="module")
def summary() -> dict[str, Any]:
    if not _have_pyright():
        pytest.skip("pyright is not installed")
    result: dict[str, Any] = bench.evaluate(N, bench.DEFAULT_SEED, mypy=True)
    return result


def _checker(summary: dict[str, Any], name: str) -> tuple[Any, Any, dict[str, Any]]:
    names = [run.name for run in summary["_runs"]]
    i = names.index(name)
    return summary["_runs"][i], summary["_comparisons"][i], summary["checkers"][name]


def test_generation_is_deterministic_and_covers_every_mutation() -> None:
    a = bench.generate(N)
    b = bench.generate(N)
    assert [s.source for s in a] == [s.source for s in b]
    seen = {m for spec in a for member in spec.members for m in member.mutations}
    wanted = set(bench.METHOD_MUTATIONS_ANY) | set(bench.METHOD_MUTATIONS_ALLOC) | set(bench.PROPERTY_MUTATIONS)
    assert seen == wanted, f"mutations never drawn at N={N}: {sorted(wanted - seen)}"
    assert any(s.getattr_ for s in a) and not all(s.getattr_ for s in a)
    # Some generated classes conform, most do not.
    kept = [s for s in a if all(not m.mutations for m in s.members)]
    assert len(kept) < N


def test_no_checker_error_outside_the_checker_lines(summary: dict[str, Any]) -> None:
    # The generated classes themselves must be clean, or the generator is broken.
    for name in ("pyright", "mypy"):
        _run, _comp, public = _checker(summary, name)
        assert public["stray_errors"] == [], f"{name}: {public['stray_errors'][:10]}"


@pytest.mark.parametrize(
    ("checker", "categories"),
    [
        ("pyright", {"init-attribute", "pyright-cached-property"}),
        ("mypy", {"init-attribute", "getattr-supplies-missing"}),
    ],
)
def test_every_disagreement_is_a_documented_category(
    summary: dict[str, Any], checker: str, categories: set[str]
) -> None:
    _run, comp, public = _checker(summary, checker)
    # Member by member: agree, or disagree exactly where a documented category says so.
    assert comp.unexplained == [], "\n".join(comp.unexplained[:30])
    assert {d["category"] for d in public["disagreements"]} == categories
    # Each category disagrees in one direction only.
    directions = {(d["category"], d["runtime"], d["checker"]) for d in public["disagreements"]}
    expected_direction = {
        "init-attribute": ("error", "ok"),
        "getattr-supplies-missing": ("error", "ok"),
        "pyright-cached-property": ("ok", "error"),
    }
    assert directions == {(c, *expected_direction[c]) for c in categories}


@pytest.mark.parametrize("checker", ["pyright", "mypy"])
def test_whole_class_verdicts_agree_outside_the_documented_categories(summary: dict[str, Any], checker: str) -> None:
    run, _comp, _public = _checker(summary, checker)
    checked = 0
    for spec in summary["_specs"]:
        if any(bench.expected_disagreement(spec, m, checker) for m in spec.members):
            continue
        checked += 1
        runtime_ok = not spec.runtime_members
        checker_ok = "_all" not in run.failing.get(spec.name, set())
        assert runtime_ok == checker_ok, (
            f"{spec.name}: runtime {'ok' if runtime_ok else spec.runtime_kinds}, {checker} "
            f"{'ok' if checker_ok else run.messages.get((spec.name, '_all'))}\n{spec.source}"
        )
    assert checked >= N // 3, f"only {checked} classes outside the documented categories"


def test_classes_without_getattr_agree_with_pyright_on_every_member_but_documented_ones(
    summary: dict[str, Any],
) -> None:
    run, _comp, _public = _checker(summary, "pyright")
    for spec in summary["_specs"]:
        if spec.getattr_:
            continue
        for member in spec.members:
            runtime_bad = member.name in spec.runtime_members
            pyright_bad = member.name in run.failing.get(spec.name, set())
            documented = bench.expected_disagreement(spec, member, "pyright") is not None
            assert (runtime_bad != pyright_bad) == documented, (spec.name, member.name, member.label)


def test_getattr_classes_report_missing_members_exactly_as_pyright(summary: dict[str, Any]) -> None:
    run, _comp, _public = _checker(summary, "pyright")
    getattr_specs = [s for s in summary["_specs"] if s.getattr_]
    assert any(any(m.mutations == ("drop",) for m in s.members) for s in getattr_specs)
    for spec in getattr_specs:
        runtime_missing = {
            m.name
            for m in spec.members
            if "missing" in spec.runtime_kinds.get(m.name, ())
            and bench.expected_disagreement(spec, m, "pyright") is None  # init-attribute: see docs
        }
        pyright_missing = {
            m.name
            for m in spec.members
            if f'"{m.name}" is not present' in run.messages.get((spec.name, m.name), "")
        }
        dropped = {m.name for m in spec.members if "drop" in m.mutations}
        assert runtime_missing == pyright_missing == dropped, (spec.name, runtime_missing, pyright_missing, dropped)
        if dropped:
            assert "_all" in run.failing.get(spec.name, set()) and spec.runtime_members


def test_mypy_lets_getattr_supply_exactly_the_dropped_members(summary: dict[str, Any]) -> None:
    # The one mypy-only category, pinned down: with __getattr__ (-> Any) every
    # dropped member passes mypy and fails at runtime (and in pyright).
    run, _comp, _public = _checker(summary, "mypy")
    pyright_run, _c, _p = _checker(summary, "pyright")
    cases = 0
    for spec in summary["_specs"]:
        if not spec.getattr_:
            continue
        for member in spec.members:
            if "drop" in member.mutations:
                cases += 1
                assert member.name not in run.failing.get(spec.name, set())
                assert "missing" in spec.runtime_kinds.get(member.name, ())
                assert member.name in pyright_run.failing.get(spec.name, set())
    assert cases > 0
