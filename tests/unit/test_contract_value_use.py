"""Whether sglang uses what a call returns (issue 26, item 3: "whether it uses the value").

A call made as a statement discards its value: any return type satisfies it.
One whose value is assigned, passed, tested or returned uses it. Recorded on
each call use (``Use.value_used``) and published as ``value`` in the JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

from spec_protocols.gate._contract import contract_json

from tests.unit.test_contract_rules import contract_of, only


def test_a_call_made_as_a_statement_discards_its_value(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def init_model_worker(self):
            self.draft_worker.prewarm_sampling()
            runners = self.draft_worker.weight_update_runners()
            if self.draft_worker.ready():
                pass
            return self.draft_worker.forward_batch_generation(batch)
        """,
    )
    assert only(contract, "prewarm_sampling").value_used is False
    for member in ("weight_update_runners", "ready", "forward_batch_generation"):
        assert only(contract, member).value_used is True, member
    published = {u["member"]: u.get("value") for u in json.loads(contract_json(contract))["spec_worker"]}
    assert published["prewarm_sampling"] == "discarded"
    assert published["weight_update_runners"] == "used"


def test_a_read_has_no_value_key(tmp_path: Path) -> None:
    contract = contract_of(tmp_path, "def f(self):\n    x = self.draft_worker.model_runner\n")
    (read,) = json.loads(contract_json(contract))["spec_worker"]
    assert read["kind"] == "read" and "value" not in read
