"""Reader: what sglang calls on the algorithm object, and what its default for plugins defines.

``SpeculativeAlgorithm.from_string(name)`` hands its callers either a member
of the enum ``SpeculativeAlgorithm`` or, for a plugin, the object
``register`` made (an instance of the registration's ``spec_class``,
``CustomSpecAlgo`` by default); callers dispatch on it without an
``isinstance`` check (speculative/spec_info.py). So the algorithm object's
contract is the enum's interface as sglang uses it:

* **The vocabulary is the enum's.** The members are the enum's public
  instance methods (not ``from_string``/``register``, which are class
  methods); nothing is listed by hand.
* **A use is a call (or a read passed on as a callback) of one of those
  names** anywhere in ``sglang/srt``, outside the enum's and
  ``CustomSpecAlgo``'s own bodies (their calls on ``self`` are the
  definitions, not uses). Receivers are not named by hand either
  (``self.spec_algorithm``, ``self.spec_algo``, ``model_runner.spec_algorithm``,
  ``SpeculativeAlgorithm.from_string(...)``): a name that no other class of
  the release defines is the algorithm's wherever it is called; a name
  another class also defines (``is_none``: an enum of the MoE layers) counts
  only on a receiver that an unambiguous use already shows to be the
  algorithm object.
* **The default's members** are those ``CustomSpecAlgo`` defines (methods and
  the attributes its ``__init__`` sets): a plugin registered without a
  ``spec_class`` gets exactly these.

A regular expression over each file's text is the cheap filter before a
parse: most files call none of these names.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from spec_protocols.gate._contract._extract._syntax import functions
from spec_protocols.gate._contract._extract._tree import Module, ReleaseTree, find_class
from spec_protocols.gate._contract._release_contract import AlgorithmObject, Site, Use

__all__ = ["algorithm_object"]

#: The enum of built-in algorithms, whose interface the algorithm object duck-types.
_ENUM = "SpeculativeAlgorithm"
#: The class a plugin's algorithm object is, by default (spec_registry.py).
_DEFAULT = "CustomSpecAlgo"
#: How a use's receiver is named in the contract (and in the exclusion table).
RECEIVER = "spec_algorithm"


def algorithm_object(tree: ReleaseTree) -> AlgorithmObject | None:
    """The algorithm object's uses in the release, and the default's members;
    ``None`` for a release without a plugin registry (no ``CustomSpecAlgo``)."""
    enum = find_class(tree, "spec_info.py", _ENUM)
    default = find_class(tree, "spec_registry.py", _DEFAULT)
    if enum is None or default is None:
        return None
    vocabulary = _instance_methods(enum[1])
    if not vocabulary:
        return None
    owners = {(enum[0].rel, enum[1].name), (default[0].rel, default[1].name)}
    candidates = list(_candidates(tree, vocabulary))
    ambiguous = _defined_elsewhere(candidates, vocabulary, owners)
    raw = [hit for module in candidates for hit in _hits(module, vocabulary, owners)]
    # Receivers an unambiguous name shows to be the algorithm object.
    known = {receiver for receiver, use in raw if use.member not in ambiguous}
    uses = tuple(
        sorted(
            {use for receiver, use in raw if use.member not in ambiguous or receiver in known},
            key=lambda u: (u.member, u.site),
        )
    )
    module, cls = default
    defines = sorted({*_instance_methods(cls), *_init_attributes(cls)})
    return AlgorithmObject(
        members=tuple(vocabulary),
        uses=uses,
        default_members=tuple(defines),
        default_site=Site(module.rel, cls.name, cls.lineno),
    )


def _instance_methods(cls: ast.ClassDef) -> list[str]:
    """The public methods of ``cls`` that an instance is called with (no class or static methods)."""
    found: list[str] = []
    for func in functions(cls.body):
        wrapped = {d.id for d in func.decorator_list if isinstance(d, ast.Name)}
        if func.name.startswith("_") or wrapped & {"classmethod", "staticmethod"}:
            continue
        found.append(func.name)
    return found


def _init_attributes(cls: ast.ClassDef) -> set[str]:
    """The attributes ``cls.__init__`` sets on ``self`` (``self.factory = factory``)."""
    init = next((f for f in functions(cls.body) if f.name == "__init__"), None)
    if init is None:
        return set()
    return {
        target.attr
        for node in ast.walk(init)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
    }


def _candidates(tree: ReleaseTree, vocabulary: list[str]) -> Iterator[Module]:
    """The modules of ``sglang/srt`` whose text names one of the members."""
    pattern = re.compile(r"(?:\bdef |\.)(?:" + "|".join(map(re.escape, vocabulary)) + r")\b")
    return tree.modules_among(sorted(tree.srt.rglob("*.py")), pattern, containing=vocabulary)


def _defined_elsewhere(modules: list[Module], vocabulary: list[str], owners: set[tuple[str, str]]) -> frozenset[str]:
    """The members that some other class of the release defines too."""
    names = set(vocabulary)
    found: set[str] = set()
    for module in modules:
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ClassDef) and (module.rel, node.name) not in owners:
                found.update(f.name for f in functions(node.body) if f.name in names)
    return frozenset(found)


def _hits(module: Module, vocabulary: list[str], owners: set[tuple[str, str]]) -> Iterator[tuple[str, Use]]:
    """``(receiver's source text, use)`` for each use in ``module``."""
    names = set(vocabulary)
    for scope, body in _scopes(module, owners):
        for node in body:
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Attribute) and node.func.attr in names:
                positional = sum(1 for a in node.args if not isinstance(a, ast.Starred))
                keywords = tuple(k.arg for k in node.keywords if k.arg is not None)
                site = Site(module.rel, scope, node.lineno)
                use = Use(node.func.attr, RECEIVER, "call", "required", site, positional=positional, keywords=keywords)
                yield ast.unparse(node.func.value), use
            # A member read and handed on as a callback (speculative_hook.py's algo.handle_server_args).
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(arg, ast.Attribute) and arg.attr in names:
                    use = Use(arg.attr, RECEIVER, "read", "required", Site(module.rel, scope, arg.lineno))
                    yield ast.unparse(arg.value), use


def _scopes(module: Module, owners: set[tuple[str, str]]) -> Iterator[tuple[str, list[ast.AST]]]:
    """``(Class.function, function or <module>, its own nodes)`` for every
    scope of ``module``, leaving out the bodies of the algorithm classes themselves."""
    stack: list[tuple[str, ast.AST]] = [("", module.tree)]
    while stack:
        name, node = stack.pop()
        own: list[ast.AST] = []
        children = list(ast.iter_child_nodes(node))
        while children:
            child = children.pop()
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                if not (isinstance(child, ast.ClassDef) and (module.rel, child.name) in owners):
                    stack.append((f"{name}.{child.name}" if name else child.name, child))
                continue
            own.append(child)
            children.extend(ast.iter_child_nodes(child))
        yield name or "<module>", own
