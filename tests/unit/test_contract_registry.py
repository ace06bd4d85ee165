"""Releases outside the supported range (issue 18): how the gate reads them, or refuses them.

Fast, on small synthetic trees and a simulated pip:

* **The registry's construction path** (0.5.4.post2 to 0.5.7): the scheduler
  builds its worker as ``self.draft_worker =
  self.spec_algorithm.create_draft_worker(**draft_worker_kwargs)``, a method
  of the algorithm object forwarding ``**kwargs`` to the factory that
  ``register_speculative_algorithm(name, worker_cls)`` makes of the class
  (``worker_cls(**kwargs)``). The constructor keywords are the dict's keys,
  less a key added only under a positive algorithm predicate (a built-in
  algorithm's name: a plugin's algorithm never meets it).
* **Refusals, each one line**: a contract with no constructor (no registry,
  as up to 0.5.4.post1) has no terms; a release number below the floor is
  refused before anything is fetched; one the index does not have is refused
  with the newest it has, and nothing is downloaded.
* :func:`~spec_protocols._releases.version_order`, which those decisions use.

The real releases are tests/checkers/test_gate_outside_range.py (slow).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest

from spec_protocols._releases import NEWEST, OLDEST, OLDEST_READABLE, version_order
from spec_protocols.gate import _cli as cli
from spec_protocols.gate._contract import Contract, extract_contract, source_at
from spec_protocols.gate._contract import _release_source as _source
from spec_protocols.gate._contract._release_source import fetch_release, resolve_sglang
from spec_protocols.gate._contract._terms import release_terms
from spec_protocols.gate._model import GateError

#: A registry-backed algorithm class, as 0.5.5's spec_info.py writes it (trimmed).
REGISTRY_SPEC_INFO = """\
from typing import Any


class SpeculativeAlgorithm:
    _registry_by_name = {}

    def __init__(self, name, value, draft_worker_factory=None):
        self.name = name
        self.value = value
        self._draft_worker_factory = draft_worker_factory

    @classmethod
    def from_string(cls, name):
        return cls._registry_by_name[name.upper()]

    @classmethod
    def register_draft_worker(cls, algorithm, factory):
        algorithm._draft_worker_factory = factory

    def is_none(self):
        return self is SpeculativeAlgorithm.NONE

    def is_eagle(self):
        return self._has_flag("EAGLE")

    def create_draft_worker(self, **factory_kwargs: Any) -> Any:
        if self._draft_worker_factory is None:
            return None
        return self._draft_worker_factory(self, **factory_kwargs)


def _wrap_worker_class(worker_cls):
    def _factory(_, **kwargs):
        return worker_cls(**kwargs)

    return _factory


def register_speculative_algorithm(name, worker_cls):
    algorithm = SpeculativeAlgorithm(name.upper(), 0)
    SpeculativeAlgorithm.register_draft_worker(algorithm, _wrap_worker_class(worker_cls))
    return algorithm
"""

BASE_SPEC_WORKER = """\
from abc import ABC, abstractmethod


class BaseSpecWorker(ABC):
    @abstractmethod
    def clear_cache_pool(self):
        pass
"""

#: 0.5.5's Scheduler.__init__, trimmed to the construction and two uses.
REGISTRY_SCHEDULER = """\
class Scheduler:
    def __init__(self, server_args, gpu_id, tp_rank):
        self.tp_worker = TpModelWorker(server_args=server_args, gpu_id=gpu_id)
        draft_worker_kwargs = dict(
            gpu_id=gpu_id,
            tp_rank=tp_rank,
            server_args=server_args,
            target_worker=self.tp_worker,
        )
        if self.spec_algorithm.name in {"EAGLE", "EAGLE3"}:
            draft_worker_kwargs["enable_overlap"] = self.enable_overlap
        if self.spec_algorithm.is_eagle():
            draft_worker_kwargs["eagle_only"] = True
        if server_args.speculative_draft_load_format is not None:
            draft_worker_kwargs["load_format"] = server_args.speculative_draft_load_format
        self.draft_worker = self.spec_algorithm.create_draft_worker(**draft_worker_kwargs)
        if self.spec_algorithm.is_none():
            self.model_worker = self.tp_worker
        else:
            self.model_worker = self.draft_worker

    def flush_cache(self):
        if self.draft_worker:
            self.draft_worker.clear_cache_pool()

    def run_batch(self, batch):
        return self.model_worker.forward_batch_generation(batch)
"""

#: The scheduler of a release without a registry (0.5.4): its own classes, by name.
BY_NAME_SCHEDULER = """\
class Scheduler:
    def launch_draft_worker(self, server_args, gpu_id):
        if self.spec_algorithm.is_eagle():
            from sglang.srt.speculative.eagle_worker import EAGLEWorker

            self.draft_worker = EAGLEWorker(server_args=server_args, gpu_id=gpu_id, target_worker=self.tp_worker)
        else:
            self.draft_worker = None

    def run_batch(self, batch):
        return self.draft_worker.forward_batch_generation(batch)
"""


def write_release(root: Path, scheduler: str, spec_info: str = REGISTRY_SPEC_INFO, version: str = "0.5.5") -> Path:
    files = {
        "version.py": f'__version__ = "{version}"\n',
        "__init__.py": "",
        "srt/speculative/spec_info.py": spec_info,
        "srt/speculative/base_spec_worker.py": BASE_SPEC_WORKER,
        "srt/managers/scheduler.py": scheduler,
    }
    for relative, text in files.items():
        path = root / "sglang" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def contract_of(root: Path, scheduler: str, spec_info: str = REGISTRY_SPEC_INFO) -> Contract:
    return extract_contract(source_at(write_release(root, scheduler, spec_info)))


# -- the registry's construction path -----------------------------------------------------------


def test_the_registry_call_gives_the_keywords_a_plugins_worker_gets(tmp_path: Path) -> None:
    contract = contract_of(tmp_path, REGISTRY_SCHEDULER)
    # enable_overlap (under the built-in names) and eagle_only (under is_eagle())
    # are a built-in algorithm's; load_format, under a server option, may come.
    assert contract.constructor_keywords == ("gpu_id", "tp_rank", "server_args", "target_worker", "load_format")
    assert contract.constructor_site is not None
    assert (contract.constructor_site.file, contract.constructor_site.function) == ("managers/scheduler.py", "Scheduler.__init__")
    lines = REGISTRY_SCHEDULER.splitlines()
    assert contract.constructor_site.line == 1 + next(n for n, t in enumerate(lines) if "create_draft_worker(" in t)
    terms = release_terms(contract)
    assert terms.constructor_keywords == contract.constructor_keywords
    assert "clear_cache_pool" in terms.members["SpecWorker"] and "forward_batch_generation" in terms.members["SpecWorker"]


def test_a_registry_that_does_not_construct_the_registered_class_is_not_read(tmp_path: Path) -> None:
    """Without the wrapper that makes a factory of the class (``worker_cls(**kwargs)``),
    what the method builds is not known to be the plugin's class."""
    unwrapped = REGISTRY_SPEC_INFO.replace("return worker_cls(**kwargs)", "return make(worker_cls, kwargs)")
    contract = contract_of(tmp_path, REGISTRY_SCHEDULER, unwrapped)
    assert contract.constructor_site is None and contract.constructor_keywords == ()


def test_a_method_that_does_not_forward_its_keywords_is_not_the_registry(tmp_path: Path) -> None:
    closed = REGISTRY_SPEC_INFO.replace(
        "return self._draft_worker_factory(self, **factory_kwargs)", "return self._draft_worker_factory(self)"
    )
    assert contract_of(tmp_path, REGISTRY_SCHEDULER, closed).constructor_site is None


def test_a_registry_call_whose_result_is_not_the_worker_is_not_the_constructor(tmp_path: Path) -> None:
    scheduler = REGISTRY_SCHEDULER.replace(
        "self.draft_worker = self.spec_algorithm.create_draft_worker(**draft_worker_kwargs)",
        "probe = self.spec_algorithm.create_draft_worker(**draft_worker_kwargs)\n        self.draft_worker = None",
    )
    assert contract_of(tmp_path, scheduler).constructor_site is None


def test_create_worker_comes_first(tmp_path: Path) -> None:
    """A tree with both paths: the create_worker call is the constructor (the path of 0.5.8 on, unchanged)."""
    spec_info = REGISTRY_SPEC_INFO.replace(
        "    def create_draft_worker(",
        "    def create_worker(self, server_args):\n        return None\n\n    def create_draft_worker(",
    )
    scheduler = REGISTRY_SCHEDULER + (
        "\n"
        "    def maybe_init_draft_worker(self, server_args):\n"
        "        kwargs = dict(server_args=server_args, ps=self.ps)\n"
        "        DraftWorkerClass = self.spec_algorithm.create_worker(server_args)\n"
        "        self.draft_worker = DraftWorkerClass(**kwargs)\n"
    )
    contract = contract_of(tmp_path, scheduler, spec_info)
    assert contract.constructor_keywords == ("server_args", "ps")
    assert contract.constructor_site is not None and contract.constructor_site.function == "Scheduler.maybe_init_draft_worker"


# -- refusals ------------------------------------------------------------------------------------


def test_a_release_that_builds_its_workers_by_name_has_no_terms(tmp_path: Path) -> None:
    contract = contract_of(tmp_path, BY_NAME_SCHEDULER)
    assert contract.constructor_site is None
    with pytest.raises(GateError) as raised:
        release_terms(contract)
    message = str(raised.value)
    assert "\n" not in message
    assert "found no call that constructs a plugin's spec worker" in message
    assert f"supported: {OLDEST} to {NEWEST}" in message and f"the oldest release the gate can read: {OLDEST_READABLE}" in message


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_on_such_a_tree_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree = write_release(tmp_path / "release", BY_NAME_SCHEDULER, version="0.5.4")
    code, out, err = run(capsys, "check", "spec_protocols.reference", "--sglang", str(tree), "--checker", "mypy", "--no-cache")
    assert code == 2 and out == ""
    assert err.startswith("spec-protocols: error: sglang 0.5.4 (") and err.count("\n") == 1, err
    assert f"supported: {OLDEST} to {NEWEST}" in err


def no_pip(arguments: Sequence[str]) -> tuple[int, str]:
    raise AssertionError(f"pip was run: {list(arguments)}")


@pytest.mark.parametrize("release", ["0.4.0", "0.5.4", "0.5.4.post1", "0.5.3rc2", "0.1.3"])
def test_a_release_below_the_floor_is_refused_before_anything_is_fetched(
    release: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(_source, "run_pip", no_pip)
    with pytest.raises(GateError) as raised:
        resolve_sglang(release)
    message = str(raised.value)
    assert message.startswith(f"sglang {release} is older than any release the gate can read") and "\n" not in message
    assert f"supported: {OLDEST} to {NEWEST}" in message and OLDEST_READABLE in message
    assert not (tmp_path / "cache").exists()


def test_the_floor_itself_is_fetched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def fetch(release: str, cache_dir: Path | None = None) -> object:
        asked.append(release)
        return None

    monkeypatch.setattr(_source, "fetch_release", fetch)
    resolve_sglang(OLDEST_READABLE)
    resolve_sglang("0.5.5")
    assert asked == [OLDEST_READABLE, "0.5.5"]


def test_the_cli_refuses_below_the_floor_for_both_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SPEC_PROTOCOLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(_source, "run_pip", no_pip)
    code, out, err = run(capsys, "check", "spec_protocols.reference", "--sglang", "0.4.0", "--checker", "mypy")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("spec-protocols: error: sglang 0.4.0 is older than any release the gate can read")
    code, out, err = run(capsys, "contract", "--sglang", "0.4.0")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("spec-protocols: error: sglang 0.4.0 is older than any release the gate can read")


LISTED = "0.5.3rc0, 0.5.4, 0.5.10rc0, 0.5.10, 0.5.22, 0.5.23"


def test_a_release_the_index_does_not_have_is_named_with_the_newest_it_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []

    def index(arguments: Sequence[str]) -> tuple[int, str]:
        calls.append(list(arguments))
        return 1, (
            f"ERROR: Could not find a version that satisfies the requirement sglang==9.9.9 (from versions: {LISTED})\n"
            "ERROR: No matching distribution found for sglang==9.9.9\n"
        )

    monkeypatch.setattr(_source, "run_pip", index)
    with pytest.raises(GateError) as raised:
        fetch_release("9.9.9", tmp_path / "cache")
    assert str(raised.value) == (
        f"cannot fetch sglang 9.9.9: not on the package index (the newest there: 0.5.23); supported: {OLDEST} to {NEWEST}"
    )
    assert all(c[0] == "download" for c in calls) and len(calls) == 2
    assert not list((tmp_path / "cache" / "sglang" / "wheels").glob("*.whl"))


def test_a_release_the_index_lists_but_pip_could_not_fetch_keeps_pips_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def listed_but_failed(arguments: Sequence[str]) -> tuple[int, str]:
        return 1, f"ERROR: Could not find a version that satisfies the requirement sglang==0.5.22 (from versions: {LISTED})\nERROR: boom\n"

    monkeypatch.setattr(_source, "run_pip", listed_but_failed)
    with pytest.raises(GateError) as raised:
        fetch_release("0.5.22", tmp_path / "cache")
    assert str(raised.value) == "cannot fetch sglang 0.5.22: boom"


def test_a_version_listed_only_by_the_cp311_try_is_on_the_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plain try lists what the running interpreter can install; the cp311 try the rest."""

    def pip(arguments: Sequence[str]) -> tuple[int, str]:
        versions = "0.5.4, 0.5.10" if "--abi" not in arguments else "0.5.4, 0.5.10, 0.5.23"
        return 1, f"ERROR: Could not find a version that satisfies the requirement sglang==0.5.23 (from versions: {versions})\nERROR: network went away\n"

    monkeypatch.setattr(_source, "run_pip", pip)
    with pytest.raises(GateError) as raised:
        fetch_release("0.5.23", tmp_path / "cache")
    assert str(raised.value) == "cannot fetch sglang 0.5.23: network went away"


# -- version_order -------------------------------------------------------------------------------


def test_version_order_is_pep_440s() -> None:
    ordered = [
        "0.4.10",
        "0.5.3rc0",
        "0.5.3",
        "0.5.4",
        "0.5.4.post1",
        "0.5.4.post2",
        "0.5.5.dev1",
        "0.5.5rc0",
        "0.5.5",
        "0.5.5.post1.dev1",
        "0.5.5.post1",
        "0.5.10rc0",
        "0.5.10",
        "0.5.23",
        "9.9.9",
    ]
    assert sorted(reversed(ordered), key=version_order) == ordered
    assert version_order("0.5.0") == version_order("0.5")
    with pytest.raises(ValueError):
        version_order("0.5.2x")
