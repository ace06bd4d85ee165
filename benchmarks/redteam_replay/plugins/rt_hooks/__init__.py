def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    from rt_hooks import workers

    SpeculativeAlgorithm.register("RT_AUTOSTEP", supports_overlap=True)(lambda sa: workers.AutoStepWorker)
    SpeculativeAlgorithm.register("RT_DECORATED", supports_overlap=True)(lambda sa: workers.DecoratedHooksWorker)
    SpeculativeAlgorithm.register("RT_DECORATED_BAD", supports_overlap=True)(lambda sa: workers.DecoratedTimingWorker)
