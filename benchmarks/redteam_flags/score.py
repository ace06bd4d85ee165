"""Score the gate's SpecWorker rows (out/*.json) against truth.json; writes score.json."""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
truth = json.loads((HERE / "truth.json").read_text())
rows, extra = [], []
for f in sorted((HERE / "out").glob("*.json")):
    for r in json.loads(f.read_text())["results"]:
        if r["protocol"] != "SpecWorker":
            continue
        t = truth.get(r["target"])
        if t is None:
            extra.append((r["target"], r["verdict"]))
            continue
        msgs = [f"[{p['checker']}{' unverified' if p['unverified'] else ''}] {p['member']}: {p['message']}"
                for p in r["problems"]]
        right = (t["verdict"], r["verdict"]) in (("works", "pass"), ("broken", "fail"))
        rows.append(dict(target=r["target"], truth=t["verdict"], gate=r["verdict"],
                         checkers=r["checkers"], right=right, truth_why=t["why"], gate_problems=msgs))
missing = sorted(set(truth) - {r["target"] for r in rows})
summary = dict(
    right=sum(r["right"] for r in rows), total=len(rows),
    broken_passed=sum(r["truth"] == "broken" and r["gate"] == "pass" for r in rows),
    working_failed=sum(r["truth"] == "works" and r["gate"] == "fail" for r in rows),
    unverified=sum(r["gate"] == "unverified" for r in rows),
    truth_undecided=sum(r["truth"] == "undecided" for r in rows),
    unscored_gate_rows=extra, truth_rows_without_gate_row=missing)
(HERE / "score.json").write_text(json.dumps(dict(summary=summary, rows=rows), indent=2))
print(json.dumps(summary, indent=1))
for r in rows:
    print(f"{'OK ' if r['right'] else 'BAD'} {r['target']:48s} truth={r['truth']:8s} gate={r['gate']:10s} {r['checkers']}")
    if not r["right"]:
        for m in r["gate_problems"]:
            print("      ", m[:700])
