"""The checkers stage has one interface and one registry, which everything uses."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from spec_protocols.gate._checkers import CHECKER_NAMES, CHECKERS, CheckerName, checker_versions, default_names
from spec_protocols.gate._model import Check, GateReport, Result, Verdict
from spec_protocols.gate._reports import render


def test_registry_matches_the_vocabulary_in_report_order() -> None:
    assert tuple(CHECKERS) == CHECKER_NAMES == tuple(name.value for name in CheckerName)
    assert all(CHECKERS[name].name == name for name in CHECKERS)


def test_the_defaults_are_the_four_trusted_checkers_and_ty_is_chosen_by_name_only() -> None:
    assert default_names() == ("runtime", "replay", "mypy", "pyright")
    assert "ty" in CHECKER_NAMES and "ty" not in default_names()


def test_only_the_runtime_and_replay_checkers_import_and_only_the_static_ones_read_the_harness() -> None:
    assert [n for n, c in CHECKERS.items() if c.imports_target] == ["runtime", "replay"]
    assert [n for n, c in CHECKERS.items() if c.reads_harness] == ["mypy", "pyright", "ty"]
    # A static checker has a dialect; one that reads no harness has none.
    assert all((c.dialect is not None) == c.reads_harness for c in CHECKERS.values())


def test_whose_words_lead_is_each_checkers_own_rank() -> None:
    assert sorted(CHECKER_NAMES, key=lambda n: CHECKERS[n].rank) == ["pyright", "mypy", "runtime", "replay", "ty"]


def test_each_checker_reports_its_version() -> None:
    versions = checker_versions()
    assert set(versions) == set(default_names())
    # The pinned checkers report the pins (pyproject.toml's checkers extra).
    assert re.fullmatch(r"\d+\.\d+\.\d+", versions["mypy"])
    assert re.fullmatch(r"1\.1\.\d+", versions["pyright"])
    assert versions["runtime"].startswith(__import__("spec_protocols").__version__)


def test_json_and_junit_record_each_checkers_version() -> None:
    result = Result(Check("m.W", "SpecWorker"), Verdict.PASS, {"mypy": Verdict.PASS}, ())
    report = GateReport((result,), ("mypy",), {}, checker_versions={"mypy": "2.4.1"})
    assert '"checker_versions": {\n    "mypy": "2.4.1"\n  }' in render(report, "json", include_timings=False)
    root = ET.fromstring(render(report, "junit", include_timings=False))
    properties = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert properties["version.mypy"] == "2.4.1"
