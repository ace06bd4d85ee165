import functools

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class ModalWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker, *, mode):
        super().__init__()
        self.mode = mode
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class PositionalModeWorker(BaseSpecWorker):
    def __init__(self, mode, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self.mode = mode
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class TrailingModeWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker, mode):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    @SpeculativeAlgorithm.register("RT_MODAL", supports_overlap=True)
    def modal(server_args):
        return functools.partial(ModalWorker, mode="fast")

    @SpeculativeAlgorithm.register("RT_MODAL_POS", supports_overlap=True)
    def modal_pos(server_args):
        return functools.partial(PositionalModeWorker, "fast")

    @SpeculativeAlgorithm.register("RT_MODAL_TRAIL", supports_overlap=True)
    def modal_trail(server_args):
        # partial(cls, "fast") binds "fast" to server_args: the scheduler's
        # server_args= keyword then collides
        return functools.partial(TrailingModeWorker, "fast")
