import argparse

from _typeshed import Incomplete

class ServerArgs:
    # The record's fields are assembled at runtime from the namespaces in
    # sglang/srt/arg_groups/fields/ (slots on the class, a generated
    # positional constructor), so the constructor is left open. Only the
    # fields that the speculative workers and spec_protocols read are here.
    def __init__(self, *args: Incomplete, **kwargs: Incomplete) -> None: ...
    model_path: str
    context_length: int | None
    device: str | None
    page_size: int | None
    random_seed: int | None
    tp_size: int
    speculative_algorithm: str | None
    speculative_draft_model_path: str | None
    speculative_num_steps: int | None
    speculative_num_draft_tokens: int | None
    def resolve_once(self) -> None: ...
    @staticmethod
    def add_cli_args(parser: argparse.ArgumentParser) -> None: ...
    @classmethod
    def from_cli_args(cls, args: argparse.Namespace) -> ServerArgs: ...
    def url(self, port: int | None = None) -> str: ...
