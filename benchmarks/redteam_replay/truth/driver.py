"""Independent truth driver: replays sglang 0.5.23's own call sequence on each
plugin's worker INSTANCES, in a fresh subprocess per plugin.

Usage: python driver.py            -> writes truth/raw.json (then make_truth.py: truth.json)
       READ_RESULT=1 python driver.py -> also reads a forward's result as the overlap loop does
                                          (truth/raw_result.json; make_truth.py --result: truth_result.json)
       python driver.py --one MOD  -> (internal) one plugin, JSON on stdout

Call sites replayed (sglang 0.5.23, site-packages/sglang/srt/):
  create_worker:  speculative/spec_registry.py CustomSpecAlgo.create_worker -> self.factory(server_args)
  construct:      managers/scheduler.py:1056-1064 DraftWorkerClass(server_args=, gpu_id=, nccl_port=, target_worker=)
  draft build:    speculative/draft_worker_common.py:92 draft_worker_cls(server_args=, gpu_id=, nccl_port=,
                  is_draft_worker=True, random_seed=, load_group=, context_length=, draft_attention_backend=)
                  then reads .model_runner and sets .draft_runner (104-105)
  scheduler:      594 hicache_draft_plan, 599 draft_swa_window, 1088 preloaded_weights_bytes,
                  1092 draft_parallel_layout, 1106 alloc_memory_pool(memory_pool_config=, req_to_token_pool=,
                  token_to_kv_pool_allocator=), 1111 init_hicache_draft_plan(), 1117 init_attention_backends(),
                  1126 init_cuda_graphs(), 1153 hicache_draft_plan, 1171 prewarm_sampling() (value discarded),
                  749 weight_load_time, 757 graph_time_usage, 1294 graph_memory_usage,
                  1535 primary_draft_kv_pool, 1672 getattr(spec_v2_attn_backends, default),
                  overlap loop only: 2017 last_shared_read_runner(.shared_read_done_event),
                  4704 forward_batch_generation(batch, on_publish=partial[, grammar_barrier=] if
                  spec_algorithm.supports_grammar_overlap()), sync: 4829 forward_batch_generation(batch,
                  pp_proxy_tensors=None); batch_result_processor.py:804 on_verify_complete_cpu(list, batch_size=);
                  :1441 note_request_finished(rid=, natural_stop=) only if isinstance(BaseSpecWorker);
                  weight_updater.py:184 weight_update_runners(); scheduler.py:5530 clear_cache_pool() if truthy.
  BaseSpecWorker defaults run for real (they are the instance's members), so what they need of the
  draft is exercised on the real draft instance.
Not replayed (server flags off by default): _draft_model_runners() (post_capture_active),
  get_confidence_budget_prepare (confidence relay), hierarchical cache, disagg, PP>1, dspark commands.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
#: Whether to read what the overlap loop reads of a forward's result (inherited by each plugin's process).
READ_RESULT = os.environ.get("READ_RESULT") == "1"
ROOT = os.path.dirname(HERE)
PLUGINS = os.path.join(ROOT, "plugins")

# plugin module -> extra draft classes to check directly (also every class passed
# as draft_worker_cls while the spec workers are built is checked)
MANIFEST = {
    "rt_plain": [], "rt_async": [], "rt_sigs": [], "rt_bound": [], "rt_hooks": [],
    "rt_dispatch": [], "rt_proxy": ["rt_proxy.worker:DelegatingDraft", "rt_proxy.worker:AllowlistDraft"],
    "rt_meta": ["rt_meta:RenamedKwDraft"], "rt_modes": [],
    "rt_choice": ["rt_choice.drafts:CompactDraft", "rt_choice.drafts:WideDraft",
                  "rt_choice.drafts:TracedDraft", "rt_choice.workers:ShadowDraft"],
    "rt_prewarm": [], "rt_sync": [], "rt_mixin": ["rt_mixin.workers:MixinDraft"],
    "rt_superkw": ["rt_superkw:PlainDraft", "rt_superkw:TunedDraft"],
    "rt_nosuper": [], "rt_renamed": ["rt_renamed:ContextDraft"], "rt_kwonly": [],
    "rt_local": [], "rt_kept": ["rt_kept.workers:BareDraft", "rt_kept.workers:RunnersDraft"],
    "rt_grammar": [], "rt_nobase": [],
    "rt_decodraft": ["rt_decodraft:RunnerExposingDraft"], "rt_instattrs": [], "rt_asynchook": [],
    "rt_scaffold": ["rt_scaffold.worker:ScaffoldDraft", "rt_scaffold.worker:StrictAttnDraft"],
}
# where create_worker itself fails, the class the author meant (read from the source)
INTENDED = {"RT_KWONLY": "rt_kwonly:KeywordFactoryWorker"}


def run_one(modname: str) -> dict:
    import functools
    import inspect
    import numbers
    import traceback
    import types
    import contextlib
    import importlib
    from unittest import mock

    import sglang.srt.layers.moe.utils as moe_utils
    import sglang.srt.speculative.draft_worker_common as dwc
    from sglang.srt.managers import tp_worker as tpw
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.speculative import spec_registry
    from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm  # noqa: F401

    # ---- stand-ins for the model load --------------------------------------
    def make_runner(spec_algorithm=None):
        r = mock.MagicMock(name="ModelRunner")
        r.graph_memory_usage = {}
        r.graph_time_usage = {}
        r.weight_load_time = 0.0
        r.preloaded_weights_bytes = 0
        r.max_running_requests = 8
        r.effective_logical_max_total_num_tokens = 4096
        r.model_config.vocab_size = 32000
        r.model_config.context_len = 4096
        r.shared_read_done_event = None
        r.spec_algorithm = spec_algorithm
        return r

    orig_init = TpModelWorker.__init__

    def stub_init(self, server_args, gpu_id, nccl_port, is_draft_worker=False,
                  req_to_token_pool=None, token_to_kv_pool_allocator=None,
                  memory_pool_config=None, is_multi_layer_eagle=False, context_length=None,
                  draft_attention_backend=None, random_seed=None,
                  load_group=tpw._DEFAULT_LOAD_GROUP):
        self.server_args = server_args
        self.load_group = load_group
        self.gpu_id = gpu_id
        self.nccl_port = nccl_port
        self.is_draft_worker = is_draft_worker
        self.is_multi_layer_eagle = is_multi_layer_eagle
        self.req_to_token_pool = req_to_token_pool
        self.token_to_kv_pool_allocator = token_to_kv_pool_allocator
        self.memory_pool_config = memory_pool_config
        self.model_config = mock.MagicMock(context_len=4096)
        self._model_runner = make_runner()
        self.model_runner_list = []

    so, ss = inspect.signature(orig_init), inspect.signature(stub_init)
    assert [(p.name, p.kind, p.default is p.empty) for p in so.parameters.values()] == \
        [(p.name, p.kind, p.default is p.empty) for p in ss.parameters.values()], (so, ss)
    TpModelWorker.__init__ = stub_init
    dwc.resolve_draft_worker_attention_backend = lambda *, algo_label=None: "flashinfer"
    moe_utils.draft_model_build_scope = contextlib.nullcontext
    # default server flags for the runtime-context bags BaseSpecWorker's defaults read
    import sglang.srt.speculative.base_spec_worker as bsw
    bsw.get_memory = lambda: types.SimpleNamespace(enable_hierarchical_cache=False,
                                                   enable_unified_cache_external_linker=False)
    bsw.get_disagg = lambda: types.SimpleNamespace(disaggregation_decode_retraction_backup=None)

    built_drafts = []  # (draft_cls, instance or None, error or None)
    real_build = dwc.build_draft_tp_worker

    def recording_build(**kw):
        try:
            bundle = real_build(**kw)
        except Exception as e:  # noqa: BLE001
            built_drafts.append((kw.get("draft_worker_cls"), None, e))
            raise
        built_drafts.append((kw.get("draft_worker_cls"), bundle.draft_worker, None))
        return bundle

    dwc.build_draft_tp_worker = recording_build  # plugins import it by name at their import time

    out = {"module": modname, "results": [], "notes": []}

    def cname(c):
        return f"{c.__module__}:{c.__qualname__}"

    def is_sig_error(e):
        if not isinstance(e, TypeError):
            return False
        tb = e.__traceback__
        frames = []
        while tb is not None:
            frames.append(tb.tb_frame.f_code.co_filename)
            tb = tb.tb_next
        if len(frames) <= 1:
            return True
        inner = frames[-1]
        return inner.endswith("functools.py") or "argument" in str(e)

    def call(obj, name, args, kwargs, where):
        """fetch from the instance and call as sglang does; return problem or None."""
        try:
            fn = getattr(obj, name)
        except Exception as e:  # noqa: BLE001
            return f"{name}: reading it raised {type(e).__name__}: {e} [{where}]"
        if not callable(fn):
            return f"{name}: not callable ({type(fn).__name__}) [{where}]"
        try:
            res = fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001
            kind = "signature" if is_sig_error(e) else "raised"
            return (f"{name}: call {name}({', '.join([repr(type(a).__name__) for a in args] + [k + '=' for k in kwargs])}) "
                    f"{kind}: {type(e).__name__}: {e} [{where}]")
        if inspect.iscoroutine(res) or inspect.isawaitable(res):
            if inspect.iscoroutine(res):
                res.close()
            return f"{name}: returned an awaitable (async def); sglang calls it synchronously [{where}]"
        return None

    def value(obj, name, where, numeric=False, integer=False):
        try:
            v = getattr(obj, name)
        except Exception as e:  # noqa: BLE001
            return f"{name}: reading it raised {type(e).__name__}: {e} [{where}]", None
        if inspect.ismethod(v) or inspect.isfunction(v) or isinstance(v, functools.partial):
            return f"{name}: is a method, sglang reads it as a value [{where}]", None
        if inspect.iscoroutine(v):
            v.close()
            return f"{name}: is a coroutine [{where}]", None
        if integer and not isinstance(v, int):
            return f"{name}: read as an int, got {type(v).__name__} [{where}]", None
        if numeric and not isinstance(v, numbers.Number):
            return f"{name}: read as a number, got {type(v).__name__} [{where}]", None
        return None, v

    def check_draft_instance(d):
        probs = []
        for n in ("graph_memory_usage", "graph_time_usage"):
            p, _ = value(d, n, f"base_spec_worker.py BaseSpecWorker.{n}")
            if p:
                probs.append(p)
        for n in ("weight_load_time", "preloaded_weights_bytes"):
            p, _ = value(d, n, f"base_spec_worker.py BaseSpecWorker.{n}", numeric=True)
            if p:
                probs.append(p)
        p = call(d, "alloc_memory_pool", (), dict(memory_pool_config=mock.MagicMock(),
                 req_to_token_pool=mock.MagicMock(), token_to_kv_pool_allocator=mock.MagicMock()),
                 "base_spec_worker.py BaseSpecWorker.alloc_memory_pool")
        if p:
            probs.append(p)
        for n in ("init_attention_backends", "init_cuda_graphs"):
            p = call(d, n, (), {}, f"base_spec_worker.py BaseSpecWorker.{n}")
            if p:
                probs.append(p)
        return probs

    # ---- register -----------------------------------------------------------
    before = set(spec_registry._REGISTRY)
    try:
        mod = importlib.import_module(modname)
        reg = getattr(mod, "register", None)
        if callable(reg):
            reg()
    except Exception:  # noqa: BLE001
        out["notes"].append("register failed: " + traceback.format_exc(limit=3))
        return out
    algos = sorted(set(spec_registry._REGISTRY) - before)
    out["algos"] = algos

    def server_args_for(spec):
        return types.SimpleNamespace(disable_overlap_schedule=not spec.supports_overlap,
                                     speculative_algorithm=spec.name)

    for name in algos:
        spec = spec_registry._REGISTRY[name]
        overlap = bool(spec.supports_overlap)
        sa = server_args_for(spec)
        rec = {"algo": name, "protocol": "SpecWorker", "path": "overlap" if overlap else "sync",
               "problems": []}
        out["results"].append(rec)
        try:
            factory_result = spec.create_worker(sa)
        except Exception as e:  # noqa: BLE001
            rec["class"] = INTENDED.get(name, "?")
            rec["problems"].append(f"create_worker(server_args) raised {type(e).__name__}: {e} "
                                   "[spec_registry.py CustomSpecAlgo.create_worker -> self.factory(server_args)]")
            continue
        target = factory_result
        while isinstance(target, functools.partial):
            target = target.func
        rec["class"] = cname(target) if isinstance(target, type) else repr(target)
        target_worker = mock.create_autospec(TpModelWorker, instance=True)
        target_worker.model_runner = make_runner(spec_algorithm=spec)
        if READ_RESULT:
            # The target worker's own result carries no draft input (managers/utils.py: next_draft_input=None).
            from sglang.srt.managers.utils import GenerationBatchResult as _GBR
            target_worker.forward_batch_generation.side_effect = lambda *a, **k: _GBR(logits_output=None, next_token_ids=None, can_run_cuda_graph=False)
        n_before = len(built_drafts)
        try:
            inst = factory_result(server_args=sa, gpu_id=0, nccl_port=29500, target_worker=target_worker)
        except Exception as e:  # noqa: BLE001
            rec["problems"].append(
                f"construction DraftWorkerClass(server_args=, gpu_id=, nccl_port=, target_worker=) raised "
                f"{type(e).__name__}: {e} [scheduler.py:1064 maybe_init_draft_worker]")
            continue
        rec["drafts"] = [cname(c) for c, _, _ in built_drafts[n_before:] if isinstance(c, type)]
        P = rec["problems"]

        def v(n, where, **k):
            p, val = value(inst, n, where, **k)
            if p:
                P.append(p)
            return val

        def c(n, args, kwargs, where):
            p = call(inst, n, args, kwargs, where)
            if p:
                P.append(p)

        v("hicache_draft_plan", "scheduler.py:594 Scheduler.__init__")
        v("draft_swa_window", "scheduler.py:599 Scheduler.__init__", integer=True)
        v("preloaded_weights_bytes", "scheduler.py:1088 init_target_memory_pool", numeric=True)
        v("draft_parallel_layout", "scheduler.py:1092 init_target_memory_pool")
        c("alloc_memory_pool", (), dict(memory_pool_config=mock.MagicMock(), req_to_token_pool=mock.MagicMock(),
                                        token_to_kv_pool_allocator=mock.MagicMock()),
          "scheduler.py:1106 init_memory_pools")
        c("init_hicache_draft_plan", (), {}, "scheduler.py:1111 init_memory_pools")
        c("init_attention_backends", (), {}, "scheduler.py:1117 init_all_attention_backends")
        c("init_cuda_graphs", (), {}, "scheduler.py:1126 init_all_cuda_graphs")
        v("hicache_draft_plan", "scheduler.py:1153 init_model_worker")
        c("prewarm_sampling", (), {}, "scheduler.py:1171 init_model_worker")
        v("weight_load_time", "scheduler.py:749 init_startup_timing_summary", numeric=True)
        v("graph_time_usage", "scheduler.py:757 init_startup_timing_summary")
        v("graph_memory_usage", "scheduler.py:1294 emit_metrics_constants")
        v("primary_draft_kv_pool", "scheduler.py:1535 init_disaggregation")
        try:
            getattr(inst, "spec_v2_attn_backends", None)
        except Exception as e:  # noqa: BLE001  (getattr with default only swallows AttributeError)
            P.append(f"spec_v2_attn_backends: raised {type(e).__name__}: {e} [scheduler.py:1672 init_overlap]")
        batch = mock.MagicMock(name="ScheduleBatch")
        if overlap:
            runner = v("last_shared_read_runner", "scheduler.py:2017 _apply_war_barrier (overlap loop)")
            kwargs = {"on_publish": functools.partial(lambda idx, lens: None, batch.req_pool_indices)}
            if spec.supports_grammar_overlap():
                kwargs["grammar_barrier"] = lambda: None
            if c("forward_batch_generation", (batch,), kwargs, "scheduler.py:4704 run_batch (overlap)") is None and READ_RESULT:
                # What run_batch's overlap branch then does with the result (scheduler.py:4712-4756).
                try:
                    res = inst.forward_batch_generation(batch, **kwargs)
                    res.extra_keep_alive_refs
                    res.delay_sample_func
                    res.next_draft_input.dsa_topk_indices
                except AttributeError as e:
                    P.append(f"forward_batch_generation result: {type(e).__name__}: {e} [scheduler.py:4712-4754 run_batch (overlap)]")
                except Exception:  # noqa: BLE001 - raised inside the worker's own forward: not this check
                    pass
            if runner is not None:
                try:
                    runner.shared_read_done_event
                except Exception as e:  # noqa: BLE001
                    P.append(f"last_shared_read_runner.shared_read_done_event: {e} [scheduler.py:2018]")
        else:
            c("forward_batch_generation", (batch,), {"pp_proxy_tensors": None},
              "scheduler.py:4829 run_batch (non-overlap)")
        c("on_verify_complete_cpu", ([1, 2],), {"batch_size": 2},
          "batch_result_processor.py:804")
        if isinstance(inst, BaseSpecWorker):
            c("note_request_finished", (), {"rid": "r0", "natural_stop": True},
              "batch_result_processor.py:1442")
        c("weight_update_runners", (), {}, "weight_updater.py:184 _select_runners")
        try:
            truthy = bool(inst)
        except Exception as e:  # noqa: BLE001
            truthy = True
            P.append(f"bool(worker) raised {e} [scheduler.py:5530]")
        if truthy:
            c("clear_cache_pool", (), {}, "scheduler.py:5531 flush_cache")

    # ---- draft classes: direct DraftWorkerFactory / DraftWorker replay --------
    draft_classes = {}
    for cls_, _, _ in built_drafts:
        if isinstance(cls_, type):
            draft_classes[cname(cls_)] = cls_
    for path in MANIFEST.get(modname, []):
        m, _, q = path.partition(":")
        obj = importlib.import_module(m)
        for part in q.split("."):
            obj = getattr(obj, part)
        draft_classes[cname(obj)] = obj
    for key, dcls in sorted(draft_classes.items()):
        frec = {"class": key, "protocol": "DraftWorkerFactory", "problems": []}
        wrec = {"class": key, "protocol": "DraftWorker", "problems": []}
        out["results"] += [frec, wrec]
        cfg = mock.MagicMock(context_len=4096, vocab_size=32000)
        try:
            bundle = real_build(server_args=types.SimpleNamespace(), gpu_id=0, nccl_port=29500,
                                target_model_config=cfg, algo_label="RT", draft_worker_cls=dcls)
        except Exception as e:  # noqa: BLE001
            frec["problems"].append(
                f"build_draft_tp_worker(draft_worker_cls=...) raised {type(e).__name__}: {e} "
                "[draft_worker_common.py:92]")
            wrec["problems"].append("not constructible (see DraftWorkerFactory); decided on the class by hand")
            wrec["undecided"] = True
            continue
        wrec["problems"] += check_draft_instance(bundle.draft_worker)
    TpModelWorker.__init__ = orig_init
    return out


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        import io
        import contextlib
        import logging
        logging.disable(logging.CRITICAL)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            res = run_one(sys.argv[2])
        print("@@JSON@@" + json.dumps(res))
        return
    env = dict(os.environ, PYTHONPATH=PLUGINS, PYTHONWARNINGS="ignore")
    only = sys.argv[1:]
    all_out = []
    for mod in MANIFEST:
        if only and mod not in only:
            continue
        p = subprocess.run([sys.executable, __file__, "--one", mod], env=env, capture_output=True,
                           text=True, cwd=ROOT)
        line = [l for l in p.stdout.splitlines() if l.startswith("@@JSON@@")]
        if not line:
            all_out.append({"module": mod, "crash": p.stderr[-3000:]})
            print(mod, "CRASH", p.stderr[-1500:], file=sys.stderr)
            continue
        res = json.loads(line[0][8:])
        all_out.append(res)
        for r in res["results"]:
            print(f"{r['class']:55s} {r['protocol']:19s} {'broken' if r['problems'] else 'works'}"
                  + ("".join("\n      - " + x for x in r["problems"])), file=sys.stderr)
    stem = "raw_result" if READ_RESULT else "raw"
    with open(os.path.join(HERE, f"{stem}.json" if not only else f"{stem}_partial.json"), "w") as f:
        json.dump(all_out, f, indent=1)


if __name__ == "__main__":
    main()
