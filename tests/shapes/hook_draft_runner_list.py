"""A draft worker's ``draft_runner_list``: sglang finds it with ``getattr`` on the spec worker's draft worker and iterates it.

sglang 0.5.23's ``SchedulerMetricsReporter._install_device_timer_on_runners``
(metrics_reporter.py:369-374) takes ``dw = getattr(self.scheduler.draft_worker,
"draft_worker", None)`` and, with the forward-pass device timer on, runs
``for r in getattr(dw, "draft_runner_list", []): r.device_timer = timer``. A
draft worker that writes ``draft_runner_list`` as a method hands sglang the
bound method: ``TypeError: 'method' object is not iterable``. The hook is
read from each release's own source (the ``DraftWorker`` side of the
contract's hooks), never listed by hand; a tuple of runners passes. The
runtime checker's column is not asserted (it does not yet read the contract's
hooks).
"""

from __future__ import annotations

from typing import Any

from sglang.srt.managers.tp_worker import TpModelWorker


# expect: hook_draft_runner_list.LayerListDraft DraftWorker fail runtime=any mypy=fail pyright=fail member=draft_runner_list
class LayerListDraft(TpModelWorker):
    """One runner per draft layer, built on demand."""

    def draft_runner_list(self) -> list[Any]:
        return [self.model_runner]


# expect: hook_draft_runner_list.LayerTupleDraft DraftWorker pass runtime=any mypy=pass pyright=pass
class LayerTupleDraft(TpModelWorker):
    """No runners of its own beyond the model runner: an empty tuple."""

    draft_runner_list: tuple[Any, ...] = ()
