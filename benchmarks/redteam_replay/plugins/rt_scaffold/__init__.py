def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    from rt_scaffold.worker import ScaffoldWorker, StrictAttnWorker

    SpeculativeAlgorithm.register("RT_SCAFFOLD", supports_overlap=True)(lambda sa: ScaffoldWorker)
    SpeculativeAlgorithm.register("RT_STRICTATTN", supports_overlap=True)(lambda sa: StrictAttnWorker)
