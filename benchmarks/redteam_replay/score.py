"""Score a gate JSON report against truth.json beside this folder.

usage: python score.py truth.json gate.json [label]
"""
import json
import sys
from collections import defaultdict


def load_gate(path):
    with open(path) as f:
        data = json.load(f)
    results = data.get("results", data) if isinstance(data, dict) else data
    out = {}
    for r in results:
        cls = r.get("class") or r.get("target") or r.get("name")
        proto = r.get("protocol")
        # normalise "pkg.mod.Class" / "pkg.mod:Class" to "pkg.mod:Class" candidates
        verdict = r.get("verdict") or r.get("overall")
        checkers = r.get("checkers") or r.get("per_checker") or {}
        if isinstance(checkers, list):
            checkers = {c.get("checker") or c.get("name"): c.get("verdict") for c in checkers}
        else:
            checkers = {k: (v.get("verdict") if isinstance(v, dict) else v) for k, v in checkers.items()}
        out[(cls, proto)] = {"verdict": verdict, "checkers": checkers, "raw": r}
    return out


def norm(name):
    return name.replace(":", ".") if name else name


def main():
    truth_path, gate_path = sys.argv[1], sys.argv[2]
    label = sys.argv[3] if len(sys.argv) > 3 else gate_path
    truth = json.load(open(truth_path))["verdicts"]
    gate = load_gate(gate_path)
    gate_n = {(norm(c), p): v for (c, p), v in gate.items()}
    cats = defaultdict(list)
    right = 0
    for t in truth:
        key = (norm(t["class"]), t["protocol"])
        g = gate_n.get(key)
        if g is None:
            cats["unreported"].append((t, None))
            continue
        gv = g["verdict"]
        if (t["truth"] == "works" and gv == "pass") or (t["truth"] == "broken" and gv == "fail"):
            right += 1
            continue
        if t["truth"] == "broken":
            cats["broken-passed" if gv == "pass" else "broken-" + str(gv)].append((t, g))
        else:
            cats["working-failed" if gv == "fail" else "working-" + str(gv)].append((t, g))
    extra = [k for k in gate_n if k not in {(norm(t["class"]), t["protocol"]) for t in truth}]
    print(f"== {label}: {right} right of {len(truth)}")
    for cat in ("broken-passed", "broken-unverified", "broken-skipped", "working-failed",
                "working-unverified", "working-skipped", "unreported"):
        print(f"  {cat:20s} {len(cats.get(cat, []))}")
    for cat, items in cats.items():
        if cat not in ("broken-passed", "broken-unverified", "broken-skipped", "working-failed",
                       "working-unverified", "working-skipped", "unreported"):
            print(f"  {cat:20s} {len(items)}")
    print()
    print(f"{'class':48s} {'protocol':18s} {'truth':6s} {'gate':10s} checkers")
    for cat, items in sorted(cats.items()):
        print(f"-- {cat}")
        for t, g in items:
            ch = "" if g is None else " ".join(f"{k}={v}" for k, v in sorted(g["checkers"].items()))
            print(f"{t['class']:48s} {t['protocol']:18s} {t['truth']:6s} "
                  f"{(g or {}).get('verdict', '-'):10s} {ch}")
            print(f"      truth: {t['reason'][:200]}")
    if extra:
        print("-- reported by the gate, not in truth (not scored):")
        for c, p in extra:
            print(f"   {c} {p} {gate_n[(c, p)]['verdict']}")


if __name__ == "__main__":
    main()
