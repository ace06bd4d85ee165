"""Plain plugin: a BaseSpecWorker subclass with no draft model (controls)."""
_DONE = False


def register():
    global _DONE
    if _DONE:
        return
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    @SpeculativeAlgorithm.register("RT_PLAIN", supports_overlap=True)
    def _factory(server_args):
        from rt_plain.worker import PlainLookaheadWorker
        return PlainLookaheadWorker

    @SpeculativeAlgorithm.register("RT_PLAIN_NOFWD", supports_overlap=True)
    def _factory2(server_args):
        from rt_plain.worker import ForgetfulWorker
        return ForgetfulWorker

    _DONE = True
