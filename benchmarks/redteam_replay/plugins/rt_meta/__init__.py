"""Metaclasses that adapt the scheduler's keywords to the author's names."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from abc import ABCMeta


class SchedulerKwargs(ABCMeta):
    RENAMES = {"target_worker": "target", "server_args": "args"}

    def __call__(cls, *args, **kwargs):
        for old, new in cls.RENAMES.items():
            if old in kwargs:
                kwargs[new] = kwargs.pop(old)
        return super().__call__(*args, **kwargs)


class RenamingWorker(BaseSpecWorker, metaclass=SchedulerKwargs):
    def __init__(self, args, gpu_id, nccl_port, target):
        super().__init__()
        self.args = args
        self._target_worker = target
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class HalfRenamingMeta(ABCMeta):
    def __call__(cls, *args, **kwargs):
        if "server_args" in kwargs:
            kwargs["args"] = kwargs.pop("server_args")
        # forgot target_worker -> target
        return super().__call__(*args, **kwargs)


class HalfRenamedWorker(BaseSpecWorker, metaclass=HalfRenamingMeta):
    def __init__(self, args, gpu_id, nccl_port, target):
        super().__init__()
        self._target_worker = target
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class DraftKwargs(ABCMeta):
    def __call__(cls, **kwargs):
        kwargs["seed"] = kwargs.pop("random_seed", None)
        kwargs["backend"] = kwargs.pop("draft_attention_backend", None)
        return super().__call__(**kwargs)


class RenamedKwDraft(TpModelWorker, metaclass=DraftKwargs):
    def __init__(self, *, server_args, gpu_id, nccl_port, is_draft_worker, seed, load_group,
                 context_length, backend):
        super().__init__(server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
                         is_draft_worker=is_draft_worker, random_seed=seed, load_group=load_group,
                         context_length=context_length, draft_attention_backend=backend)


class MetaDraftSpecWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        b = build_draft_tp_worker(server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
                                  target_model_config=target_worker.model_runner.model_config,
                                  algo_label="RT_META_DRAFT", draft_worker_cls=RenamedKwDraft)
        self._draft_worker = b.draft_worker
        self._runner = b.draft_model_runner

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    def weight_update_runners(self):
        return [("draft", self._runner)]

    def _draft_model_runners(self):
        return (self._runner,)


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    SpeculativeAlgorithm.register("RT_META", supports_overlap=True)(lambda sa: RenamingWorker)
    SpeculativeAlgorithm.register("RT_META_HALF", supports_overlap=True)(lambda sa: HalfRenamedWorker)
    SpeculativeAlgorithm.register("RT_META_DRAFT", supports_overlap=True)(lambda sa: MetaDraftSpecWorker)
