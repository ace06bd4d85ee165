"""What a finding wants of the class: the member as sglang calls it, read from the finding's own words.

Every member finding of the gate says what was expected in one form, the
protocol's (or the release's call's) signature as ``describe_function``
writes it: ``expected SpecWorker.forward_batch_generation(self, batch:
ScheduleBatch, /, *, on_publish: PublishCallback) -> GenerationBatchResult
(as the scheduler calls it)``, ``expected @property
SpecWorker.last_shared_read_runner(self) -> ModelRunner``. That form is
parsed here with ``ast`` into the parameters and the return annotation an
edit writes; a finding without it (a type, a note) wants nothing an edit can
give.

The names those annotations use are imported from where the protocols take
them (``spec_protocols/_sglang_types.py``'s ``TYPE_CHECKING`` imports of
sglang, ``typing``, ``collections.abc``); ``PublishCallback``, the
protocols' own alias, is written out as what it stands for.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Wanted", "import_for", "wanted_of"]

#: Where the expected signature ends in a finding's message.
_END = re.compile(r" \((?:as the scheduler calls it|used only[^)]*)\)|; got |$")
#: The protocols' own aliases, written out.
_ALIASES = {"PublishCallback": "Callable[..., object]"}
_STANDARD = {
    **dict.fromkeys(("Any", "Optional", "Union", "Literal"), "typing"),
    **dict.fromkeys(("Callable", "Mapping", "Sequence", "Iterable", "Iterator"), "collections.abc"),
}


@dataclass(frozen=True, slots=True)
class Wanted:
    """A member as a finding expects it: ``def <member><signature>`` (a property where ``is_property``)."""

    member: str
    #: The parsed ``def`` (its name is the member's; its body is ``...``).
    node: ast.FunctionDef
    is_property: bool


def wanted_of(member: str, message: str) -> Wanted | None:
    """The member ``message`` (a finding's words) expects; None where it says no signature."""
    at = message.find("expected ")
    if at < 0:
        return None
    text = message[at + len("expected ") :]
    end = _END.search(text)
    text = text[: end.start()] if end is not None else text
    is_property = text.startswith("@property ")
    text = text.removeprefix("@property ").removeprefix("async ")
    start = text.find("(")
    if start < 0:
        return None
    for alias, meaning in _ALIASES.items():
        text = re.sub(rf"\b{alias}\b", meaning, text)
    try:
        tree = ast.parse(f"def {member}{text[start:]}: ...")
    except SyntaxError:
        return None
    node = tree.body[0]
    return Wanted(member, node, is_property) if isinstance(node, ast.FunctionDef) else None


def import_for(name: str) -> str | None:
    """The module ``name`` (an annotation's) is imported from, as the protocols import it; None: unknown."""
    if name in _STANDARD:
        return _STANDARD[name]
    return _sglang_names().get(name)


_CACHE: dict[str, str] = {}


def _sglang_names() -> dict[str, str]:
    """Name -> sglang module, from the protocols' own ``TYPE_CHECKING`` imports."""
    if not _CACHE:
        source = Path(__file__).resolve().parents[2] / "_sglang_types.py"
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sglang."):
                for alias in node.names:
                    _CACHE[alias.asname or alias.name] = node.module
    return _CACHE
