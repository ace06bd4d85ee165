"""The upgrade plan (gate/_upgrade) from two synthetic contracts and fake gate reports.

Each test says what two releases ask and what the gate said of a plugin on
each, and checks the steps the plan lists, their order, which classes each
concerns, which must change (the gate's problem on B that the step accounts
for), what already failed on A, what would still fail on B, and the exit
status. Nothing runs a checker or reads a release.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from spec_protocols._members import call_keywords, protocol_definitions
from spec_protocols.gate import _cli as cli
from spec_protocols.gate._contract import Contract, DefaultNeeds, Hook, Site, Use, release_terms
from spec_protocols.gate._model import (
    Check,
    ClassRole,
    DiscoveredClass,
    GateReport,
    Problem,
    ProtocolName,
    Result,
    Verdict,
)
from spec_protocols.gate._upgrade import ReleaseSide, StepKind, UpgradePlan, build_plan, render_plan, verdict_line
from spec_protocols.gate._verdicts import injected_fails_words

SCHEDULER = Site("managers/scheduler.py", "Scheduler.maybe_init_draft_worker", 1064)
RUN_BATCH = Site("managers/scheduler.py", "Scheduler.run_batch", 10)
FACTORY = Site("speculative/draft_worker_common.py", "build_draft_tp_worker", 92)
BASE = "sglang.srt.speculative.base_spec_worker.BaseSpecWorker"
WORKER = "plugin.Worker"
DRAFT = "plugin.Draft"
SPEC = ProtocolName.SPEC_WORKER
DRAFT_WORKER = ProtocolName.DRAFT_WORKER
FACTORY_PROTOCOL = ProtocolName.DRAFT_WORKER_FACTORY

WITH_PS = ("server_args", "gpu_id", "ps", "nccl_port", "target_worker")
WITHOUT_PS = ("server_args", "gpu_id", "nccl_port", "target_worker")
FACTORY_0_5_20 = ("server_args", "gpu_id", "ps", "nccl_port", "is_draft_worker", "context_length", "draft_attention_backend")


def spec_members(release: str) -> list[str]:
    return [m.name for m in protocol_definitions("SpecWorker", release)]


DRAFT_NEEDS = tuple(
    DefaultNeeds(m.name, (Use(m.name, "draft_worker", "read", "required", RUN_BATCH),), ("draft_worker",))
    for m in protocol_definitions("DraftWorker")
)


def contract(
    release: str,
    members: list[str],
    *,
    constructor: tuple[str, ...] = WITHOUT_PS,
    factory: tuple[str, ...] | None = None,
    defaults: tuple[DefaultNeeds, ...] = DRAFT_NEEDS,
) -> Contract:
    return Contract(
        release=release,
        source=f"<synthetic {release}>",
        spec_worker=tuple(Use(m, "spec_worker", "read", "required", RUN_BATCH) for m in members),
        defaults=defaults,
        constructor_keywords=constructor,
        constructor_site=SCHEDULER,
        draft_factory_keywords=factory if factory is not None else call_keywords("DraftWorkerFactory"),
        draft_factory_site=FACTORY,
    )


def result(target: str, protocol: str, *problems: Problem) -> Result:
    verdict = Verdict.FAIL if problems else Verdict.PASS
    return Result(Check(target, protocol), verdict, {"mypy": verdict}, problems)


def report(*results: Result) -> GateReport:
    return GateReport(tuple(results), ("mypy",), {}, targets=("plugin.py",))


def side(contract_: Contract, *results: Result) -> ReleaseSide:
    return ReleaseSide(contract_, release_terms(contract_), report(*results))


def worker(overrides: frozenset[str] = frozenset({"__init__", "forward_batch_generation"})) -> DiscoveredClass:
    return DiscoveredClass(
        "plugin", "Worker", Path("plugin.py"), 1, frozenset({ClassRole.SPEC_WORKER}), bases=(BASE,), overrides=overrides
    )


def draft(injected_by: tuple[str, ...] = (WORKER,)) -> DiscoveredClass:
    return DiscoveredClass(
        "plugin",
        "Draft",
        Path("plugin.py"),
        20,
        frozenset({ClassRole.DRAFT_WORKER, ClassRole.INJECTED}),
        overrides=frozenset({"__init__"}),
        injected_by=injected_by,
    )


CTOR_PROBLEM = Problem("mypy", "__init__", 'the constructor cannot take the call sglang makes: Missing positional argument "ps"')


def test_a_worker_that_requires_ps_gets_the_constructor_step_first_and_must_change() -> None:
    before = side(contract("0.5.20", spec_members("0.5.20"), constructor=WITH_PS), result(WORKER, SPEC))
    after = side(contract("0.5.23", spec_members("0.5.23")), result(WORKER, SPEC, CTOR_PROBLEM))
    plan = build_plan(before, after, [worker()])
    first = plan.steps[0]
    assert first.kind is StepKind.CONSTRUCTOR
    assert "no longer passes ps=" in first.change and "0.5.20 did" in first.change
    assert first.expected == "WorkerClass(server_args=, gpu_id=, nccl_port=, target_worker=)"
    assert first.site == "managers/scheduler.py:1064 (Scheduler.maybe_init_draft_worker)"
    assert [(c.target, c.must_change) for c in first.classes] == [(WORKER, True)]
    assert first.classes[0].problems[0].message == CTOR_PROBLEM.message
    assert plan.remaining == () and plan.exit_status == 1
    assert verdict_line(plan) == "plugin.py must change for sglang 0.5.23: 1 step; after it nothing the gate reports on sglang 0.5.23 is left."


def test_the_steps_come_in_the_order_an_author_works_through_them() -> None:
    old = contract("0.5.20", spec_members("0.5.20"), constructor=WITH_PS, factory=FACTORY_0_5_20)
    new = contract("0.5.23", spec_members("0.5.23"))
    plan = build_plan(side(old, result(WORKER, SPEC)), side(new, result(WORKER, SPEC)), [worker()])
    kinds = [s.kind for s in plan.steps]
    assert kinds == sorted(kinds, key=list(StepKind).index)
    assert kinds[0] is StepKind.CONSTRUCTOR
    new_members = [s.subject for s in plan.steps if s.kind is StepKind.NEW_MEMBER]
    # weight_update_runners from 0.5.21, draft_parallel_layout and draft_swa_window from 0.5.23: B's order.
    assert new_members == [f"SpecWorker.{m}" for m in spec_members("0.5.23") if m not in spec_members("0.5.20")]
    swa = next(s for s in plan.steps if s.subject == "SpecWorker.draft_swa_window")
    assert swa.expected.startswith("@property SpecWorker.draft_swa_window(self)")
    assert swa.site == "managers/scheduler.py:10 (Scheduler.run_batch)"
    # A worker that passes on B as it is: nothing to change anywhere, exit 0.
    assert not any(s.must_change for s in plan.steps)
    assert plan.exit_status == 0
    assert verdict_line(plan) == "plugin.py passes on sglang 0.5.23 as it is: nothing must change."


def test_a_kept_default_that_needs_more_of_the_draft_worker_is_said_on_the_new_members_step() -> None:
    needs = DefaultNeeds(
        "weight_update_runners", (Use("draft_runners", "draft_worker", "read", "required", RUN_BATCH),), ("draft_worker",)
    )
    old = contract("0.5.20", spec_members("0.5.20"))
    new = contract("0.5.23", spec_members("0.5.23"), defaults=(*DRAFT_NEEDS, needs))
    problem = Problem("mypy", "weight_update_runners", "inherits BaseSpecWorker.weight_update_runners, which uses draft_worker.draft_runners")
    plan = build_plan(side(old, result(WORKER, SPEC)), side(new, result(WORKER, SPEC, problem)), [worker()])
    step = next(s for s in plan.steps if s.subject == "SpecWorker.weight_update_runners")
    (cls,) = step.classes
    assert cls.must_change and cls.problems[0].member == "weight_update_runners"
    assert cls.note.startswith("keeps BaseSpecWorker's, which uses draft_worker.draft_runners")
    # The same worker defining it: nothing to change, and it says so.
    defining = worker(frozenset({"__init__", "forward_batch_generation", "weight_update_runners"}))
    plan = build_plan(side(old, result(WORKER, SPEC)), side(new, result(WORKER, SPEC)), [defining])
    step = next(s for s in plan.steps if s.subject == "SpecWorker.weight_update_runners")
    assert [(c.must_change, c.note) for c in step.classes] == [(False, "defines it")]


def test_draft_factory_keywords_concern_the_injected_class_and_the_worker_that_injects_it() -> None:
    old = contract("0.5.20", spec_members("0.5.20"), factory=FACTORY_0_5_20)
    new = contract("0.5.23", spec_members("0.5.23"))
    factory_problem = Problem("pyright", "__init__", 'No parameter named "random_seed"')
    own_problem = Problem("mypy", "__init__", 'Unexpected keyword argument "ps" for "__init__" of "TpModelWorker"')
    injector = Problem("gate", None, injected_fails_words([DRAFT]))
    after = side(
        new,
        result(WORKER, SPEC, injector),
        result(DRAFT, DRAFT_WORKER, own_problem),
        result(DRAFT, FACTORY_PROTOCOL, factory_problem),
    )
    before = side(old, result(WORKER, SPEC), result(DRAFT, DRAFT_WORKER), result(DRAFT, FACTORY_PROTOCOL))
    plan = build_plan(before, after, [worker(), draft()])
    (step,) = [s for s in plan.steps if s.kind is StepKind.DRAFT_FACTORY and s.subject.startswith("build_draft_tp_worker's")]
    assert "no longer passes ps=" in step.change and "newly passes random_seed=, load_group=" in step.change
    assert step.site == "speculative/draft_worker_common.py:92 (build_draft_tp_worker)"
    concerned = {(c.target, c.protocol): c for c in step.classes}
    assert set(concerned) == {(DRAFT, DRAFT_WORKER), (DRAFT, FACTORY_PROTOCOL), (WORKER, SPEC)}
    assert all(c.must_change for c in step.classes)
    assert concerned[(WORKER, SPEC)].note == f"injects {DRAFT}"
    assert plan.remaining == ()


def test_a_problem_a_had_too_is_not_the_upgrades_and_still_fails_after_the_steps() -> None:
    old = contract("0.5.20", spec_members("0.5.20"), constructor=WITH_PS)
    new = contract("0.5.23", spec_members("0.5.23"))
    signature = Problem("pyright", "forward_batch_generation", "signature does not match (line 12)")
    moved = Problem("pyright", "forward_batch_generation", "signature does not match (line 14)")
    plan = build_plan(
        side(old, result(WORKER, SPEC, signature)), side(new, result(WORKER, SPEC, moved, CTOR_PROBLEM)), [worker()]
    )
    assert [(f.target, f.protocol) for f in plan.failing_on_source] == [(WORKER, SPEC)]
    assert plan.steps[0].kind is StepKind.CONSTRUCTOR and plan.steps[0].classes[0].must_change
    (left,) = plan.remaining
    assert [p.message for p in left.problems] == [moved.message]
    assert verdict_line(plan) == f"plugin.py must change for sglang 0.5.23: 1 step; after it, still failing on sglang 0.5.23: {WORKER} (SpecWorker)."
    text = render_plan(plan, "text")
    assert text.index("must change for sglang 0.5.23") < text.index("Already failing on sglang 0.5.20")
    assert text.index("Already failing on sglang 0.5.20") < text.index("1. [constructor]") < text.index("Still failing")


def test_a_member_no_longer_called_concerns_the_classes_that_define_it() -> None:
    old = contract("0.5.23", spec_members("0.5.23"))
    new = contract("0.5.24", [m for m in spec_members("0.5.23") if m != "prewarm_sampling"])
    defining = worker(frozenset({"__init__", "forward_batch_generation", "prewarm_sampling"}))
    plan = build_plan(side(old, result(WORKER, SPEC)), side(new, result(WORKER, SPEC)), [defining])
    (dropped,) = [s for s in plan.steps if s.kind is StepKind.DROPPED_MEMBER]
    assert dropped.subject == "SpecWorker.prewarm_sampling"
    assert "may be removed" in dropped.action
    assert [(c.target, c.must_change, c.note) for c in dropped.classes] == [(WORKER, False, "defines it")]
    # A worker that keeps BaseSpecWorker's has nothing to remove: the change concerns no class of TARGET.
    plan = build_plan(side(old, result(WORKER, SPEC)), side(new, result(WORKER, SPEC)), [worker()])
    assert not any(s.kind is StepKind.DROPPED_MEMBER for s in plan.steps)
    assert any(line.startswith("SpecWorker.prewarm_sampling: 0.5.24 no longer calls it") for line in plan.unconcerned)


def test_the_formats_say_the_same_and_json_is_the_plans_encoding() -> None:
    before = side(contract("0.5.20", spec_members("0.5.20"), constructor=WITH_PS), result(WORKER, SPEC))
    after = side(contract("0.5.23", spec_members("0.5.23")), result(WORKER, SPEC, CTOR_PROBLEM))
    plan: UpgradePlan = build_plan(before, after, [worker()])
    data = json.loads(render_plan(plan, "json"))
    assert data["version"] == 2 and data["exit_status"] == 1 and data["verdict"] == verdict_line(plan)
    assert list(data)[:3] == ["version", "verdict", "exit_status"]
    assert [step["must_change"] for step in data["steps"]] == [step.must_change for step in plan.steps]
    assert data["source"] == "0.5.20" and data["destination"] == "0.5.23"
    assert data["steps"][0]["kind"] == "constructor" and data["steps"][0]["classes"][0]["must_change"] is True
    markdown = render_plan(plan, "markdown")
    assert "1. **constructor: `the scheduler's call that constructs the spec worker`**" in markdown
    assert "**must change**" in markdown
    for text in (markdown, render_plan(plan, "text")):
        words = " ".join(text.split())  # text wraps at 80 columns
        assert "no longer passes ps=" in words and 'Missing positional argument "ps"' in words
        # The verdict comes first, right after the heading.
        plain_words = words.replace("**", "")
        assert plain_words.index("(checked with mypy) " + verdict_line(plan)) < plain_words.index("What to change")


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_steps_with_nothing_to_change_are_one_line_after_those_that_must(fmt: str) -> None:
    old = contract("0.5.20", spec_members("0.5.20"), constructor=WITH_PS)
    new = contract("0.5.23", spec_members("0.5.23"))
    plan = build_plan(side(old, result(WORKER, SPEC)), side(new, result(WORKER, SPEC, CTOR_PROBLEM)), [worker()])
    quiet = [s for s in plan.steps if not s.must_change]
    assert plan.steps[0].must_change and len(quiet) == 3
    text = render_plan(plan, fmt)
    words = " ".join(text.split()).replace("\\", "")
    numbered = [line for line in text.splitlines() if line[:1].isdigit()]
    assert len(numbered) == 1 and "constructor" in numbered[0]
    folded = [p for p in text.split("\n\n") if p.startswith("Nothing to change for the other 3 changes")]
    assert len(folded) == 1, text
    for step in quiet:
        assert f"[{step.kind.value}] {step.subject}" in " ".join(folded[0].split()).replace("\\", "")
        assert f"to do: {step.action}" not in words
    # A plugin with nothing to change: the verdict, then one line, nothing numbered.
    passing = build_plan(side(old, result(WORKER, SPEC)), side(new, result(WORKER, SPEC)), [worker()])
    text = render_plan(passing, fmt)
    assert not any(line[:1].isdigit() for line in text.splitlines())
    assert "Nothing to change for the 4 changes between sglang 0.5.20 and 0.5.23" in " ".join(text.split())
    assert len(text.strip().splitlines()) <= 8, text


def test_the_commands_help_teaches_it_with_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["upgrade", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "spec-protocols upgrade --from 0.5.20 --to 0.5.23 my_plugin/" in out
    assert "exit status: 0" in out and "1. constructor" in out


def test_the_same_release_twice_is_one_line_and_exit_2_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["upgrade", "--from", "0.5.23", "--to", "0.5.23", "plugin.py"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "spec-protocols: error: --from and --to are the same (0.5.23): name two releases"


def test_a_hook_no_longer_looked_up_concerns_a_class_that_sets_it_on_self(tmp_path: Path) -> None:
    source = tmp_path / "plugin.py"
    source.write_text(
        "class Worker:\n"
        "    def __init__(self, target_worker):\n"
        "        self.draft_model_runner = target_worker.model_runner\n"
        "        self.other: int = 1\n"
    )
    lookup = Hook(
        "draft_model_runner", "spec_worker", "getattr-default", "None", Site("managers/x.py", "f", 3), classification="guarded"
    )
    old = replace(contract("0.5.20", spec_members("0.5.20")), hooks=(lookup,))
    new = contract("0.5.23", spec_members("0.5.23"))
    cls = DiscoveredClass(
        "plugin", "Worker", source, 1, frozenset({ClassRole.SPEC_WORKER}), bases=(BASE,), overrides=frozenset({"__init__"})
    )
    plan = build_plan(side(old, result(WORKER, SPEC)), side(new, result(WORKER, SPEC)), [cls])
    (hook,) = [s for s in plan.steps if s.kind is StepKind.HOOK]
    assert hook.subject == "SpecWorker hook draft_model_runner" and "no longer looks it up" in hook.change
    assert [(c.target, c.must_change, c.note) for c in hook.classes] == [(WORKER, False, "sets it on self")]


def test_the_commands_format_choices_are_the_renderers() -> None:
    from spec_protocols.gate._cli._upgrade_command import FORMAT_NAMES
    from spec_protocols.gate._upgrade import FORMATS

    assert FORMAT_NAMES == tuple(FORMATS)


def test_a_member_called_otherwise_on_b_is_a_signature_step_and_one_called_alike_is_not() -> None:
    def calls(release: str, *, on_publish: bool) -> Contract:
        base = contract(release, spec_members("0.5.23"))
        keywords = ("on_publish",) if on_publish else ()
        forward = Use("forward_batch_generation", "spec_worker", "call", "required", RUN_BATCH, positional=1, keywords=keywords)
        clear = Use("clear_cache_pool", "spec_worker", "call", "required", RUN_BATCH)
        return replace(base, spec_worker=(*base.spec_worker, forward, clear))

    old, new = calls("0.5.12", on_publish=False), calls("0.5.23", on_publish=True)
    plan = build_plan(side(old, result(WORKER, SPEC)), side(new, result(WORKER, SPEC)), [worker()])
    signatures = [s for s in plan.steps if s.kind is StepKind.SIGNATURE]
    assert [s.subject for s in signatures] == ["SpecWorker.forward_batch_generation"]
    (step,) = signatures
    assert step.change == "0.5.12 calls it with 1 positional argument; 0.5.23 with 1 positional argument, on_publish="
    assert step.expected.startswith("SpecWorker.forward_batch_generation(self, batch: ScheduleBatch, /")
