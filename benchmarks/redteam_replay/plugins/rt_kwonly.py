"""A keyword-only factory: create_worker calls factory(server_args) positionally."""
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class KeywordFactoryWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class DefaultedFactoryWorker(KeywordFactoryWorker):
    pass


def _strict_factory(*, server_args):
    return KeywordFactoryWorker


def _lenient_factory(server_args=None, /, **_):
    return DefaultedFactoryWorker


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    SpeculativeAlgorithm.register("RT_KWONLY", supports_overlap=True)(_strict_factory)
    SpeculativeAlgorithm.register("RT_KWLENIENT", supports_overlap=True)(_lenient_factory)
