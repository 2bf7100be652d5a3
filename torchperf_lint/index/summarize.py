"""One file's summary, read from the CPython ``ast`` tree the engine parses anyway.

A single pass over each function's statements in source order records its calls (with the grad guard
around each and what was validated before it), its heavy torch calls, its checks and its returns.
Names resolve through the file's imports (relative ones included), module-level aliases
(``Tensor = torch.Tensor``), the module's own functions and ``self.method``; a parameter shadows an
import of the same name.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator

from torchperf_lint.index.claims import claims_of
from torchperf_lint.index.conditions import failing_condition
from torchperf_lint.index.summary import Call, Check, FunctionSummary, ModuleSummary, Param
from torchperf_lint.lines import split_lines
from torchperf_lint.vocabulary import (
    DEVICE_NAME,
    GRAD_ENABLERS,
    HEAVY_OPS,
    INFERENCE_MODE,
    MEASURES,
    NO_GRAD,
    NON_CPU_DEVICES,
    NOT_TENSOR_METHODS,
    PRAGMA,
    SHAPED_TYPE_LIBRARIES,
    VALIDATION_ERRORS,
    VALIDATOR,
    check_properties,
    named_device,
    validator_properties,
)

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_OPTIONAL = frozenset({"typing.Optional"})
_GRAD_FLAG_CALLS = frozenset({"torch.is_grad_enabled", "torch.is_inference_mode_enabled"})
#: Methods of a NumPy array that give Python values rather than an array or a NumPy scalar.
_NOT_ARRAY_METHODS = frozenset({"tolist", "item", "tobytes", "tostring"})
#: Libraries no project under lint is part of: their calls are left out of the summaries.
_NEVER_PROJECT = frozenset({"torch", "numpy", "scipy", "cv2", "PIL", "builtins"})


def summarize(tree: ast.Module, module: str, is_package: bool, text: str) -> ModuleSummary:
    """The summary of a parsed file; ``text`` is its source (read for the pragma on ``def`` lines)."""
    reader = _ModuleReader(module, is_package, split_lines(text) if PRAGMA.search(text) else [])
    reader.read(tree)
    return ModuleSummary(
        module=module,
        exports=reader.exports,
        functions=tuple(reader.functions),
        references=tuple(sorted(reader.references)),
        classes=reader.classes,
    )


def failed(module: str, error: tuple[int, int, str]) -> ModuleSummary:
    """The summary of a file CPython cannot parse: no functions, and why."""
    return ModuleSummary(module=module, syntax_error=error)


class _ModuleReader:
    def __init__(self, module: str, is_package: bool, lines: list[str]) -> None:
        self.module, self.is_package, self.lines = module, is_package, lines
        self.top = module.partition(".")[0]
        self.exports: dict[str, str] = {}
        self.defined: set[str] = set()
        self.functions: list[FunctionSummary] = []
        self.references: set[str] = set()
        self.classes: dict[str, tuple[str, ...]] = {}

    def read(self, tree: ast.Module) -> None:
        body = list(_module_statements(tree.body))
        for statement in body:
            if isinstance(statement, ast.Import | ast.ImportFrom):
                self.exports.update(self.imports(statement))
            elif isinstance(statement, (*_FUNCTIONS, ast.ClassDef)):
                self.defined.add(statement.name)
        for statement in body:
            self._alias(statement)
        module_level = _Scanner(self, {}, frozenset(), None)
        for statement in body:
            if isinstance(statement, _FUNCTIONS):
                self.function(statement, self.qualified(statement.name), {}, None)
            elif isinstance(statement, ast.ClassDef):
                self.klass(statement, self.qualified(statement.name))
            else:
                module_level.expression(statement, None, module_level=True)
        self.references |= module_level.references

    def qualified(self, name: str) -> str:
        return f"{self.module}.{name}" if self.module else name

    def imports(self, statement: ast.Import | ast.ImportFrom) -> dict[str, str]:
        bound: dict[str, str] = {}
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    root = alias.name.partition(".")[0]
                    bound[root] = root
            return bound
        base = self._import_base(statement)
        if base is None:
            return bound
        for alias in statement.names:
            if alias.name != "*":
                bound[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
        return bound

    def _import_base(self, statement: ast.ImportFrom) -> str | None:
        if not statement.level:
            return statement.module or ""
        package = self.module.split(".") if self.is_package else self.module.split(".")[:-1]
        if statement.level - 1 > len(package):
            return None
        parts = package[: len(package) - (statement.level - 1)]
        if statement.module:
            parts.append(statement.module)
        return ".".join(p for p in parts if p) or None

    def _alias(self, statement: ast.stmt) -> None:
        """``Tensor = torch.Tensor`` (or annotated): the name stands for the imported one."""
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            return
        imported = _optional_import(value)
        if imported is not None and isinstance(target, ast.Tuple) and target.elts:
            target = target.elts[0]  # ``trt, found = optional_import("torch_tensorrt")``
        if isinstance(target, ast.Name) and target.id not in self.exports:
            resolved = imported or _resolve(value, self.exports, self.defined, self.module)
            if resolved is not None:
                self.exports[target.id] = resolved

    def klass(self, node: ast.ClassDef, qualname: str) -> None:
        bases = (_resolve(base, self.exports, self.defined, self.module) for base in node.bases)
        self.classes[qualname] = tuple(base for base in bases if base is not None)
        methods = {s.name for s in node.body if isinstance(s, _FUNCTIONS)}
        for statement in node.body:
            if isinstance(statement, _FUNCTIONS):
                self.function(statement, f"{qualname}.{statement.name}", {}, (qualname, methods))
            elif isinstance(statement, ast.ClassDef):
                self.klass(statement, f"{qualname}.{statement.name}")

    def function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        qualname: str,
        outer: dict[str, str],
        owner: tuple[str, set[str]] | None,
    ) -> None:
        arguments = node.args
        params = (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
        shadowed = frozenset(a.arg for a in (*params, arguments.vararg, arguments.kwarg) if a is not None)
        scanner = _Scanner(self, outer, shadowed, owner)
        scanner.positions = {a.arg: i for i, a in enumerate((*arguments.posonlyargs, *arguments.args))}
        guard = None
        for decorator in node.decorator_list:
            guard = scanner.guard_of(decorator) or guard
        scanner.block(node.body, guard, top_level=True)
        names = tuple(a.arg for a in params)
        docstring = ast.get_docstring(node, clean=False)
        docstring_line = node.body[0].lineno if docstring is not None else node.lineno
        self.functions.append(
            FunctionSummary(
                qualname=qualname,
                line=node.lineno,
                summary=(ast.get_docstring(node) or "").strip().partition("\n")[0][:120],
                claims=claims_of(docstring, docstring_line, names) if docstring else (),
                pragma=self._has_pragma(node),
                params=tuple(Param(a.arg, scanner.annotation(a.annotation)) for a in params),
                returns=scanner.returns_kind(node.returns),
                guard=guard,
                calls=tuple(scanner.calls),
                heavy=tuple(scanner.heavy),
                checks=tuple(scanner.checks),
                returns_inference=scanner.returns_inference,
            )
        )
        self.references.update(scanner.references)
        for inner in scanner.nested:
            self.function(inner, f"{qualname}.{inner.name}", scanner.names, None)

    def _has_pragma(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """The pragma on the ``def`` line or on the line the header ends on."""
        end = node.body[0].lineno - 1 if node.body else node.lineno
        rows = {node.lineno, max(end, node.lineno)}
        return any(0 < row <= len(self.lines) and PRAGMA.search(self.lines[row - 1]) for row in rows)


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, including those inside module-level ``if``/``try`` blocks."""
    for statement in body:
        if isinstance(statement, ast.If):
            yield from _module_statements(statement.body)
            yield from _module_statements(statement.orelse)
        elif isinstance(statement, ast.Try):
            yield from _module_statements(statement.body)
            for handler in statement.handlers:
                yield from _module_statements(handler.body)
            yield from _module_statements(statement.orelse)
            yield from _module_statements(statement.finalbody)
        else:
            yield statement


def _resolve(node: ast.expr, names: dict[str, str], defined: set[str], module: str) -> str | None:
    """The dotted name a ``Name``/``Attribute`` chain stands for, or None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    root = names.get(node.id)
    if root is None:
        if node.id not in defined:
            return None
        root = f"{module}.{node.id}" if module else node.id
    return ".".join([root, *reversed(parts)])


class _Scanner:
    """Reads one function body in source order."""

    def __init__(
        self,
        reader: _ModuleReader,
        local: dict[str, str],
        shadowed: frozenset[str],
        owner: tuple[str, set[str]] | None,
    ) -> None:
        self.reader, self.shadowed, self.owner = reader, shadowed, owner
        self.names = {**reader.exports, **local}
        self.calls: list[Call] = []
        self.heavy: list[tuple[str, int, str | None]] = []
        self.checks: list[Check] = []
        self.references: set[str] = set()
        self.nested: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self.validated: set[str] = set()
        self.return_kinds: set[str | None] = set()
        #: Positional parameters by name, with their positions (what a returned measure refers to).
        self.positions: dict[str, int] = {}
        self.order = 0  # statements read so far, in source order
        self.returns_inference = False
        #: Names last bound under ``inference_mode``: they hold inference tensors.
        self.inference_names: set[str] = set()
        #: Locals known to hold a tensor, an array or a frame where the statement being read runs,
        #: whichever way the branches before it went.
        self.value_kinds: dict[str, str] = {}

    def resolve(self, node: ast.expr) -> str | None:
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in self.shadowed:
            if root.id in ("self", "cls") and self.owner is not None and isinstance(node, ast.Attribute):
                owner, methods = self.owner
                if node.value is root and node.attr in methods:
                    return f"{owner}.{node.attr}"
            return None
        return _resolve(node, self.names, self.reader.defined, self.reader.module)

    def annotation(self, node: ast.expr | None) -> str | None:
        """The dotted type an annotation names, unwrapping ``Optional[X]``, ``X | None`` and ``X[...]``."""
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            sides = [s for s in (node.left, node.right) if not (isinstance(s, ast.Constant) and s.value is None)]
            return self.annotation(sides[0]) if len(sides) == 1 else None
        if isinstance(node, ast.Subscript):
            base = self.resolve(node.value)
            if base in _OPTIONAL:
                return self.annotation(node.slice)
            if base is not None and base.startswith(SHAPED_TYPE_LIBRARIES):  # ``Float[torch.Tensor, "b c"]``
                first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
                return self.annotation(first)
            return base
        return self.resolve(node) if isinstance(node, ast.Name | ast.Attribute) else None

    def returns_kind(self, annotation: ast.expr | None) -> str | None:
        """What the function returns: a measure of a parameter (``size:0``) where every return that
        is not an integer literal gives the same one, else its declared type, else the one kind
        every return gives."""
        measured = self.return_kinds - {_INT}
        only = next(iter(measured)) if len(measured) == 1 else None
        if only is not None and (only.partition(":")[0] in MEASURES or only == DEVICE_NAME):
            return only  # what every return gives says more than a declared ``-> str``
        declared = self.return_annotation(annotation)
        if declared is not None:
            return f"type:{declared}"
        kinds = {None if kind == _INT else kind for kind in self.return_kinds}
        return kinds.pop() if len(kinds) == 1 else None

    def return_annotation(self, node: ast.expr | None) -> str | None:
        """A return annotation's type; for a container of one known type, ``items[T]`` (a list,
        sequence, iterable or ``tuple[T, ...]``), ``values[T]`` (a dict's values), either of them
        nested (``items[values[numpy.ndarray]]`` for ``list[dict[str, np.ndarray]]``), or
        ``tuple[T1,T2,...]`` (an item of no plain type left empty)."""
        if isinstance(node, ast.Subscript):
            base = self.resolve(node.value) or (node.value.id if isinstance(node.value, ast.Name) else None)
            arguments = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
            if base in _SEQUENCES and len(arguments) == 1:
                return _container("items", [self.return_annotation(arguments[0])])
            if base in _TUPLES and len(arguments) == 2 and _is_ellipsis(arguments[1]):
                return _container("items", [self.return_annotation(arguments[0])])
            if base in _TUPLES:
                return _container("tuple", [self.annotation(argument) for argument in arguments])
            if base in _MAPPINGS and len(arguments) == 2:
                return _container("values", [self.return_annotation(arguments[1])])
        return self.annotation(node)

    def guard_of(self, node: ast.expr) -> str | None:
        call = node if isinstance(node, ast.Call) else None
        name = self.resolve(call.func if call is not None else node)
        if name in NO_GRAD:
            return "no_grad"
        if name in INFERENCE_MODE:
            off = call is not None and any(
                isinstance(a, ast.Constant) and a.value is False
                for a in (*call.args, *(k.value for k in call.keywords if k.arg == "mode"))
            )
            return None if off else "inference_mode"
        return None

    def block(self, body: list[ast.stmt], guard: str | None, top_level: bool = False) -> None:
        for statement in body:
            self.statement(statement, guard, top_level)

    def statement(self, node: ast.stmt, guard: str | None, top_level: bool) -> None:
        self.order += 1
        if isinstance(node, _FUNCTIONS):
            self.nested.append(node)
            for decorator in node.decorator_list:
                self.expression(decorator, guard)
            return
        if isinstance(node, ast.ClassDef):
            return
        if isinstance(node, ast.With | ast.AsyncWith):
            self._bind_kinds([item.optional_vars for item in node.items if item.optional_vars], None)
            inner = guard
            for item in node.items:
                self.expression(item.context_expr, guard)
                expression = item.context_expr
                target = expression.func if isinstance(expression, ast.Call) else expression
                if self.resolve(target) in GRAD_ENABLERS:
                    inner = None
                inner = self.guard_of(expression) or inner
            self.block(node.body, inner)
            return
        if isinstance(node, ast.If):
            self.expression(node.test, guard)
            if _raises_validation_error(node.body):
                self._check(node.test, asserted=False)
                if top_level:
                    self.validated.update(_names(node.test))
            before = dict(self.value_kinds)
            self.block(node.body, guard)
            after_body, self.value_kinds = self.value_kinds, before
            self.block(node.orelse, guard)
            self.value_kinds = _agreed(after_body, self.value_kinds)
            return
        if isinstance(node, ast.Assert):
            self.expression(node.test, guard)
            self._check(node.test, asserted=True)
            if top_level:
                self.validated.update(_names(node.test))
            return
        if isinstance(node, ast.Return):
            if node.value is not None:
                self.expression(node.value, guard)
                self.return_kinds.add(self._value_kind(node.value))
                inference = guard == "inference_mode" or bool(_names(node.value) & self.inference_names)
                if inference and not _is_none(node.value):
                    self.returns_inference = True
            return
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = {found.id for target in targets for found in ast.walk(target) if isinstance(found, ast.Name)}
            if guard == "inference_mode":
                self.inference_names |= bound
            else:
                self.inference_names -= bound
            if not isinstance(node, ast.AugAssign):  # ``a += b`` keeps what ``a`` holds
                self._bind_kinds(targets, node.value)
        elif isinstance(node, ast.For | ast.AsyncFor):
            self._bind_kinds([node.target], None)
        # a loop body may not run, a ``try`` may stop anywhere: after them a name keeps only the kind
        # it had before and still has
        before = dict(self.value_kinds) if isinstance(node, _MAY_NOT_RUN) else None
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and _validator_name(node.value):
            self.expression(node.value, guard)
            names = tuple(sorted(_names(node.value)))
            validator = self.resolve(node.value.func)
            self.checks.append(Check(self.order, names, _validator_properties(node.value), None, validator))
            if top_level:
                self.validated.update(names)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            self.names.update(self.reader.imports(node))
            return
        for _, value in ast.iter_fields(node):
            if isinstance(value, ast.expr):
                self.expression(value, guard)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.stmt):
                        self.statement(item, guard, top_level=False)
                    elif isinstance(item, ast.expr):
                        self.expression(item, guard)
                    elif isinstance(item, ast.excepthandler | ast.match_case):
                        self.block(item.body, guard)
                        if isinstance(item, ast.match_case) and item.guard is not None:
                            self.expression(item.guard, guard)
        if before is not None:
            self.value_kinds = _agreed(before, self.value_kinds)

    def _bind_kinds(self, targets: list[ast.expr], value: ast.expr | None) -> None:
        """Record what a plain name is bound to (``edges = np.linspace(...)``); any other binding
        leaves its kind unknown."""
        kind = self._value_kind(value) if value is not None and len(targets) == 1 else None
        kind = kind if kind in _VALUE_KINDS else None
        for target in targets:
            for found in ast.walk(target):
                if isinstance(found, ast.Name) and found is target and kind is not None:
                    self.value_kinds[found.id] = kind
                elif isinstance(found, ast.Name):
                    self.value_kinds.pop(found.id, None)

    def _check(self, test: ast.expr, *, asserted: bool) -> None:
        properties = tuple(sorted(check_properties(ast.unparse(test))))
        condition = failing_condition(test, asserted=asserted)
        self.checks.append(Check(self.order, tuple(sorted(_names(test))), properties, condition))

    def expression(self, node: ast.AST, guard: str | None, *, module_level: bool = False) -> None:
        """Record the calls in ``node`` and the project functions it uses as values. One walk; a
        name is resolved only when the file binds it. At module level every use counts as a
        reference (a call at import time, a dispatch table): a caller the index does not follow."""
        callees: set[int] = set()
        uses: list[ast.Name | ast.Attribute] = []
        for found in ast.walk(node):
            kind = type(found)
            if kind is ast.Call:
                callees.add(id(found.func))  # type: ignore[attr-defined]
                self._call(found, guard)  # type: ignore[arg-type]
            elif kind is ast.Name or (kind is ast.Attribute and type(found.value) is ast.Name):  # type: ignore[attr-defined]
                uses.append(found)  # type: ignore[arg-type]
        known, top = self.names, self.reader.top
        for use in uses:
            root = use if type(use) is ast.Name else use.value  # type: ignore[union-attr]
            if (id(use) in callees and not module_level) or not isinstance(use.ctx, ast.Load):
                continue
            if root.id in known or root.id in self.reader.defined:  # type: ignore[union-attr]
                name = self.resolve(use)
                if name is not None and name.partition(".")[0] == top:
                    self.references.add(name)

    def _call(self, call: ast.Call, guard: str | None) -> None:
        callee = self.resolve(call.func)
        if callee is None:
            return
        if callee in HEAVY_OPS:
            self.heavy.append((callee, guard))
            return
        root = callee.partition(".")[0]
        if root != self.reader.top and (root in _NEVER_PROJECT or root in sys.stdlib_module_names):
            return  # the kernel map follows calls into the project only
        slots: list[tuple[int | str, str]] = [
            (index, argument.id) for index, argument in enumerate(call.args) if type(argument) is ast.Name
        ]
        slots += [(k.arg, k.value.id) for k in call.keywords if k.arg is not None and type(k.value) is ast.Name]
        validated = tuple(sorted(self.validated & {name for _, name in slots}))
        self.calls.append(Call(callee, self.order, guard, tuple(slots), validated))

    def _value_kind(self, node: ast.expr) -> str | None:
        if _is_int(node):
            return _INT
        if isinstance(node, ast.Name):
            return self.value_kinds.get(node.id)
        if isinstance(node, ast.IfExp):
            arms = {self._value_kind(node.body), self._value_kind(node.orelse)}
            return arms.pop() if len(arms) == 1 and arms <= _VALUE_KINDS else None
        if _reads_grad_state(node, self):
            return "grad-flag"
        if _names_non_cpu_device(node):
            return DEVICE_NAME
        imported = _optional_import(node)
        if imported is not None:
            return f"module:{imported}"
        if _reads_a_number(node):
            return "scalar"
        if isinstance(node, ast.Attribute) and node.attr == "type" and isinstance(node.value, ast.Attribute):
            if node.value.attr == "device":
                return "device-type"
        if _gives_parameters(node):
            return "parameters"
        measure = self._measure(node)
        if measure is not None:
            return measure
        if isinstance(node, ast.BinOp | ast.UnaryOp | ast.Compare):
            return self._arithmetic_kind(node)
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant | ast.Tuple):
            # ``windows[rates >= t]``, ``x[2:]``: a mask or a slice of a value selects more of it
            held = self._value_kind(node.value)
            return held if held in _VALUE_KINDS else None
        if isinstance(node, ast.Tuple) and node.elts:
            items = [self._value_kind(element) for element in node.elts]
            parts = [item if item in ("tensor", "array", "frame") else "" for item in items]
            return "tuple:" + ",".join(parts) if any(parts) else None  # type: ignore[arg-type]
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "astype":
                return "array"  # NumPy's ``astype`` returns an array, whatever it is called on
            if isinstance(func, ast.Attribute):
                receiver = self._value_kind(func.value)  # once: a chain of methods reads each link once
                if receiver == "array" and func.attr not in _NOT_ARRAY_METHODS:
                    return "array"  # ``e.sum(axis=-1)``: an array's method gives an array or a NumPy scalar
                if receiver == "tensor":
                    # ``mask.float()``, ``d.sum()``: a tensor's method gives a tensor, unless it reads it out
                    leaves = func.attr in NOT_TENSOR_METHODS or func.attr.startswith("is_")
                    return ("array" if func.attr == "numpy" else None) if leaves else "tensor"
            callee = self.resolve(func)
            if callee is None:
                return None
            if callee.startswith("numpy."):
                return "array"
            if callee.startswith("pandas."):
                return "frame"
            namespace, _, name = callee.rpartition(".")
            if namespace in ("torch", "torch.nn.functional") and name[:1].islower() and not name.startswith("is_"):
                return "tensor"
            return f"={callee}"
        return None

    def _arithmetic_kind(self, node: ast.BinOp | ast.UnaryOp | ast.Compare) -> str | None:
        """Arithmetic and comparisons: ``1.0 / (1.0 + np.exp(-x))`` is an array when an operand is one
        and every other operand is one too or a number; ``torch.rand(n) < p`` is a tensor when an
        operand is one and none is an array."""
        if isinstance(node, ast.UnaryOp):
            operands = [node.operand]
        elif isinstance(node, ast.BinOp):
            operands = [node.left, node.right]
        else:
            operands = [node.left, *node.comparators]
        kinds = [self._value_kind(operand) for operand in operands]
        numeric = all(
            kind == "array" or _is_number(operand) for kind, operand in zip(kinds, operands, strict=True)
        )
        if "array" in kinds:
            return "array" if numeric else None
        return "tensor" if "tensor" in kinds else None

    def _measure(self, node: ast.expr) -> str | None:
        """``shape:i`` for parameter ``i``'s shape (``x.shape``, ``x.size()``, a slice of either),
        ``size:i`` for one of its sizes (``x.shape[-1]``, ``x.size(1)``), ``strides:i`` and
        ``stride:i`` likewise for ``x.stride()``; None for anything else."""
        element = False
        if isinstance(node, ast.Subscript):
            if _is_int(node.slice):
                element = True
            elif not isinstance(node.slice, ast.Slice):
                return None
            node = node.value
        if isinstance(node, ast.Attribute) and node.attr == "shape":
            what, base = "size" if element else "shape", node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MEASURES:
            indexed = len(node.args) == 1 and _is_int(node.args[0]) and not node.keywords
            if (node.args or node.keywords) and not indexed or (indexed and element):
                return None
            what, base = _MEASURES[node.func.attr][indexed or element], node.func.value
        else:
            return None
        position = self.positions.get(base.id) if isinstance(base, ast.Name) else None
        return None if position is None else f"{what}:{position}"


#: ``x.size()``/``x.stride()`` give a whole shape or stride tuple, ``x.size(1)``/``x.stride(1)`` one entry.
_MEASURES = {"size": ("shape", "size"), "stride": ("strides", "stride")}
_INT = "int"
#: What a local can be known to hold, for what a function returns.
_VALUE_KINDS = frozenset({"tensor", "array", "frame"})
_MAY_NOT_RUN = (ast.For, ast.AsyncFor, ast.While, ast.Try, ast.TryStar, ast.Match)


def _agreed(one: dict[str, str], other: dict[str, str]) -> dict[str, str]:
    """The names both ways through a statement leave with the same kind."""
    return {name: kind for name, kind in one.items() if other.get(name) == kind}


_SEQUENCES = frozenset(
    f"{module}.{name}"
    for module in ("typing", "collections.abc")
    for name in ("List", "Sequence", "Iterable", "Iterator", "MutableSequence", "Collection")
) | {"list"}
_TUPLES = frozenset({"typing.Tuple", "tuple"})
_MAPPINGS = frozenset(
    f"{module}.{name}"
    for module in ("typing", "collections.abc", "collections")
    for name in ("Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict", "defaultdict")
) | {"dict"}


def _container(tag: str, items: list[str | None]) -> str | None:
    return f"{tag}[{','.join(item or '' for item in items)}]" if any(items) else None


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _is_number(node: ast.expr) -> bool:
    """A number literal, also negated."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _is_int(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _reads_grad_state(node: ast.expr, scanner: _Scanner) -> bool:
    """``x.requires_grad`` (also ``getattr(x, "requires_grad", False)``), ``torch.is_grad_enabled()``,
    or a boolean combination holding one."""
    if isinstance(node, ast.BoolOp):
        return any(_reads_grad_state(value, scanner) for value in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _reads_grad_state(node.operand, scanner)
    if isinstance(node, ast.Attribute) and node.attr == "requires_grad":
        return not _picks_a_parameter(node.value)
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2:
        name = node.args[1]
        return isinstance(name, ast.Constant) and name.value == "requires_grad"
    return scanner.resolve(node.func) in _GRAD_FLAG_CALLS


def _optional_import(node: ast.expr) -> str | None:
    """The module a call imports by name: ``importlib.import_module("m")``, ``optional_import("m")``
    (and its first element), ``__import__("m")``: any callee whose name says it imports."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
        node = node.value
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    first = node.args[0]
    if "import" in name.lower() and isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def _names_non_cpu_device(node: ast.expr) -> bool:
    """``"cuda"``, ``f"cuda:{i}"``, ``"cuda:" + str(i)``, ``"cuda:%d" % i``, ``"cuda:{}".format(i)``:
    a string naming a device other than the CPU."""
    if isinstance(node, ast.JoinedStr) and len(node.values) == 1:
        node = node.values[0]  # ``f"cuda"``: all fixed text
    if isinstance(node, ast.Constant):
        device = named_device(node.value, whole=True) if isinstance(node.value, str) else None
    else:
        start = _leading_text(node)
        device = named_device(start, whole=False) if start is not None else None
    return device in NON_CPU_DEVICES


def _leading_text(node: ast.expr) -> str | None:
    """The fixed text a string built at run time starts with: an f-string's first part, the left
    operand of ``+`` or ``%``, the receiver of ``.format``."""
    if isinstance(node, ast.JoinedStr):
        first = node.values[0] if node.values else None
        return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        left = node.left
        if isinstance(left, ast.Constant):
            return left.value if isinstance(left.value, str) else None
        return _leading_text(left) if isinstance(node.op, ast.Add) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        receiver = node.func.value
        return receiver.value if isinstance(receiver, ast.Constant) and isinstance(receiver.value, str) else None
    return None


def _reads_a_number(node: ast.expr) -> bool:
    """``x.item()``, ``float(t)``, ``len(x)``: a Python number read out of a value."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr in ("item", "tolist", "numel")
    return isinstance(func, ast.Name) and func.id in ("float", "int", "bool", "len", "round")


def _picks_a_parameter(node: ast.expr) -> bool:
    """``next(model.parameters())`` or ``list(model.parameters())[0]``: one of a model's parameters,
    whose flag says whether the model trains, not whether a tensor records."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "next" and node.args:
        return _gives_parameters(node.args[0])
    return isinstance(node, ast.Subscript) and _gives_parameters(node.value)


def _gives_parameters(node: ast.expr) -> bool:
    """``model.parameters()``, or a list, filter or chain of one: a module's learnable parameters."""
    return any(
        isinstance(found, ast.Call)
        and isinstance(found.func, ast.Attribute)
        and found.func.attr in ("parameters", "named_parameters")
        for found in ast.walk(node)
    )


def _raises_validation_error(body: list[ast.stmt]) -> bool:
    """The block ends by raising one of the argument errors (``raise ValueError(msg)``)."""
    last = body[-1] if body else None
    if not isinstance(last, ast.Raise) or last.exc is None:
        return False
    exc = last.exc.func if isinstance(last.exc, ast.Call) else last.exc
    return isinstance(exc, ast.Name) and exc.id in VALIDATION_ERRORS


def _validator_name(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return name is not None and VALIDATOR.match(name) is not None


def _validator_properties(call: ast.Call) -> tuple[str, ...]:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return tuple(sorted(validator_properties(name)))


def _names(node: ast.AST) -> set[str]:
    return {found.id for found in ast.walk(node) if isinstance(found, ast.Name)}


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None
