"""Synchronous-only algorithms (supports_overlap=False): run with --disable-overlap-schedule."""


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    from rt_sync import workers

    SpeculativeAlgorithm.register("RT_SYNC", supports_overlap=False)(lambda sa: workers.SyncPipelineWorker)
    SpeculativeAlgorithm.register("RT_SYNC_PUBONLY", supports_overlap=False)(lambda sa: workers.SyncPublishOnlyWorker)
    SpeculativeAlgorithm.register("RT_SYNC_NOBASE", supports_overlap=False)(lambda sa: workers.BareSyncWorker)
