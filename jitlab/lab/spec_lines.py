"""Where each part of a scenario's spec is written: its file and line, found with :mod:`ast`.

:class:`SpecSource` follows a problem's path (``variants[1].title``) through the class body: an
attribute's assignment, a tuple's element, a dataclass call's keyword or positional argument,
a dict's key, a module-level name the class refers to. It stops at the deepest part it can
read (a value built by a loop is placed at the loop). The source is parsed only when there is
a problem to place, so a well-formed plugin costs nothing. Imports no JAX.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import linecache
from typing import Any

from jitlab.lab.raised import display
from jitlab.lab.spec import Scenario
from jitlab.lab.spec_types import Key, PathStep

__all__ = ["SpecSource", "descend"]


class SpecSource:
    """The file and line of each part of a scenario class, read from its source with ast
    (only when there is a problem to place: a well-formed plugin costs nothing)."""

    def __init__(self, cls: Any) -> None:
        self.cls = cls
        self._trees: dict[str, ast.Module | None] = {}

    def file(self, owner: Any = None) -> str:
        try:
            path = inspect.getsourcefile(owner or self.cls) or inspect.getfile(owner or self.cls)
        except (TypeError, OSError):
            return ""
        return display(path)

    def locate(self, path: tuple[PathStep, ...]) -> tuple[str, int | None]:
        cls = self.cls
        if not isinstance(cls, type):
            return "", None
        name = path[0] if path else None
        owner = next((k for k in cls.__mro__ if isinstance(name, str) and name in vars(k)), cls)
        if owner is Scenario or owner is object:
            owner = cls  # the default was taken: point at the class
        try:
            filename = inspect.getsourcefile(owner) or ""
            _lines, start = inspect.getsourcelines(owner)
        except (TypeError, OSError):
            return self.file(owner), None
        tree = self._tree(filename)
        classdef = _class_node(tree, owner.__name__, start) if tree is not None else None
        if classdef is None:
            return display(filename), start or None
        node: ast.AST | None = _member(classdef, name) if isinstance(name, str) else None
        if node is None:
            return display(filename), classdef.lineno
        line = node.lineno  # type: ignore[attr-defined]
        value: Any = _get(owner, name)
        for step in path[1:]:
            node = _resolve(node, tree)
            node = _step(node, step, value)
            if node is None:
                break
            line = node.lineno  # type: ignore[attr-defined]
            value = descend(value, step)
        return display(filename), line

    def _tree(self, filename: str) -> ast.Module | None:
        if filename not in self._trees:
            try:
                self._trees[filename] = ast.parse("".join(linecache.getlines(filename)))
            except (SyntaxError, ValueError):
                self._trees[filename] = None
        return self._trees[filename]


def _class_node(tree: ast.Module, name: str, start: int) -> ast.ClassDef | None:
    found = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name]
    if not found:
        return None
    return min(found, key=lambda n: abs(n.lineno - start))


def _member(classdef: ast.ClassDef, name: str) -> ast.AST | None:
    """The value assigned to ``name`` in the class body (the last one), or its ``def``."""
    node: ast.AST | None = None
    for stmt in classdef.body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in stmt.targets
        ):
            node = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if stmt.target.id == name and stmt.value is not None:
                node = stmt.value
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name:
            node = stmt
    return node


def _resolve(node: ast.AST, tree: ast.Module | None) -> ast.AST:
    """A module-level name (``exercises = EXERCISES``) stands for its assigned value."""
    for _ in range(5):
        if not (isinstance(node, ast.Name) and tree is not None):
            return node
        target = node.id
        found = None
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == target for t in stmt.targets
            ):
                found = stmt.value
        if found is None:
            return node
        node = found
    return node


def _step(node: ast.AST, step: PathStep, value: Any) -> ast.AST | None:
    if isinstance(step, Key):
        if isinstance(node, ast.Dict):
            for key, item in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == step:
                    return item
        if isinstance(node, ast.Call):
            return next((k.value for k in node.keywords if k.arg == step), None)
        return None
    if isinstance(step, int):
        elts = node.elts if isinstance(node, ast.Tuple | ast.List) else []
        if step < len(elts) and not any(isinstance(e, ast.Starred) for e in elts):
            return elts[step]
        return None
    if isinstance(node, ast.Call):
        for keyword in node.keywords:
            if keyword.arg == step:
                return keyword.value
        func = node.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if dataclasses.is_dataclass(value) and called == type(value).__name__:
            names = [f.name for f in dataclasses.fields(value) if f.init]
            position = names.index(step) if step in names else len(node.args)
            args = node.args
            if position < len(args) and not any(isinstance(a, ast.Starred) for a in args):
                return args[position]
    return None


def _get(owner: Any, name: Any) -> Any:
    try:
        return vars(owner).get(name)
    except Exception:
        return None


def descend(value: Any, step: PathStep) -> Any:
    try:
        if isinstance(step, Key):
            return value[step]
        if isinstance(step, int):
            return value[step]
        return getattr(value, step)
    except Exception:
        return None
