"""Subprocess side of the runtime checker: import the target, check its classes.

Not an API; run by :mod:`spec_protocols.gate._checkers._runtime`, which sends a
JSON request on stdin::

    {"search_roots": [...], "result_file": PATH, "progress_file": PATH,
     "classes": [{"module", "qualname", "target", "protocols", "may_be_abstract", "index"}, ...],
     "release": {"members": {protocol: [member, ...]}, "presence": [member, ...],
                 "constructor_keywords": [...], "factory_keywords": [...] | null}}

(``release``: what the sglang release checked against asks; only those
members are judged, and constructors are called with its keywords. Absent:
the newest supported release's protocols, whole.)

(``index`` names the class in the progress file; its position in the list
when absent.)

The probe runs code it does not control (the target's module-level code), so
it talks back only through files in the parent's private directory, never
through stdout or stderr, which the target shares:

* ``progress_file``, appended one JSON line at a time with one ``write``
  each (no buffer to lose): ``{"importing": module}`` before each import,
  ``{"checking": target, "index": i}`` before each class, and ``{"item": i,
  "results": [...]}`` once a class is done. If the process dies (the target
  calls ``os._exit`` or segfaults), the parent reads what was settled and
  which module or class was running. ``{"error": ...}`` is the probe's own
  failure (a bug), which the parent reports as a crash.
* ``result_file``, written once at the end, atomically (a temporary file in
  the same directory, then ``os.replace``): every result. Its presence is
  what "the probe finished" means. Results are keyed by index there too.

The probe then ends with ``os._exit(0)``: atexit handlers and non-daemon
threads that the target started can neither print after the result nor keep
the process alive.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import sys
import traceback
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any, cast

# Imported before any target code runs (and the probe runs as a module of
# this package, so spec_protocols is loaded already).
import spec_protocols
from spec_protocols import verify_conformance
from spec_protocols._injection import draft_worker_cls_problems
from spec_protocols._members import protocol_members
from spec_protocols._verify import abstract_members, describe_target, verify_call, verify_method_call
from spec_protocols.gate._model import ABSTRACT_BASE_NOTE, ProtocolName
from spec_protocols.gate._roles import CAPABILITIES, Construction, RolePolicy, policy_for

#: The protocols by name, read before any target code runs.
_PROTOCOLS: dict[str, Any] = {name: getattr(spec_protocols, name) for name in ProtocolName}

#: The note of a class that the import did not create.
NOT_DEFINED = (
    "not defined when the module is imported "
    "(a class that only exists for type checkers, or in a branch not taken)"
)

_ABSENT: Any = object()


def _one_line(exc: BaseException) -> str:
    """``Type: first non-empty line of the message``, at most 300 characters.

    The first *non-empty* line: sgl_kernel's ImportError starts its message
    with a newline, and "ImportError:" alone says nothing.
    """
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    return text[:300]


def _exit_words(exc: SystemExit) -> str:
    code: object = exc.code
    return "sys.exit()" if code is None else f"sys.exit({code!r})"


def _drop_orphans(before: set[str]) -> None:
    """Forget the submodules an import left behind without their package.

    When ``import pkg.sub.mod`` fails inside ``pkg/__init__.py`` (a dependency
    is missing), Python removes ``pkg`` from ``sys.modules`` but keeps the
    submodules that had already loaded (``pkg.sub``). The next import of
    ``pkg.sub.other`` then finds ``pkg.sub`` and never re-runs ``pkg``; if
    ``pkg.sub`` is a namespace package its path is recomputed from
    ``sys.modules["pkg"]``, and the import fails with ``KeyError: 'pkg'``
    instead of the missing dependency (sglang without numpy: ``sglang/srt``
    has no ``__init__.py``). The same happens when the target catches an
    ImportError itself. Removing those orphans, and only modules this import
    added, makes the next import run ``pkg/__init__.py`` again and fail for
    the real reason. Fully imported modules (torch, say) keep their package
    and stay: re-importing an extension module is not always possible.
    """
    for name in [name for name in list(sys.modules) if name not in before]:
        parent = name.rpartition(".")[0]
        while parent:
            if parent not in sys.modules:
                sys.modules.pop(name, None)
                break
            parent = parent.rpartition(".")[0]


def _import(module_name: str) -> tuple[ModuleType | None, str | None]:
    """The module, or why it cannot be imported (the note of all its classes)."""
    before = set(sys.modules)
    try:
        return importlib.import_module(module_name), None
    except SystemExit as exc:
        return None, f"cannot import {module_name}: called {_exit_words(exc)} while being imported"
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - any import failure is a 'skipped'
        return None, f"cannot import {module_name}: {_one_line(exc)}"
    finally:
        _drop_orphans(before)


def _find(module: ModuleType, qualname: str) -> object:
    """The class at ``qualname`` in ``module``, read statically; ``_ABSENT`` when missing.

    ``inspect.getattr_static``, not ``getattr``: a module ``__getattr__``
    (PEP 562) or a metaclass one must not invent a class that the import did
    not define, nor run code of the target's.
    """
    obj: object = module
    for part in qualname.split("."):
        obj = inspect.getattr_static(obj, part, _ABSENT)
        if obj is _ABSENT:
            return _ABSENT
    return obj


class _Progress:
    """The append-only progress file; one ``os.write`` per line."""

    def __init__(self, path: str) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def write(self, record: dict[str, Any]) -> None:
        os.write(self._fd, (json.dumps(record) + "\n").encode())


def _problem(member: str | None, message: str) -> dict[str, Any]:
    return {"member": member, "message": message}


def _check(
    obj: object, protocol: str, may_be_abstract: bool, release: dict[str, Any] | None = None
) -> tuple[list[dict[str, Any]], str | None]:
    """``(problems, note)`` for one class against one protocol, as the class's
    role asks (:mod:`spec_protocols.gate._roles`).

    Problems that stop sglang from building the class (abstract, or a
    constructor that cannot take sglang's call) come first, with member
    ``"__init__"``; then the protocol's members, in its order. ``release``
    narrows the members to those the release calls and gives the keywords
    of its constructor calls.
    """
    release = release or {}
    role = policy_for(protocol)
    if role.members is None:
        return _construction_problems(obj, role, release), None
    is_class = issubclass(type(obj), type)
    construction, note = _building_problems(obj, role, may_be_abstract, release, is_class)
    members = _member_problems(obj, role.members, release, is_class)
    if role.inherits_defaults and is_class:
        members.extend(_inherited_problems(cast(type, obj), release))
    return construction + members, note


def _release_keywords(release: dict[str, Any], construction: Construction) -> list[str] | None:
    """The keywords the release checked passes in ``construction``'s call; None: the protocol's."""
    key = "constructor_keywords" if construction is Construction.SCHEDULER else "factory_keywords"
    keywords: list[str] | None = release.get(key)
    return keywords


def _construction_problems(obj: object, role: RolePolicy, release: dict[str, Any]) -> list[dict[str, Any]]:
    """A class held to its construction (injected as draft_worker_cls):
    build_draft_tp_worker instantiates it, so an abstract class is a problem
    whatever may_be_abstract says, and what it builds is judged on the
    members this release uses of the draft worker (and those the builder
    reads itself)."""
    construction = role.construction
    assert construction is Construction.DRAFT_FACTORY and construction.builds is not None
    found, notes = draft_worker_cls_problems(obj, _release_keywords(release, construction))
    members: dict[str, list[str]] = release.get("members") or {}
    draft_members = members.get(ProtocolName.DRAFT_WORKER)
    if draft_members is not None:
        keep = {*draft_members, *_own_members(construction.builds, ProtocolName.DRAFT_WORKER), "__init__", None}
        found = [p for p in found if p.member in keep]
    problems = [_problem(p.member, p.message) for p in found]
    if found and any(p.member == "__init__" for p in found):
        # The constructor's signature follows the problems, as in
        # validate_draft_worker_cls's message.
        problems.extend(_problem("__init__", f"({note})") for note in notes)
    return problems


def _own_members(protocol: str, base: str) -> set[str]:
    """The members ``protocol`` adds to ``base`` (InjectableDraftWorker's ``model_runner``)."""
    return set(protocol_members(_PROTOCOLS[protocol])) - set(protocol_members(_PROTOCOLS[base]))


def _building_problems(
    obj: object, role: RolePolicy, may_be_abstract: bool, release: dict[str, Any], is_class: bool
) -> tuple[list[dict[str, Any]], str | None]:
    """Whether sglang can build the class in ``role``: concrete (or an
    intentional base the role excuses, with a note), and a constructor that
    takes the call sglang makes."""
    abstract = abstract_members(cast(type, obj)) if is_class else ()
    if abstract and role.may_be_abstract(may_be_abstract):
        return [], ABSTRACT_BASE_NOTE
    if abstract:
        return [_problem("__init__", f"abstract class: sglang cannot instantiate it; implement {', '.join(abstract)}")], None
    construction = role.construction
    if construction is None or not is_class:
        return [], None
    # sglang builds it with one call (the factory protocol's, or the
    # release's own keywords).
    keywords = _release_keywords(release, construction)
    ctor = (
        verify_conformance(obj, _PROTOCOLS[construction.factory]).problems
        if keywords is None
        else verify_call(obj, keywords, member="__init__")
    )
    if not ctor:
        return [], None
    passed = ", ".join(f"{k}=" for k in (keywords or construction.protocol_keywords()))
    problems = [_problem("__init__", f"[{p.kind}] constructor: {p.message}") for p in ctor]
    problems.append(
        _problem("__init__", f"(the constructor is {describe_target(obj)}{_signature_words(obj)}; sglang calls it with {passed})")
    )
    return problems, None


def _member_problems(obj: object, protocol: str, release: dict[str, Any], is_class: bool) -> list[dict[str, Any]]:
    """The protocol's members the release calls, in the protocol's order."""
    members: dict[str, list[str]] = release.get("members") or {}
    result = verify_conformance(obj, _PROTOCOLS[protocol])
    wanted = members.get(protocol)
    checked = [p for p in result.problems if wanted is None or p.member in wanted]
    # A release outside the supported range is held to its own calls: a
    # method it calls in a shape of its own is judged by that call, not by
    # the protocol's (newest release's) signature.
    every_shape: dict[str, dict[str, list[Any]]] = release.get("call_shapes") or {}
    shapes: dict[str, list[Any]] = every_shape.get(protocol) or {}
    if shapes and is_class:
        checked = [p for p in checked if not (p.member in shapes and p.kind == "signature")]
        for name, (positional, always, optional) in shapes.items():
            checked.extend(
                verify_method_call(
                    cast(type, obj), name, positional=(positional[0], positional[1]), keywords=always, optional_keywords=optional
                )
            )
    return [_problem(p.member, f"[{p.kind}] {p.message}") for p in checked]


def _inherited_problems(cls: type, release: dict[str, Any]) -> list[dict[str, Any]]:
    """What a spec worker owes the release beyond the protocol: members no
    protocol defines (presence only), and its own versions of the hooks
    sglang calls on BaseSpecWorker instances."""
    found: list[dict[str, Any]] = []
    for name in release.get("presence") or ():
        if inspect.getattr_static(cls, name, _ABSENT) is _ABSENT:
            found.append(_problem(name, "[missing] the sglang release checked calls it, and the class does not define it"))
    found.extend(_nominal_hook_problems(cls, release.get("nominal_hooks") or {}))
    return found


def _nominal_hook_problems(cls: type, hooks: dict[str, str]) -> list[dict[str, Any]]:
    """A BaseSpecWorker subclass's own version of a hook sglang calls only on
    BaseSpecWorker instances, checked against the capability protocol that
    writes the call (ReleaseTerms.nominal_hooks). A kept hook is the base's."""
    base = next(
        (k for k in cls.__mro__ if k.__name__ == "BaseSpecWorker" and k.__module__ == _BASE_SPEC_WORKER_MODULE),
        None,
    )
    if base is None:
        return []
    found: list[dict[str, Any]] = []
    for name, capability in sorted(hooks.items()):
        own = inspect.getattr_static(cls, name, _ABSENT)
        if own is _ABSENT or own is base.__dict__.get(name, _ABSENT):
            continue
        problems = verify_conformance(cls, _CAPABILITIES[capability]).problems
        found.extend(_problem(p.member, f"[{p.kind}] {p.message}") for p in problems if p.member == name)
    return found


_BASE_SPEC_WORKER_MODULE = "sglang.srt.speculative.base_spec_worker"

#: The capability protocols by name, read before any target code runs.
_CAPABILITIES: dict[str, Any] = {name: getattr(spec_protocols, name) for name in CAPABILITIES}


def _signature_words(obj: object) -> str:
    try:
        return str(inspect.signature(cast("Callable[..., object]", obj)))
    except Exception:
        return "(signature unreadable)"


def _results(
    item: dict[str, Any], obj: object, skip: str | None, release: dict[str, Any] | None
) -> Iterator[dict[str, Any]]:
    for protocol in item["protocols"]:
        entry: dict[str, Any] = {"target": item["target"], "protocol": protocol}
        if skip is not None:
            yield {**entry, "verdict": "skipped", "problems": [], "note": skip}
            continue
        try:
            problems, note = _check(obj, protocol, bool(item.get("may_be_abstract", False)), release)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001
            # verify_conformance reports every Exception as a problem; what
            # escapes is the target's code (a metaclass property read by
            # inspect.signature) raising SystemExit or the like.
            why = f"called {_exit_words(exc)}" if isinstance(exc, SystemExit) else _one_line(exc)
            yield {**entry, "verdict": "skipped", "problems": [], "note": f"could not be checked: {why}"}
            continue
        yield {**entry, "verdict": "fail" if problems else "pass", "problems": problems, "note": note}


def _write_atomically(path: str, payload: dict[str, Any]) -> None:
    partial = f"{path}.partial"
    with open(partial, "w", encoding="utf-8") as out:
        json.dump(payload, out)
    os.replace(partial, path)


def main() -> None:
    request = json.loads(sys.stdin.read())
    progress = _Progress(request["progress_file"])
    try:
        _probe(request, progress)
    except BaseException as exc:
        # The probe's own failure (the target's are caught where its code
        # runs): the parent reports it as a crash, never as a skipped class.
        progress.write({"error": _one_line(exc)})
        raise
    # Not sys.exit(): atexit handlers and non-daemon threads of the target
    # would run (and could print, or hang) after the result is written.
    os._exit(0)


def _probe(request: dict[str, Any], progress: _Progress) -> None:
    for root in reversed(request["search_roots"]):
        if root not in sys.path:
            sys.path.insert(0, root)
    imports: dict[str, tuple[ModuleType | None, str | None]] = {}
    results: dict[str, list[dict[str, Any]]] = {}
    for position, item in enumerate(request["classes"]):
        index: int = item.get("index", position)
        module_name: str = item["module"]
        if module_name not in imports:
            progress.write({"importing": module_name})
            imports[module_name] = _import(module_name)
        module, skip = imports[module_name]
        progress.write({"checking": item["target"], "index": index})
        obj: object = _ABSENT
        if module is not None:
            obj = _find(module, item["qualname"])
            if obj is _ABSENT:
                skip = NOT_DEFINED
        done = list(_results(item, obj, skip, request.get("release")))
        progress.write({"item": index, "results": done})
        results[str(index)] = done
    _write_atomically(request["result_file"], {"results": results})


if __name__ == "__main__":
    try:
        main()
    except BaseException:  # noqa: BLE001
        # A failure of the probe itself: explain it on stderr (the parent's
        # one-line crash message), then end without the target's atexit
        # handlers or threads, as on success.
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
