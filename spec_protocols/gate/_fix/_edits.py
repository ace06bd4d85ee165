"""Edits to one file, made with LibCST so that every line an edit does not touch keeps its text, comments and layout.

Five kinds (:data:`EditKind`), each on one member of one class:

``add``        the member sglang uses and the class lacks, written with the
               signature the finding expects (a property where it is read as
               a value) and a body that raises ``NotImplementedError``:
               needs review (sglang calls it; the author writes what it does).
``signature``  the parameters changed so that sglang's call binds: a
               parameter the call passes by a name the method spells otherwise
               is renamed, with the names in the body (needs review); one the
               method lacks is added keyword-only, as the finding writes it
               (safe where it has a default); one the method requires and the
               call never passes gets ``= None`` (needs review).
``sync``       ``async`` dropped from a method sglang calls without awaiting
               (safe; refused where the body awaits).
``kind``       ``@property`` added where sglang reads the member as a value,
               or dropped where it calls it (needs review: the class's own
               calls or reads of it change; refused where a property has
               accessors, or a method to make a property takes arguments).
``call``       a keyword argument dropped from a call, in the class's own code,
               of an sglang callable that no longer takes it
               (``super().__init__(ps=ps)`` on a release without ``ps``):
               needs review.

The names an added annotation uses are imported under ``if TYPE_CHECKING:``
(made where the file has none), with ``from __future__ import annotations``
so that they are never evaluated at import.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import takewhile
from typing import Literal

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider

from spec_protocols.gate._fix._wanted import Wanted, import_for

__all__ = ["Applied", "Edit", "EditKind", "apply_edits"]

EditKind = Literal["add", "signature", "sync", "call", "kind"]


@dataclass(frozen=True, slots=True)
class Edit:
    """One edit: ``kind`` on ``member`` of the class ``cls`` (its qualified
    name in the file), made from one of the gate's findings by ``fix``."""

    cls: str
    member: str
    kind: EditKind
    wanted: Wanted | None = None
    #: For ``call``: the keyword an sglang callable no longer takes, and the line of the call.
    keyword: str | None = None
    line: int | None = None


@dataclass
class Applied:
    """What applying edits to a file did: the new text, and each edit's words."""

    text: str
    #: (safety, words): ``safe`` or ``review``, and what was done.
    done: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    #: What could not be done, and why.
    refused: list[str] = field(default_factory=list[str])


def apply_edits(text: str, edits: Sequence[Edit]) -> Applied:
    """``text`` (a module's source) with ``edits`` made; raises ``cst.ParserSyntaxError`` where it does not parse."""
    wrapper = cst.MetadataWrapper(cst.parse_module(text))
    applied = Applied(text)
    changer = _Changer(edits, applied)
    module = wrapper.visit(changer)
    if changer.annotations:
        module = _with_imports(module, changer.annotations, applied)
    applied.text = module.code
    return applied


class _Changer(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, edits: Sequence[Edit], applied: Applied) -> None:
        super().__init__()
        self.edits = edits
        self.applied = applied
        self.stack: list[str] = []
        #: Names the written annotations use.
        self.annotations: set[str] = set()

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        qualname = ".".join(self.stack)
        span = self.get_metadata(PositionProvider, original_node)
        if not isinstance(span, CodeRange):
            return updated_node
        for edit in self.edits:
            if edit.kind != "call" or edit.cls != qualname or edit.line is None or not span.start.line <= edit.line <= span.end.line:
                continue
            kept = [a for a in updated_node.args if not (a.keyword is not None and a.keyword.value == edit.keyword)]
            if len(kept) != len(updated_node.args):
                if kept and kept[-1].comma is not cst.MaybeSentinel.DEFAULT and updated_node.args[-1].keyword is not None and updated_node.args[-1].keyword.value == edit.keyword:
                    kept[-1] = kept[-1].with_changes(comma=updated_node.args[-1].comma)
                self.applied.done.append(("review", f"{qualname}.{edit.member}: drop {edit.keyword}= from the call at line {span.start.line} (the callee no longer takes it)"))
                updated_node = updated_node.with_changes(args=kept)
        return updated_node

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.stack.append(node.name.value)
        return True

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        qualname = ".".join(self.stack)
        self.stack.pop()
        mine = [e for e in self.edits if e.cls == qualname]
        if not mine or not isinstance(updated_node.body, cst.IndentedBlock):
            return updated_node
        body: list[cst.BaseStatement] = list(updated_node.body.body)
        for edit in mine:
            if edit.kind == "call":
                continue  # made where the call is (leave_Call)
            index = _member_index(body, edit.member)
            if edit.kind == "add":
                if index is None and edit.wanted is not None:
                    body.append(self._added(qualname, edit.wanted))
                continue
            if index is None or not isinstance(body[index], cst.FunctionDef):
                self.applied.refused.append(f"{qualname}.{edit.member}: not a method of the class itself (a base's, or an attribute)")
                continue
            func = body[index]
            assert isinstance(func, cst.FunctionDef)
            if edit.kind == "kind":
                accessors = any(isinstance(st, cst.FunctionDef) and st.name.value == edit.member and any(_is_accessor(d) for d in st.decorators) for st in body)
                body[index] = self._kind(qualname, func, edit.wanted, accessors)
                continue
            body[index] = self._sync(qualname, func) if edit.kind == "sync" else self._signature(qualname, func, edit.wanted)
        return updated_node.with_changes(body=updated_node.body.with_changes(body=body))

    # -- add --------------------------------------------------------------------

    def _added(self, qualname: str, wanted: Wanted) -> cst.BaseStatement:
        node = copy.deepcopy(wanted.node)  # parsed on this Python: every field its ast has
        node.body = [ast.Raise(exc=ast.Call(ast.Name("NotImplementedError"), [ast.Constant(f"{wanted.member}: sglang uses it; write what it does")], []))]
        node.decorator_list = [ast.Name("property")] if wanted.is_property else []
        node.returns = None if wanted.member == "__init__" else wanted.node.returns
        ast.fix_missing_locations(node)
        self.annotations |= _annotation_names(node)
        self.applied.done.append(("review", f"{qualname}: add {wanted.member}, {'a property' if wanted.is_property else 'a method'} with the expected signature, raising NotImplementedError until you write it"))
        added = cst.parse_statement(ast.unparse(node) + "\n")
        return added.with_changes(leading_lines=[cst.EmptyLine(indent=False)]) if isinstance(added, cst.FunctionDef) else added

    # -- sync -------------------------------------------------------------------

    def _sync(self, qualname: str, func: cst.FunctionDef) -> cst.FunctionDef:
        if func.asynchronous is None:
            return func
        if _awaits(func):
            self.applied.refused.append(f"{qualname}.{func.name.value}: it awaits; sglang calls it without awaiting, so its body must change too")
            return func
        self.applied.done.append(("safe", f"{qualname}.{func.name.value}: drop async (sglang calls it without awaiting)"))
        return func.with_changes(asynchronous=None)

    # -- kind: a property where sglang reads a value, a method where it calls ----

    def _kind(self, qualname: str, func: cst.FunctionDef, wanted: Wanted | None, accessors: bool) -> cst.FunctionDef:
        if wanted is None:
            return func
        name = func.name.value
        decorators = list(func.decorators)
        is_property = any(_is_property(d) for d in decorators)
        if wanted.is_property == is_property:
            return func
        if wanted.is_property:
            if [*func.params.posonly_params, *func.params.params, *func.params.kwonly_params][1:] or func.params.star_arg is not cst.MaybeSentinel.DEFAULT:
                self.applied.refused.append(f"{qualname}.{name}: sglang reads it as a value, and it takes arguments: make it a property by hand")
                return func
            self.applied.done.append(("review", f"{qualname}.{name}: make it a property (sglang reads it as a value); its calls in your code drop their ()"))
            return func.with_changes(decorators=[cst.Decorator(cst.Name("property")), *decorators])
        if accessors:
            self.applied.refused.append(f"{qualname}.{name}: a property with a setter; sglang calls it: make it a method by hand")
            return func
        self.applied.done.append(("review", f"{qualname}.{name}: make it a method (sglang calls it); its reads in your code add ()"))
        return func.with_changes(decorators=[d for d in decorators if not _is_property(d)])

    # -- signature --------------------------------------------------------------

    def _signature(self, qualname: str, func: cst.FunctionDef, wanted: Wanted | None) -> cst.FunctionDef:
        if wanted is None:
            return func
        params = func.params
        if isinstance(params.star_kwarg, cst.Param) and isinstance(params.star_arg, cst.Param):
            return func  # takes any call
        wanted_params = _wanted_params(wanted.node.args)
        names = {p.name for p in wanted_params}
        have = [*params.posonly_params, *params.params, *params.kwonly_params][1:]  # less self
        have_names = {p.name.value for p in have}
        missing = [p for p in wanted_params if p.name not in have_names and not p.positional_only]
        extra = [p for p in have if p.name.value not in names and p.default is None]
        renamed: dict[str, str] = {}
        if len(missing) == 1 and len(extra) == 1 and not (missing[0].keyword_only and params.star_kwarg is not None):
            renamed[extra[0].name.value] = missing[0].name
            missing, extra = [], []
        member = f"{qualname}.{func.name.value}"
        new_params = _renamed_params(params, renamed)
        for old, new in renamed.items():
            self.applied.done.append(("review", f"{member}: rename parameter {old} to {new} (sglang passes {new}=), and its uses in the body"))
        adding = [p for p in missing if not (p.keyword_only and params.star_kwarg is not None)]
        if adding:
            kwonly = list(new_params.kwonly_params)
            for p in adding:
                kwonly.append(self._param(p))
                safety = "safe" if p.has_default else "review"
                self.applied.done.append((safety, f"{member}: add keyword-only parameter {p.text()} (sglang passes {p.name}=)"))
            star: cst.Param | cst.ParamStar | cst.MaybeSentinel = new_params.star_arg
            if not isinstance(star, (cst.Param, cst.ParamStar)):
                star = cst.ParamStar()
            new_params = new_params.with_changes(kwonly_params=kwonly, star_arg=star)
        if extra:
            new_params, moved = _not_required(new_params, {e.name.value for e in extra})
            for e in extra:
                how = "make it keyword-only with = None" if e.name.value in moved else "give it = None"
                self.applied.done.append(("review", f"{member}: {e.name.value}: sglang's call never passes it: {how}"))
        body = func.body.visit(_Renamer(renamed)) if renamed else func.body
        assert isinstance(body, cst.BaseSuite)
        return func.with_changes(params=_laid_out(params, new_params), body=body)

    def _param(self, p: _WantedParam) -> cst.Param:
        annotation = p.annotation
        if annotation is not None:
            self.annotations |= _annotation_names(ast.parse(annotation, mode="eval"))
            if p.has_default and "None" not in annotation:
                annotation = f"{annotation} | None"
        return cst.Param(
            name=cst.Name(p.name),
            annotation=cst.Annotation(cst.parse_expression(annotation)) if annotation else None,
            default=cst.Name("None") if p.has_default else None,
            equal=cst.AssignEqual(cst.SimpleWhitespace(" "), cst.SimpleWhitespace(" ")) if p.has_default else cst.MaybeSentinel.DEFAULT,
        )


@dataclass(frozen=True, slots=True)
class _WantedParam:
    name: str
    annotation: str | None
    has_default: bool
    keyword_only: bool
    positional_only: bool

    def text(self) -> str:
        written = f"{self.name}: {self.annotation}" if self.annotation else self.name
        return written + (" = None" if self.has_default else "")


def _wanted_params(args: ast.arguments) -> list[_WantedParam]:
    positional = [*args.posonlyargs, *args.args]
    defaulted = [False] * (len(positional) - len(args.defaults)) + [True] * len(args.defaults)
    found = [
        _WantedParam(a.arg, ast.unparse(a.annotation) if a.annotation else None, d, False, a in args.posonlyargs)
        for a, d in zip(positional, defaulted, strict=True)
    ][1:]
    found += [
        _WantedParam(a.arg, ast.unparse(a.annotation) if a.annotation else None, d is not None, True, False)
        for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    ]
    return found


def _renamed_params(params: cst.Parameters, renamed: dict[str, str]) -> cst.Parameters:
    if not renamed:
        return params

    def one(p: cst.Param) -> cst.Param:
        new = renamed.get(p.name.value)
        return p.with_changes(name=cst.Name(new)) if new else p

    return params.with_changes(
        posonly_params=[one(p) for p in params.posonly_params],
        params=[one(p) for p in params.params],
        kwonly_params=[one(p) for p in params.kwonly_params],
    )


def _not_required(params: cst.Parameters, names: set[str]) -> tuple[cst.Parameters, set[str]]:
    """``names`` made optional (``= None``): in place where every positional
    parameter after one has a default, else moved to the keyword-only ones
    (sglang passes its arguments by keyword); the names moved."""
    equal = cst.AssignEqual(cst.SimpleWhitespace(" "), cst.SimpleWhitespace(" "))

    def defaulted(p: cst.Param) -> cst.Param:
        return p if p.default is not None else p.with_changes(default=cst.Name("None"), equal=equal)

    positional = list(params.params)
    moved: list[cst.Param] = []
    for index in reversed(range(len(positional))):
        p = positional[index]
        if p.name.value not in names:
            continue
        if all(later.default is not None for later in positional[index + 1 :]):
            positional[index] = defaulted(p)
        else:
            moved.insert(0, defaulted(p))
            del positional[index]
    kwonly = [defaulted(p) if p.name.value in names else p for p in params.kwonly_params] + moved
    star = params.star_arg
    if moved and not isinstance(star, (cst.Param, cst.ParamStar)):
        star = cst.ParamStar()
    return params.with_changes(params=positional, kwonly_params=kwonly, star_arg=star), {p.name.value for p in moved}


def _laid_out(original: cst.Parameters, new: cst.Parameters) -> cst.Parameters:
    """``new``, laid out as ``original`` is: one parameter a line where it
    writes them so (each a comma and a line break, the last one's before the
    closing parenthesis kept last); unchanged where they share a line."""
    def elements(params: cst.Parameters) -> list[cst.Param | cst.ParamStar | cst.ParamSlash]:
        found: list[cst.Param | cst.ParamStar | cst.ParamSlash] = [*params.posonly_params]
        if isinstance(params.posonly_ind, cst.ParamSlash):
            found.append(params.posonly_ind)
        found += params.params
        if isinstance(params.star_arg, (cst.Param, cst.ParamStar)):
            found.append(params.star_arg)
        found += params.kwonly_params
        if isinstance(params.star_kwarg, cst.Param):
            found.append(params.star_kwarg)
        return found

    before = elements(original)
    breaks = [e.comma for e in before if isinstance(e.comma, cst.Comma) and isinstance(e.comma.whitespace_after, cst.ParenthesizedWhitespace)]
    if len(breaks) < 2:
        return new  # on one line (or one parameter a line with nothing to copy): as LibCST writes it
    between, closing = breaks[0], before[-1].comma
    after = elements(new)
    laid = {id(e): e.with_changes(comma=closing if i == len(after) - 1 else between) for i, e in enumerate(after)}

    def place(e: cst.CSTNode) -> cst.CSTNode:
        return laid.get(id(e), e)

    return new.with_changes(
        posonly_params=[place(p) for p in new.posonly_params],
        posonly_ind=place(new.posonly_ind) if isinstance(new.posonly_ind, cst.ParamSlash) else new.posonly_ind,
        params=[place(p) for p in new.params],
        star_arg=place(new.star_arg) if isinstance(new.star_arg, (cst.Param, cst.ParamStar)) else new.star_arg,
        kwonly_params=[place(p) for p in new.kwonly_params],
        star_kwarg=place(new.star_kwarg) if isinstance(new.star_kwarg, cst.Param) else new.star_kwarg,
    )


class _Renamer(cst.CSTTransformer):
    """Renames variables in a body; attribute names and call keywords keep theirs."""

    def __init__(self, renamed: dict[str, str]) -> None:
        self.renamed = renamed

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.renamed.get(original_node.value)
        return updated_node.with_changes(value=new) if new else updated_node

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        return updated_node.with_changes(attr=original_node.attr)

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(keyword=original_node.keyword)


def _member_index(body: Sequence[cst.BaseStatement], member: str) -> int | None:
    for index, statement in enumerate(body):
        if isinstance(statement, cst.FunctionDef) and statement.name.value == member:
            return index
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target] if isinstance(small, cst.AnnAssign) else []
                if any(isinstance(t, cst.Name) and t.value == member for t in targets):
                    return index
    return None


def _awaits(func: cst.FunctionDef) -> bool:
    found = False

    class _Seek(cst.CSTVisitor):
        def visit_Await(self, node: cst.Await) -> None:
            nonlocal found
            found = True

        def visit_For(self, node: cst.For) -> None:
            nonlocal found
            found = found or node.asynchronous is not None

        def visit_With(self, node: cst.With) -> None:
            nonlocal found
            found = found or node.asynchronous is not None

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is func  # a nested function's awaits are its own

    func.visit(_Seek())
    return found


def _annotation_names(node: ast.AST) -> set[str]:
    """The names an annotation (or a def's annotations) uses."""
    if isinstance(node, ast.FunctionDef):
        parts: list[ast.AST] = [a.annotation for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs) if a.annotation]
        if node.returns is not None:
            parts.append(node.returns)
        return {n.id for part in parts for n in ast.walk(part) if isinstance(n, ast.Name)}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _with_imports(module: cst.Module, names: set[str], applied: Applied) -> cst.Module:
    """``module`` importing ``names`` it does not bind, under ``if TYPE_CHECKING:``."""
    bound = _bound(module)
    wanted: dict[str, list[str]] = {}
    for name in sorted(names - bound - {"None", "self", "object", "int", "float", "str", "bool", "dict", "list", "tuple"}):
        source = import_for(name)
        if source is None:
            applied.refused.append(f"{name}: an annotation's name with no known import; import it yourself")
            continue
        wanted.setdefault(source, []).append(name)
    if not wanted:
        return module
    lines = [cst.parse_statement(f"from {source} import {', '.join(found)}\n") for source, found in sorted(wanted.items())]
    body: list[cst.BaseStatement] = list(module.body)
    guard = next((i for i, s in enumerate(body) if isinstance(s, cst.If) and _is_type_checking(s.test)), None)
    if guard is not None:
        block = body[guard]
        assert isinstance(block, cst.If) and isinstance(block.body, cst.IndentedBlock)
        body[guard] = block.with_changes(body=block.body.with_changes(body=[*block.body.body, *lines]))
    else:
        after = _after_imports(body)
        if after < len(body) and isinstance(body[after], (cst.ClassDef, cst.FunctionDef)):
            # Two blank lines between the block and the definition after it.
            following = body[after]
            assert isinstance(following, (cst.ClassDef, cst.FunctionDef))
            blank = len(list(takewhile(lambda line: line.comment is None, following.leading_lines)))
            following = following.with_changes(leading_lines=[*[cst.EmptyLine()] * max(0, 2 - blank), *following.leading_lines])
            body[after] = following
        body.insert(after, cst.If(test=cst.Name("TYPE_CHECKING"), body=cst.IndentedBlock(body=lines), leading_lines=[cst.EmptyLine()]))
        if "TYPE_CHECKING" not in bound:
            body.insert(after, cst.parse_statement("from typing import TYPE_CHECKING\n"))
    if not _has_future_annotations(body):
        body.insert(_after_docstring(body), cst.parse_statement("from __future__ import annotations\n"))
    applied.done.append(("safe", "import " + "; ".join(f"{', '.join(found)} from {source}" for source, found in sorted(wanted.items())) + " (under if TYPE_CHECKING:)"))
    return module.with_changes(body=body)


def _bound(module: cst.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(module.code)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).partition(".")[0] for a in node.names)
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _is_type_checking(test: cst.BaseExpression) -> bool:
    return (isinstance(test, cst.Name) and test.value == "TYPE_CHECKING") or (
        isinstance(test, cst.Attribute) and test.attr.value == "TYPE_CHECKING"
    )


def _is_import(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body)


def _after_imports(body: Sequence[cst.BaseStatement]) -> int:
    last = max((i for i, s in enumerate(body) if _is_import(s)), default=None)
    return _after_docstring(body) if last is None else last + 1


def _after_docstring(body: Sequence[cst.BaseStatement]) -> int:
    first = body[0] if body else None
    if isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1:
        expr = first.body[0]
        if isinstance(expr, cst.Expr) and isinstance(expr.value, (cst.SimpleString, cst.ConcatenatedString)):
            return 1
    return 0


def _has_future_annotations(body: Sequence[cst.BaseStatement]) -> bool:
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name) and small.module.value == "__future__":
                    if isinstance(small.names, Sequence) and any(
                        isinstance(a.name, cst.Name) and a.name.value == "annotations" for a in small.names
                    ):
                        return True
    return False


def _is_property(decorator: cst.Decorator) -> bool:
    """``@property`` (or ``@builtins.property``)."""
    node = decorator.decorator
    return (isinstance(node, cst.Name) and node.value == "property") or (isinstance(node, cst.Attribute) and node.attr.value == "property" and isinstance(node.value, cst.Name) and node.value.value == "builtins")


def _is_accessor(decorator: cst.Decorator) -> bool:
    """``@name.setter`` or ``@name.deleter``: the property has more than its getter."""
    node = decorator.decorator
    return isinstance(node, cst.Attribute) and node.attr.value in ("setter", "deleter")
