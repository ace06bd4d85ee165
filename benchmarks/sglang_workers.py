"""The 8 worker classes of sglang 0.5.23, by module under sglang.srt.speculative.

Shared by the benchmark scripts, which run as scripts (this folder is their
sys.path[0]).
"""

from __future__ import annotations

WORKERS: dict[str, str] = {
    "eagle_worker_v2": "EAGLEWorkerV2",
    "standalone_worker_v2": "StandaloneWorkerV2",
    "frozen_kv_mtp_worker_v2": "FrozenKVMTPWorkerV2",
    "multi_layer_eagle_worker_v2": "MultiLayerEagleWorkerV2",
    "dflash_worker_v2": "DFlashWorkerV2",
    "dspark_components.dspark_worker_v2": "DSparkWorkerV2",
    "uno_worker_v2": "UnoWorkerV2",
    "ngram_worker": "NGRAMWorker",
}
