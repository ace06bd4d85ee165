"""The stored-data codec beside maintained libraries, on real cache entries, in one run.

    .venv/bin/python benchmarks/bench_codec.py [--entries DIR] [--json FILE]

The entries are those a real run stores: ``spec-protocols check
sglang.srt.speculative`` (all three checkers) with the verdict cache on, in
a temporary ``SPEC_PROTOCOLS_CACHE_DIR`` (about 20-45 s), unless ``--entries``
names a ``verdicts/entries`` folder written by this version. Each document
is one entry's body: the runtime, mypy and pyright outcomes, the contract
and the discovery of sglang 0.5.23 (the five values a warm cached run reads).

Candidates, each reading the same JSON bytes into the gate's own frozen
values and writing them back to JSON bytes:

* ``ours``: ``spec_protocols.gate._codec`` (``json`` + ``decode``/``encode``);
* ``msgspec`` (``msgspec.json.decode(..., type=T)``; a Path hook);
* ``pydantic`` (``TypeAdapter(T).validate_json`` / ``dump_json``);
* ``cattrs`` (its JSON converter's ``loads``/``dumps``; hooks for
  Path and for mappings with non-str keys), if it is importable (it is not
  in this project's environments: ``pip install --target DIR cattrs`` and
  put DIR on PYTHONPATH).

``Mapping[Check, ...]`` (``CheckerOutcome``'s three fields) is a JSON list
of ``[key, value]`` pairs, since a JSON object's keys are strings: cattrs
takes a hook for it; msgspec and pydantic cannot read such a mapping, so
they read a mirror of ``CheckerOutcome`` whose mappings are lists of pairs
(made here from its hints) and the dicts are built after. Every candidate's
value is checked equal to ours. Figures are the best of 7 repeats, in
microseconds per document; the ratio is the candidate's time over ours
(below 1: faster). The last row is what a warm gate run (a new process each
time) pays: a fresh interpreter, the gate already imported, importing the
library, building its readers for the three types and decoding the five
documents once (best of 5). Nothing here is asserted by a test.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
import timeit
import typing
from collections.abc import Callable, Mapping
from pathlib import Path, PurePath
from typing import Any

from spec_protocols.gate._codec import decode, encode
from spec_protocols.gate._contract import Contract
from spec_protocols.gate._model import CheckerOutcome, Discovery

ROOT = Path(__file__).resolve().parent.parent
SPEC_PROTOCOLS = Path(sys.executable).parent / "spec-protocols"


def real_entries(folder: Path | None) -> dict[str, tuple[type[Any], bytes]]:
    """Name -> (type, the JSON bytes of the stored value), from a real cached run."""
    with tempfile.TemporaryDirectory(prefix="bench-codec-") as tmp:
        if folder is None:
            env = {k: v for k, v in os.environ.items() if k != "SPEC_PROTOCOLS_NO_CACHE"}
            env["SPEC_PROTOCOLS_CACHE_DIR"] = tmp
            run = subprocess.run(
                [str(SPEC_PROTOCOLS), "check", "sglang.srt.speculative", "--format", "json"],
                env=env, cwd=ROOT, capture_output=True, text=True, check=False,
            )
            if run.returncode not in (0, 1):
                raise SystemExit(f"the gate failed ({run.returncode}): {run.stderr.strip()[-500:]}")
            folder = Path(tmp) / "verdicts" / "entries"
        found: dict[str, tuple[type[Any], bytes]] = {}
        for file in sorted(folder.glob("*/*.json")):
            entry = json.loads(file.read_text(encoding="utf-8"))
            if "outcome" in entry:
                found[f"outcome ({entry['checker']})"] = (CheckerOutcome, json.dumps(entry["outcome"]).encode())
            elif entry.get("stage") == "contract":
                found["contract"] = (Contract, json.dumps(entry["value"]).encode())
            elif entry.get("stage") == "discovery":
                found["discovery"] = (Discovery, json.dumps(entry["value"]).encode())
    return dict(sorted(found.items(), key=lambda item: (len(item[1][1]), item[0])))


# -- mirrors for libraries that cannot read a mapping with non-str keys ----------


def _pair_mapping(tp: object) -> bool:
    return typing.get_origin(tp) in (Mapping, dict) and typing.get_args(tp)[:1] != (str,)


def mirror(tp: type[Any]) -> tuple[type[Any], Callable[[Any], Any], Callable[[Any], Any]]:
    """``tp``, or a dataclass like it whose non-str-keyed mappings are lists of
    pairs; and the conversions (value -> mirror, mirror -> value)."""
    hints = typing.get_type_hints(tp)
    pairs = {f.name for f in dataclasses.fields(tp) if _pair_mapping(hints[f.name])}
    if not pairs:
        return tp, lambda v: v, lambda v: v
    fields: list[Any] = []
    for f in dataclasses.fields(tp):
        hint = hints[f.name]
        factory: Any = f.default_factory
        if f.name in pairs:
            key, value = typing.get_args(hint)
            hint = list[tuple[key, value]]  # type: ignore[valid-type]
            factory = list if factory is not dataclasses.MISSING else factory
        if f.default is not dataclasses.MISSING:
            fields.append((f.name, hint, f.default))
        elif factory is not dataclasses.MISSING:
            fields.append((f.name, hint, dataclasses.field(default_factory=factory)))
        else:
            fields.append((f.name, hint))
    wire = dataclasses.make_dataclass(f"{tp.__name__}Wire", fields, frozen=True)
    names = [f.name for f in dataclasses.fields(tp)]

    def to_wire(value: Any) -> Any:
        return wire(**{n: list(getattr(value, n).items()) if n in pairs else getattr(value, n) for n in names})

    def from_wire(value: Any) -> Any:
        return tp(**{n: dict(getattr(value, n)) if n in pairs else getattr(value, n) for n in names})

    return wire, to_wire, from_wire


# -- candidates -----------------------------------------------------------------

Codec = tuple[Callable[[bytes], Any], Callable[[Any], bytes]]


def ours(tp: type[Any]) -> Codec:
    return (lambda data: decode(tp, json.loads(data))), (lambda value: json.dumps(encode(value)).encode())


def with_msgspec(tp: type[Any]) -> Codec:
    import msgspec

    def dec_hook(kind: Any, obj: Any) -> Any:
        if isinstance(kind, type) and issubclass(kind, PurePath):
            return kind(obj)
        raise NotImplementedError(kind)

    def enc_hook(obj: Any) -> Any:
        if isinstance(obj, PurePath):
            return str(obj)
        raise NotImplementedError(type(obj))

    wire, to_wire, from_wire = mirror(tp)
    decoder = msgspec.json.Decoder(wire, dec_hook=dec_hook)
    encoder = msgspec.json.Encoder(enc_hook=enc_hook)
    return (lambda data: from_wire(decoder.decode(data))), (lambda value: encoder.encode(to_wire(value)))


def with_pydantic(tp: type[Any]) -> Codec:
    import pydantic

    wire, to_wire, from_wire = mirror(tp)
    adapter = pydantic.TypeAdapter(wire)
    return (lambda data: from_wire(adapter.validate_json(data))), (lambda value: adapter.dump_json(to_wire(value)))


def with_cattrs(tp: type[Any]) -> Codec:
    from cattrs.preconf.json import make_converter  # type: ignore[import-not-found, unused-ignore]

    converter = make_converter()  # sets as lists, as JSON needs
    converter.register_structure_hook(Path, lambda data, kind: kind(data))
    converter.register_unstructure_hook(Path, str)

    def structure_pairs(kind: Any) -> Callable[[Any, Any], Any]:
        key, value = typing.get_args(kind)
        return lambda data, _: {converter.structure(k, key): converter.structure(v, value) for k, v in data}

    def unstructure_pairs(kind: Any) -> Callable[[Any], Any]:
        key, value = typing.get_args(kind)
        return lambda m: [[converter.unstructure(k, key), converter.unstructure(v, value)] for k, v in m.items()]

    converter.register_structure_hook_factory(_pair_mapping, structure_pairs)
    converter.register_unstructure_hook_factory(_pair_mapping, unstructure_pairs)
    return (
        (lambda data: converter.loads(data, tp)),
        (lambda value: converter.dumps(value, tp).encode()),
    )


CANDIDATES: dict[str, tuple[str, Callable[[type[Any]], Codec]]] = {
    "ours": ("", ours),
    "msgspec": ("msgspec", with_msgspec),
    "pydantic": ("pydantic", with_pydantic),
    "cattrs": ("cattrs", with_cattrs),
}


def best(run: Callable[[], object]) -> float:
    """Microseconds per call, best of 7 repeats."""
    number, _ = timeit.Timer(run).autorange()
    return min(timeit.repeat(run, number=number, repeat=7)) / number * 1e6


def cold_ms(name: str, folder: Path) -> float:
    """A fresh interpreter (the gate imported) reading the five documents in
    ``folder`` once with candidate ``name``: its import, building its readers,
    decoding; best of 5. What a warm gate run, a new process each time, pays."""
    code = (
        "import sys; sys.path.insert(0, %r); import bench_codec; "
        "print(bench_codec.cold_once(%r, bench_codec.Path(%r)))" % (str(Path(__file__).parent), name, str(folder))
    )
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout for _ in range(5)]
    return min(float(out) for out in runs) * 1e3


def cold_once(name: str, folder: Path) -> float:
    documents = [(KINDS[file.name.split("-")[1]], file.read_bytes()) for file in sorted(folder.iterdir())]
    start = time.perf_counter()
    module, make = CANDIDATES[name]
    if module:
        importlib.import_module(module)
    for tp, data in documents:
        make(tp)[0](data)
    return time.perf_counter() - start


KINDS: dict[str, type[Any]] = {"outcome": CheckerOutcome, "contract": Contract, "discovery": Discovery}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=Path, help="a verdicts/entries folder to read instead of running the gate")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    documents = real_entries(args.entries)
    available = {}
    for name, (module, make) in CANDIDATES.items():
        try:
            if module:
                importlib.import_module(module)
            available[name] = (module, make)
        except ImportError:
            print(f"{name}: not importable, left out")
    figures: dict[str, dict[str, list[float]]] = {}
    for doc, (tp, data) in documents.items():
        reference = decode(tp, json.loads(data))
        for name, (_, make) in available.items():
            read, write = make(tp)
            value = read(data)
            if value != reference or read(write(value)) != reference:
                raise SystemExit(f"{name} does not read the {doc} back as ours does")
            figures.setdefault(doc, {})[name] = [best(lambda: read(data)), best(lambda: write(value))]
    totals = {name: [sum(figures[d][name][i] for d in figures) for i in (0, 1)] for name in available}
    with tempfile.TemporaryDirectory(prefix="bench-codec-cold-") as tmp:
        for index, (doc, (tp, data)) in enumerate(documents.items()):
            kind = next(k for k, t in KINDS.items() if t is tp)
            (Path(tmp) / f"{index}-{kind}-.json").write_bytes(data)
        colds = {name: cold_ms(name, Path(tmp)) for name in available}
    names = list(available)
    print(f"\ndocuments: {', '.join(f'{d} {len(documents[d][1]) / 1000:.1f} KB' for d in documents)}")
    print("us per document, decode / encode; ratio = candidate / ours (decode, encode)\n")
    print("| document | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    rows = [*figures.items(), ("all five (a warm run reads them)", totals)]
    for doc, by_name in rows:
        base = by_name["ours"]
        cells = [
            f"{d:,.0f} / {e:,.0f}" + ("" if n == "ours" else f" ({d / base[0]:.2f}x / {e / base[1]:.2f}x)")
            for n in names
            for d, e in [by_name[n]]
        ]
        print(f"| {doc} | " + " | ".join(cells) + " |")
    fresh = colds["ours"]
    print(
        "| the five in a fresh interpreter (import, build, decode), ms | "
        + " | ".join(f"{colds[n]:.1f}" + ("" if n == "ours" else f" ({colds[n] / fresh:.2f}x)") for n in names)
        + " |"
    )
    if args.json:
        versions = {n: getattr(importlib.import_module(m), "__version__", "?") for n, (m, _) in available.items() if m}
        args.json.write_text(json.dumps({"figures": figures, "totals": totals, "fresh_interpreter_ms": colds, "versions": versions}, indent=2))


if __name__ == "__main__":
    main()
