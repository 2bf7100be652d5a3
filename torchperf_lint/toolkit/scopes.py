"""A purpose-built import and alias resolver.

LibCST's generic ``QualifiedNameProvider`` costs many times the parse. Rules only need to know
whether a name refers to something imported (``torch.compile`` however spelt), so one cheap pass
records, per scope, what each name is bound to. A name bound by anything other than the same import
(a ``def``, a parameter, an assignment) is shadowed and resolves to nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from torchperf_lint.toolkit import traversal

#: Marker for a binding that is not an import.
LOCAL = ""
#: Marker for ``torch = None`` or ``torch = False``: the stand-in an optional import leaves when it
#: fails. Code that then uses the name as a module relies on the import, so it does not shadow it.
_STAND_IN = "\0stand-in"


@dataclass
class Scope:
    """The names one module, class, function or lambda binds."""

    node: cst.CSTNode
    parent: Scope | None
    is_class: bool = False
    bindings: dict[str, set[str]] = field(default_factory=dict)
    globals_: set[str] = field(default_factory=set)

    def bind(self, name: str, target: str = LOCAL) -> None:
        self.bindings.setdefault(name, set()).add(target)

    def module(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def lookup(self, name: str) -> str | None:
        """The imported dotted name ``name`` refers to, or None when local or unknown."""
        scope: Scope | None = self
        if name in self.globals_:
            scope = self.module()
        first = True
        while scope is not None:
            if (first or not scope.is_class) and name in scope.bindings:
                targets = scope.bindings[name] - {_STAND_IN} or {LOCAL}
                if len(targets) == 1:
                    (target,) = targets
                    return target or None
                return None
            first = False
            scope = scope.parent
        return None


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` as text, or None when the expression is not a plain dotted name."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def _bind_target(scope: Scope, target: cst.BaseExpression) -> None:
    if isinstance(target, cst.Name):
        scope.bind(target.value)
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            _bind_target(scope, element.value)
    elif isinstance(target, cst.StarredElement):
        _bind_target(scope, target.value)


class ScopeBuilder(cst.CSTVisitor):
    """Collects every scope's bindings in one pass, before the rules run."""

    def __init__(self, module: cst.Module, module_name: str = "", is_package: bool = False) -> None:
        # Relative imports resolve against the file's package, so ``from .kernels import f`` names
        # ``pkg.kernels.f`` as the project index does.
        parts = module_name.split(".") if module_name else []
        self.package = parts if is_package else parts[:-1]
        self.root = Scope(module, None)
        self.scopes: dict[cst.CSTNode, Scope] = {module: self.root}
        self._stack = [self.root]
        self.star_imports = 0

    @property
    def _current(self) -> Scope:
        return self._stack[-1]

    def on_visit(self, node: cst.CSTNode) -> bool:
        """LibCST's ``on_visit`` formats a method name per node; this looks it up once per type."""
        handler = _HANDLERS.get(type(node), _UNSEEN)
        if handler is _UNSEEN:
            handler = _HANDLERS[type(node)] = getattr(ScopeBuilder, f"visit_{type(node).__name__}", None)
        return handler is None or handler(self, node) is not False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        """Nothing to do after a node's children: scopes are popped where they are pushed."""

    def _push(self, node: cst.CSTNode, is_class: bool = False) -> None:
        scope = Scope(node, self._current, is_class=is_class)
        self.scopes[node] = scope
        self._stack.append(scope)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._current.bind(node.name.value)
        for decorator in node.decorators:
            traversal.visit(decorator, self)
        if node.returns is not None:
            traversal.visit(node.returns, self)
        self._enter_function(node)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self._enter_function(node)
        return False

    def _enter_function(self, node: cst.FunctionDef | cst.Lambda) -> None:
        """Defaults belong to the outer scope; parameters and the body to the new one."""
        traversal.visit(node.params, self)
        self._push(node)
        for param in _all_params(node.params):
            self._current.bind(param.name.value)
        traversal.visit(node.body, self)
        self._stack.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._current.bind(node.name.value)
        for decorator in node.decorators:
            traversal.visit(decorator, self)
        for arg in (*node.bases, *node.keywords):
            traversal.visit(arg, self)
        self._push(node, is_class=True)
        traversal.visit(node.body, self)
        self._stack.pop()
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            name = dotted(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._current.bind(alias.asname.name.value, name)
            else:
                top = name.split(".")[0]
                self._current.bind(top, top)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if isinstance(node.names, cst.ImportStar):
            self.star_imports += 1
            return False
        base = dotted(node.module) if node.module is not None else None
        if node.relative:
            base = self._relative_base(len(node.relative), base)
        for alias in node.names:
            imported = alias.name.value if isinstance(alias.name, cst.Name) else ""
            bound = imported
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                bound = alias.asname.name.value
            target = LOCAL if not base else f"{base}.{imported}"
            self._current.bind(bound, target)
        return False

    def _relative_base(self, level: int, module: str | None) -> str | None:
        """``pkg.sub`` for ``from .sub import x`` in ``pkg``; None when the file's package is unknown
        or the import climbs above it."""
        if level - 1 >= len(self.package):
            return None
        parts = self.package[: len(self.package) - (level - 1)]
        return ".".join([*parts, module] if module else parts) or None

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        for target in node.targets:
            if (
                isinstance(target.target, cst.Name)
                and isinstance(value, cst.Name)
                and value.value in ("None", "False")
            ):
                self._current.bind(target.target.value, _STAND_IN)
            elif not self._binds_alias(target.target, value):
                _bind_target(self._current, target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is None or not self._binds_alias(node.target, node.value):
            _bind_target(self._current, node.target)

    def _binds_alias(self, target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
        """``Device: TypeAlias = torch.device`` or ``F = torch.nn.functional`` at module level: the
        name is another spelling of what the import names, as ``from torch import device as Device``
        would be. Bound so when the value's root is imported (the import comes first in the file)."""
        if self._current is not self.root or not isinstance(target, cst.Name):
            return False
        path = dotted(value)
        if path is None:
            return False
        root, _, rest = path.partition(".")
        resolved = self.root.lookup(root) if root in self.root.bindings else None
        if resolved is None:
            return False
        self.root.bind(target.value, f"{resolved}.{rest}" if rest else resolved)
        return True

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        _bind_target(self._current, node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        _bind_target(self._current, node.target)

    def visit_For(self, node: cst.For) -> None:
        _bind_target(self._current, node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        _bind_target(self._current, node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            _bind_target(self._current, node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            _bind_target(self._current, node.name.name)

    def visit_Global(self, node: cst.Global) -> None:
        self._current.globals_.update(item.name.value for item in node.names)

    def visit_Del(self, node: cst.Del) -> None:
        _bind_target(self._current, node.target)


#: Names a star import conventionally brings in (``from .torch_imports import *``), and what they name.
STAR_IMPORTED = {"torch": "torch", "nn": "torch.nn"}


def bind_star_imported(builder: ScopeBuilder, text: str) -> None:
    """Bind the conventional torch names a star-importing module uses but never binds itself.

    What a star import brings in is only known by importing its module, which the linter never does;
    a module that uses ``torch.`` without importing it can only have it from the star import.
    """
    if not builder.star_imports:
        return
    for name, target in STAR_IMPORTED.items():
        if name not in builder.root.bindings and re.search(rf"(?<![\w.]){name}\.", text):
            builder.root.bind(name, target)


_UNSEEN = object()
_HANDLERS: dict[type, Callable[[ScopeBuilder, cst.CSTNode], object] | None] = {}


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    for extra in (params.star_arg, params.star_kwarg):
        if isinstance(extra, cst.Param):
            found.append(extra)
    return found
