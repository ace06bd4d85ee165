"""The ``--format junit`` report: JUnit XML for CI test-result views.

    <testsuites name="spec-protocols" tests=".." failures="..">
      <testsuite name="spec-protocols" tests=".." failures=".." errors="0" skipped="0">
        <testcase classname="pkg.mod.Cls" name="SpecWorker">
          <failure type="fail" message="mypy: step: ...">every problem, one a line</failure>
          <system-out>runtime: skipped</system-out>
        </testcase>
      </testsuite>
    </testsuites>

One ``<testcase>`` per (class, protocol): ``classname`` is the class's dotted
path and ``name`` the protocol, so CI groups the cases by module; ``file`` and
``line`` (the attributes pytest writes, which GitLab and the test-report
actions read) are where its leading problem's member is defined. A ``fail``
gets ``<failure type="fail">``; an ``unverified`` gets
``<failure type="unverified">``, as a failure and not ``<skipped>``, because
unverified fails the gate and CI must show it red. A skipped checker is noted
in ``<system-out>``: the case still has a verdict from the other checkers.

The root is ``<testsuites>`` holding the one ``<testsuite>``, the shape that
Jenkins, GitLab and the GitHub test-report actions all read.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from spec_protocols.gate._model import GateReport, Problem, Result, Verdict
from spec_protocols.gate._reports._order import lead_problem, ordered_checkers, sorted_problems, sorted_results
from spec_protocols.gate._reports._phrasing import summary_line, total_seconds

__all__ = ["add_testcase", "render_junit", "xml_safe"]

SUITE_NAME = "spec-protocols"

# Characters XML 1.0 cannot hold, even escaped. ElementTree writes them as
# they are, and the file then fails to parse; a checker message quoting a
# control character must not break the whole report.
_XML_INVALID = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    """*text* with every character that XML 1.0 forbids replaced by U+FFFD."""
    return _XML_INVALID.sub("\ufffd", text)


def _describe(problem: Problem) -> str:
    where = ""
    if problem.file:
        where = f" ({problem.file}:{problem.line})" if problem.line is not None else f" ({problem.file})"
    member = f"{problem.member}: " if problem.member else ""
    return f"{problem.checker}: {member}{problem.message}{where}"


def add_testcase(suite: ET.Element, result: Result, *, release: str | None = None, lead: tuple[str, ...] = ()) -> None:
    """*result*'s ``<testcase>`` in *suite*; ``release`` (a run over several
    releases) ends its name with `` [sglang RELEASE]``; ``lead``: the
    report's checkers in the order their words lead."""
    name = result.check.protocol if release is None else f"{result.check.protocol} [sglang {release}]"
    case = ET.SubElement(
        suite,
        "testcase",
        classname=xml_safe(result.check.target),
        name=xml_safe(name),
    )
    problems = sorted_problems(result.problems)
    lead_one = lead_problem(problems, lead)
    if result.verdict in (Verdict.FAIL, Verdict.UNVERIFIED) and lead_one is not None and lead_one.file:
        case.set("file", xml_safe(lead_one.file))
        if lead_one.line is not None:
            case.set("line", str(lead_one.line))
    if result.verdict in (Verdict.FAIL, Verdict.UNVERIFIED):
        # The message is the problem a reader acts on first, as the text
        # report shows it; the body lists them all.
        first = " ".join(_describe(lead_one).split()) if lead_one is not None else result.verdict.value
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        failure = ET.SubElement(
            case, "failure", type=result.verdict.value, message=xml_safe(first + more)
        )
        failure.text = xml_safe("\n".join(_describe(p) for p in problems) or result.verdict.value)
    notes = [
        f"{name}: {result.checkers[name].value}"
        for name in ordered_checkers(result.checkers)
        if result.checkers[name] is Verdict.SKIPPED
    ]
    notes += [f"note: {note}" for note in result.notes]
    notes += [f"baselined: {_describe(p)}" for p in sorted_problems(result.baselined)]
    if notes:
        ET.SubElement(case, "system-out").text = xml_safe("\n".join(notes))


def render_junit(report: GateReport, *, include_timings: bool = True) -> str:
    """Render *report* as a JUnit XML document (UTF-8, with declaration).

    ``tests`` counts results, ``failures`` counts ``fail`` plus ``unverified``
    results; ``errors`` and ``skipped`` are always 0 (a gate error exits 2
    without a report, and no result is ever skipped as a whole). With
    timings, the suite's ``time`` is the run's total.
    """
    results = sorted_results(report)
    counts = {
        "tests": str(len(results)),
        "failures": str(sum(r.verdict in (Verdict.FAIL, Verdict.UNVERIFIED) for r in results)),
        "errors": "0",
        "skipped": "0",
    }
    seconds = total_seconds(report.timings) if include_timings else None
    attrib = {"name": SUITE_NAME, **counts}
    if seconds is not None:
        attrib["time"] = f"{seconds:.3f}"
    root = ET.Element("testsuites", attrib)
    suite = ET.SubElement(root, "testsuite", attrib)
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(
        properties, "property", name="checkers", value=",".join(ordered_checkers(report.checkers))
    )
    for name in ordered_checkers(report.checker_versions):
        ET.SubElement(properties, "property", name=f"version.{name}", value=xml_safe(report.checker_versions[name]))
    if report.sglang is not None:
        ET.SubElement(properties, "property", name="sglang", value=xml_safe(report.sglang.describe()))
    ET.SubElement(
        properties, "property", name="summary", value=summary_line(report, include_timings=False)
    )
    for result in results:
        add_testcase(suite, result, lead=report.lead)
    if report.notes:
        ET.SubElement(suite, "system-out").text = xml_safe("\n".join(f"note: {n}" for n in report.notes))
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
