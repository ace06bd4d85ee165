"""Call shapes and ``**kwargs``: the keys a dict built in a function holds, and under what.

A call records its positional count and keyword names; ``**d`` with ``d`` a
dict built in the function (literal, ``dict(...)``, ``d["k"] = v``,
``d.update(...)``, ``d.setdefault("k", v)``) records ``d``'s keys, and a key
added under a condition the call does not share goes to
``conditional_keywords`` (``grammar_barrier``), unless the condition is "the
server's algorithm is none" (dropped: that key is never passed to a spec
worker).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from spec_protocols.gate._contract._extract._facts import Conditions, Facts
from spec_protocols.gate._contract._extract._never_none import never_none
from spec_protocols.gate._contract._extract._scope import Scope
from spec_protocols.gate._contract._extract._syntax import FunctionNode, string, text

__all__ = ["CallShape", "KeywordDicts"]

#: (positional count, keywords, conditional keywords).
CallShape = tuple[int, tuple[str, ...], tuple[str, ...]]


class KeywordDicts:
    """The keys each function's dicts get, with the facts where each was added."""

    def __init__(self, conditions: Conditions) -> None:
        self._conditions = conditions
        #: id(function) -> dict name -> (key, facts), in the order they were added.
        self._events: dict[int, dict[str, list[tuple[str, Facts]]]] = {}
        #: id(function) -> dict name -> key -> whether every value put there is
        #: certain not to be None (:func:`never_none`).
        self._never: dict[int, dict[str, dict[str, bool]]] = {}

    def forget(self, func: FunctionNode) -> None:
        """``func`` is walked again (followed with other conditions): it starts afresh."""
        self._events.pop(id(func), None)
        self._never.pop(id(func), None)

    def add(self, scope: Scope, name: str, key: str, facts: Facts, value: ast.expr | None = None) -> None:
        """``name[key] = value`` under ``facts`` (``value`` None: not known)."""
        events = self._events.setdefault(id(scope.func), {})
        events.setdefault(name, []).append((key, facts))
        keys = self._never.setdefault(id(scope.func), {}).setdefault(name, {})
        keys[key] = keys.get(key, True) and never_none(value)

    def assigned(self, targets: Sequence[ast.expr], value: ast.expr, scope: Scope, facts: Facts) -> None:
        """``d = {...}`` / ``d = dict(...)`` / ``d = {...} if c else {...}``."""
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if not names:
            return
        values = _values(value)
        for key, key_facts in self._keys(value, scope, facts):
            for name in names:
                self.add(scope, name, key, key_facts, values.get(key))

    def updated(self, call: ast.Call, scope: Scope, facts: Facts) -> None:
        """``d.update(k=v)`` / ``d.update({"k": v})`` / ``d.setdefault("k", v)``."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr in ("update", "setdefault")):
            return
        keys = [k.arg for k in call.keywords if k.arg is not None]
        values: dict[str, ast.expr | None] = {k.arg: k.value for k in call.keywords if k.arg is not None}
        if func.attr == "update" and call.args and isinstance(call.args[0], ast.Dict):
            keys += [k for k in (string(key) for key in call.args[0].keys) if k is not None]
            values.update(_values(call.args[0]))
        if func.attr == "setdefault" and call.args and string(call.args[0]) is not None:
            keys.append(str(string(call.args[0])))
            values[str(string(call.args[0]))] = call.args[1] if len(call.args) > 1 else None
        for key in keys:
            self.add(scope, func.value.id, key, facts, values.get(key))

    def never_none(self, call: ast.Call, scope: Scope) -> tuple[str, ...]:
        """The keywords ``call`` passes whose value is certain not to be None
        (:func:`never_none`): ``k=partial(...)``, or a ``**d`` key every value
        put under it is such (``fwd_kwargs["on_publish"] = partial(...)``,
        managers/scheduler.py ``Scheduler.run_batch``)."""
        found: dict[str, bool] = {}

        def note(key: str, certain: bool) -> None:
            found[key] = found.get(key, True) and certain

        for keyword in call.keywords:
            if keyword.arg is not None:
                note(keyword.arg, never_none(keyword.value))
            elif isinstance(keyword.value, ast.Name):
                for key, certain in self._never.get(id(scope.func), {}).get(keyword.value.id, {}).items():
                    note(key, certain)
            else:
                for key, value in _values(keyword.value).items():
                    note(key, never_none(value))
        return tuple(k for k, certain in found.items() if certain)

    def _keys(self, value: ast.expr, scope: Scope, facts: Facts) -> list[tuple[str, Facts]]:
        if isinstance(value, ast.Dict):
            return [(k, facts) for k in (string(key) for key in value.keys) if k is not None]
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
            return [(k.arg, facts) for k in value.keywords if k.arg is not None]
        if isinstance(value, ast.IfExp):
            facts_of = self._conditions.facts_of
            return self._keys(value.body, scope, facts + facts_of(value.test, True, scope)) + self._keys(
                value.orelse, scope, facts + facts_of(value.test, False, scope)
            )
        return []

    def call_shape(self, call: ast.Call, scope: Scope, facts: Facts, *, for_plugin: bool = False) -> CallShape:
        """(positional count, keywords, conditional keywords) of a call.

        ``for_plugin``: the call as a plugin's algorithm meets it, where no
        positive algorithm predicate holds: a ``**kwargs`` key added only under
        one is not passed."""
        keywords: list[str] = []
        conditional: list[str] = []
        own = {f.origin for f in facts}
        for keyword in call.keywords:
            if keyword.arg is not None:
                keywords.append(keyword.arg)
                continue
            for key, key_facts, unresolved in self._expand(keyword.value, scope):
                if unresolved:
                    keywords.append(key)
                    continue
                extra = [f for f in key_facts if f.origin not in own]
                if any(f.kind == "nonspec" for f in extra):
                    continue  # only passed when the server does not speculate
                if for_plugin and any(f.kind == "algorithm" for f in extra):
                    continue  # only passed to a built-in algorithm's worker
                target = keywords if all(f.kind == "neutral" for f in extra) else conditional
                target.append(key)
        keywords = list(dict.fromkeys(keywords))
        conditional = [k for k in dict.fromkeys(conditional) if k not in keywords]
        return len(call.args), tuple(keywords), tuple(conditional)

    def _expand(self, value: ast.expr, scope: Scope) -> list[tuple[str, Facts, bool]]:
        """The keys of a ``**value`` argument: (key, facts where it was added, unresolved)."""
        if isinstance(value, (ast.Dict, ast.IfExp)) or (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict"
        ):
            return [(k, f, False) for k, f in self._keys(value, scope, ())]
        if isinstance(value, ast.Name):
            events = self._events.get(id(scope.func), {}).get(value.id)
            if events:
                return [(k, f, False) for k, f in events]
        return [(f"**{text(value, 40)}", (), True)]


def _values(value: ast.expr) -> dict[str, ast.expr | None]:
    """Key -> the value a dict display or ``dict(k=v)`` puts there. For
    ``a if c else b``, a key one arm holds keeps that arm's value (0.5.16's
    ``{"on_publish": partial(...)} if ... else {}``); one both arms hold keeps
    a value only where both are certain not None, else maps to None (not known)."""
    if isinstance(value, ast.Dict):
        return {k: v for k, v in zip((string(key) for key in value.keys), value.values) if k is not None}
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
        return {k.arg: k.value for k in value.keywords if k.arg is not None}
    if isinstance(value, ast.IfExp):
        body, orelse = _values(value.body), _values(value.orelse)
        merged: dict[str, ast.expr | None] = {}
        for key in dict.fromkeys((*body, *orelse)):
            if key not in orelse or key not in body:
                merged[key] = body.get(key, orelse.get(key))
            else:
                merged[key] = body[key] if never_none(body[key]) and never_none(orelse[key]) else None
        return merged
    return {}
