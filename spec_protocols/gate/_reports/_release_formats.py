"""The JSON, GitHub and JUnit forms of a run over several sglang releases (the registry: ``_reports.FORMATS``).

* ``text``, ``markdown``: the class x release table
  (:mod:`spec_protocols.gate._reports._release_table`).
* ``json``: the single-release document, with every release's results in
  one ``results`` list, each carrying ``"sglang"`` (the release it was
  checked against: ``{"release", "origin", "path", "pin"}``, the object a
  single run's top-level ``"sglang"`` is); the top-level ``"sglang"`` is the
  list of those objects, in the order given; ``summary`` counts every
  release's results; ``notes`` are the run's, each once
  (:func:`~spec_protocols.gate._reports._release_matrix.release_notes`);
  ``timings`` (when kept) are the whole run's ``total`` and each release's
  own total, under its column label.
* ``github``: each release's ``::error`` annotations, their titles ending in
  `` [sglang RELEASE]``, then the notes and the summary.
* ``junit``: one ``<testsuite>`` per release (``spec-protocols [sglang
  RELEASE]``, with that release's properties and notes), each
  ``<testcase>`` named ``PROTOCOL [sglang RELEASE]``.

Results keep the canonical order (target, protocol), then the releases in
the order given; the output is deterministic as a single run's is.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from spec_protocols.gate._model import Verdict
from spec_protocols.gate._reports._github import error_commands, notice_command
from spec_protocols.gate._reports._json import JSON_VERSION, results_json
from spec_protocols.gate._reports._junit import SUITE_NAME, add_testcase, xml_safe
from spec_protocols.gate._reports._order import sorted_results
from spec_protocols.gate._reports._phrasing import summary_line, total_seconds
from spec_protocols.gate._reports._release_matrix import ReleasesReport, release_notes, releases_summary_line

__all__ = ["render_releases_github", "render_releases_json", "render_releases_junit"]


def _sglang_object(report: ReleasesReport, index: int) -> dict[str, Any] | None:
    checked = report.runs[index].report.sglang
    if checked is None:
        return None
    return {"release": checked.release, "origin": checked.origin, "path": checked.path, "pin": checked.pin}


def render_releases_json(report: ReleasesReport, *, include_timings: bool = True) -> str:
    """The JSON document of a run over several releases (see the module docstring)."""
    tagged = [(item, n) for n, run in enumerate(report.runs) for item in results_json(run.report, with_sglang=True)]
    tagged.sort(key=lambda pair: (pair[0]["target"], pair[0]["protocol"], pair[1]))
    document: dict[str, Any] = {
        "version": JSON_VERSION,
        "results": [item for item, _ in tagged],
        "summary": report.summary(),
        "checkers": report.checkers,
        "checker_versions": report.checker_versions,
        "sglang": [_sglang_object(report, n) for n in range(len(report.runs))],
        "targets": list(report.targets),
        "notes": release_notes(report),
    }
    if include_timings:
        timings = {label: total_seconds(run.report.timings) or 0.0 for label, run in zip(report.labels, report.runs, strict=True)}
        timings.update(report.timings)
        document["timings"] = {k: round(timings[k], 3) for k in sorted(timings)}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render_releases_github(report: ReleasesReport, *, include_timings: bool = True) -> str:
    """Each release's annotations, the release in every title, then the notes and the summary."""
    lines: list[str] = []
    for label, run in zip(report.labels, report.runs, strict=True):
        lines += error_commands(run.report, release=label)
    lines += [notice_command("spec-protocols note", note) for note in release_notes(report)]
    lines.append(notice_command("spec-protocols", releases_summary_line(report, include_timings=include_timings)))
    return "\n".join(lines) + "\n"


def render_releases_junit(report: ReleasesReport, *, include_timings: bool = True) -> str:
    """One ``<testsuite>`` per release in one ``<testsuites>``, each case named with its release."""
    counts = report.summary()
    root = ET.Element(
        "testsuites",
        {"name": SUITE_NAME, "tests": str(counts["total"]), "failures": str(counts["fail"] + counts["unverified"])},
    )
    if include_timings and "total" in report.timings:
        root.set("time", f"{report.timings['total']:.3f}")
    for label, run in zip(report.labels, report.runs, strict=True):
        results = sorted_results(run.report)
        failures = sum(r.verdict in (Verdict.FAIL, Verdict.UNVERIFIED) for r in results)
        attrib = {"name": f"{SUITE_NAME} [sglang {label}]", "tests": str(len(results)), "failures": str(failures)}
        attrib |= {"errors": "0", "skipped": "0"}
        seconds = total_seconds(run.report.timings) if include_timings else None
        if seconds is not None:
            attrib["time"] = f"{seconds:.3f}"
        suite = ET.SubElement(root, "testsuite", attrib)
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="checkers", value=",".join(run.report.checkers))
        if run.report.sglang is not None:
            ET.SubElement(properties, "property", name="sglang", value=xml_safe(run.report.sglang.describe()))
        ET.SubElement(properties, "property", name="summary", value=summary_line(run.report, include_timings=False))
        for result in results:
            add_testcase(suite, result, release=label, lead=run.report.lead)
        if run.report.notes:
            ET.SubElement(suite, "system-out").text = xml_safe("\n".join(f"note: {n}" for n in run.report.notes))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
