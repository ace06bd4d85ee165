"""raw.json (driver output) + documented hand decisions -> truth.json beside this folder
(--result: raw_result.json -> truth_result.json)"""
import json, os
HERE = os.path.dirname(os.path.abspath(__file__))
import sys

STEM = "_result" if "--result" in sys.argv[1:] else ""
raw = json.load(open(os.path.join(HERE, f"raw{STEM}.json")))

# Hand decisions where the driver cannot construct an instance (documented why).
HAND = {
    ("rt_choice.drafts:WideDraft", "DraftWorker"): ("works",
        "by hand: not constructible by build_draft_tp_worker (its DraftWorkerFactory is broken), but every "
        "member BaseSpecWorker's defaults use on a draft (alloc_memory_pool(memory_pool_config=,req_to_token_pool=,"
        "token_to_kv_pool_allocator=), init_attention_backends(), init_cuda_graphs(), the 4 value properties) is "
        "TpModelWorker's or a compatible override (init_cuda_graphs(self))"),
    ("rt_mixin.workers:MixinDraft", "DraftWorker"): ("works",
        "by hand: members all inherited from TpModelWorker unchanged; only its constructor is broken"),
    ("rt_renamed:ContextDraft", "DraftWorker"): ("works",
        "by hand: members all inherited from TpModelWorker unchanged; only its constructor is broken"),
}
REWORD = {"run_one.<locals>.stub_init()": "TpModelWorker.__init__()"}

verdicts = []
for mod in raw:
    if "crash" in mod:
        raise SystemExit(f"driver crashed on {mod['module']}")
    for r in mod["results"]:
        key = (r["class"], r["protocol"])
        probs = [p for p in r["problems"]]
        for a, b in REWORD.items():
            probs = [p.replace(a, b) for p in probs]
        if key in HAND:
            truth, reason = HAND[key]
            how = "hand"
        else:
            truth = "broken" if probs else "works"
            reason = "; ".join(probs) if probs else (
                "every scheduler/BaseSpecWorker use replayed on the instance succeeded"
                + (f" ({r.get('path')} path)" if r.get("path") else ""))
            how = "driver"
        verdicts.append({"class": r["class"], "protocol": r["protocol"], "truth": truth,
                         "reason": reason, "decided_by": how, "algo": r.get("algo"),
                         "path": r.get("path"), "module": mod["module"]})
json.dump({"sglang": "0.5.23", "verdicts": verdicts}, open(os.path.join(os.path.dirname(HERE), f"truth{STEM}.json"), "w"), indent=1)
w = sum(v["truth"] == "works" for v in verdicts)
print(f"{len(verdicts)} verdicts: {w} works, {len(verdicts)-w} broken")
