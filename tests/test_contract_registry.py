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
* :func:`~spec_protocols._releases.version_order`, which those decisions use.

The real releases are tests/test_gate_outside_range.py (slow).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from spec_protocols._releases import version_order
from spec_protocols.gate._contract import Contract, extract_contract, source_at
from spec_protocols.gate._contract._terms import release_terms

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
