"""A spec_class that opts into grammar overlap: the scheduler then passes grammar_barrier=."""
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class GrammarBarrierWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None, grammar_barrier=None):
        if grammar_barrier is not None:
            grammar_barrier()
        return self.target_worker.forward_batch_generation(batch)


class GrammarBlindWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    from sglang.srt.speculative.spec_registry import CustomSpecAlgo

    class GrammarOverlapAlgo(CustomSpecAlgo):
        def supports_grammar_overlap(self) -> bool:
            return True

    SpeculativeAlgorithm.register("RT_GRAMMAR", supports_overlap=True,
                                  spec_class=GrammarOverlapAlgo)(lambda sa: GrammarBarrierWorker)
    SpeculativeAlgorithm.register("RT_GRAMMAR_BLIND", supports_overlap=True,
                                  spec_class=GrammarOverlapAlgo)(lambda sa: GrammarBlindWorker)
