def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    from rt_sigs import workers

    for name, cls in [
        ("RT_SIG_PUBLISH", workers.RenamedPublishWorker),
        ("RT_SIG_VERIFY", workers.NarrowVerifyHookWorker),
        ("RT_SIG_WINDOW", workers.WindowMethodWorker),
        ("RT_SIG_OK", workers.PositionalBatchWorker),
    ]:
        SpeculativeAlgorithm.register(name, supports_overlap=True)(lambda sa, _c=cls: _c)
