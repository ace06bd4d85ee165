"""The replay itself: sglang's call sequence on what a plugin registers, in a process of its own.

``python -m spec_protocols.gate._checkers._replay._driver`` reads a
:class:`~._replay_channel.ReplayRequest` on stdin, writes its answer to the file it
names, and exits. In order, as sglang does it:

1. sglang's modules are imported, and the stand-ins installed (:mod:`._standins`);
   ``build_draft_tp_worker`` is watched, not replaced: what it is given and
   what becomes of it is recorded;
2. the plugin is loaded as sglang's plugin loader loads it: its modules
   imported, its ``sglang.srt.plugins`` entry points called, and where
   neither registered anything, the functions of its source that register
   (``register()``), called with no argument;
3. for each algorithm that appeared in sglang's registry
   (``spec_registry._REGISTRY``): the server arguments for it, its
   ``validate_server_args``, ``create_worker(server_args)`` (which calls the
   registered factory positionally), and the scheduler's construction of what
   that returns (``Scheduler.maybe_init_draft_worker``: its keywords, the
   release's), bound first, then made;
4. on the instance: every member the release calls, fetched with
   ``getattr`` and bound as sglang calls it on the path the registration
   selects (:mod:`._instance`); the same for its draft worker; and each draft
   worker class ``build_draft_tp_worker`` was given, as it was built.

What breaks at the boundary fails the class; what raises inside either
side's own code stops the replay there (:mod:`._boundary`).
"""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import importlib.metadata
import inspect
import io
import os
import re
import sys
import traceback
import unittest.mock
from collections.abc import Callable, Mapping, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import spec_protocols
from spec_protocols._members import protocol_members
from spec_protocols.gate._checkers._replay._boundary import Blame, Sides, blame
from spec_protocols.gate._checkers._replay._replay_channel import NO_REGISTRATION_NOTE, ReplayAnswer, ReplayRequest, ReplayResult, read_request, write_answer
from spec_protocols.gate._checkers._replay._kept_defaults import kept_default_findings
from spec_protocols.gate._checkers._replay._instance import Fetched, fetch_members
from spec_protocols.gate._checkers._replay._result import Use, judge, overlap_result_uses
from spec_protocols.gate._checkers._replay._standins import Standins
from spec_protocols.gate._checkers._runtime._probe_channel import ProbeClass
from spec_protocols.gate._findings import ReplayFinding
from spec_protocols.gate._findings._values import ReplayKind
from spec_protocols.gate._contract import OVERLAP, SYNCHRONOUS, ServerFlag
from spec_protocols.gate._model import ProtocolName, Verdict
from spec_protocols.gate._roles import CAPABILITIES

__all__ = ["main", "replay"]

#: sglang's calls the replay makes, as its findings name them.
CONSTRUCT_SITE = "managers/scheduler.py: Scheduler.maybe_init_draft_worker"
CREATE_SITE = "speculative/spec_registry.py: CustomSpecAlgo.create_worker"
FACTORY_SITE = "speculative/draft_worker_common.py: build_draft_tp_worker"
_SCHEDULER_CALLS = "managers/scheduler.py and its components"
_DEFAULTS_CALLS = "speculative/base_spec_worker.py: BaseSpecWorker's defaults"
_ALGORITHM_CALLS = "the scheduler, the model runner and the overlap utilities (spec_algorithm.X)"
#: The keywords of the scheduler's construction where the release does not say (0.5.23's).
_CONSTRUCTOR_KEYWORDS = ("server_args", "gpu_id", "nccl_port", "target_worker")
_PLUGIN_GROUP = "sglang.srt.plugins"
_RUN_BATCH = "managers/scheduler.py: Scheduler.run_batch, overlap loop"


@functools.lru_cache(maxsize=1)
def _result_uses() -> tuple[Use, ...]:
    """What the release's overlap branch does with the spec worker's result (read once per process)."""
    import sglang

    return overlap_result_uses(Path(sglang.__file__).resolve().parent / "srt")


def _predicate(spec: object, name: str) -> bool | None:
    """The algorithm object's ``name()``, as sglang asks it; None where it cannot say."""
    try:
        told = getattr(spec, name)()
    except Exception:  # noqa: BLE001 - the algorithm object's own replay says so
        return None
    return told if isinstance(told, bool) else None


def _where_defined(value: object) -> str:
    inner: object = getattr(value, "__func__", value)
    try:
        function = inspect.unwrap(inner)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
        file = inspect.getsourcefile(function)
        _, line = inspect.getsourcelines(function)
    except (OSError, TypeError, ValueError):
        return ""
    return f"{file}:{line}" if file else ""


@dataclass
class _Results:
    """The results so far, by (target, protocol): the first failure stands, findings accumulate."""

    found: dict[tuple[str, str], ReplayResult] = field(default_factory=dict[tuple[str, str], ReplayResult])

    def add(self, target: str, protocol: str, verdict: Verdict, findings: Sequence[ReplayFinding] = (), *, note: str | None = None, evidence: Sequence[tuple[str, str]] = ()) -> None:
        key = (target, protocol)
        old = self.found.get(key)
        if old is None:
            self.found[key] = ReplayResult(target, protocol, verdict, tuple(findings), note, tuple(_uncontradicted(evidence, findings)))
            return
        rank = {Verdict.FAIL: 0, Verdict.UNVERIFIED: 1, Verdict.PASS: 2, Verdict.SKIPPED: 3}
        worst = min(old.verdict, verdict, key=lambda v: rank[v])
        merged = (*old.findings, *(f for f in findings if f not in old.findings))
        self.found[key] = replace(
            old,
            verdict=worst,
            findings=merged,
            note=old.note or note,
            evidence=tuple(_uncontradicted((*old.evidence, *evidence), merged)),
        )


@dataclass
class _Built:
    """One call of ``build_draft_tp_worker``: the class it was given, and what became of it."""

    draft_class: object
    error: BaseException | None = None
    entered: bool = True
    draft: object = None


def _type_of(obj: object) -> type:
    return type(obj)


def _dotted(obj: object) -> str:
    cls = obj if isinstance(obj, type) else type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


class _Replay:
    def __init__(self, request: ReplayRequest) -> None:
        self.request = request
        self.results = _Results()
        self.built: list[_Built] = []
        self.algorithms: dict[str, str] = {}
        #: module -> how its register function raised (sglang's loader logs it and starts without the algorithm).
        self.register_failures: dict[str, str] = {}
        self.classes: dict[str, ProbeClass] = {c.target: c for c in request.classes}
        self.branch = OVERLAP
        #: Member -> the flags the algorithm's validate_server_args refuses,
        #: in words, for the members only such servers use.
        self.refused: dict[str, str] = {}
        #: ``option=value`` for each setting of the release's server flags it refuses.
        self.refused_settings: list[str] = []
        self.spec: Any = None
        self.target_standin: Any = None
        self.standins = Standins()
        packages = frozenset(m.partition(".")[0] for m in (*request.modules, *(c.module for c in request.classes)))
        self.sides = Sides(
            _sglang_folders(), Standins.is_standin, Standins.real_has, packages - {"sglang", "spec_protocols"}, Standins.files()
        )
        self._watch_draft_factory()

    # -- loading the plugin, as sglang's loader does ------------------------------

    def load(self) -> tuple[dict[str, Any], dict[str, str]]:
        """The algorithms the plugin registered (name -> sglang's algorithm object), and the modules that failed to import."""
        registry = _registry()
        before = set(registry)
        failed: dict[str, str] = {}
        for module in self.request.modules:
            try:
                importlib.import_module(module)
            except BaseException as error:  # noqa: BLE001 - the plugin's module: any exception is its failure
                failed[module] = _one_line(error)
        self._entry_points()
        # The functions of the plugin's source that register: sglang's loader
        # calls such a function (an entry point); one that registers what its
        # module's import already did raises, as the loader's call would, and
        # sglang goes on.
        for spec in self.request.register_functions:
            self._call_register(spec)
        return {name: registry[name] for name in registry if name not in before}, failed

    def _entry_points(self) -> None:
        """The plugin's ``sglang.srt.plugins`` entry points, called as sglang's loader calls them."""
        modules = self.request.modules
        for point in importlib.metadata.entry_points(group=_PLUGIN_GROUP):
            home = point.value.partition(":")[0].strip()
            if any(home == m or home.startswith(f"{m}.") or m.startswith(f"{home}.") for m in modules):
                try:
                    point.load()()
                except BaseException as error:  # noqa: BLE001 - sglang logs and goes on
                    self.algorithms[f"entry point {point.name}"] = f"raised {_one_line(error)}"

    def _call_register(self, spec: str) -> None:
        module, _, name = spec.partition(":")
        try:
            function = getattr(importlib.import_module(module), name)
            function()
        except BaseException as error:  # noqa: BLE001 - as an entry point that raises
            self.algorithms[f"{spec}()"] = f"raised {_one_line(error)}"
            self.register_failures.setdefault(module, f"{spec}() raised {_one_line(error)}")

    # -- build_draft_tp_worker, watched -----------------------------------------

    def _watch_draft_factory(self) -> None:
        try:
            from sglang.srt.speculative import draft_worker_common
        except Exception:  # noqa: BLE001 - a release without draft_worker_cls
            return
        real: Callable[..., object] = draft_worker_common.build_draft_tp_worker
        built = self.built

        @functools.wraps(real)
        def watched(*args: object, **kwargs: object) -> object:
            record = _Built(kwargs.get("draft_worker_cls"))
            built.append(record)
            try:
                bundle = real(*args, **kwargs)
            except BaseException as error:
                record.error = error
                raise
            record.draft = getattr(bundle, "draft_worker", None)
            return bundle

        setattr(draft_worker_common, "build_draft_tp_worker", watched)  # noqa: B010 - watched, not replaced

    # -- one algorithm ----------------------------------------------------------

    def algorithm(self, name: str, spec: Any) -> None:
        self._algorithm_members(spec)
        overlap = bool(getattr(spec, "supports_overlap", False))
        args = self.standins.server_args(name, overlap=overlap)
        self.branch = OVERLAP if overlap else SYNCHRONOUS
        self.spec = spec
        self.algorithms[name] = f"replayed on the {'overlap' if overlap else 'synchronous'} loop"
        validate = getattr(spec, "validate_server_args", None)
        self.refused = {}
        self.refused_settings = []
        if callable(validate):
            try:
                validate(args)
            except BaseException as error:  # noqa: BLE001
                self.algorithms[name] = f"its validate_server_args refused the replay's arguments ({_one_line(error)})"
                return
            # One set of answers for both: each setting runs the plugin's validator once.
            refusals = _Refusals(validate, args)
            self.refused = refusals.members(self.request.flag_only)
            self.refused_settings = refusals.refused_settings(self.request.flags)
            if self.refused:
                listed = "; ".join(f"{m} ({why})" for m, why in sorted(self.refused.items()))
                self.algorithms[name] += f"; not held to what only servers its validate_server_args refuses use: {listed}"
        made = self._create(name, spec, args)
        if made is None:
            return
        registered = _class_of(made)
        if registered is not None:
            self._adopt(registered)
        self._construct(name, made, registered, args)

    def _adopt(self, cls: type, protocols: tuple[str, ...] = (ProtocolName.SPEC_WORKER,)) -> None:
        """A class of the plugin's that sglang is handed but that no reading of
        the source listed (made and registered inside a function the plugin's
        loader calls; a draft class chosen at run time and given to
        ``build_draft_tp_worker``): checked in the role it was handed in, under
        its dotted name. sglang's own classes and the library's never are."""
        target = _dotted(cls)
        if self._target_of(cls) is not None or not self.sides.plugin_object(cls) or cls.__module__.partition(".")[0] not in self.sides.packages:
            return
        self.classes[target] = ProbeClass(-1, cls.__module__, cls.__qualname__, target, protocols)

    def _create(self, name: str, spec: Any, args: Any) -> object | None:
        """What ``create_worker(server_args)`` returns, or None (its problem recorded)."""
        factory = getattr(spec, "factory", None)
        targets = self._factory_targets(name, factory)
        try:
            made: object = spec.create_worker(args)
        except BaseException as error:  # noqa: BLE001
            if isinstance(error, TypeError) and callable(factory) and not _binds(factory, (args,), {}):
                finding = ReplayFinding(None, "factory", f"it calls factory(server_args) positionally: {_one_line(error)}", CREATE_SITE)
                algorithm = self._target_of(_type_of(spec))
                if algorithm is not None:
                    # The registration's row, and each class it would have handed over: sglang never builds them.
                    self._result(algorithm, ProtocolName.SPEC_ALGORITHM, Verdict.FAIL, [replace(finding, member="factory")])
                self._fail_or_note(targets, finding, name)
            else:
                blamed: list[str | None] = [*targets] or [None]
                for who in blamed:
                    self._blame(who, error, CREATE_SITE, name, entered=True)
            return None
        if made is None or not callable(made):
            finding = ReplayFinding(None, "factory", f"the factory returned {made!r:.60}, which the scheduler cannot call", CREATE_SITE)
            self._fail_or_note(targets, finding, name)
            return None
        return made

    def _factory_targets(self, name: str, factory: object) -> list[str]:
        """The checked classes a registration stands for: those the plugin's
        source registers under ``name``, and a class whose builder is the factory."""
        found = list(self.request.registered.get(name, ()))
        for item in self.request.classes:
            if item.builder and callable(factory) and _dotted_function(factory) == item.builder:
                found.append(item.target)
        return list(dict.fromkeys(found))

    def _construct(self, name: str, made: object, registered: type | None, args: Any) -> None:
        keywords = self.request.release.constructor_keywords or _CONSTRUCTOR_KEYWORDS
        target_worker = self.standins.target_worker(args)
        self.target_standin = target_worker
        kwargs = {k: self.standins.keyword(k, args, target_worker) for k in keywords}
        check = _dotted(registered) if registered is not None else None
        if not _binds(made, (), kwargs):
            said = _bind_words(made, kwargs)
            self._result(check, ProtocolName.SPEC_WORKER, Verdict.FAIL, [ReplayFinding("__init__", "constructor", said, CONSTRUCT_SITE)])
            return
        try:
            with _quiet():
                instance = cast("Callable[..., object]", made)(**kwargs)
        except BaseException as error:  # noqa: BLE001 - the plugin's constructor: any exception is judged
            self._blame(check, error, CONSTRUCT_SITE, name, entered=True, member="__init__")
            self._drafts()
            return
        check = check or _dotted(instance)
        self._instance(check, instance)
        self._drafts()

    # -- the instance -----------------------------------------------------------

    def _instance(self, check: str, instance: object) -> None:
        release = self.request.release
        # How the scheduler calls the worker on the branch this algorithm runs
        # (its create_worker refuses overlap scheduling without the flag).
        calls = {member: (shape,) for member, shape in self.request.branch_shapes.get(self.branch, {}).items()}
        members = self._reached(release.members.get(ProtocolName.SPEC_WORKER))
        fetched = fetch_members(instance, spec_protocols.SpecWorker, members, calls, _SCHEDULER_CALLS, self._stopper(check))
        for capability in self._capabilities():
            more = fetch_members(instance, getattr(spec_protocols, capability), None, {}, _SCHEDULER_CALLS, self._stopper(check))
            fetched = Fetched((*fetched.findings, *more.findings), fetched.evidence)
        presence = [
            ReplayFinding(n, "missing", f"getattr(worker, {n!r}) finds nothing; the release calls it", _SCHEDULER_CALLS)
            for n in self._reached(release.presence) or ()
            if not _has(instance, n)
        ]
        draft = _draft_of(instance)
        kept = kept_default_findings(instance, draft, members, self.sides, _DEFAULTS_CALLS) if draft is not None else []
        found = [*fetched.findings, *presence, *kept]
        if self.branch == OVERLAP and ("forward_batch_generation", "call") in fetched.evidence and not any(f.member == "forward_batch_generation" for f in found):
            found.extend(self._forward_result(instance))
        evidence = _uncontradicted([("__init__", "call"), ("__init__", "exists"), *fetched.evidence], found)
        evidence += [(m, "unreached") for m in sorted(self.refused)]
        evidence += [(setting, "refused") for setting in self.refused_settings]
        self._result(check, ProtocolName.SPEC_WORKER, _verdict(found), found, evidence=evidence)
        if draft is not None:
            self._draft_members(draft)

    def _reached(self, members: Sequence[str] | None) -> tuple[str, ...] | None:
        """``members`` (None: the protocol's) less those only the overlap loops
        use, where the algorithm runs only the synchronous one, and those only
        servers its ``validate_server_args`` refuses use."""
        if self.branch != SYNCHRONOUS and not self.refused:
            return tuple(members) if members is not None else None
        names = members if members is not None else protocol_members(spec_protocols.SpecWorker)
        return tuple(
            m
            for m in names
            if m not in self.refused and (self.branch != SYNCHRONOUS or self.request.branch_only.get(m, SYNCHRONOUS) == SYNCHRONOUS)
        )

    def _forward_result(self, instance: object) -> list[ReplayFinding]:
        """``forward_batch_generation`` called as the overlap branch of
        ``Scheduler.run_batch`` calls it, and what it returns held to what
        ``run_batch`` then does with it (:mod:`._result`, read from the
        release's source). The target worker's forward returns a real
        ``GenerationBatchResult`` with ``next_draft_input=None``, as sglang's
        does. Whatever the forward raises (its own code, or sglang's on the
        stand-ins) stops the replay there: the result is unverified, never failed."""
        uses = _result_uses()
        if not uses or self.target_standin is None:
            return []
        forward: Any = getattr(instance, "forward_batch_generation")
        self.target_standin.forward_batch_generation.return_value = self.standins.target_result()
        kwargs: dict[str, object] = {"on_publish": unittest.mock.MagicMock(name="future_map.publish")}
        if _predicate(self.spec, "supports_grammar_overlap") is True:
            kwargs["grammar_barrier"] = unittest.mock.MagicMock(name="scheduler._advance_pending_grammar")
        batch = self.standins.schedule_batch(self.spec)
        # The plugin's line that returns the value: the last return, into this
        # frame, of a function of the plugin's (the forward, or what it is bound to).
        returned: list[str] = []
        caller = inspect.currentframe()  # the frame that makes the scheduler's call
        plugin_file = self.sides.plugin_file

        def profile(frame: Any, event: str, arg: object) -> None:
            if event == "return" and frame.f_back is caller and plugin_file(frame.f_code.co_filename):
                returned.append(f"{frame.f_code.co_filename}:{frame.f_lineno}")

        sys.setprofile(profile)
        try:
            with _quiet():
                value = forward(batch, **kwargs)
        except BaseException as error:  # noqa: BLE001 - the plugin's forward on stand-ins: a blind spot, never a failure
            sys.setprofile(None)
            judged = blame(error, self.sides, entered=True)
            said = f"forward_batch_generation raised on the replay's stand-ins, so what it returns is not checked: {judged.said}"
            return [ReplayFinding("forward_batch_generation", "stopped", said, _RUN_BATCH, judged.where)]
        finally:
            sys.setprofile(None)
        if inspect.isawaitable(value):
            close = getattr(value, "close", None)
            if callable(close):
                close()
            return []
        verdict = judge(value, uses, lambda name: _predicate(self.spec, name))
        if verdict.failed is None:
            return []
        at = returned[-1] if returned else _where_defined(forward)
        said = (
            f"it returns a {type(value).__name__}; {verdict.said}, and raises there at the first batch"
            " (the target worker's own result has next_draft_input=None: a worker builds or fills its own)"
        )
        return [ReplayFinding("forward_batch_generation", "result", said, _RUN_BATCH, at)]

    def _algorithm_members(self, spec: object) -> None:
        """The algorithm object sglang's registry holds (the registration's
        ``spec_class``, else ``CustomSpecAlgo``), fetched and bound as the
        scheduler, the model runner and the overlap utilities call it."""
        target = self._target_of(_type_of(spec))
        if target is None or ProtocolName.SPEC_ALGORITHM not in self.classes[target].protocols:
            return
        protocol = getattr(spec_protocols, ProtocolName.SPEC_ALGORITHM, None)
        if not isinstance(protocol, type):
            return
        members = self.request.release.members.get(ProtocolName.SPEC_ALGORITHM)
        fetched = fetch_members(spec, protocol, members, {}, _ALGORITHM_CALLS, self._stopper(target))
        self._result(target, ProtocolName.SPEC_ALGORITHM, _verdict(fetched.findings), fetched.findings, evidence=fetched.evidence)

    def _capabilities(self) -> list[str]:
        """The capability protocols the algorithm object turns on (``supports_grammar_overlap()``:
        the overlap branch passes ``grammar_barrier=``), on the overlap branch only, as sglang passes them."""
        if self.branch != OVERLAP:
            return []
        found: list[str] = []
        for capability in CAPABILITIES:
            predicate = getattr(self.spec, re.sub(r"(?<!^)(?=[A-Z])", "_", capability).lower(), None)
            try:
                if callable(predicate) and predicate() is True:
                    found.append(capability)
            except Exception:  # noqa: BLE001 - a predicate that raises: the algorithm object's own replay says so
                continue
        return found

    def _target_of(self, cls: type) -> str | None:
        """The checked class ``cls`` is: by its dotted name, or, for a class that
        names another module (``types.new_class``), as the module of a checked class holds it."""
        dotted = _dotted(cls)
        if dotted in self.classes:
            return dotted
        for item in self.request.classes:
            module = sys.modules.get(item.module)
            if module is not None and vars(module).get(item.qualname) is cls:
                return item.target
        return None

    def _draft_members(self, draft: object) -> None:
        target = self._target_of(type(draft))
        if target is None or self.standins.is_standin(draft):
            return
        fetched: Fetched = fetch_members(
            draft, spec_protocols.DraftWorker, self.request.release.members.get(ProtocolName.DRAFT_WORKER), {}, _DEFAULTS_CALLS, self._stopper(target)
        )
        self._result(target, ProtocolName.DRAFT_WORKER, _verdict(fetched.findings), fetched.findings, evidence=fetched.evidence)

    def _drafts(self) -> None:
        """Each draft worker class ``build_draft_tp_worker`` was given since the last look, as it was built."""
        records, self.built[:] = list(self.built), []
        for record in records:
            if isinstance(record.draft_class, type):
                self._adopt(record.draft_class, (ProtocolName.DRAFT_WORKER_FACTORY, ProtocolName.DRAFT_WORKER))
            target = self._target_of(record.draft_class) if isinstance(record.draft_class, type) else None
            if target is None:
                continue
            # A class handed to build_draft_tp_worker that discovery did not see injected
            # (through an attribute, a registry) is judged as the draft worker it is.
            protocol = ProtocolName.DRAFT_WORKER_FACTORY
            if protocol not in self.classes[target].protocols:
                protocol = ProtocolName.DRAFT_WORKER
            if record.error is None:
                self._result(target, protocol, Verdict.PASS, evidence=[("__init__", "call"), ("__init__", "exists")])
                if record.draft is not None:
                    self._draft_members(record.draft)
                continue
            judged = blame(record.error, self.sides, entered=True)
            if judged.verdict == "boundary":
                self._result(target, protocol, Verdict.FAIL, [ReplayFinding("__init__", "draft", judged.said, FACTORY_SITE, judged.where)])
            else:
                self._result(target, protocol, Verdict.UNVERIFIED, [ReplayFinding("__init__", "stopped", judged.said, FACTORY_SITE, judged.where)])

    # -- verdicts ---------------------------------------------------------------

    def _stopper(self, check: str) -> Callable[[BaseException], ReplayFinding]:
        def stopped(error: BaseException) -> ReplayFinding:
            judged = blame(error, self.sides, entered=True)
            kind: ReplayKind = "raised" if judged.verdict == "boundary" else "stopped"
            return ReplayFinding(None, kind, judged.said, _SCHEDULER_CALLS, judged.where)

        return stopped

    def _blame(self, check: str | None, error: BaseException, site: str, name: str, *, entered: bool, member: str | None = None) -> None:
        judged: Blame = blame(error, self.sides, entered=entered)
        kind: ReplayKind = "raised" if judged.verdict == "boundary" else "stopped"
        finding = ReplayFinding(member, kind, judged.said, site, judged.where)
        if check is None:
            self.algorithms[name] = f"{kind}: {judged.said}"
            return
        self._result(check, ProtocolName.SPEC_WORKER, Verdict.FAIL if kind == "raised" else Verdict.UNVERIFIED, [finding])

    def _fail_or_note(self, targets: Sequence[str], finding: ReplayFinding, name: str) -> None:
        if not targets:
            self.algorithms[name] = f"{finding.said}"
            return
        for target in targets:
            self._result(target, ProtocolName.SPEC_WORKER, Verdict.FAIL, [finding])

    def _result(self, target: str | None, protocol: str, verdict: Verdict, findings: Sequence[ReplayFinding] = (), *, evidence: Sequence[tuple[str, str]] = ()) -> None:
        if target is None or target not in self.classes:
            return  # a class the run does not check (sglang's own, one only the import made)
        item = self.classes[target]
        if protocol not in item.protocols:
            return
        self.results.add(target, protocol, verdict, findings, evidence=evidence)

    def answer(self, failed: Mapping[str, str]) -> ReplayAnswer:
        for item in self.request.classes:
            for protocol in item.protocols:
                if (item.target, protocol) in self.results.found:
                    continue
                why = failed.get(item.module)
                raised = self.register_failures.get(item.module)
                registered = any(item.target in targets for targets in self.request.registered.values())
                if why is None and raised is not None and registered and protocol == ProtocolName.SPEC_WORKER:
                    # Registered in the source, by a register function of its module that raised: sglang never builds it.
                    finding = ReplayFinding(None, "registration", raised, "the plugin's loader (sglang.srt.plugins)")
                    self.results.add(item.target, protocol, Verdict.FAIL, (finding,))
                    continue
                note = f"cannot import {item.module}: {why}" if why is not None else NO_REGISTRATION_NOTE
                self.results.add(item.target, protocol, Verdict.SKIPPED, note=note)
        return ReplayAnswer(tuple(self.results.found.values()), None, dict(self.algorithms))


#: What a finding of each kind says the instance lacks (a claim no longer in evidence).
_CONTRADICTS: Mapping[str, tuple[str, ...]] = {
    "missing": ("exists", "kind", "call"),
    "kind": ("kind", "call"),
    "signature": ("call",),
    "async": ("call",),
    "generator": ("call",),
}


def _uncontradicted(evidence: Sequence[tuple[str, str]], findings: Sequence[ReplayFinding]) -> list[tuple[str, str]]:
    """``evidence`` less what a finding on the same member contradicts: a member that takes the
    protocol's call but not a capability's (``grammar_barrier=``) does not take sglang's call."""
    denied = {(f.member, claim) for f in findings if f.member for claim in _CONTRADICTS.get(f.kind, ())}
    return [item for item in dict.fromkeys(evidence) if item not in denied]


def _sglang_folders() -> tuple[str, ...]:
    """sglang's side of the boundary: sglang's package, the replay's own code (it stands for the
    scheduler), and, last, the standard library (the stand-ins' ``unittest.mock``)."""
    import sglang
    import sysconfig

    folders = [str(Path(p).resolve()) for p in getattr(sglang, "__path__", [])]
    folders.append(str(Path(__file__).resolve().parent.parent.parent))  # spec_protocols/gate
    folders.append(str(Path(sysconfig.get_paths()["stdlib"]).resolve()))
    return tuple(f"{folder}/" for folder in folders)


def _verdict(findings: Sequence[ReplayFinding]) -> Verdict:
    if any(f.kind != "stopped" for f in findings):
        return Verdict.FAIL
    return Verdict.UNVERIFIED if findings else Verdict.PASS


def _registry() -> dict[str, Any]:
    try:
        spec_registry = importlib.import_module("sglang.srt.speculative.spec_registry")
    except Exception:  # noqa: BLE001 - a release with no registry: nothing a plugin registers is found
        return {}
    found: dict[str, Any] = getattr(spec_registry, "_REGISTRY", {})
    return found


def _class_of(made: object) -> type | None:
    """The class the scheduler builds through ``made``: a class, a partial of one; None for a function that builds one."""
    if isinstance(made, type):
        return made
    inner = getattr(made, "func", None)
    if isinstance(made, functools.partial) and isinstance(inner, type):
        return inner
    return None


def _signature_of(target: object) -> inspect.Signature | None:
    """The signature a call of ``target`` meets (a class's through its metaclass's ``__call__``
    or its ``__init__``, as ``inspect`` reads it); None where none can be read."""
    try:
        return inspect.signature(cast("Callable[..., object]", target))
    except (TypeError, ValueError):
        return None


def _binds(target: object, args: tuple[object, ...], kwargs: Mapping[str, object]) -> bool:
    signature = _signature_of(target)
    if signature is None:
        return True  # no signature to read: the call itself decides
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def _bind_words(target: object, kwargs: Mapping[str, object]) -> str:
    """Why the scheduler's call of ``target`` with ``kwargs`` does not bind, with the signature it meets."""
    signature = _signature_of(target)
    if signature is None:
        return "its signature cannot be read"
    try:
        signature.bind(**kwargs)
    except TypeError as error:
        name = getattr(target, "__qualname__", type(target).__name__)
        return f"{error}; it is {name}{signature}, the scheduler calls it with {', '.join(f'{k}=' for k in kwargs)}"
    return ""


def _dotted_function(obj: object) -> str:
    return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"


def _has(obj: object, name: str) -> bool:
    try:
        return hasattr(obj, name)
    except Exception:  # noqa: BLE001 - a getter that raised: it is there
        return True


def _draft_of(instance: object) -> object:
    try:
        return getattr(instance, "draft_worker", None)
    except Exception:  # noqa: BLE001 - the replay of the member itself says so
        return None


class _Refusals:
    """Which server flags an algorithm's ``validate_server_args`` refuses:
    each setting made on a copy of the replay's arguments, and the call
    repeated. A setting that names no one value, or that the arguments do
    not take, is not refused, and a flag on an option sglang decides at
    start-up is never ruled out: what lies behind it stays required."""

    def __init__(self, validate: Callable[[Any], object], args: Any) -> None:
        self.validate = validate
        self.args = args
        self.answers: dict[tuple[str, str], bool] = {}

    def refuses(self, option: str, value: str) -> bool:
        if (option, value) not in self.answers:
            self.answers[(option, value)] = False
            if value:
                try:
                    changed = copy.copy(self.args)
                    setattr(changed, option, ast.literal_eval(value))
                except Exception:  # noqa: BLE001 - a setting the arguments do not take: not refused
                    return False
                try:
                    with _quiet():
                        self.validate(changed)
                except BaseException:  # noqa: BLE001 - the plugin's own refusal: any exception
                    self.answers[(option, value)] = True
        return self.answers[(option, value)]

    def barred(self, flag: ServerFlag) -> bool:
        """Whether ``flag`` is ruled out: it can be (:meth:`ServerFlag.refusable`) and every setting is refused."""
        return flag.refusable() and all(self.refuses(o, v) for o, v in flag.settings)

    def members(self, flag_only: Mapping[str, tuple[tuple[ServerFlag, ...], ...]]) -> dict[str, str]:
        """Member -> why, for each member (of ``flag_only``) every way to which passes a flag it rules out."""
        refused: dict[str, str] = {}
        for member, ways in flag_only.items():
            barred = [next((f for f in flags if self.barred(f)), None) for flags in ways]
            if ways and all(b is not None for b in barred):
                refused[member] = "used only with " + " or ".join(dict.fromkeys(b.words() for b in barred if b is not None))
        return refused

    def refused_settings(self, flags: Sequence[ServerFlag]) -> list[str]:
        """``option=value`` for each setting of the refusable ``flags`` that is refused (the evidence a static need yields to)."""
        return [f"{o}={v}" for flag in flags if flag.refusable() for o, v in flag.settings if self.refuses(o, v)]


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


class _quiet:
    """What the plugin and sglang print while the replay runs goes nowhere."""

    def __enter__(self) -> None:
        self._out = redirect_stdout(io.StringIO())
        self._err = redirect_stderr(io.StringIO())
        self._out.__enter__()
        self._err.__enter__()

    def __exit__(self, *exc: object) -> None:
        self._err.__exit__(None, None, None)
        self._out.__exit__(None, None, None)


def replay(request: ReplayRequest) -> ReplayAnswer:
    sys.path[:0] = list(request.search_roots)
    try:
        run = _Replay(request)
    except BaseException as error:  # noqa: BLE001 - sglang itself cannot be imported here
        return ReplayAnswer(failure=f"sglang cannot be imported for the replay: {_one_line(error)}")
    try:
        with _quiet():
            algorithms, failed = run.load()
        for name, spec in algorithms.items():
            run.algorithm(name, spec)
        return run.answer(failed)
    finally:
        run.standins.restore()


def _preload() -> None:
    """What every replay imports before the plugin (sglang's side: the stand-ins'
    classes, the registry, the draft factory), for a driver started in advance."""
    for module in (
        "sglang.srt.managers.tp_worker",
        "sglang.srt.server_args",
        "sglang.srt.speculative.spec_registry",
        "sglang.srt.speculative.draft_worker_common",
        "sglang.srt.speculative.base_spec_worker",
    ):
        try:
            with _quiet():
                importlib.import_module(module)
        except BaseException:  # noqa: BLE001 - the replay itself says so when it needs the module
            return


def _unusable(request: ReplayRequest) -> str | None:
    """Why a driver that imported sglang before it was asked cannot stand for a
    fresh one: a module of the plugin's packages already imported (a plugin
    package named as something sglang imports), which a fresh driver would
    have imported from the plugin's search roots."""
    loaded = sorted({m.partition(".")[0] for m in request.modules} & {m.partition(".")[0] for m in sys.modules})
    return f"{loaded[0]} was imported with sglang before the request named it" if loaded else None


def main() -> None:
    warm = "--warm" in sys.argv[1:]
    if warm:
        _preload()
    request = read_request(sys.stdin.read())
    why = _unusable(request) if warm else None
    if why is not None:
        write_answer(Path(request.answer_file), ReplayAnswer(unusable=why))
        sys.stdout.flush()
        os._exit(0)
    try:
        answer = replay(request)
    except BaseException as error:  # noqa: BLE001 - the driver's own failure: said, never a verdict
        answer = ReplayAnswer(failure=f"the replay failed: {_one_line(error)}\n{traceback.format_exc(limit=3)}")
    write_answer(Path(request.answer_file), answer)
    sys.stdout.flush()
    os._exit(0)  # no atexit handler of the plugin's or sglang's runs after the answer


if __name__ == "__main__":
    main()
