"""The agreement study: ``verify_conformance`` beside the static checkers on near-misses of ``DraftWorker``.

A helper module, not a test: ``tests/checkers/test_verify_agreement.py`` asserts the
agreement on a small sample, and ``benchmarks/agreement.py`` measures it on a
large one (docs/agreement.md has the method and the figures). What it does:

1. Generates ``n`` class definitions, deterministically from ``seed`` with
   ``random.Random``. Each is a near-miss of :class:`spec_protocols.DraftWorker`:
   every member is kept as the protocol has it or mutated (dropped, property
   <-> method, async, extra required positional or keyword-only parameter,
   renamed / dropped / positional-only keyword, ``*args`` / ``**kwargs``,
   optional extras, static / class method, a setter, a class attribute, a bare
   annotation, a ``functools.cached_property``, an attribute set in
   ``__init__``), and some classes get a ``__getattr__``. Types are loose
   (``object`` parameters, the protocol's own return types), so what differs is
   the *shape*, never the types.
2. Writes all classes into ONE module, together with a checker function per
   class: ``_all: DraftWorker = w`` (the whole protocol) and one line per
   member against a one-member protocol cut from ``DraftWorker``'s own source
   (so a verdict can be compared member by member).
3. Imports that module and runs ``verify_conformance(cls, DraftWorker)`` on
   every class; runs pyright once (and mypy once) on the same file; maps each
   error back to (class, member) by its line.
4. Reports the agreement: per class (runtime ``ok`` == checker has no error on
   the ``_all`` line) and per member.

The checkers run through the gate's own adapters (``invoke_pyright``,
``invoke_mypy``), so the study measures the same invocation the gate makes.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import random
import sys
import tempfile
import textwrap
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from spec_protocols import DraftWorker, verify_conformance  # noqa: E402
from spec_protocols.gate._checkers._mypy import invoke_mypy  # noqa: E402
from spec_protocols.gate._checkers._pyright import invoke_pyright  # noqa: E402

DEFAULT_SEED = 20261129

METHODS = ("alloc_memory_pool", "init_attention_backends", "init_cuda_graphs")
PROPERTIES: dict[str, tuple[str, str]] = {
    # name: (annotation, value)
    "graph_memory_usage": ("dict[str, float]", "{}"),
    "graph_time_usage": ("dict[str, float]", "{}"),
    "weight_load_time": ("float", "0.0"),
    "preloaded_weights_bytes": ("int", "0"),
}
MEMBERS = METHODS + tuple(PROPERTIES)
ALLOC_KEYWORDS = ("memory_pool_config", "req_to_token_pool", "token_to_kv_pool_allocator")

# Mutations of a method member. "drop" and "to_property" are terminal.
METHOD_MUTATIONS_ANY = (
    "drop", "to_property", "async", "staticmethod", "classmethod", "add_req_pos", "add_req_kw",
    "add_opt_pos", "add_opt_kw", "add_varargs", "add_varkw",
)
METHOD_MUTATIONS_ALLOC = ("rename_kw", "posonly_kw", "kw_to_pos", "drop_default", "drop_kw")
# Mutations of a read-only property member: exactly one each.
PROPERTY_MUTATIONS = (
    "drop", "to_method", "settable", "class_attr", "annotation_only", "cached_property", "init_attr",
)

P_ONLY, P_OR_KW, VAR_POS, KW_ONLY, VAR_KW = range(5)


# -- generation -----------------------------------------------------------------


@dataclass
class _Param:
    name: str
    kind: int
    default: bool


@dataclass
class MemberSpec:
    name: str
    mutations: tuple[str, ...]  # () means kept as the protocol has it

    @property
    def label(self) -> str:
        return "+".join(self.mutations) if self.mutations else "keep"


@dataclass
class ClassSpec:
    name: str
    members: tuple[MemberSpec, ...]
    getattr_: bool
    source: str = ""
    # Filled in by evaluate():
    runtime_members: frozenset[str] = frozenset()
    runtime_kinds: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _draw_method(rng: random.Random, name: str) -> tuple[str, ...]:
    if rng.random() < 0.35:
        return ()
    pool = list(METHOD_MUTATIONS_ANY) + (list(METHOD_MUTATIONS_ALLOC) * 2 if name == "alloc_memory_pool" else [])
    first = rng.choice(pool)
    if first in ("drop", "to_property") or rng.random() < 0.45:
        return (first,)
    rest = [m for m in pool if m not in ("drop", "to_property", first)]
    if first == "staticmethod":
        rest.remove("classmethod")
    if first == "classmethod":
        rest.remove("staticmethod")
    second = rng.choice(rest)
    if second in ("staticmethod", "classmethod") and {first, second} == {"staticmethod", "classmethod"}:
        return (first,)
    return tuple(sorted((first, second)))


def _draw_property(rng: random.Random) -> tuple[str, ...]:
    if rng.random() < 0.45:
        return ()
    return (rng.choice(PROPERTY_MUTATIONS),)


def generate(n: int, seed: int = DEFAULT_SEED) -> list[ClassSpec]:
    """``n`` near-misses of DraftWorker, the same ones for the same (n, seed)."""
    rng = random.Random(seed)
    specs: list[ClassSpec] = []
    for i in range(n):
        members = tuple(
            MemberSpec(m, _draw_method(rng, m) if m in METHODS else _draw_property(rng)) for m in MEMBERS
        )
        spec = ClassSpec(f"Gen{i:04d}", members, getattr_=rng.random() < 0.3)
        spec.source = render_class(spec)
        specs.append(spec)
    return specs


def _method_params(member: MemberSpec) -> list[_Param]:
    muts = member.mutations
    params: list[_Param] = []
    if member.name == "alloc_memory_pool":
        params = [_Param(k, KW_ONLY, True) for k in ALLOC_KEYWORDS]
        if "kw_to_pos" in muts:
            for p in params:
                p.kind = P_OR_KW
        if "rename_kw" in muts:
            params[0].name = "memory_pool_cfg"
        if "drop_default" in muts:
            params[1].default = False
        if "drop_kw" in muts:
            params.pop(2)
        if "posonly_kw" in muts:
            params[0].kind = P_ONLY
    if "add_req_pos" in muts:
        has_posonly = any(p.kind == P_ONLY for p in params)
        params.append(_Param("extra_pos", P_ONLY if has_posonly else P_OR_KW, False))
    if "add_opt_pos" in muts:
        params.append(_Param("extra_opt_pos", P_OR_KW, True))
    if "add_varargs" in muts:
        params.append(_Param("args", VAR_POS, False))
    if "add_req_kw" in muts:
        params.append(_Param("extra_kw", KW_ONLY, False))
    if "add_opt_kw" in muts:
        params.append(_Param("extra_opt_kw", KW_ONLY, True))
    if "add_varkw" in muts:
        params.append(_Param("kwargs", VAR_KW, False))
    # Valid order: kinds ascending; among positional ones, required before optional.
    params.sort(key=lambda p: (p.kind, p.kind in (P_ONLY, P_OR_KW) and p.default))
    # add_req_pos joins the positional-only group when there is one, so no
    # required positional parameter ever follows an optional one; check it.
    seen_default = False
    for p in params:
        if p.kind in (P_ONLY, P_OR_KW):
            if p.default:
                seen_default = True
            elif seen_default:
                raise AssertionError(f"unspellable signature for {member}")
    return params


def _render_params(params: list[_Param], self_name: str | None) -> str:
    out: list[str] = [self_name] if self_name else []
    star_written = False
    for i, p in enumerate(params):
        if p.kind == KW_ONLY and not star_written and not any(q.kind == VAR_POS for q in params):
            out.append("*")
            star_written = True
        if p.kind == VAR_POS:
            out.append("*args: object")
        elif p.kind == VAR_KW:
            out.append("**kwargs: object")
        else:
            out.append(f"{p.name}: object" + (" = None" if p.default else ""))
        nxt = params[i + 1] if i + 1 < len(params) else None
        if p.kind == P_ONLY and (nxt is None or nxt.kind != P_ONLY):
            out.append("/")
    return ", ".join(out)


def render_member(member: MemberSpec) -> tuple[list[str], list[str]]:
    """(class-body lines, __init__ body lines) for one member."""
    name, muts = member.name, member.mutations
    if "drop" in muts:
        return [], []
    if name in METHODS:
        if "to_property" in muts:
            return ["@property", f"def {name}(self) -> object:", "    return None"], []
        decorators: list[str] = []
        self_name: str | None = "self"
        if "staticmethod" in muts:
            decorators.append("@staticmethod")
            self_name = None
        elif "classmethod" in muts:
            decorators.append("@classmethod")
            self_name = "cls"
        prefix = "async def" if "async" in muts else "def"
        params = _render_params(_method_params(member), self_name)
        return [*decorators, f"{prefix} {name}({params}) -> None:", "    return None"], []
    annotation, value = PROPERTIES[name]
    mut = muts[0] if muts else "keep"
    if mut == "keep":
        return ["@property", f"def {name}(self) -> {annotation}:", f"    return {value}"], []
    if mut == "to_method":
        return [f"def {name}(self) -> {annotation}:", f"    return {value}"], []
    if mut == "settable":
        return [
            "@property", f"def {name}(self) -> {annotation}:", f"    return {value}",
            f"@{name}.setter", f"def {name}(self, value: {annotation}) -> None:", "    pass",
        ], []
    if mut == "class_attr":
        return [f"{name}: {annotation} = {value}"], []
    if mut == "annotation_only":
        return [f"{name}: {annotation}"], []
    if mut == "cached_property":
        return ["@functools.cached_property", f"def {name}(self) -> {annotation}:", f"    return {value}"], []
    if mut == "init_attr":
        return [], [f"self.{name}: {annotation} = {value}"]
    raise AssertionError(mut)


def render_class(spec: ClassSpec) -> str:
    body: list[str] = [f'"""members: {", ".join(f"{m.name}={m.label}" for m in spec.members)}"""']
    init: list[str] = []
    for member in spec.members:
        lines, init_lines = render_member(member)
        body.extend(lines)
        init.extend(init_lines)
    if init:
        body += ["def __init__(self) -> None:", *(f"    {line}" for line in init)]
    if spec.getattr_:
        body += ["def __getattr__(self, name: str) -> Any:", "    raise AttributeError(name)"]
    return f"class {spec.name}:\n" + textwrap.indent("\n".join(body), "    ") + "\n"


# -- one-member protocols cut from DraftWorker's own source ------------------------


def member_protocols() -> str:
    """Source of ``_DW_<member>``: one protocol per DraftWorker member, cut from _protocols.py.

    Taken from the real source (not retyped), so it follows any change to the protocol.
    """
    path = REPO_ROOT / "spec_protocols" / "_protocols.py"
    source = path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    imports = [ast.get_source_segment(source, node) for node in tree.body if isinstance(node, ast.ImportFrom)]
    out = [seg for seg in imports if seg and "__future__" not in seg]
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "DraftWorker")
    found: list[str] = []
    for node in cls.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        assert node.end_lineno is not None
        member_src = textwrap.dedent("\n".join(lines[start - 1 : node.end_lineno]))
        found.append(node.name)
        out.append(f"class _DW_{node.name}(Protocol):\n" + textwrap.indent(member_src, "    ") + "\n")
    assert tuple(found) == MEMBERS, f"DraftWorker's members changed: {found}"
    return "\n\n".join(out)


# -- the module, and where each verdict lives -------------------------------------

HEADER = '''"""Generated by benchmarks/agreement.py: near-misses of DraftWorker. Do not edit."""
from __future__ import annotations

import functools
from typing import Any

from spec_protocols import DraftWorker
'''


def build_module(specs: list[ClassSpec]) -> tuple[str, dict[int, tuple[str, str]]]:
    """The module text, and {line number: (class name, member or "_all")} for the checker lines."""
    parts = [HEADER, member_protocols(), *[s.source for s in specs]]
    text = "\n\n".join(parts) + "\n\n"
    line = text.count("\n") + 1
    where: dict[int, tuple[str, str]] = {}
    checks: list[str] = []
    for spec in specs:
        checks.append(f"def _check_{spec.name}(w: {spec.name}) -> None:")
        line += 1
        checks.append("    _all: DraftWorker = w")
        where[line] = (spec.name, "_all")
        line += 1
        for member in MEMBERS:
            checks.append(f"    _{member}: _DW_{member} = w")
            where[line] = (spec.name, member)
            line += 1
    text += "\n".join(checks) + "\n"
    # Sanity: the map points at the lines it claims.
    file_lines = text.splitlines()
    for lineno, (_cls, member) in where.items():
        expected = "_all: DraftWorker" if member == "_all" else f"_{member}: _DW_{member}"
        assert expected in file_lines[lineno - 1], (lineno, file_lines[lineno - 1])
    return text, where


# -- running it -----------------------------------------------------------------


@dataclass
class CheckerRun:
    name: str
    failing: dict[str, set[str]]  # class -> members with an error ("_all" for the whole protocol)
    messages: dict[tuple[str, str], str]  # (class, member) -> the full error text on that line
    stray: list[str]  # errors on lines that are not checker lines (generator bugs)
    seconds: float


def run_runtime(specs: list[ClassSpec], module_path: Path) -> float:
    start = time.perf_counter()
    mod_name = f"_agreement_gen_{os.getpid()}_{abs(hash(str(module_path))) % 10**8}"
    spec = importlib.util.spec_from_file_location(mod_name, module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for s in specs:
        result = verify_conformance(getattr(module, s.name), DraftWorker)
        s.runtime_members = frozenset(p.member for p in result.problems)
        kinds: dict[str, list[str]] = {}
        for p in result.problems:
            kinds.setdefault(p.member, []).append(p.kind)
        s.runtime_kinds = {k: tuple(v) for k, v in kinds.items()}
    return time.perf_counter() - start


def _collect(name: str, errors: list[tuple[int, str]], where: dict[int, tuple[str, str]], secs: float) -> CheckerRun:
    failing: dict[str, set[str]] = {}
    messages: dict[tuple[str, str], str] = {}
    stray: list[str] = []
    for line, message in errors:
        if line in where:
            cls, member = where[line]
            failing.setdefault(cls, set()).add(member)
            messages[(cls, member)] = (messages.get((cls, member), "") + "\n" + message).strip()
        else:
            stray.append(f"line {line}: {message.splitlines()[0]}")
    return CheckerRun(name, failing, messages, stray, secs)


def run_pyright(workdir: Path, module_path: Path, where: dict[int, tuple[str, str]]) -> CheckerRun:
    config = {
        "include": [module_path.name],
        "stubPath": str(REPO_ROOT / "stubs"),
        "extraPaths": [str(REPO_ROOT)],
        "pythonVersion": "3.11",
        "typeCheckingMode": "basic",
    }
    (workdir / "pyrightconfig.json").write_text(json.dumps(config))
    run = invoke_pyright(workdir / "pyrightconfig.json", cwd=workdir, timeout=900, extra_args=["--pythonpath", sys.executable])
    return _collect("pyright", [(d.line, d.message) for d in run.errors()], where, run.seconds)


def run_mypy(workdir: Path, module_path: Path, where: dict[int, tuple[str, str]]) -> CheckerRun:
    ini = workdir / "mypy.ini"
    ini.write_text(
        "[mypy]\npython_version = 3.11\n"
        f"mypy_path = {REPO_ROOT / 'stubs'}:{REPO_ROOT}\n"
        "follow_imports = silent\n"
    )
    run = invoke_mypy([module_path], config=ini, cwd=workdir, timeout=900, extra_args=["--no-incremental"])
    errors = [
        (d.line if Path(d.file).name == module_path.name else -1, f"{d.message}  [{d.code}]") for d in run.errors()
    ]
    return _collect("mypy", errors, where, run.seconds)


# -- the comparison -----------------------------------------------------------------


def expected_disagreement(spec: ClassSpec, member: MemberSpec, checker: str) -> str | None:
    """The documented category if runtime and ``checker`` are expected to differ on this member.

    docs/agreement.md explains each category.
    """
    if member.mutations == ("init_attr",):
        # Set in __init__: the checkers see an instance attribute; the runtime
        # check of a *class* reads only the class namespaces.
        return "init-attribute"
    if checker == "pyright" and member.mutations == ("cached_property",):
        # pyright models functools.cached_property as a plain descriptor class,
        # not as a property (microsoft/pyright#4343, "as designed").
        return "pyright-cached-property"
    if checker == "mypy" and spec.getattr_ and "drop" in member.mutations:
        # mypy lets __getattr__ (-> Any) supply a missing protocol member.
        return "getattr-supplies-missing"
    return None


@dataclass
class Comparison:
    checker: str
    classes: int
    class_agree: int
    members: int
    member_agree: int
    # Disagreements by (category or "UNEXPLAINED", member label, runtime says, checker says)
    disagreements: Counter[tuple[str, str, str, str]]
    unexplained: list[str]
    class_agree_no_getattr: tuple[int, int]
    class_agree_getattr: tuple[int, int]
    excluding_known: tuple[int, int]

    def rate(self) -> float:
        return self.class_agree / self.classes if self.classes else 1.0


def compare(specs: list[ClassSpec], run: CheckerRun) -> Comparison:
    class_agree = member_agree = members = 0
    disagreements: Counter[tuple[str, str, str, str]] = Counter()
    unexplained: list[str] = []
    ng = [0, 0]
    g = [0, 0]
    ex = [0, 0]
    for spec in specs:
        checker_failing = run.failing.get(spec.name, set())
        runtime_ok = not spec.runtime_members
        checker_ok = "_all" not in checker_failing
        agree = runtime_ok == checker_ok
        class_agree += agree
        bucket = g if spec.getattr_ else ng
        bucket[0] += agree
        bucket[1] += 1
        # Per-member consistency of the checker itself: _all fails iff some member fails.
        if checker_ok != (not (checker_failing - {"_all"})):
            unexplained.append(f"{spec.name}: {run.name} "
                               f"whole-protocol verdict {checker_ok} but member errors {sorted(checker_failing)}")
        known_here = False
        for member in spec.members:
            members += 1
            rt_bad = member.name in spec.runtime_members
            ck_bad = member.name in checker_failing
            expected = expected_disagreement(spec, member, run.name)
            if rt_bad == ck_bad:
                member_agree += 1
                if expected is not None:
                    unexplained.append(f"{spec.name}.{member.name} ({member.label}, getattr={spec.getattr_}): "
                                       f"expected '{expected}' disagreement, but both say {'error' if rt_bad else 'ok'}")
                continue
            known_here = known_here or expected is not None
            category = expected or "UNEXPLAINED"
            disagreements[(category, f"{member.name}={member.label}" + (" +__getattr__" if spec.getattr_ else ""),
                           "error" if rt_bad else "ok", "error" if ck_bad else "ok")] += 1
            if expected is None:
                unexplained.append(
                    f"{spec.name}.{member.name} ({member.label}, getattr={spec.getattr_}): runtime "
                    f"{spec.runtime_kinds.get(member.name, 'ok')}, {run.name} {'error' if ck_bad else 'ok'}"
                )
        if not known_here:
            ex[0] += agree
            ex[1] += 1
    return Comparison(run.name, len(specs), class_agree, members, member_agree, disagreements, unexplained,
                      (ng[0], ng[1]), (g[0], g[1]), (ex[0], ex[1]))


def evaluate(n: int, seed: int = DEFAULT_SEED, *, mypy: bool = True, keep: Path | None = None) -> dict[str, Any]:
    """Generate, check with all three, compare. Returns a JSON-able summary (plus the raw objects)."""
    specs = generate(n, seed)
    text, where = build_module(specs)
    with tempfile.TemporaryDirectory(prefix="agreement-") as tmp:
        workdir = Path(tmp)
        module_path = workdir / "agreement_generated.py"
        module_path.write_text(text)
        if keep is not None:
            keep.write_text(text)
        runtime_secs = run_runtime(specs, module_path)
        runs = [run_pyright(workdir, module_path, where)]
        if mypy:
            runs.append(run_mypy(workdir, module_path, where))
    comparisons = [compare(specs, run) for run in runs]
    summary: dict[str, Any] = {
        "n": n,
        "seed": seed,
        "classes_with_getattr": sum(s.getattr_ for s in specs),
        "runtime_ok": sum(not s.runtime_members for s in specs),
        "runtime_seconds": round(runtime_secs, 3),
        "checkers": {},
    }
    for run, comp in zip(runs, comparisons):
        summary["checkers"][run.name] = {
            "seconds": round(run.seconds, 1),
            "checker_ok": sum("_all" not in run.failing.get(s.name, set()) for s in specs),
            "class_agreement": [comp.class_agree, comp.classes],
            "class_agreement_rate": round(comp.rate(), 4),
            "class_agreement_without_getattr": list(comp.class_agree_no_getattr),
            "class_agreement_with_getattr": list(comp.class_agree_getattr),
            "class_agreement_excluding_known_categories": list(comp.excluding_known),
            "member_agreement": [comp.member_agree, comp.members],
            "member_agreement_rate": round(comp.member_agree / comp.members, 4),
            "disagreements": [
                {"category": c, "member": m, "runtime": r, "checker": k, "count": cnt}
                for (c, m, r, k), cnt in sorted(comp.disagreements.items())
            ],
            "unexplained": comp.unexplained,
            "stray_errors": run.stray,
        }
    summary["_specs"] = specs
    summary["_runs"] = runs
    summary["_comparisons"] = comparisons
    return summary
