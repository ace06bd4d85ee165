def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    @SpeculativeAlgorithm.register("RT_CHOICE_TABLE", supports_overlap=True)
    def table(server_args):
        from rt_choice.workers import TableDraftSpecWorker
        return TableDraftSpecWorker

    @SpeculativeAlgorithm.register("RT_CHOICE_DYN", supports_overlap=True)
    def dyn(server_args):
        from rt_choice.workers import DynamicDraftSpecWorker
        return DynamicDraftSpecWorker

    @SpeculativeAlgorithm.register("RT_CHOICE_IMPORT", supports_overlap=True)
    def imp(server_args):
        from rt_choice.workers import PluggableDraftSpecWorker
        return PluggableDraftSpecWorker
