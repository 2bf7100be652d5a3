"""Code that touches autograd without being a route: TPL001 and TPL004 leave it alone.

- A custom ``torch.autograd.Function``'s ``backward`` (or ``jvp``/``vjp``) that skips gradients
  nobody needs: that is the backward pass itself, not a primitive choosing a route.
- Learnable parameters being frozen, unfrozen or sorted (``for p in model.parameters(): p.requires_grad
  = True``, ``[p for p in params if p.requires_grad]``): training bookkeeping on parameters, which
  record nothing until a model is trained.
- A branch that only detaches its input, or only raises (after building its message): it normalises
  or rejects the input, and there is still one route.
"""

from __future__ import annotations

import libcst as cst

from torchperf_lint.context import FileContext
from torchperf_lint.toolkit.matching import walk

_AUTOGRAD_FUNCTIONS = frozenset(
    {"torch.autograd.Function", "torch.autograd.function.Function", "torch.autograd.function.InplaceFunction"}
)
_BACKWARD_METHODS = frozenset({"backward", "jvp", "vjp"})
#: Methods of ``nn.Module`` that give its parameters.
_PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})
#: Calls that only tell someone something: a branch made of them runs no route.
_REPORTING_CALLS = frozenset(
    {"warn", "warning", "warn_once", "warning_once", "info", "info_once", "debug", "print"}
)
_COLLECTING_METHODS = frozenset({"add", "append"})
_TEXT = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)
#: Methods that may follow ``.detach()`` on a detached copy without starting any computation of their own.
_AFTER_DETACH = frozenset({"clone", "contiguous", "cpu"})


def in_custom_backward(ctx: FileContext) -> bool:
    """Whether the visited node is inside ``backward``/``jvp``/``vjp`` of an autograd ``Function``,
    also in a function nested there (a hook or callback the backward pass defines and runs)."""
    ancestors = ctx.ancestors
    for index in range(len(ancestors) - 1, 1, -1):
        node = ancestors[index]
        if isinstance(node, cst.FunctionDef):
            owner = ancestors[index - 2]  # FunctionDef <- IndentedBlock <- ClassDef
            if (
                node.name.value in _BACKWARD_METHODS
                and isinstance(owner, cst.ClassDef)
                and any(ctx.qualname(base.value) in _AUTOGRAD_FUNCTIONS for base in owner.bases)
            ):
                return True
    return False


def is_parameter_loop_variable(ctx: FileContext, name: str) -> bool:
    """Whether ``name`` is the item of an enclosing ``for`` loop or comprehension over learnable
    parameters: ``model.parameters()``, ``named_parameters()``, a collection named like one
    (``params``, ``param_group["params"]``), or a project function that returns one."""
    for node in reversed(ctx.ancestors):
        if isinstance(node, cst.FunctionDef):
            return False
        loops = (
            node.for_in if isinstance(node, cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp) else node
        )
        while isinstance(loops, cst.For | cst.CompFor):
            if _binds(loops.target, name) and is_parameter_collection(ctx, loops.iter):
                return True
            loops = loops.inner_for_in if isinstance(loops, cst.CompFor) else None
    return False


def is_parameter_collection(ctx: FileContext, expression: cst.BaseExpression) -> bool:
    for node in walk(expression):
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in _PARAMETER_METHODS:
                return True
            qualname = ctx.qualname(func) or (
                f"{ctx.module_name}.{func.value}" if isinstance(func, cst.Name) else None
            )
            if qualname is not None and ctx.kernel.returns.get(qualname) == "parameters":
                return True
        elif isinstance(node, cst.Name) and "param" in node.value.lower():
            return True
        elif isinstance(node, cst.SimpleString) and "param" in node.value.lower():
            return True  # param_group["params"]
    return False


def only_raises(body: cst.BaseSuite) -> bool:
    """The block rejects: it ends in ``raise``, and whatever comes before only builds the message
    (``msg = f"..."``, then ``raise ValueError(msg)``)."""
    statements = _small_statements(body)
    if not statements or not isinstance(statements[-1], cst.Raise):
        return False
    raised = {n.value for n in walk(statements[-1]) if isinstance(n, cst.Name)}
    return all(
        isinstance(statement, cst.Assign)
        and all(isinstance(t.target, cst.Name) and t.target.value in raised for t in statement.targets)
        for statement in statements[:-1]
    )


def only_detaches(body: cst.BaseSuite) -> bool:
    """The block only rebinds names to detached copies (``x = x.detach()``) or detaches in place."""
    statements = _small_statements(body)
    return bool(statements) and all(_detaches(statement) for statement in statements)


def _detaches(statement: cst.BaseSmallStatement) -> bool:
    value = statement.value if isinstance(statement, cst.Assign | cst.Expr) else None
    return value is not None and _detached_copy_of(value) is not None


def _detached_copy_of(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """What ``value`` detaches, when it is ``x.detach()``/``x.detach_()``, optionally followed by
    ``.clone()``, ``.contiguous()`` or ``.cpu()`` (a detached copy of ``x``); else None."""
    detached = False
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and not value.args:
        method = value.func.attr.value
        if method in ("detach", "detach_"):
            detached = True
        elif detached or method not in _AFTER_DETACH:
            return None
        value = value.func.value
    return value if detached else None


def is_detached_form(node: cst.IfExp) -> bool:
    """``x.detach() if x.requires_grad else x`` (or ``x.detach().clone()``, or
    ``x.detach().cpu().numpy() if x.requires_grad else x.cpu().numpy()``): the arms are the same
    expression but for a ``.detach()`` in one."""
    arms = (node.body, node.orelse)
    for arm, other in (arms, arms[::-1]):
        source = _detached_copy_of(arm)
        if source is not None and other.deep_equals(source):
            return True
    stripped = [_without_detach(arm) for arm in arms]
    return any(s is not a for s, a in zip(stripped, arms, strict=True)) and stripped[0].deep_equals(stripped[1])


def _without_detach(value: cst.BaseExpression) -> cst.BaseExpression:
    """``value``'s method chain without its ``.detach()`` calls (the same node when it has none)."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
        return value
    inner = _without_detach(value.func.value)
    if value.func.attr.value == "detach" and not value.args:
        return inner
    return value if inner is value.func.value else value.with_changes(func=value.func.with_changes(value=inner))


def only_collects_names(body: cst.BaseSuite) -> bool:
    """The block only records names (``out.add(f"pos_embed_{i}")``, ``names.append("bias")``): it
    touches no tensor, so a test around it, such as which parameters train, routes no work."""
    statements = _small_statements(body)
    return bool(statements) and all(
        isinstance(statement, cst.Expr)
        and isinstance(statement.value, cst.Call)
        and isinstance(statement.value.func, cst.Attribute)
        and statement.value.func.attr.value in _COLLECTING_METHODS
        and len(statement.value.args) == 1
        and isinstance(statement.value.args[0].value, _TEXT)
        for statement in statements
    )


def only_reports(body: cst.BaseSuite) -> bool:
    """The block only reports: every statement calls a warning, logging or printing function
    (``warnings.warn``, ``logger.warning``, ``logger.info``, ``print``), after binding at most the
    names those calls use."""
    statements = _small_statements(body)
    reports = [s for s in statements if isinstance(s, cst.Expr) and _is_report(s.value)]
    if not reports:
        return False
    used = {n.value for report in reports for n in walk(report) if isinstance(n, cst.Name)}
    return all(
        statement in reports
        or (
            isinstance(statement, cst.Assign)
            and all(isinstance(t.target, cst.Name) and t.target.value in used for t in statement.targets)
        )
        for statement in statements
    )


def _is_report(value: cst.BaseExpression) -> bool:
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return name in _REPORTING_CALLS


def _small_statements(body: cst.BaseSuite) -> list[cst.BaseSmallStatement]:
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    found: list[cst.BaseSmallStatement] = []
    for line in lines:
        if isinstance(line, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            found.extend(line.body)
        else:
            return []
    return found


def _binds(target: cst.BaseExpression, name: str) -> bool:
    return any(isinstance(node, cst.Name) and node.value == name for node in walk(target))
