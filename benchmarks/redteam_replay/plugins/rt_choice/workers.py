import importlib
import types

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker

from rt_choice.drafts import CompactDraft, WideDraft

_DRAFTS = {"compact": CompactDraft, "wide": WideDraft}


def _exec_body(ns):
    def init_attention_backends(self):
        return TpModelWorker.init_attention_backends(self)

    ns["init_attention_backends"] = init_attention_backends


ShadowDraft = types.new_class("ShadowDraft", (TpModelWorker,), {}, _exec_body)
ShadowDraft.__module__ = __name__


class _DraftedBase(BaseSpecWorker):
    def _pick_draft(self, server_args):
        raise NotImplementedError

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
            target_model_config=target_worker.model_runner.model_config,
            algo_label=type(self).__name__, draft_worker_cls=self._pick_draft(server_args),
        )
        self._draft_worker = bundle.draft_worker
        self._draft_runner = bundle.draft_model_runner

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    def weight_update_runners(self):
        return [("draft", self._draft_runner)]

    def _draft_model_runners(self):
        return (self._draft_runner,)


class TableDraftSpecWorker(_DraftedBase):
    def _pick_draft(self, server_args):
        return _DRAFTS[getattr(server_args, "rt_draft_size", "compact")]


class DynamicDraftSpecWorker(_DraftedBase):
    def _pick_draft(self, server_args):
        return ShadowDraft


class PluggableDraftSpecWorker(_DraftedBase):
    def _pick_draft(self, server_args):
        spec = getattr(server_args, "rt_draft_impl", "rt_choice.drafts:TracedDraft")
        module, _, name = spec.partition(":")
        return getattr(importlib.import_module(module), name)
