"""A plugin whose worker forgets ``forward_batch_generation`` (the installed tier's failing plugin)."""
