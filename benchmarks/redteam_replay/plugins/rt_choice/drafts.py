from sglang.srt.managers.tp_worker import TpModelWorker


class CompactDraft(TpModelWorker):
    def __init__(self, *, server_args, gpu_id, nccl_port, is_draft_worker, random_seed,
                 load_group, context_length, draft_attention_backend, **kwargs):
        super().__init__(server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
                         is_draft_worker=is_draft_worker, random_seed=random_seed,
                         load_group=load_group, context_length=context_length,
                         draft_attention_backend=draft_attention_backend, **kwargs)


class WideDraft(TpModelWorker):
    """Only selected with rt_draft_size='wide'; its constructor misses load_group."""

    def __init__(self, *, server_args, gpu_id, nccl_port, is_draft_worker, random_seed,
                 context_length, draft_attention_backend):
        super().__init__(server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
                         is_draft_worker=is_draft_worker, random_seed=random_seed,
                         context_length=context_length,
                         draft_attention_backend=draft_attention_backend)

    def init_cuda_graphs(self):
        return None


class TracedDraft(TpModelWorker):
    """Loaded by name via importlib (server_args.rt_draft_impl)."""

    def init_cuda_graphs(self, capture_decode_cuda_graph=True, *, trace):
        return super().init_cuda_graphs(capture_decode_cuda_graph)


def get_draft_class():
    return CompactDraft
