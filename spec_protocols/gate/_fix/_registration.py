"""The registration edit: a ``SpeculativeAlgorithm.register(...)`` call without ``spec_class=`` given a conforming one.

On sglang 0.5.18-0.5.23 a registration without ``spec_class`` gets sglang's
own ``CustomSpecAlgo`` as its algorithm object, which lacks members the
scheduler calls; the gate fails it (in sglang's file, which ``fix`` never
edits) with the remedy the algorithm role names: register with a class
deriving from ``SpecAlgorithmBase`` and ``CustomSpecAlgo``. This edit makes
that change in the plugin's own file: right before the statement holding the
call (in the same block, so a registration inside a function stays there),
the two imports and ``class <Name>Algorithm(SpecAlgorithmBase,
CustomSpecAlgo)``, and ``spec_class=<Name>Algorithm`` on the call. It changes
what sglang builds, so it is ``[review]``.

A call is recognised by its shape (``.register`` on a name or attribute
``SpeculativeAlgorithm``), the name sglang's API has; any other call is left.
"""

from __future__ import annotations

import re
from typing import TypeVar, cast

import libcst as cst

from spec_protocols.gate._fix._edits import Applied

__all__ = ["with_spec_class"]

_Node = TypeVar("_Node", bound=cst.CSTNode)

_IMPORTS = {
    "CustomSpecAlgo": "from sglang.srt.speculative.spec_registry import CustomSpecAlgo",
    "SpecAlgorithmBase": "from spec_protocols import SpecAlgorithmBase",
}


def with_spec_class(text: str) -> Applied:
    """``text`` with every registration that lacks ``spec_class=`` given one; raises ``cst.ParserSyntaxError``."""
    applied = Applied(text)
    module = cst.parse_module(text)
    changer = _Registrations(text, applied)
    applied.text = module.visit(changer).code
    return applied


def _is_register(call: cst.Call) -> bool:
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "register"):
        return False
    owner = func.value
    return (isinstance(owner, cst.Name) and owner.value == "SpeculativeAlgorithm") or (
        isinstance(owner, cst.Attribute) and owner.attr.value == "SpeculativeAlgorithm"
    )


def _class_name(call: cst.Call, taken: str) -> str:
    """``FxpAlgorithm`` for ``register("FXP", ...)``; a name the file does not use yet."""
    first = call.args[0].value if call.args and call.args[0].keyword is None else None
    words = re.findall(r"[A-Za-z0-9]+", first.evaluated_value) if isinstance(first, cst.SimpleString) and isinstance(first.evaluated_value, str) else []
    base = "".join(w[:1].upper() + w[1:].lower() for w in words) or "Plugin"
    if base[0].isdigit():
        base = "Plugin" + base
    name, n = f"{base}Algorithm", 2
    while re.search(rf"\b{name}\b", taken):
        name, n = f"{base}Algorithm{n}", n + 1
    return name


class _Registrations(cst.CSTTransformer):
    def __init__(self, text: str, applied: Applied) -> None:
        super().__init__()
        self.text = text
        self.applied = applied
        #: The statements being visited, innermost last; and, per statement, the classes to define before it.
        self.statements: list[cst.BaseStatement] = []
        self.before: dict[int, list[str]] = {}
        self.named: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BaseStatement):
            self.statements.append(node)
        return super().on_visit(node)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not _is_register(updated_node) or any(a.keyword is not None and a.keyword.value == "spec_class" for a in updated_node.args):
            return updated_node
        if not self.statements:
            return updated_node
        name = _class_name(updated_node, self.text + " ".join(self.named))
        self.named.append(name)
        self.before.setdefault(id(self.statements[-1]), []).append(name)
        args = list(updated_node.args)
        if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(cst.Arg(value=cst.Name(name), keyword=cst.Name("spec_class"), equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
        self.applied.done.append(
            ("review", f"registration: spec_class={name}, a class deriving from SpecAlgorithmBase and sglang's CustomSpecAlgo, defined before it")
        )
        return updated_node.with_changes(args=args)

    def on_leave(self, original_node: _Node, updated_node: _Node) -> _Node | cst.RemovalSentinel | cst.FlattenSentinel[_Node]:
        left = super().on_leave(original_node, updated_node)
        if not isinstance(original_node, cst.BaseStatement):
            return left
        self.statements.pop()
        names = self.before.pop(id(original_node), [])
        if not names or not isinstance(left, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return left
        imports = [line for bound, line in _IMPORTS.items() if not re.search(rf"\bimport\b[^\n]*\b{bound}\b", self.text)]
        defined: list[cst.BaseStatement] = [cst.parse_statement(line + "\n") for line in imports]
        for name in names:
            cls = cst.parse_statement(
                f"class {name}(SpecAlgorithmBase, CustomSpecAlgo):\n"
                f'    """The algorithm object sglang builds for this registration: SpecAlgorithmBase defines what CustomSpecAlgo lacks."""\n'
            )
            defined.append(cls.with_changes(leading_lines=[cst.EmptyLine(indent=False)]) if defined else cls)
        # The statement's own comments and blank lines stay above what is now before it.
        first = defined[0].with_changes(leading_lines=left.leading_lines)
        # A statement in a body becomes several there: what LibCST's FlattenSentinel is for.
        return cast("cst.FlattenSentinel[_Node]", cst.FlattenSentinel([first, *defined[1:], left.with_changes(leading_lines=[cst.EmptyLine(indent=False)])]))
