def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    from rt_mixin import workers

    SpeculativeAlgorithm.register("RT_MIXIN_LEAKY", supports_overlap=True)(lambda sa: workers.LeakyMixinWorker)
    SpeculativeAlgorithm.register("RT_MIXIN_TIDY", supports_overlap=True)(lambda sa: workers.TidyMixinWorker)
    SpeculativeAlgorithm.register("RT_MIXIN_DRAFT", supports_overlap=True)(lambda sa: workers.MixinDraftSpecWorker)
