"""Frozen values as JSON and back (for stored outcomes, contracts and discoveries), and as canonical text (for keys).

Both walk dataclass fields generically, never field by field: a field added to
:class:`~spec_protocols.gate._model.Problem` or
:class:`~spec_protocols.gate._model.CheckerOutcome` (with a default, as the
model's rule is) is written, read back and keyed with no change here. Reading
is driven by the type hints of the dataclass asked for, so nothing in a stored
entry names a class to construct: a file in the cache can only ever produce
the types the gate asks for, or :class:`Undecodable`.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import json
import types
import typing
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import PurePath
from typing import Any, cast

__all__ = ["Undecodable", "canonical", "decode", "encode"]


class Undecodable(ValueError):
    """Stored data that does not fit the type asked for: the entry is ignored."""


def _text(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def encode(value: object) -> object:
    """``value`` as JSON data: a dataclass as an object of its fields, an enum as
    its value, a mapping as a list of ``[key, value]`` pairs in its own order
    (keys may be dataclasses, as :class:`Check` is), a set as a sorted list,
    a path as its string. Anything else is a ``TypeError``."""
    return _walk(value, canonical_form=False, path=str)


def canonical(value: object, path: Callable[[PurePath], str] = str) -> str:
    """One text per value, whatever its construction order: mappings and sets
    sorted, each dataclass tagged with its class name; ``path`` writes a path
    (the cache relabels per-run folders with it). A ``TypeError`` for a value
    it cannot write, so that an unforeseen field makes a key impossible
    rather than incomplete."""
    return _text(_walk(value, canonical_form=True, path=path))


def _walk(value: object, *, canonical_form: bool, path: Callable[[PurePath], str]) -> object:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return _walk(value.value, canonical_form=canonical_form, path=path)
    if isinstance(value, PurePath):
        return path(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _walk(getattr(value, f.name), canonical_form=canonical_form, path=path) for f in dataclasses.fields(value)}
        return {"": type(value).__qualname__, **fields} if canonical_form else fields
    if isinstance(value, Mapping):
        items = cast(Mapping[object, object], value).items()
        pairs = [[_walk(k, canonical_form=canonical_form, path=path), _walk(v, canonical_form=canonical_form, path=path)] for k, v in items]
        return sorted(pairs, key=_text) if canonical_form else pairs
    if isinstance(value, (frozenset, set)):
        members = cast(collections.abc.Set[object], value)
        return sorted((_walk(v, canonical_form=canonical_form, path=path) for v in members), key=_text)
    if isinstance(value, (tuple, list)):
        return [_walk(v, canonical_form=canonical_form, path=path) for v in cast(collections.abc.Sequence[object], value)]
    raise TypeError(f"cannot encode a {type(value).__name__}")


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def decode(tp: Any, data: object) -> Any:
    """``data`` (as :func:`encode` wrote it) read back as type ``tp``.

    A dataclass field missing from ``data`` takes its default (an entry
    written before the field existed); one without a default, or a value of
    the wrong shape, raises :class:`Undecodable`.
    """
    if tp is Any or tp is object:
        return data
    origin = typing.get_origin(tp)
    args: tuple[Any, ...] = typing.get_args(tp)
    if origin is typing.Literal:
        # The contract's kinds and classifications: only a listed value reads back.
        if any(type(data) is type(arg) and data == arg for arg in args):
            return data
        raise Undecodable(f"{data!r} is none of {args!r}")
    if origin is typing.Union or origin is types.UnionType:
        if data is None and type(None) in args:
            return None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return decode(arg, data)
            except Undecodable:
                continue
        raise Undecodable(f"{data!r} fits none of {tp!r}")
    if origin in (collections.abc.Mapping, dict):
        key_type, value_type = args if args else (Any, Any)
        return {decode(key_type, k): decode(value_type, v) for k, v in _pairs(data)}
    if origin is tuple:
        items = _items(data)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], item) for item in items)
        if len(args) != len(items):
            raise Undecodable(f"{len(items)} items for {tp!r}")
        return tuple(decode(arg, item) for arg, item in zip(args, items, strict=True))
    if origin in (frozenset, set, list):
        item_type = args[0] if args else Any
        decoded: list[Any] = [decode(item_type, item) for item in _items(data)]
        return frozenset(decoded) if origin is frozenset else set(decoded) if origin is set else decoded
    if isinstance(tp, type):
        return _decode_class(cast(type[object], tp), data)
    raise Undecodable(f"cannot decode {tp!r}")


def _decode_class(tp: type[object], data: object) -> Any:
    if issubclass(tp, enum.Enum):
        try:
            return tp(data)
        except ValueError:
            raise Undecodable(f"{data!r} is no {tp.__name__}") from None
    if dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            raise Undecodable(f"{tp.__name__} needs an object")
        stored = cast(dict[str, object], data)
        hints = _hints(tp)
        values: dict[str, Any] = {}
        for field in dataclasses.fields(tp):
            if not field.init:
                continue
            if field.name in stored:
                values[field.name] = decode(hints[field.name], stored[field.name])
            elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                raise Undecodable(f"{tp.__name__}.{field.name} is missing")
        return tp(**values)
    if tp is bool:
        if isinstance(data, bool):
            return data
    elif tp is int:
        if isinstance(data, int) and not isinstance(data, bool):
            return data
    elif tp is float:
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            return float(data)
    elif tp is str:
        if isinstance(data, str):
            return data
    elif issubclass(tp, PurePath):
        if isinstance(data, str):
            return tp(data)
    raise Undecodable(f"{data!r} is no {tp.__name__}")


def _items(data: object) -> list[object]:
    if not isinstance(data, list):
        raise Undecodable("expected a list")
    return cast(list[object], data)


def _pairs(data: object) -> list[tuple[object, object]]:
    pairs: list[tuple[object, object]] = []
    for item in _items(data):
        pair = _items(item)
        if len(pair) != 2:
            raise Undecodable("expected a [key, value] pair")
        pairs.append((pair[0], pair[1]))
    return pairs
