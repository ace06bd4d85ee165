# Not stubbed: the model-config classes that sglang/srt/configs/__init__.py
# re-exports. See sglang/__init__.pyi for why this file exists at all.
from _typeshed import Incomplete

def __getattr__(name: str) -> Incomplete: ...  # pyright: ignore[reportIncompleteStub]  # deliberate, see above
