def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    from rt_kept import workers as w

    SpeculativeAlgorithm.register("RT_KEPT", supports_overlap=True)(lambda sa: w.KeptDefaultsWorker)
    SpeculativeAlgorithm.register("RT_KEPT_RUNNERS", supports_overlap=True)(lambda sa: w.RunnersDraftSpecWorker)
    SpeculativeAlgorithm.register("RT_FLAGONLY", supports_overlap=True)(lambda sa: w.HicacheDefaultWorker)
