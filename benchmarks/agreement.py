"""Agreement between ``verify_conformance`` and the static checkers on near-misses of ``DraftWorker``.

Usage::

    .venv/bin/python benchmarks/agreement.py [--n 600] [--seed 20261129] [--no-mypy]

The study itself (generation, checking, comparison) is
``tests/agreement_study.py``, which ``tests/checkers/test_verify_agreement.py`` runs on
a smaller sample; this script runs it at size, prints the table and writes
``benchmarks/results/agreement.json`` (docs/agreement.md has the method and
the figures).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))

from agreement_study import DEFAULT_SEED, evaluate  # noqa: E402  (tests/ is on the path above)


def _table(summary: dict[str, Any]) -> str:
    out = [
        f"N={summary['n']} seed={summary['seed']}  classes with __getattr__: {summary['classes_with_getattr']}  "
        f"runtime ok: {summary['runtime_ok']}",
        "",
        f"{'checker':8} {'class agree':>14} {'rate':>7} {'no getattr':>12} {'getattr':>10} "
        f"{'excl. known':>12} {'member agree':>14} {'rate':>7} {'secs':>6}",
    ]
    for name, c in summary["checkers"].items():
        ca, cn = c["class_agreement"]
        ma, mn = c["member_agreement"]
        out.append(
            f"{name:8} {ca:>6}/{cn:<7} {c['class_agreement_rate']:>7.2%} "
            f"{'%d/%d' % tuple(c['class_agreement_without_getattr']):>12} "
            f"{'%d/%d' % tuple(c['class_agreement_with_getattr']):>10} "
            f"{'%d/%d' % tuple(c['class_agreement_excluding_known_categories']):>12} "
            f"{ma:>6}/{mn:<7} {c['member_agreement_rate']:>7.2%} {c['seconds']:>6}"
        )
    for name, c in summary["checkers"].items():
        if c["disagreements"]:
            out += ["", f"{name}: member disagreements (category, member=mutations, runtime, {name}, count)"]
            out += [f"  {d['category']:26} {d['member']:60} {d['runtime']:6} {d['checker']:6} {d['count']}"
                    for d in c["disagreements"]]
        if c["unexplained"]:
            out += ["", f"{name}: UNEXPLAINED ({len(c['unexplained'])})"] + [f"  {u}" for u in c["unexplained"][:40]]
        if c["stray_errors"]:
            out += ["", f"{name}: errors outside checker lines ({len(c['stray_errors'])})"]
            out += [f"  {u}" for u in c["stray_errors"][:20]]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, default=600)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--no-mypy", action="store_true")
    parser.add_argument("--keep", type=Path, help="also write the generated module here")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "results" / "agreement.json")
    args = parser.parse_args(argv)
    summary = evaluate(args.n, args.seed, mypy=not args.no_mypy, keep=args.keep)
    print(_table(summary))
    public = {k: v for k, v in summary.items() if not k.startswith("_")}
    public["python"] = sys.version.split()[0]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(public, indent=2) + "\n")
    print(f"\nwrote {args.out}")
    bad = any(c["unexplained"] or c["stray_errors"] for c in summary["checkers"].values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
