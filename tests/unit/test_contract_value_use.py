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


def test_what_sglang_does_with_a_value_is_followed(tmp_path: Path) -> None:
    """Issue 31, item 1: each used value is followed through locals and into
    the release's own functions: attributes read and stored, iterated,
    tested, an operand, passed to a callee the gate cannot read."""
    contract = contract_of(
        tmp_path,
        """
        def run_batch(self, batch):
            result = self.draft_worker.forward_batch_generation(batch)
            result.copy_done = None
            batch.spec_info = result.next_draft_input
            if result.delay_sample_func is not None:
                pass
            return result

        def select_runners(self):
            runners = []
            runners += self.draft_worker.weight_update_runners()
            return runners

        def init_overlap(self):
            _walk_all(self.draft_worker.spec_v2_backends)
            total = self.draft_worker.preloaded_weights_bytes + 1
            if self.draft_worker.ready:
                pass
            remote(self.draft_worker.model_runner)
        """,
        {"srt/managers/helpers.py": "def _unused():\n    pass\n"},
    )

    def said(member: str) -> set[tuple[str, str]]:
        return {(v.kind, v.detail) for v in only(contract, member).value_uses}

    assert said("forward_batch_generation") == {
        ("attribute", "copy_done="),
        ("attribute", "next_draft_input"),
        ("attribute", "delay_sample_func"),
        ("value", "Return"),
    }
    assert said("weight_update_runners") == {("operand", "+=")}
    assert said("preloaded_weights_bytes") == {("operand", "+")}
    assert said("ready") == {("test", "")}
    assert said("model_runner") == {("value", "remote")}
    published = {u["member"]: u for u in json.loads(contract_json(contract))["spec_worker"]}
    assert [v["detail"] for v in published["weight_update_runners"]["value_uses"]] == ["+="]


def test_a_value_passed_to_a_function_of_the_release_is_followed_into_it(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def init_overlap(self):
            from sglang.srt.managers.overlap_utils import decide

            decide(self.draft_worker.spec_v2_backends)
        """,
        {"srt/managers/overlap_utils.py": "def decide(backends):\n    return any(b.ready for b in backends)\n"},
    )
    assert {(v.kind, v.detail) for v in only(contract, "spec_v2_backends").value_uses} == {("iterate", "")}
