"""Independent replay of what sglang 0.5.23 does with each registered plugin
worker class under a handful of server configurations.

Usage:  truth.py            -> runs every plugins/*.py in its own subprocess, writes truth.json
        truth.py --module M -> (child) prints a JSON dict for module M

Per registered algorithm and configuration:
  1. Build a real ServerArgs (tiny local llama config.json, device='cpu') with
     speculative_algorithm=NAME and the configuration's flags, and run
     sglang's own resolution pipeline (resolve_once), which calls the
     plugin's validate_server_args (speculative_hook.handle_speculative_decoding)
     and sglang's own cross-flag checks.  If resolution raises, the
     configuration never runs (we record whether the validator refused it).
  2. Otherwise replay the scheduler's use of the worker class on CPU with
     stand-ins (see `replay`).  AttributeError/TypeError -> broken.
"""
from __future__ import annotations

import contextlib
import inspect
import json
import os
import subprocess
import sys
import traceback
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

HERE = Path(__file__).resolve().parent
PLUGINS = HERE / "plugins"
TINY = HERE / "tinyllama"
PY = os.environ.get("PY", str(HERE.parents[1] / ".venv" / "bin" / "python"))

CONFIGS = {
    "defaults": {},
    "hicache": {"enable_hierarchical_cache": True},
    "prefill": {"disaggregation_mode": "prefill"},
    "decode": {"disaggregation_mode": "decode"},
    "decode_host_pool": {
        "disaggregation_mode": "decode",
        "disaggregation_decode_retraction_backup": "host_pool",
    },
    # Not in the brief's list; added after the gate's messages named it. It is a
    # third setting that turns on BaseSpecWorker._build_hicache_draft_plan.
    "unified_linker": {"enable_unified_cache_external_linker": True},
    # sglang itself refuses this one (kv_cache_hook.handle_cache_compatibility:
    # host_pool is only supported on a PD decode server); kept to show it.
    "host_pool_alone": {"disaggregation_decode_retraction_backup": "host_pool"},
}

TINY_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
    "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 4,
    "num_hidden_layers": 2, "vocab_size": 1000, "max_position_embeddings": 2048,
    "rms_norm_eps": 1e-6, "torch_dtype": "float16", "bos_token_id": 1, "eos_token_id": 2,
}


class Boundary(Exception):
    def __init__(self, step, exc):
        super().__init__(f"{step}: {type(exc).__name__}: {exc}")
        self.step = step
        self.exc = exc


def _step(name, fn):
    try:
        return fn()
    except (AttributeError, TypeError) as e:
        raise Boundary(name, e) from e


def _bind_call(name, obj, attr, *args, call=True, **kwargs):
    def go():
        member = getattr(obj, attr)
        if member is None or not callable(member):
            raise TypeError(f"{attr} is not callable: {member!r}")
        inspect.signature(member).bind(*args, **kwargs)
        if call:
            return member(*args, **kwargs)
        return None

    return _step(name, go)


def resolve(name, flags):
    """Real ServerArgs + sglang's resolution pipeline. Returns (sa, refusal)."""
    from sglang.srt.server_args import ServerArgs
    from sglang.srt.speculative.spec_registry import get_spec

    algo = get_spec(name)
    seen = {}
    original = algo.validate_server_args
    if original is not None:
        def spy(sa):
            try:
                return original(sa)
            except BaseException as e:  # noqa: BLE001
                seen["exc"] = e
                raise
        algo.validate_server_args = spy
    try:
        sa = ServerArgs(model_path=str(TINY), device="cpu", speculative_algorithm=name, **flags)
        sa.resolve_once()
        return sa, None
    except BaseException as e:  # noqa: BLE001
        if "exc" in seen:
            v = seen["exc"]
            return None, f"validate_server_args raised {type(v).__name__}: {v}"
        return None, f"sglang refused: {type(e).__name__}: {str(e)[:200]}"
    finally:
        algo.validate_server_args = original


def replay(name, sa, cfg_name):
    """What the scheduler does with the worker under one accepted config."""
    from sglang.srt.arg_groups.overrides import resolving_view
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.speculative import base_spec_worker as bsw
    from sglang.srt.speculative import draft_worker_common as dwc
    from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
    from sglang.srt.speculative.spec_registry import get_spec
    import sglang.srt.layers.moe.utils as moe_utils

    algo = get_spec(name)
    cfg = resolving_view(sa)
    backup = cfg.disaggregation_decode_retraction_backup
    if cfg.disaggregation_mode == "decode" and backup is None:
        # kv_cache_builder.resolve_decode_retraction_backup (run in
        # Scheduler.init_memory_pools before init_hicache_draft_plan): an MHA
        # model on CUDA with default flags resolves to host_pool.
        backup = "host_pool"
    memory = SimpleNamespace(
        enable_hierarchical_cache=bool(cfg.enable_hierarchical_cache),
        enable_unified_cache_external_linker=bool(
            getattr(cfg, "enable_unified_cache_external_linker", False)
        ),
    )
    disagg = SimpleNamespace(disaggregation_decode_retraction_backup=backup,
                             disaggregation_mode=cfg.disaggregation_mode)

    orig_init_sig = inspect.signature(TpModelWorker.__init__)

    def fake_tp_init(self, *args, **kwargs):
        orig_init_sig.bind(self, *args, **kwargs)  # the ctor call must bind
        runner = mock.MagicMock(name="draft_model_runner")
        runner.model_config.vocab_size = 1000
        runner.token_to_kv_pool = object()
        self._model_runner = runner

    target = mock.create_autospec(TpModelWorker, instance=True)
    target.model_config = mock.MagicMock(name="target_model_config")
    target.model_runner.spec_algorithm = algo
    target.model_runner.shared_read_done_event = None
    from sglang.srt.managers.utils import GenerationBatchResult
    target.forward_batch_generation.return_value = SimpleNamespace(
        next_draft_input=GenerationBatchResult.__dataclass_fields__["next_draft_input"].default)

    patches = [
        mock.patch.object(TpModelWorker, "__init__", fake_tp_init),
        mock.patch.object(TpModelWorker, "alloc_memory_pool", autospec=True),
        mock.patch.object(TpModelWorker, "init_attention_backends", autospec=True),
        mock.patch.object(TpModelWorker, "init_cuda_graphs", autospec=True),
        mock.patch.object(TpModelWorker, "graph_memory_usage", new=property(lambda s: {})),
        mock.patch.object(TpModelWorker, "graph_time_usage", new=property(lambda s: {})),
        mock.patch.object(TpModelWorker, "weight_load_time", new=property(lambda s: 0.0)),
        mock.patch.object(TpModelWorker, "preloaded_weights_bytes", new=property(lambda s: 0)),
        mock.patch.object(dwc, "resolve_draft_worker_attention_backend", lambda **k: "triton"),
        mock.patch.object(moe_utils, "draft_model_build_scope", contextlib.nullcontext),
        mock.patch.object(bsw, "get_memory", lambda: memory),
        mock.patch.object(bsw, "get_disagg", lambda: disagg),
    ]
    with contextlib.ExitStack() as stack:
        for p in patches:
            stack.enter_context(p)
        # Scheduler.maybe_init_draft_worker
        cls = _step("spec_algorithm.create_worker(server_args)", lambda: algo.create_worker(sa))
        kw = dict(server_args=sa, gpu_id=0, nccl_port=12345, target_worker=target)
        w = _bind_call("DraftWorkerClass(**draft_worker_kwargs)", cls, "__call__", **kw) \
            if False else _step("DraftWorkerClass(server_args=, gpu_id=, nccl_port=, target_worker=)",
                                lambda: (inspect.signature(cls).bind(**kw), cls(**kw))[1])
        # init_target_memory_pool
        _step("preloaded_weights_bytes", lambda: w.preloaded_weights_bytes)
        _step("draft_parallel_layout", lambda: w.draft_parallel_layout)
        # init_memory_pools
        m = mock.MagicMock()
        _bind_call("alloc_memory_pool(memory_pool_config=, req_to_token_pool=, token_to_kv_pool_allocator=)",
                   w, "alloc_memory_pool", memory_pool_config=m, req_to_token_pool=m,
                   token_to_kv_pool_allocator=m)
        _bind_call(f"init_hicache_draft_plan() [{cfg_name}: hicache={memory.enable_hierarchical_cache}, "
                   f"retraction_backup={backup}]", w, "init_hicache_draft_plan")
        # init_all_attention_backends / init_all_cuda_graphs
        _bind_call("init_attention_backends()", w, "init_attention_backends")
        _bind_call("init_cuda_graphs()", w, "init_cuda_graphs")
        _step("hicache_draft_plan", lambda: w.hicache_draft_plan)
        _bind_call("prewarm_sampling()", w, "prewarm_sampling")
        # build_kv_cache
        _step("hicache_draft_plan", lambda: w.hicache_draft_plan)
        _step("draft_swa_window", lambda: w.draft_swa_window)
        # memory/metrics logging
        _step("graph_memory_usage", lambda: w.graph_memory_usage)
        _step("weight_load_time", lambda: w.weight_load_time)
        _step("graph_time_usage", lambda: w.graph_time_usage)
        # init_disaggregation (every server)
        _step("primary_draft_kv_pool (Scheduler.init_disaggregation)", lambda: w.primary_draft_kv_pool)
        # event loops: WAR barrier (+ prefill's _war_barrier_is_coarse), forward
        _step("last_shared_read_runner.shared_read_done_event",
              lambda: w.last_shared_read_runner.shared_read_done_event)
        _bind_call("forward_batch_generation(batch, on_publish=)", w, "forward_batch_generation",
                   mock.MagicMock(), on_publish=lambda *a: None, call=False)
        # Run it: the target's own result (TpModelWorker.forward_batch_generation
        # -> GenerationBatchResult) has next_draft_input=None; the overlap loop
        # (scheduler.py:4751-4754) reads batch_result.next_draft_input.dsa_topk_indices.
        # A stub body (NotImplementedError) is the plugin's own code: not judged.
        try:
            res = w.forward_batch_generation(mock.MagicMock(name="batch"), on_publish=lambda *a: None)
        except NotImplementedError:
            res = None
        if res is not None:
            _step("batch_result.next_draft_input.dsa_topk_indices (scheduler.py:4754)",
                  lambda: res.next_draft_input.dsa_topk_indices)
        _bind_call("on_verify_complete_cpu(list, batch_size=)", w, "on_verify_complete_cpu",
                   [1], batch_size=1)
        if isinstance(w, BaseSpecWorker):
            _bind_call("note_request_finished(rid=, natural_stop=)", w, "note_request_finished",
                       rid="r", natural_stop=True)
        # requests available on every server: flush_cache, weight updates
        _bind_call("clear_cache_pool()", w, "clear_cache_pool")
        _bind_call("weight_update_runners() (weight-update requests)", w, "weight_update_runners")
    return cls


def child(modname):
    import importlib

    sys.path.insert(0, str(PLUGINS))
    from sglang.srt.speculative import spec_registry

    before = set(spec_registry._REGISTRY)
    importlib.import_module(modname)
    names = [n for n in spec_registry._REGISTRY if n not in before]
    out = {}
    for name in names:
        per = {}
        cls_name = None
        for cfg_name, flags in CONFIGS.items():
            sa, refusal = resolve(name, flags)
            if refusal is not None:
                per[cfg_name] = {"ran": False, "why": refusal}
                continue
            try:
                cls = replay(name, sa, cfg_name)
                cls_name = f"{cls.__module__}.{cls.__qualname__}"
                per[cfg_name] = {"ran": True, "ok": True}
            except Boundary as b:
                per[cfg_name] = {"ran": True, "ok": False, "why": str(b)}
            except BaseException as e:  # noqa: BLE001
                per[cfg_name] = {"ran": True, "ok": None,
                                 "why": f"undecided: {type(e).__name__}: {e}",
                                 "tb": traceback.format_exc()[-800:]}
        if cls_name is None:
            # find the class without running: the factory of the registration
            try:
                cls = spec_registry._REGISTRY[name].factory(None)
                cls_name = f"{cls.__module__}.{cls.__qualname__}"
            except Exception:  # noqa: BLE001
                cls_name = f"{modname}.?{name}"
        out[name] = {"class": cls_name, "configs": per}
    print("@@JSON@@" + json.dumps(out))


def verdict(entry):
    cfgs = entry["configs"]
    ran = {k: v for k, v in cfgs.items() if v["ran"]}
    broken = {k: v["why"] for k, v in ran.items() if v.get("ok") is False}
    undecided = {k: v["why"] for k, v in ran.items() if v.get("ok") is None}
    refused = {k: v["why"] for k, v in cfgs.items() if not v["ran"]}
    if broken:
        first = next(iter(broken.items()))
        why = f"broken on {sorted(broken)}; e.g. {first[0]}: {first[1]}"
        return "broken", why
    if undecided:
        return "undecided", f"{undecided}"
    if not ran:
        return "works", "no configuration runs (validate refuses all): " + \
            "; ".join(f"{k}: {v}" for k, v in refused.items())
    return "works", f"ok on {sorted(ran)}; refused: {sorted(refused)}"


def main():
    TINY.mkdir(exist_ok=True)
    (TINY / "config.json").write_text(json.dumps(TINY_CONFIG))
    mods = sys.argv[1:] or sorted(p.stem for p in PLUGINS.glob("rtf_*.py"))
    truth, detail = {}, {}
    for mod in mods:
        env = dict(os.environ, PYTHONPATH=str(PLUGINS), PYTHONWARNINGS="ignore")
        r = subprocess.run([PY, str(HERE / "truth.py"), "--module", mod],
                           capture_output=True, text=True, env=env, timeout=900)
        line = [l for l in r.stdout.splitlines() if l.startswith("@@JSON@@")]
        if not line:
            print(f"{mod}: child failed\n{r.stderr[-3000:]}", file=sys.stderr)
            continue
        data = json.loads(line[0][len("@@JSON@@"):])
        for algo_name, entry in data.items():
            v, why = verdict(entry)
            truth[entry["class"]] = {"verdict": v, "why": why, "algorithm": algo_name}
            detail[entry["class"]] = entry
            print(f"{entry['class']:55s} {v:9s} {why[:150]}")
    out = HERE / "truth.json"
    old = json.loads(out.read_text()) if out.exists() and len(sys.argv) > 1 else {}
    old.update(truth)
    out.write_text(json.dumps(old, indent=2, sort_keys=True))
    d = HERE / "truth_detail.json"
    oldd = json.loads(d.read_text()) if d.exists() and len(sys.argv) > 1 else {}
    oldd.update(detail)
    d.write_text(json.dumps(oldd, indent=2, sort_keys=True))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--module":
        child(sys.argv[2])
    else:
        main()
