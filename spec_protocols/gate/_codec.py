"""Stored data as JSON and back: the one codec for what the gate keeps or hands on.

The verdict cache's entries and stat memos, baselines and the runtime probe's
channel are frozen dataclasses; :func:`encode` writes one as JSON data and
:func:`decode` reads it back as the type asked for, driven by that type's
hints, never by the data: a stored file can only produce the types the gate
asks for, or :class:`Undecodable`. :func:`write_atomically` is the one way a
file is written, :func:`canonical` the one text the cache's keys are taken
on. Readers and writers are built once per type; a field added to a
dataclass (with a default) needs no change here.

JSON form, per declared type: a dataclass is an object of its fields (a
missing one takes its default; a key that is no field is an error unless
``ignore_unknown``); ``Mapping[str, V]`` an object, any other mapping (keys
such as :class:`Check` or ``int``) a list of ``[key, value]`` pairs; tuples
and lists lists, sets sorted lists; an enum its value, a path its string;
``Literal`` a listed value; a union the first alternative that reads the
data; ``Annotated[X, Valid(test)]`` as ``X``, passing ``test``; ``object``
the data as it is. (docs/design.md, "Stored data: one codec".)
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import json
import os
import tempfile
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["Undecodable", "Valid", "canonical", "decode", "encode", "write_atomically"]

T = TypeVar("T")

_Step = str | int
_Reader = Callable[[object], Any]
_Writer = Callable[[Any], object]


class Undecodable(ValueError):
    """Stored data that does not fit the type asked for.

    ``path`` is where, from the value asked for (field names and list
    positions); ``missing`` says that a field without a default is absent
    there, ``unknown`` lists the keys of an object that are no field of it.
    """

    def __init__(
        self, reason: str, *, path: tuple[_Step, ...] = (), missing: bool = False, unknown: tuple[str, ...] = ()
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path
        self.missing = missing
        self.unknown = unknown

    def __str__(self) -> str:
        where = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in self.path)
        return f"{where.lstrip('.')}: {self.reason}" if where else self.reason

    def within(self, step: _Step) -> Undecodable:
        """The same error, one step further from the value asked for."""
        return Undecodable(self.reason, path=(step, *self.path), missing=self.missing, unknown=self.unknown)


@dataclass(frozen=True, slots=True)
class Valid:
    """``Annotated[X, Valid(test)]``: a value read back as ``X`` must also pass ``test``."""

    test: Callable[[Any], bool]
    #: What ``test`` asks, for the error.
    what: str = "a valid value"


def decode(tp: type[T], data: object, *, ignore_unknown: bool = False) -> T:
    """``data`` (JSON data, as :func:`encode` wrote it) read back as ``tp``.

    Raises :class:`Undecodable`, at the first place (in field order) where
    ``data`` does not fit. ``ignore_unknown``: keys that are no field of a
    dataclass are skipped instead of being an error.
    """
    return cast(T, _reader(tp, ignore_unknown)(data))


def encode(value: object, *, omit_defaults: bool = False) -> object:
    """``value`` as JSON data, written by its type's hints (see the module docstring).

    ``omit_defaults``: a dataclass field whose value is its default is left
    out (it reads back as the default). A value the codec cannot write, or
    that does not have its field's declared type, is a ``TypeError``.
    """
    return _dynamic_writer(omit_defaults)(value)


def canonical(value: object, path: Callable[[PurePath], str] = str) -> str:
    """One text per value, whatever its construction order: mappings and sets
    sorted, each dataclass tagged with its class name; ``path`` writes a path
    (the cache relabels per-run folders with it). A ``TypeError`` for a value
    it cannot write, so that an unforeseen field makes a key impossible
    rather than incomplete."""
    return _text(_canonical(value, path))


def write_atomically(path: Path, text: str, *, durable: bool = False) -> None:
    """Write ``text`` to ``path`` so that a reader sees the old file or the new one, whole.

    A temporary file in the same folder, then ``os.replace``; ``durable``
    also syncs the file before the rename and the folder after it (a
    baseline must survive a power cut; a cache entry may be lost). Raises
    ``OSError``; whatever fails (a full disk, Ctrl-C), the temporary file is
    removed and the old file stays as it was.
    """
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable:
        _sync_folder(directory)


def _sync_folder(directory: Path) -> None:
    # Makes the rename itself durable; not every platform can open a folder.
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


# -- reading ------------------------------------------------------------------


_READERS: dict[tuple[object, bool], _Reader] = {}
_WRITERS: dict[tuple[object, bool], _Writer] = {}


def _reader(tp: object, ignore: bool) -> _Reader:
    """The reader of ``tp``, built once (a dict, not functools.cache: a type is hashable, as mypy cannot see)."""
    return _READERS.get((tp, ignore)) or _READERS.setdefault((tp, ignore), _build_reader(tp, ignore))


def _build_reader(tp: object, ignore: bool) -> _Reader:
    if tp is Any or tp is object:
        return _as_is
    origin = typing.get_origin(tp)
    args: tuple[Any, ...] = typing.get_args(tp)
    if origin is typing.Annotated:
        return _valid_reader(_reader(args[0], ignore), tp)
    if origin is typing.Literal:
        return _literal_reader(args)
    if origin is typing.Union or origin is types.UnionType:
        return _union_reader(tuple(_reader(arg, ignore) for arg in args if arg is not type(None)), type(None) in args, tp)
    if origin in (collections.abc.Mapping, dict):
        key, value = args if args else (Any, Any)
        return _mapping_reader(key, _reader(value, ignore), ignore)
    if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        return _fixed_tuple_reader(tuple(_reader(arg, ignore) for arg in args), tp)
    if origin in (tuple, list, frozenset, set):
        return _collection_reader(cast(type, origin), _reader(args[0] if args else Any, ignore))
    if isinstance(tp, type):
        return _class_reader(cast(type[object], tp), ignore)
    raise TypeError(f"the codec cannot read a {tp!r}")


def _as_is(data: object) -> object:
    return data


def _shown(data: object) -> str:
    """``data`` in an error: a scalar as itself, a container by its kind (never a megabyte of repr)."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return repr(data)[:80]
    return "an object" if isinstance(data, dict) else "a list" if isinstance(data, list) else type(data).__name__


def _valid_reader(inner: _Reader, tp: object) -> _Reader:
    checks = [m for m in cast(Any, tp).__metadata__ if isinstance(m, Valid)]

    def read(data: object) -> object:
        value = inner(data)
        for check in checks:
            if not check.test(value):
                raise Undecodable(f"{_shown(data)} is not {check.what}")
        return value

    return read


def _literal_reader(allowed: tuple[Any, ...]) -> _Reader:
    def read(data: object) -> object:
        # The contract's kinds and classifications: only a listed value, of its own type, reads back.
        if any(type(data) is type(arg) and data == arg for arg in allowed):
            return data
        raise Undecodable(f"{_shown(data)} is none of {allowed!r}")

    return read


def _union_reader(alternatives: tuple[_Reader, ...], optional: bool, tp: object) -> _Reader:
    def read(data: object) -> object:
        if data is None and optional:
            return None
        for alternative in alternatives:
            try:
                return alternative(data)
            except Undecodable:
                continue
        raise Undecodable(f"{_shown(data)} fits none of {tp!r}")

    return read


def _mapping_reader(key_type: object, value: _Reader, ignore: bool) -> _Reader:
    if key_type is str:

        def read_object(data: object) -> object:
            if type(data) is not dict:
                raise Undecodable(f"{_shown(data)} is no object")
            stored = cast(dict[str, object], data)
            if value is _as_is:
                return stored
            items = stored.items()
            try:
                return {k: value(v) for k, v in items}
            except Undecodable:
                for k, v in items:
                    _at(k, value, v)
                raise

        return read_object
    key = _reader(key_type, ignore)

    def read_pairs(data: object) -> object:
        pairs = _list(data)
        found: dict[object, object] = {}
        for index, pair in enumerate(pairs):
            if type(pair) is not list or len(cast(list[object], pair)) != 2:
                raise Undecodable("expected a [key, value] pair", path=(index,))
            k, v = cast(list[object], pair)
            found[_at(index, key, k)] = _at(index, value, v)
        return found

    return read_pairs


def _at(step: _Step, read: _Reader, data: object) -> Any:
    try:
        return read(data)
    except Undecodable as exc:
        raise exc.within(step) from None


def _list(data: object) -> list[object]:
    if type(data) is not list:
        raise Undecodable(f"{_shown(data)} is no list")
    return cast(list[object], data)


def _fixed_tuple_reader(items: tuple[_Reader, ...], tp: object) -> _Reader:
    def read(data: object) -> object:
        found = _list(data)
        if len(found) != len(items):
            raise Undecodable(f"{len(found)} items for {tp!r}")
        return tuple(_at(index, item, value) for index, (item, value) in enumerate(zip(items, found, strict=True)))

    return read


def _collection_reader(kind: type, item: _Reader) -> _Reader:
    def read(data: object) -> object:
        found = _list(data)
        try:
            return kind(map(item, found))
        except Undecodable:
            for index, value in enumerate(found):
                _at(index, item, value)
            raise

    return read


def _class_reader(tp: type[object], ignore: bool) -> _Reader:
    if issubclass(tp, enum.Enum):
        return _enum_reader(tp)
    if dataclasses.is_dataclass(tp):
        return _dataclass_reader(tp, ignore)
    if issubclass(tp, PurePath):
        return _path_reader(tp)
    if tp in _SCALARS:
        return _scalar_reader(tp)
    raise TypeError(f"the codec cannot read a {tp.__name__}")


def _enum_reader(tp: type[enum.Enum]) -> _Reader:
    members = {member.value: member for member in tp}

    def read(data: object) -> object:
        try:
            return members[data]
        except (KeyError, TypeError):
            raise Undecodable(f"{_shown(data)} is no {tp.__name__}") from None

    return read


def _path_reader(tp: type[PurePath]) -> _Reader:
    def read(data: object) -> object:
        if type(data) is not str:
            raise Undecodable(f"{_shown(data)} is no path")
        return tp(data)

    return read


#: What a value of each scalar type may be, read or written (an int is a float; a bool is no int).
_SCALARS: dict[type[object], type[object] | tuple[type[object], ...]] = {
    str: str,
    bool: bool,
    int: int,
    float: (int, float),
    type(None): type(None),
}


def _fits(kind: type[object] | tuple[type[object], ...], value: object) -> bool:
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def _scalar_reader(tp: type[object]) -> _Reader:
    kind = _SCALARS[tp]

    def read(data: object) -> object:
        if _fits(kind, data):
            # An int read where a float is declared is that float.
            return float(cast(float, data)) if tp is float else data
        raise Undecodable(f"{_shown(data)} is no {tp.__name__}")

    return read


def _hints(cls: type[object]) -> dict[str, Any]:
    return typing.get_type_hints(cls, include_extras=True)


def _dataclass_reader(tp: type[DataclassInstance], ignore: bool) -> _Reader:
    # The fields' readers are built on first use (a field may name its own
    # class), and set at once: checkers run in threads.
    layout: tuple[frozenset[str], tuple[tuple[str, _Reader, bool], ...]] | None = None

    def build() -> tuple[frozenset[str], tuple[tuple[str, _Reader, bool], ...]]:
        hints = _hints(tp)
        fields = tuple(
            (f.name, _reader(hints[f.name], ignore), f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
            for f in dataclasses.fields(tp)
            if f.init
        )
        return frozenset(f.name for f in dataclasses.fields(tp)), fields

    def read(data: object) -> object:
        nonlocal layout
        if layout is None:
            layout = build()
        names, fields = layout
        if type(data) is not dict:
            raise Undecodable(f"{tp.__name__} needs an object, not {_shown(data)}")
        stored = cast(dict[str, object], data)
        if not ignore and not stored.keys() <= names:
            unknown = tuple(sorted(stored.keys() - names))
            raise Undecodable(f"{tp.__name__} has no field {', '.join(unknown)}", unknown=unknown)
        values: dict[str, object] = {}
        for name, field_reader, required in fields:
            if name in stored:
                values[name] = _at(name, field_reader, stored[name])
            elif required:
                raise Undecodable(f"{tp.__name__}.{name} is missing", path=(name,), missing=True)
        return tp(**values)

    return read


# -- writing ------------------------------------------------------------------


def _writer(tp: object, omit: bool) -> _Writer:
    return _WRITERS.get((tp, omit)) or _WRITERS.setdefault((tp, omit), _build_writer(tp, omit))


def _build_writer(tp: object, omit: bool) -> _Writer:
    if tp is Any or tp is object:
        return _dynamic_writer(omit)
    origin = typing.get_origin(tp)
    args: tuple[Any, ...] = typing.get_args(tp)
    if origin is typing.Annotated:
        return _writer(args[0], omit)
    if origin is typing.Literal:
        return _as_is
    if origin is typing.Union or origin is types.UnionType:
        return _union_writer(args, omit)
    if origin in (collections.abc.Mapping, dict):
        key, value = args if args else (Any, Any)
        return _mapping_writer(key, _writer(value, omit), omit)
    if origin in (tuple, list, frozenset, set):
        return _sequence_writer(origin, args, omit)
    if isinstance(tp, type):
        return _class_writer(cast(type[object], tp), omit)
    raise TypeError(f"the codec cannot write a {tp!r}")


def _sequence_writer(origin: object, args: tuple[Any, ...], omit: bool) -> _Writer:
    if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        items = tuple(_writer(arg, omit) for arg in args)
        return lambda value: [item(v) for item, v in zip(items, value, strict=True)]
    item = _writer(args[0] if args else Any, omit)
    if origin is frozenset or origin is set:
        return lambda value: sorted((item(v) for v in value), key=_text)
    return lambda value: [item(v) for v in value]


@cache
def _dynamic_writer(omit: bool) -> _Writer:
    """A value declared ``object`` (or one :func:`encode` is handed): written by its own type."""

    def write(value: object) -> object:
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, (list, tuple)):
            return [write(v) for v in cast(collections.abc.Sequence[object], value)]
        if isinstance(value, dict):
            items = cast(dict[object, object], value).items()
            if all(isinstance(k, str) for k, _ in items):
                return {k: write(v) for k, v in items}
            return [[write(k), write(v)] for k, v in items]
        if isinstance(value, (frozenset, set)):
            return sorted((write(v) for v in cast(collections.abc.Set[object], value)), key=_text)
        if isinstance(value, (enum.Enum, PurePath)) or dataclasses.is_dataclass(value):
            return _writer(type(value), omit)(value)
        raise TypeError(f"cannot encode a {type(value).__name__}")

    return write


def _union_writer(args: tuple[Any, ...], omit: bool) -> _Writer:
    # The alternative a value is of (by its runtime class), in declared order.
    alternatives = [(_runtime_class(arg), _writer(arg, omit)) for arg in args if arg is not type(None)]

    def write(value: object) -> object:
        if value is None:
            return None
        for kind, alternative in alternatives:
            if kind is None or isinstance(value, kind):
                return alternative(value)
        raise TypeError(f"cannot write a {type(value).__name__} as any of {args!r}")

    return write


def _runtime_class(tp: object) -> type[object] | tuple[type[object], ...] | None:
    """The class a value of declared type ``tp`` is an instance of (None: any)."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _runtime_class(typing.get_args(tp)[0])
    if origin is typing.Literal or tp is Any or tp is object:
        return None
    if origin is not None:
        return cast(type[object], origin)
    if tp is float:
        return (int, float)
    return cast(type[object], tp) if isinstance(tp, type) else None


def _mapping_writer(key_type: object, value: _Writer, omit: bool) -> _Writer:
    if key_type is str:

        def write_object(mapping: Mapping[object, object]) -> object:
            if not all(isinstance(k, str) for k in mapping):
                raise TypeError("a Mapping[str, ...] with a key that is no str")
            return {k: value(v) for k, v in mapping.items()}

        return write_object
    key = _writer(key_type, omit)
    return lambda mapping: [[key(k), value(v)] for k, v in mapping.items()]


def _class_writer(tp: type[object], omit: bool) -> _Writer:
    if dataclasses.is_dataclass(tp):
        return _dataclass_writer(tp, omit)
    if issubclass(tp, enum.Enum):
        return _enum_writer(tp)
    # A scalar is written as it is, once it is of its declared type; a path as its string.
    kind = PurePath if issubclass(tp, PurePath) else _SCALARS.get(tp)
    if kind is None:
        raise TypeError(f"cannot encode a {tp.__name__}")
    if kind is PurePath:
        return lambda path: str(_checked(PurePath, path))
    return lambda scalar: _checked(kind, scalar)


def _enum_writer(tp: type[enum.Enum]) -> _Writer:
    def write(member: object) -> object:
        try:
            # A member, or a value of one (a str where a StrEnum is declared).
            return tp(member).value
        except ValueError:
            raise TypeError(f"cannot write {_shown(member)} as a {tp.__name__}") from None

    return write


def _checked(kind: type[object] | tuple[type[object], ...], value: object) -> Any:
    if not _fits(kind, value):
        raise TypeError(f"cannot write a {type(value).__name__} as a {getattr(kind, '__name__', kind)}")
    return value


def _dataclass_writer(tp: type[DataclassInstance], omit: bool) -> _Writer:
    layout: tuple[tuple[str, _Writer, object], ...] | None = None

    def build() -> tuple[tuple[str, _Writer, object], ...]:
        hints = _hints(tp)
        return tuple(
            (f.name, _writer(hints[f.name], omit), f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default)
            for f in dataclasses.fields(tp)
        )

    def write(value: object) -> object:
        nonlocal layout
        if type(value) is not tp:
            raise TypeError(f"cannot write a {type(value).__name__} as a {tp.__name__}")
        if layout is None:
            layout = build()
        written: dict[str, object] = {}
        for name, field_writer, default in layout:
            item = getattr(value, name)
            if omit and default is not dataclasses.MISSING and item == default:
                continue
            written[name] = field_writer(item)
        return written

    return write


# -- keys ---------------------------------------------------------------------


def _text(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _canonical(value: object, path: Callable[[PurePath], str]) -> object:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return _canonical(value.value, path)
    if isinstance(value, PurePath):
        return path(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _canonical(getattr(value, f.name), path) for f in dataclasses.fields(value)}
        return {"": type(value).__qualname__, **fields}
    if isinstance(value, Mapping):
        items = cast(Mapping[object, object], value).items()
        return sorted(([_canonical(k, path), _canonical(v, path)] for k, v in items), key=_text)
    if isinstance(value, (frozenset, set)):
        members = cast(collections.abc.Set[object], value)
        return sorted((_canonical(v, path) for v in members), key=_text)
    if isinstance(value, (tuple, list)):
        return [_canonical(v, path) for v in cast(collections.abc.Sequence[object], value)]
    raise TypeError(f"cannot encode a {type(value).__name__}")
