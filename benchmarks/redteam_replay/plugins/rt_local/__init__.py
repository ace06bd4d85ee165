"""Worker classes built inside the factory, at create_worker time."""


def _make(server_args, with_step):
    from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

    class ClosureWorker(BaseSpecWorker):
        def __init__(self, server_args, gpu_id, nccl_port, target_worker):
            super().__init__()
            self._target_worker = target_worker
            self._draft_worker = None

    if with_step:
        def forward_batch_generation(self, batch, *, on_publish=None):
            return self.target_worker.forward_batch_generation(batch)

        ClosureWorker.forward_batch_generation = forward_batch_generation
    ClosureWorker.__qualname__ = ClosureWorker.__name__ = (
        "ClosureStepWorker" if with_step else "ClosureNoStepWorker")
    return ClosureWorker


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    SpeculativeAlgorithm.register("RT_LOCAL_OK", supports_overlap=True)(lambda sa: _make(sa, True))
    SpeculativeAlgorithm.register("RT_LOCAL_BAD", supports_overlap=True)(lambda sa: _make(sa, False))
