"""Discovery of modules whose classes only the import makes (``_discovery/_built``).

No target is imported here: the source is read, and the one-line refusal of a
``--no-import`` run that would have nothing to check is built from it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from spec_protocols.gate._discovery._built import RUNTIME_BUILT_WORDS, builds_classes, require_importing
from spec_protocols.gate._discovery._source_index import ModuleSource
from spec_protocols.gate._model import Discovery, GateError


def _module(text: str) -> ModuleSource:
    return ModuleSource("plugin", Path("plugin.py"), False, ast.parse(text), text)


@pytest.mark.parametrize(
    "text",
    [
        "W = type('W', (Base,), {})",
        "import types\nW = types.new_class('W', (Base,))",
        "def make(n):\n    class _W(Base):\n        pass\n    return _W\nW = make(3)",
        "def make(n):\n    return type(f'W{n}', (Base,), {})\nfor n in (2, 3):\n    globals()[f'W{n}'] = make(n)",
        "if FLAG:\n    W = type('W', (Base,), {})",
    ],
)
def test_a_class_made_by_a_call_at_module_level_is_found(text: str) -> None:
    assert builds_classes(_module(text))


@pytest.mark.parametrize(
    "text",
    [
        "class W(Base):\n    pass",
        "x = type(obj)",
        # A factory never called at import makes nothing the import can show.
        "def make():\n    class _W(Base):\n        pass\n    return _W",
        # Nor does a call inside another function's body.
        "def make():\n    return type('W', (Base,), {})\ndef later():\n    return make()",
    ],
)
def test_no_class_made_by_a_call_at_module_level(text: str) -> None:
    assert not builds_classes(_module(text))


def test_no_import_refuses_a_run_with_only_runtime_built_modules() -> None:
    found = Discovery((), {}, (), runtime_built=("plugin",))
    with pytest.raises(GateError) as raised:
        require_importing(found, importing=False)
    assert "plugin" in str(raised.value) and RUNTIME_BUILT_WORDS in str(raised.value)
    require_importing(found, importing=True)
    require_importing(Discovery((), {}, ()), importing=False)


def test_a_class_made_through_a_metaclass_is_the_modules_own() -> None:
    """``type(name, (AbcBase,), ns)`` runs ``ABCMeta.__new__``: its ``__module__`` says ``abc``."""
    import abc
    import types

    from spec_protocols.gate._checkers._runtime._scan import _made_here  # pyright: ignore[reportPrivateUsage]

    module = types.ModuleType("plugin_made")
    made = type("Made", (abc.ABC,), {})
    assert made.__module__ == "abc"
    module.Made = made  # type: ignore[attr-defined]
    assert _made_here(made, made.__module__, "plugin_made")
    # A class imported from where it lives is not.
    assert not _made_here(abc.ABC, abc.ABC.__module__, "plugin_made")
