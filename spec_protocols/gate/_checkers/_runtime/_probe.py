"""Subprocess side of the runtime checker: import the target, check its classes.

Not an API; run by :mod:`spec_protocols.gate._checkers._runtime`, which sends
a :class:`~._probe_channel.ProbeRequest` on stdin: where to import from, the
classes (each with its ``index``, which names it in the progress and result
files) and what the sglang release checked against asks (only the members
it calls are judged, and constructors are called with its keywords). The
records of the channel, and how each is written and read, are
:mod:`._probe_channel`.

The probe runs code it does not control (the target's module-level code), so
it talks back only through files in the parent's private directory, never
through stdout or stderr, which the target shares:

* ``progress_file``, appended one line at a time with one ``write`` each
  (no buffer to lose): ``Importing`` before each import, ``Checking`` before
  each class, and ``Settled`` once a class is done. If the process dies (the
  target calls ``os._exit`` or segfaults), the parent reads what was settled
  and which module or class was running. ``ProbeFailed`` is the probe's own
  failure (a bug), which the parent reports as a crash.
* ``result_file``, written once at the end, atomically (a temporary file in
  the same directory, then ``os.replace``): every result
  (``ProbeAnswer``). Its presence is what "the probe finished" means.

The probe then ends with ``os._exit(0)``: atexit handlers and non-daemon
threads that the target started can neither print after the result nor keep
the process alive.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from types import ModuleType
from typing import Any, cast

# Imported before any target code runs (and the probe runs as a module of
# this package, so spec_protocols is loaded already).
import spec_protocols
from spec_protocols import verify_conformance
from spec_protocols._orphans import drop_orphans
from spec_protocols._injection import draft_worker_cls_problems
from spec_protocols._members import protocol_definitions, protocol_members
from spec_protocols._member_shapes import MISSING, defining_class, lookup, type_name
from spec_protocols._verify import ConformanceProblem, abstract_members, describe_target, verify_call, verify_method_call
from spec_protocols.gate._contract import CallShape
from spec_protocols.gate._checkers._runtime._construction import construction_findings, factory_write_findings
from spec_protocols.gate._checkers._runtime._probe_channel import (
    Checking,
    Importing,
    ProbeAnswer,
    ProbeClass,
    ProbeFailed,
    ProbeRelease,
    ProbeRequest,
    ProbeResult,
    Progress,
    Settled,
    progress_line,
    read_request,
    write_answer,
)
from spec_protocols.gate._checkers._runtime._scan import FOUND_AT_IMPORT_NOTE, classes_at_import, import_failure
from spec_protocols.gate._checkers._runtime._stand_ins import dependence, native_failure, stand_in, stood_in
from spec_protocols.gate._findings import RuntimeFinding
from spec_protocols.gate._findings._values import RuntimeContext
from spec_protocols.gate._model import ABSTRACT_BASE_NOTE, ProtocolName, Verdict
from spec_protocols.gate._roles import CAPABILITIES, Construction, RolePolicy, policy_for
from spec_protocols.gate._signatures import describe_function

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


class _Imported:
    """A module's import: the module, or why its classes are skipped, or the
    failure of its own code that fails them (the class never exists); and
    the stand-ins its import needed (:mod:`._stand_ins`), as the note its
    classes carry."""

    def __init__(
        self, module: ModuleType | None, skip: str | None = None, failure: str | None = None, stand_ins: str | None = None
    ) -> None:
        self.module = module
        self.skip = skip
        self.failure = failure
        self.stand_ins = stand_ins


#: At most this many packages stood in for one module's import.
_MAX_STAND_INS = 3


def _stand_in_words(stood: Sequence[tuple[str, str]]) -> str | None:
    if not stood:
        return None
    each = "; ".join(f"{package}, which cannot load here ({why})" for package, why in stood)
    return f"the runtime checker imported it with a stand-in for {each}; nothing it checked comes from one"


def _import_with_stand_ins(module_name: str, protected: frozenset[str]) -> _Imported:
    """The import, again with a stand-in for each native package that cannot load here."""
    stood: list[tuple[str, str]] = []
    while True:
        try:
            return _Imported(importlib.import_module(module_name), stand_ins=_stand_in_words(stood))
        except ImportError as exc:
            package = native_failure(exc, protected) if len(stood) < _MAX_STAND_INS else None
            if package is None:
                raise
            stood.append((package, _one_line(exc)))
            stand_in(package)


def _import(module_name: str, protected: frozenset[str] = frozenset()) -> _Imported:
    """The module, or why it cannot be imported (the note, or the problem, of all its classes).

    ``protected``: the top-level packages never stood in (those of the code under check)."""
    before = set(sys.modules)
    try:
        return _import_with_stand_ins(module_name, protected | {"spec_protocols"})
    except SystemExit as exc:
        return _Imported(None, f"cannot import {module_name}: called {_exit_words(exc)} while being imported")
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - any import failure is a 'skipped' or its own code's failure
        if import_failure(exc, module_name):
            # A metaclass conflict, a NameError in the module's own code: the
            # class never exists, so no factory can hand it to sglang.
            return _Imported(None, failure=f"importing {module_name} raises {_one_line(exc)}: the class is never created")
        return _Imported(None, f"cannot import {module_name}: {_one_line(exc)}")
    finally:
        drop_orphans(before)


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

    def write(self, record: Progress) -> None:
        os.write(self._fd, progress_line(record))


def _verified(member: str | None, problem: ConformanceProblem, context: RuntimeContext = "member", capability: str | None = None) -> RuntimeFinding:
    """A problem ``verify_conformance`` (or a call check) found, where sglang meets it."""
    return RuntimeFinding(member, "verification", problem.message, problem.kind, context, capability)


def _check(
    obj: object, protocol: str, may_be_abstract: bool, release: ProbeRelease | None = None, item: ProbeClass | None = None
) -> tuple[list[RuntimeFinding], str | None]:
    """``(problems, note)`` for one class against one protocol, as the class's
    role asks (:mod:`spec_protocols.gate._roles`).

    Problems that stop sglang from building the class (abstract, or a
    constructor that cannot take sglang's call) come first, with member
    ``"__init__"``; then the protocol's members, in its order. ``release``
    narrows the members to those the release calls and gives the keywords
    of its constructor calls; ``item``'s registrations select the calls
    (the scheduler branches), capabilities and bound keywords that apply.
    """
    release = release or ProbeRelease()
    item = item or ProbeClass(-1, "", "", "", (protocol,))
    role = policy_for(protocol)
    if role.members is None:
        return _construction_problems(obj, role, release), None
    is_class = issubclass(type(obj), type)
    construction, note = _building_problems(obj, role, may_be_abstract, release, is_class, item.bound_keywords, _builder(item))
    spec_worker = role.members == ProtocolName.SPEC_WORKER
    calls: Mapping[str, tuple[CallShape, ...]] = item.calls if spec_worker else {}
    members = _member_problems(obj, role.members, release, is_class, calls)
    if is_class:
        members.extend(_hook_problems(cast(type, obj), role.members, release))
    if is_class and spec_worker:
        members.extend(_capability_problems(cast(type, obj), item.capabilities))
    if role.inherits_defaults and is_class:
        members.extend(_inherited_problems(cast(type, obj), release))
    if role.holds_factories:
        members.extend(_factory_problems(item.factories))
    if spec_worker and item.unreached:
        # Used only on a scheduler branch its registered algorithm never runs.
        members = [f for f in members if f.member not in item.unreached]
    return construction + members, note


def _factory_problems(factories: Sequence[str]) -> list[RuntimeFinding]:
    """Each registered factory (as the import left it) against
    ``WorkerClassFactory``: ``CustomSpecAlgo.create_worker`` calls it as
    ``self.factory(server_args)`` (spec_registry.py). Reported on the
    algorithm object's member ``factory``, naming the function."""
    found: list[RuntimeFinding] = []
    for dotted in factories:
        module_name, _, name = dotted.rpartition(".")
        module = sys.modules.get(module_name)
        factory = _find(module, name) if module is not None else _ABSENT
        if factory is _ABSENT:
            continue  # its module did not import here: the class's own verdict says why
        for problem in verify_conformance(factory, _PROTOCOLS[ProtocolName.WORKER_CLASS_FACTORY]).problems:
            words = f"{dotted}{_signature_words(factory)}: {problem.message} (CustomSpecAlgo.create_worker calls self.factory(server_args))"
            found.append(RuntimeFinding("factory", "worded", words))
    return found


def _release_keywords(release: ProbeRelease, construction: Construction) -> Sequence[str] | None:
    """The keywords the release checked passes in ``construction``'s call; None: the protocol's."""
    return release.constructor_keywords if construction is Construction.SCHEDULER else release.factory_keywords


def _construction_problems(obj: object, role: RolePolicy, release: ProbeRelease) -> list[RuntimeFinding]:
    """A class held to its construction (injected as draft_worker_cls):
    build_draft_tp_worker instantiates it, so an abstract class is a problem
    whatever may_be_abstract says, and what it builds is judged on the
    members this release uses of the draft worker (and those the builder
    reads itself)."""
    construction = role.construction
    assert construction is Construction.DRAFT_FACTORY and construction.builds is not None
    found, notes = draft_worker_cls_problems(obj, _release_keywords(release, construction))
    draft_members = release.members.get(ProtocolName.DRAFT_WORKER)
    if draft_members is not None:
        keep = {*draft_members, *_own_members(construction.builds, ProtocolName.DRAFT_WORKER), "__init__", None}
        found = [p for p in found if p.member in keep]
    problems = [RuntimeFinding(p.member, "worded", p.message) for p in found]
    if found and any(p.member == "__init__" for p in found):
        # The constructor's signature follows the problems, as in
        # validate_draft_worker_cls's message.
        problems.extend(RuntimeFinding("__init__", "note", note) for note in notes)
    if issubclass(type(obj), type):
        # Once bound, the call runs the constructor, and then
        # build_draft_tp_worker assigns members on what it built.
        cls = cast(type, obj)
        built = construction_findings(cls, (), "build_draft_tp_worker")
        built += factory_write_findings(cls, release.factory_writes)
        problems.extend(RuntimeFinding(f.member, "worded", f.message) for f in built)
    return problems


def _own_members(protocol: str, base: str) -> set[str]:
    """The members ``protocol`` adds to ``base`` (InjectableDraftWorker's ``model_runner``)."""
    return set(protocol_members(_PROTOCOLS[protocol])) - set(protocol_members(_PROTOCOLS[base]))


def _builder(item: ProbeClass) -> object:
    """The function the class's registrations build it through, as the import left it (``_ABSENT``: none)."""
    module_name, _, name = item.builder.rpartition(".")
    module = sys.modules.get(module_name) if module_name else None
    return _find(module, name) if module is not None else _ABSENT


def _building_problems(
    obj: object,
    role: RolePolicy,
    may_be_abstract: bool,
    release: ProbeRelease,
    is_class: bool,
    bound: Sequence[str] = (),
    builder: object = _ABSENT,
) -> tuple[list[RuntimeFinding], str | None]:
    """Whether sglang can build the class in ``role``: concrete (or an
    intentional base the role excuses, with a note), and a constructor that
    takes the call sglang makes (with ``bound``: the keywords a partial that
    ``create_worker`` returns adds to the scheduler's)."""
    abstract = abstract_members(cast(type, obj)) if is_class else ()
    if abstract and role.may_be_abstract(may_be_abstract):
        return [], ABSTRACT_BASE_NOTE
    if abstract:
        return [RuntimeFinding("__init__", "abstract", ", ".join(abstract), expected=_expected(abstract, role.members))], None
    construction = role.construction
    if not is_class:
        return [], None
    built = _built_problems(cast(type, obj), role, release)
    if construction is None:
        return built, None
    # sglang builds it with one call (the factory protocol's, or the
    # release's own keywords).
    keywords = _release_keywords(release, construction)
    if keywords is not None and construction is Construction.SCHEDULER:
        keywords = (*keywords, *(k for k in bound if k not in keywords))
    # Where the registered factory returns a function that builds the class
    # (Registration.builder), the scheduler calls that function.
    called = obj if builder is _ABSENT or construction is not Construction.SCHEDULER else builder
    ctor = (
        verify_conformance(called, _PROTOCOLS[construction.factory]).problems
        if keywords is None
        else verify_call(called, keywords, member="__init__")
    )
    if not ctor:
        return built, None
    passed = ", ".join(f"{k}=" for k in (keywords or construction.protocol_keywords()))
    problems = [_verified("__init__", p, "constructor") for p in ctor]
    problems.append(RuntimeFinding("__init__", "call", f"{describe_target(called)}{_signature_words(called)}", passed=passed))
    return problems + built, None


def _expected(members: Sequence[str], protocol: str | None) -> str:
    """The protocol's signature of each of ``members`` that is one of its
    members, as the harness writes it for the static checkers (the
    "expected" half of a problem)."""
    written = {m.name: describe_function(protocol, m.node) for m in protocol_definitions(protocol)} if protocol else {}
    return "; expected ".join(written[name] for name in members if name in written)


def _built_problems(cls: type, role: RolePolicy, release: ProbeRelease) -> list[RuntimeFinding]:
    """What raises once the constructor call is bound (a store of a read-only
    attribute), or later because a base constructor never ran, read from the
    class (:mod:`._runtime_construction`)."""
    if role.members is None:
        return []
    if role.construction is Construction.SCHEDULER:
        site = "the scheduler (Scheduler.maybe_init_draft_worker)"
    else:
        site = role.built_where
    called = (*(release.members.get(role.members) or protocol_members(_PROTOCOLS[role.members])), *release.presence)
    return [RuntimeFinding(f.member, "worded", f.message) for f in construction_findings(cls, called, site)]


def _member_problems(
    obj: object, protocol: str, release: ProbeRelease, is_class: bool, calls: Mapping[str, tuple[CallShape, ...]]
) -> list[RuntimeFinding]:
    """The protocol's members the release calls, in the protocol's order."""
    result = verify_conformance(obj, _PROTOCOLS[protocol])
    wanted = release.members.get(protocol)
    checked = [p for p in result.problems if wanted is None or p.member in wanted]
    # A release outside the supported range is held to its own calls: a
    # method it calls in a shape of its own is judged by that call, not by
    # the protocol's (newest release's) signature. So is a class whose
    # registrations select the scheduler's branches (``calls``):
    # ``supports_overlap=False`` runs only the synchronous one.
    shapes: dict[str, tuple[CallShape, ...]] = {m: (s,) for m, s in (release.call_shapes.get(protocol) or {}).items()}
    shapes.update(calls)
    if shapes and is_class:
        checked = [p for p in checked if not (p.member in shapes and p.kind == "signature")]
        for name, each in shapes.items():
            for shape in each:
                found = verify_method_call(
                    cast(type, obj), name, positional=shape.positional, keywords=shape.keywords, optional_keywords=shape.optional_keywords
                )
                checked.extend(p for p in found if p not in checked)
    return [_verified(p.member, p) for p in checked]


def _hook_problems(cls: type, protocol: str, release: ProbeRelease) -> list[RuntimeFinding]:
    """The hooks sglang finds with ``getattr(w, name, default)`` that the
    class defines itself (not sglang's own default): held to how sglang
    calls them (``prepare_for_kv_cache_release(req)``,
    batch_result_processor.py) and to being iterable where it iterates them
    (``spec_v2_attn_backends``, overlap_utils.decide_needs_cpu_seq_lens)."""
    found: list[RuntimeFinding] = []
    for name, shape in sorted((release.hook_calls.get(protocol) or {}).items()):
        if _defines(cls, name):
            for p in verify_method_call(cls, name, positional=shape.positional, keywords=shape.keywords, optional_keywords=shape.optional_keywords):
                found.append(_verified(name, p, "hook"))
    for name in release.hook_iterated.get(protocol) or ():
        hit = lookup(cls, MISSING, name) if _defines(cls, name) else None
        if hit is not None and hit.shape == "method":
            found.append(RuntimeFinding(name, "iterated_method"))
    return found


def _defines(cls: type, name: str) -> bool:
    """Whether ``name`` comes from the class or a base of its own, not from sglang or this package."""
    hit = defining_class(cls, name)
    return hit is not None and not type_name(hit[0]).startswith(("sglang.", "spec_protocols."))


def _capability_problems(cls: type, capabilities: Sequence[str]) -> list[RuntimeFinding]:
    """The capability protocols a registration's ``spec_class`` turns on
    (``supports_grammar_overlap()`` -> the overlap call adds ``grammar_barrier=``)."""
    found: list[RuntimeFinding] = []
    for capability in capabilities:
        problems = verify_conformance(cls, _CAPABILITIES[capability]).problems
        found.extend(_verified(p.member, p, "capability", capability) for p in problems)
    return found


def _inherited_problems(cls: type, release: ProbeRelease) -> list[RuntimeFinding]:
    """What a spec worker owes the release beyond the protocol: members no
    protocol defines (presence only), and its own versions of the hooks
    sglang calls on BaseSpecWorker instances."""
    found: list[RuntimeFinding] = []
    for name in release.presence:
        if inspect.getattr_static(cls, name, _ABSENT) is _ABSENT:
            found.append(RuntimeFinding(name, "presence"))
    found.extend(_nominal_hook_problems(cls, release.nominal_hooks))
    return found


def _nominal_hook_problems(cls: type, hooks: Mapping[str, str]) -> list[RuntimeFinding]:
    """A BaseSpecWorker subclass's own version of a hook sglang calls only on
    BaseSpecWorker instances, checked against the capability protocol that
    writes the call (ReleaseTerms.nominal_hooks). A kept hook is the base's."""
    base = next(
        (k for k in cls.__mro__ if k.__name__ == "BaseSpecWorker" and k.__module__ == _BASE_SPEC_WORKER_MODULE),
        None,
    )
    if base is None:
        return []
    found: list[RuntimeFinding] = []
    for name, capability in sorted(hooks.items()):
        own = inspect.getattr_static(cls, name, _ABSENT)
        if own is _ABSENT or own is base.__dict__.get(name, _ABSENT):
            continue
        problems = verify_conformance(cls, _CAPABILITIES[capability]).problems
        found.extend(_verified(p.member, p) for p in problems if p.member == name)
    return found


_BASE_SPEC_WORKER_MODULE = "sglang.srt.speculative.base_spec_worker"

#: The capability protocols by name, read before any target code runs.
_CAPABILITIES: dict[str, Any] = {name: getattr(spec_protocols, name) for name in CAPABILITIES}


def _signature_words(obj: object) -> str:
    try:
        return str(inspect.signature(cast("Callable[..., object]", obj), follow_wrapped=False))
    except Exception:
        return "(signature unreadable)"


#: Every member any protocol names, and the constructors: what a stand-in may not give a class.
_CHECKED_MEMBERS: tuple[str, ...] = tuple(
    dict.fromkeys(["__init__", "__new__", "__call__", *(m for p in _PROTOCOLS.values() for m in protocol_members(p))])
)


def _results(
    item: ProbeClass,
    obj: object,
    skip: str | None,
    release: ProbeRelease,
    failure: str | None = None,
    stand_ins: str | None = None,
) -> Iterator[ProbeResult]:
    depends = dependence(obj, _CHECKED_MEMBERS) if skip is None and failure is None else None
    if depends is not None:
        # A stand-in never decides a verdict.
        stood = ", ".join(sorted(stood_in()))
        skip = f"{depends} comes from a stand-in for {stood}, which cannot load here: nothing about it can be verified at run time"
    for protocol in item.protocols:
        if failure is not None:
            yield ProbeResult(item.target, protocol, Verdict.FAIL, (RuntimeFinding(None, "import", failure),))
            continue
        if skip is not None:
            yield ProbeResult(item.target, protocol, Verdict.SKIPPED, note=skip)
            continue
        try:
            problems, note = _check(obj, protocol, item.may_be_abstract, release, item)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001
            # verify_conformance reports every Exception as a problem; what
            # escapes is the target's code (a metaclass property read by
            # inspect.signature) raising SystemExit or the like.
            why = f"called {_exit_words(exc)}" if isinstance(exc, SystemExit) else _one_line(exc)
            yield ProbeResult(item.target, protocol, Verdict.SKIPPED, note=f"could not be checked: {why}")
            continue
        note = "; ".join(n for n in (note, stand_ins) if n) or None
        yield ProbeResult(item.target, protocol, Verdict.FAIL if problems else Verdict.PASS, tuple(problems), note)


def main() -> None:
    request = read_request(sys.stdin.buffer.read())
    progress = _Progress(request.progress_file)
    try:
        _probe(request, progress)
    except BaseException as exc:
        # The probe's own failure (the target's are caught where its code
        # runs): the parent reports it as a crash, never as a skipped class.
        progress.write(ProbeFailed(_one_line(exc)))
        raise
    # Not sys.exit(): atexit handlers and non-daemon threads of the target
    # would run (and could print, or hang) after the result is written.
    os._exit(0)


def _probe(request: ProbeRequest, progress: _Progress) -> None:
    for root in reversed(request.search_roots):
        if root not in sys.path:
            sys.path.insert(0, root)
    imports: dict[str, _Imported] = {}
    results: dict[int, tuple[ProbeResult, ...]] = {}
    # Never stood in: the packages of the code under check.
    protected = frozenset(c.module.partition(".")[0] for c in request.classes)
    for item in request.classes:
        first = item.module not in imports
        if first:
            progress.write(Importing(item.module))
            imports[item.module] = _import(item.module, protected)
        imported = imports[item.module]
        module, skip = imported.module, imported.skip
        progress.write(Checking(item.index, item.target))
        obj: object = _ABSENT
        if module is not None:
            obj = _find(module, item.qualname)
            if obj is _ABSENT:
                skip = NOT_DEFINED
        done = tuple(_results(item, obj, skip, request.release, imported.failure, imported.stand_ins))
        if first and module is not None and request.scan:
            # Settled with the module's first class: a death later in the
            # module keeps them.
            done += tuple(_found_at_import(request, module, item.module))
        progress.write(Settled(item.index, done))
        results[item.index] = done
    write_answer(request.result_file, ProbeAnswer(results))


def _found_at_import(request: ProbeRequest, module: ModuleType, module_name: str) -> Iterator[ProbeResult]:
    """The results of the worker classes the import made that the request does not name."""
    known = {id(_find(module, c.qualname)) for c in request.classes if c.module == module_name}
    try:
        made = classes_at_import(module, known)
    except Exception:  # noqa: BLE001 - a namespace nobody anticipated: the written classes are still judged
        return
    for found in made:
        item = ProbeClass(-1, module_name, found.qualname, f"{module_name}.{found.qualname}", found.protocols, found.may_be_abstract)
        for result in _results(item, found.cls, None, request.release):
            yield result if result.note is not None else replace(result, note=FOUND_AT_IMPORT_NOTE)


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
