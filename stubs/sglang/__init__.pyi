# Not stubbed: sglang's public frontend API (sglang/__init__.py). This file
# exists because mypy resolves a stub module only when every package above it
# has an __init__; without it mypy (with follow_untyped_imports) prefers the
# installed sources over every stub here. The module __getattr__ keeps
# `from sglang import gen` etc. importable, typed Incomplete.
from _typeshed import Incomplete

def __getattr__(name: str) -> Incomplete: ...  # pyright: ignore[reportIncompleteStub]  # deliberate, see above
