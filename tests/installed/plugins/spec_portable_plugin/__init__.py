"""The example plugin written for sglang 0.5.21 and 0.5.23 alike (the installed tier's portable plugin)."""
