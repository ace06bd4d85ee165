def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    @SpeculativeAlgorithm.register("RT_PROXY", supports_overlap=True)
    def _f(server_args):
        from rt_proxy.worker import ProxyDraftSpecWorker
        return ProxyDraftSpecWorker

    @SpeculativeAlgorithm.register("RT_PROXY_NARROW", supports_overlap=True)
    def _g(server_args):
        from rt_proxy.worker import NarrowProxySpecWorker
        return NarrowProxySpecWorker
