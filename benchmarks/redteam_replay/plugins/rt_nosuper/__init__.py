from spec_protocols import SpecWorkerBase


class NoSuperWorker(SpecWorkerBase):
    """Never calls SpecWorkerBase.__init__ and never sets the target."""

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        self.server_args = server_args
        self.target = target_worker

    def forward_batch_generation(self, batch, /, *, on_publish=None):
        return self.target.forward_batch_generation(batch)


class ManualFieldsWorker(SpecWorkerBase):
    """Skips super().__init__ but sets the fields itself (as the docs allow)."""

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, /, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class ProperBaseWorker(SpecWorkerBase):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__(target_worker=target_worker)

    def forward_batch_generation(self, batch, /, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    SpeculativeAlgorithm.register("RT_NOSUPER", supports_overlap=True)(lambda sa: NoSuperWorker)
    SpeculativeAlgorithm.register("RT_MANUAL", supports_overlap=True)(lambda sa: ManualFieldsWorker)
    SpeculativeAlgorithm.register("RT_PROPER", supports_overlap=True)(lambda sa: ProperBaseWorker)
