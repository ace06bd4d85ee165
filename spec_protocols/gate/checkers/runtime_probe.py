"""Subprocess side of the runtime checker. Reads a JSON request on stdin and
prints one JSON line: a verdict per (class, protocol).

Not an API; run by :mod:`spec_protocols.gate.checkers.runtime`.
"""

from __future__ import annotations

import importlib
import io
import json
import sys
from contextlib import redirect_stdout
from typing import Any


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def main() -> None:
    request = json.loads(sys.stdin.read())
    for root in reversed(request["search_roots"]):
        if root not in sys.path:
            sys.path.insert(0, root)
    from spec_protocols import DraftWorker, SpecWorker, verify_conformance
    from spec_protocols._injection import draft_worker_cls_problems

    protocols: dict[str, Any] = {"SpecWorker": SpecWorker, "DraftWorker": DraftWorker}
    results: list[dict[str, Any]] = []
    import_errors: dict[str, str] = {}
    for item in request["classes"]:
        module_name = item["module"]
        entry = {"target": item["target"]}
        obj: Any = None
        if module_name not in import_errors:
            try:
                # Target code may print; keep stdout for our one JSON line.
                with redirect_stdout(io.StringIO()):
                    obj = importlib.import_module(module_name)
                for part in item["qualname"].split("."):
                    obj = getattr(obj, part)
            except BaseException as exc:  # noqa: BLE001 - any import failure is a 'skipped'
                if isinstance(exc, KeyboardInterrupt):
                    raise
                import_errors[module_name] = _one_line(exc)
        for protocol in item["protocols"]:
            if module_name in import_errors:
                results.append({**entry, "protocol": protocol, "verdict": "skipped", "problems": [],
                                "note": f"cannot import {module_name}: {import_errors[module_name]}"})
                continue
            problems: list[dict[str, Any]] = []
            if protocol == "DraftWorkerFactory":
                found, notes = draft_worker_cls_problems(obj)
                if found:
                    # Notes (the constructor's signature) follow the problems,
                    # as in validate_draft_worker_cls's message.
                    lines = [*found, *(f"({note})" for note in notes)]
                    problems = [{"member": None, "message": line} for line in lines]
            else:
                result = verify_conformance(obj, protocols[protocol])
                problems = [{"member": p.member, "message": f"[{p.kind}] {p.message}"} for p in result.problems]
            results.append({**entry, "protocol": protocol, "verdict": "fail" if problems else "pass", "problems": problems})
    print(json.dumps({"results": results}))


if __name__ == "__main__":
    main()
