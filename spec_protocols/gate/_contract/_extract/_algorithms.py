"""What each predicate of ``SpeculativeAlgorithm`` means, read from the enum's own body.

A predicate of the algorithm object (``spec_algorithm.is_dspark()``,
``carries_draft_hidden_states()``) makes a use algorithm-specific when it
names some algorithms. What a predicate names is not guessed from its name:
its body is evaluated for every member of the enum, so ``is_some()`` /
``is_speculative()`` (true for all) mean "speculative mode", like ``not
is_none()``; ``is_none()`` holds for none; ``has_draft_kv()`` (``not
self.is_ngram()``) is a negated one, true for all algorithms but some; the
others name a subset. A predicate it does not find or cannot evaluate names a
subset.

Releases with an algorithm registry (0.5.4.post2-0.5.7) have no enum: their
algorithms are the names ``spec_info.py`` registers at import
(``register_speculative_algorithm("EAGLE3", ..., flags=("EAGLE", "EAGLE3"))``,
``SpeculativeAlgorithm.register("NONE")``), and a predicate reads a flag
(``return self._has_flag("EAGLE")``).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Literal

from spec_protocols.gate._contract._extract._syntax import FunctionNode, functions, last_name, returned_value
from spec_protocols.gate._source import truth_of

__all__ = ["REGISTER", "Algorithms", "PredicateMeaning", "registry_calls"]

PredicateMeaning = Literal["some", "none", "positive", "negative"]
#: How many method calls deep a predicate's body is followed.
_MAX_DEPTH = 6


class Algorithms:
    """The predicates of ``SpeculativeAlgorithm`` (``cls``; None when the release has none)."""

    def __init__(self, cls: ast.ClassDef | None, module_body: Sequence[ast.stmt] | None = None) -> None:
        self.cls = cls
        self.methods: dict[str, FunctionNode] = {f.name: f for f in functions(cls.body)} if cls else {}
        self.members: list[str] = []
        #: Registry releases: member -> its flags.
        self.flags: dict[str, frozenset[str]] = {}
        if cls is not None:
            for node in cls.body:
                if isinstance(node, ast.Assign):
                    self.members += [t.id for t in node.targets if isinstance(t, ast.Name) and t.id.isupper()]
        if not self.members and module_body is not None:
            self.flags = _registered(module_body)
            self.members = list(self.flags)
        self._meaning: dict[str, PredicateMeaning] = {}

    def meaning(self, method: str) -> PredicateMeaning:
        """``some`` (every algorithm), ``none``, ``positive`` (a subset) or
        ``negative`` (all but a subset) for the predicate ``method``."""
        if method not in self._meaning:
            self._meaning[method] = self._read(method)
        return self._meaning[method]

    def answering(self, method: str, value: bool) -> tuple[str, ...]:
        """The algorithms (enum members but ``NONE``) for which the predicate
        ``method`` certainly returns ``value``; one whose answer cannot be
        read is left out."""
        returned = self._returned(method)
        if returned is None:
            return ()
        return tuple(m for m in self.members if m != "NONE" and self._holds(returned, m) is value)

    def holds(self, expr: ast.expr, member: str) -> bool | None:
        """Whether ``expr``, written in the enum's terms (``self.is_eagle()``,
        ``self == X.EAGLE``), holds when ``self`` is ``member``; None: unknown."""
        return self._holds(expr, member)

    def _returned(self, method: str) -> ast.expr | None:
        """What ``method`` returns, when its body is one ``return`` (:func:`returned_value`)."""
        return returned_value(self.methods.get(method))

    def _read(self, method: str) -> PredicateMeaning:
        returned = self._returned(method)
        speculative = [m for m in self.members if m != "NONE"]
        if returned is None or not speculative:
            return "positive"
        truth = [self._holds(returned, member) for member in speculative]
        if all(t is True for t in truth):
            return "some"
        if all(t is False for t in truth):
            return "none"
        negated = (isinstance(returned, ast.UnaryOp) and isinstance(returned.op, ast.Not)) or (
            isinstance(returned, ast.Compare) and isinstance(returned.ops[0], (ast.NotEq, ast.NotIn))
        )
        return "negative" if negated else "positive"

    def _holds(self, expr: ast.expr, member: str, depth: int = 0) -> bool | None:
        """Whether ``expr`` (of a method's body) holds when ``self`` is ``member``; None: unknown."""
        return truth_of(expr, lambda leaf, at: self._leaf(leaf, member, at), depth, _MAX_DEPTH)

    def _leaf(self, expr: ast.expr, member: str, depth: int) -> bool | None:
        if isinstance(expr, ast.Constant) and isinstance(expr.value, bool):
            return expr.value
        if isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.left, ast.Name) and expr.left.id == "self":
            return _compares_self(expr, member)
        if (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and isinstance(expr.func.value, ast.Name)
            and expr.func.value.id == "self"
            and not expr.args
        ):
            # Another predicate: `return self.is_eagle() or self.is_dspark()`.
            returned = self._returned(expr.func.attr)
            return None if returned is None else self._holds(returned, member, depth + 1)
        if self.flags and _flag_test(expr) is not None:
            # A registry release: `return self._has_flag("EAGLE")`.
            return _flag_test(expr) in self.flags.get(member, frozenset())
        return None


#: The registry's function that names a built-in algorithm and its flags.
REGISTER = "register_speculative_algorithm"


def registry_calls(body: Sequence[ast.stmt], names: Sequence[str] = (REGISTER,)) -> list[ast.Call]:
    """The module-level calls in ``body`` of a function named one of ``names``
    (``register_speculative_algorithm(...)``, ``SpeculativeAlgorithm.register(...)``)."""
    return [
        s.value
        for s in body
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and last_name(s.value.func) in names
    ]


def _registered(body: Sequence[ast.stmt]) -> dict[str, frozenset[str]]:
    """A registry release's algorithms, from its module-level calls: each
    ``register_speculative_algorithm(NAME, ..., flags=(...))`` with its flags,
    and ``SpeculativeAlgorithm.register(NAME)`` without any."""
    found: dict[str, frozenset[str]] = {}
    for call in registry_calls(body, (REGISTER, "register")):
        name = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
        if not isinstance(name, str):
            continue
        flags = next((k.value for k in call.keywords if k.arg == "flags"), None)
        values = flags.elts if isinstance(flags, (ast.Tuple, ast.List)) else []
        found[name.upper()] = frozenset(v.value.upper() for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return found


def _flag_test(expr: ast.expr) -> str | None:
    """``self._has_flag("X")``: ``X``."""
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and isinstance(expr.func.value, ast.Name)
        and expr.func.value.id == "self"
        and expr.func.attr == "_has_flag"
        and len(expr.args) == 1
        and isinstance(expr.args[0], ast.Constant)
        and isinstance(expr.args[0].value, str)
    ):
        return expr.args[0].value.upper()
    return None


def _compares_self(expr: ast.Compare, member: str) -> bool | None:
    """``self == X.EAGLE``, ``self in (X.EAGLE, X.EAGLE3)`` when ``self`` is ``member``."""
    right = expr.comparators[0]
    elements = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
    names = {e.attr for e in elements if isinstance(e, ast.Attribute)}
    if len(names) != len(elements):
        return None
    op = expr.ops[0]
    if isinstance(op, (ast.Eq, ast.In, ast.Is)):
        return member in names
    if isinstance(op, (ast.NotEq, ast.NotIn, ast.IsNot)):
        return member not in names
    return None
