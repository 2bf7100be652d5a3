"""Code that touches autograd without being a route: TPL001 and TPL004 leave it alone.

- A custom ``torch.autograd.Function``'s ``backward`` (or ``jvp``/``vjp``) that skips gradients
  nobody needs: that is the backward pass itself, not a primitive choosing a route.
- Learnable parameters being frozen, unfrozen or sorted (``for p in model.parameters(): p.requires_grad
  = True``, ``[p for p in params if p.requires_grad]``): training bookkeeping on parameters, which
  record nothing until a model is trained.
- A branch that only detaches its input, or only raises (after building its message), or only adds
  to the message of the error raised right after it: it normalises or rejects the input, and there
  is still one route.
- A branch of a custom ``Function``'s ``forward`` that only keeps values on ``ctx`` for the backward.
- A branch that only registers gradient hooks that watch without changing the gradient: torch
  refuses a hook on a tensor that does not require grad, so the test guards that call, not a route.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

from torchperf_lint.context import FileContext
from torchperf_lint.toolkit.functions import binding_loop, class_methods
from torchperf_lint.toolkit.matching import conjuncts, is_literal, walk
from torchperf_lint.toolkit.types import bound_value
from torchperf_lint.vocabulary import AUTOGRAD_FUNCTIONS

_BACKWARD_METHODS = frozenset({"backward", "jvp", "vjp"})
#: Methods of ``nn.Module`` that give its parameters.
_PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})
#: What ``nn.Module`` layers (linear, convolution, normalisation, embedding) call their learned tensors.
_LAYER_TENSORS = frozenset({"weight", "bias"})
#: Calls that only tell someone something: a branch made of them runs no route.
_REPORTING_CALLS = frozenset(
    {
        "warn",
        "warning",
        "warn_once",
        "simplefilter",
        "filterwarnings",
        "warning_once",
        "info",
        "info_once",
        "debug",
        "print",
        "error",
        "exception",
        "critical",
    }
)
#: A helper named for reporting: a word of its snake-case name is one of these (``print_rank_0``).
_REPORTING_HELPER = re.compile(r"(?:^|_)(?:print|warn|warning|log|info|debug)(?:_|$)")
#: Tensor and distribution functions whose names start with the word ``log``: they compute.
_MATH = re.compile(r"_*log(?:$|_softmax|_sigmoid|_normal|_prob|_det|_abs_det|_cumsum|_ndtr|_gamma|_beta)")
_COLLECTING_METHODS = frozenset({"add", "append"})
#: Words in the name of a function a hook lambda calls when it only watches the gradient.
_OBSERVING_WORDS = ("warn", "check", "log", "print", "record", "report")
#: Tensor methods that attach a gradient hook; torch raises on a tensor that does not require grad.
_HOOK_REGISTRATIONS = frozenset({"register_hook", "register_post_accumulate_grad_hook"})
_TEXT = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)
#: Variables named for a name or key (``name``, ``param_name``, ``keys``).
_NAME_VARIABLE = re.compile(r"(?:^|_)(?:name|key)s?$")
#: Builtins that turn a value into text, or measure it, without computing on a tensor.
_TEXT_BUILTINS = frozenset({"str", "repr", "type", "len"})
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
                and _is_autograd_function(ctx, owner)
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


def is_layer_tensor(ctx: FileContext, expression: cst.BaseExpression | None) -> bool:
    """``fusion.value.weight``, ``self.get_input_embeddings().bias``, ``getattr(layer, "bias", None)``,
    or ``emb.weight`` where ``emb`` is bound to one of these or is a ``torch.nn`` layer by an
    ``isinstance`` test around it: the weight or bias of a layer, one of its learnable parameters.
    ``self.weight`` or ``w.weight`` of a plain name is not taken: a kernel may keep a tensor of its
    own under that name."""
    if _gets_layer_tensor(expression):
        return True
    if not (isinstance(expression, cst.Attribute) and expression.attr.value in _LAYER_TENSORS):
        return False
    owner: cst.BaseExpression | None = expression.value
    if isinstance(owner, cst.Name):
        if _iterates_submodules(ctx, owner.value) or _checked_layer(ctx, owner.value):
            return True
        owner = bound_value(ctx, owner)
    return isinstance(owner, cst.Attribute | cst.Call)


def _gets_layer_tensor(expression: cst.BaseExpression | None) -> bool:
    """``getattr(layer, "bias", None)``: the builtin reading a layer's weight or bias by its name."""
    return (
        isinstance(expression, cst.Call)
        and isinstance(expression.func, cst.Name)
        and expression.func.value == "getattr"
        and len(expression.args) >= 2
        and isinstance(expression.args[1].value, cst.SimpleString)
        and expression.args[1].value.evaluated_value in _LAYER_TENSORS
    )


def _checked_layer(ctx: FileContext, name: str) -> bool:
    """An ``isinstance(name, nn.Embedding)`` test (any class of ``torch.nn``) guards the visited node:
    the test of an ``if`` around it, or one part of the ``and`` chain that is the test being visited.
    ``name`` is then a layer, as in a weight initialiser handed each submodule in turn."""
    ancestors = ctx.ancestors
    for index, node in enumerate(ancestors):
        tests: list[cst.BaseExpression] = []
        if isinstance(node, cst.If) and index + 1 < len(ancestors) and ancestors[index + 1] is node.body:
            tests.append(node.test)
        elif node is ancestors[-1] and isinstance(node, cst.If | cst.While | cst.IfExp):
            tests.append(node.test)
        if any(_is_layer_check(ctx, part, name) for test in tests for part in conjuncts(test)):
            return True
    return False


def _is_layer_check(ctx: FileContext, node: cst.CSTNode, name: str) -> bool:
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "isinstance"):
        return False
    if len(node.args) != 2 or not (isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == name):
        return False
    classes = node.args[1].value
    options = [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
    return any((ctx.qualname(option) or "").startswith("torch.nn.") for option in options)


#: Methods of ``nn.Module`` that yield its layers (``named_*`` as ``(name, layer)`` pairs).
_SUBMODULE_ITERATORS = frozenset({"modules", "children", "named_modules", "named_children"})


def _iterates_submodules(ctx: FileContext, name: str) -> bool:
    """``for m in model.modules():`` (or ``for n, m in model.named_modules()``, or a comprehension over
    them) around the visited node binds ``name`` to each layer of a model."""
    loop = binding_loop(ctx, name)
    call = loop.iter if loop is not None else None
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value in _SUBMODULE_ITERATORS
    )


def is_parameter_collection(ctx: FileContext, expression: cst.BaseExpression, through_local: bool = True) -> bool:
    """Whether ``expression`` holds learnable parameters: a ``parameters()``-style call, a project
    function returning them, a name or key spelt like ``params``, or a local bound to one of these
    (``allow_list = self.not_excluded_parameters(model)``, then ``for name, p in allow_list``)."""
    if through_local and isinstance(expression, cst.Name):
        value = bound_value(ctx, expression)
        if value is not None and is_parameter_collection(ctx, value, through_local=False):
            return True
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
    (``msg = f"..."``, then ``raise ValueError(msg)``) or tells someone first (``logger.error(...)``,
    also under a test of its own, ``if verbose: logger.error(...)``)."""
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    statements: list[cst.CSTNode] = []
    for line in lines:
        if isinstance(line, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            statements.extend(line.body)
        elif isinstance(line, cst.If) and _arms_only_report(line):
            statements.append(line)
        else:
            return False
    if not statements or not isinstance(statements[-1], cst.Raise):
        return False
    raised = {n.value for n in walk(statements[-1]) if isinstance(n, cst.Name)}
    return all(
        isinstance(statement, cst.If)
        or (isinstance(statement, cst.Expr) and is_report(statement.value))
        or (
            isinstance(statement, cst.Assign)
            and all(isinstance(t.target, cst.Name) and t.target.value in raised for t in statement.targets)
        )
        for statement in statements[:-1]
    )


def _arms_only_report(branch: cst.If) -> bool:
    """Every arm of ``branch`` only reports (see `only_reports`); a missing ``else`` does nothing."""
    orelse = branch.orelse
    rest = _arms_only_report(orelse) if isinstance(orelse, cst.If) else orelse is None or only_reports(orelse.body)
    return rest and only_reports(branch.body)


def only_rejects(body: cst.BaseSuite, rejects: Callable[[cst.BaseSuite], bool] = only_raises) -> bool:
    """The block rejects (``rejects``: by default it only raises, `only_raises`), or holds nothing but
    ``if`` statements every arm of which only rejects (``if not grad: if not detach: raise
    ValueError(...)``): every way through it raises or does nothing, so the test around it is
    validation, not a route."""
    if rejects(body):
        return True
    lines = body.body if isinstance(body, cst.IndentedBlock) else []
    return bool(lines) and all(isinstance(line, cst.If) and arms_only_reject(line, rejects) for line in lines)


def arms_only_reject(branch: cst.If, rejects: Callable[[cst.BaseSuite], bool] = only_raises) -> bool:
    """Every arm of ``branch`` (its body, each ``elif`` and the ``else``, if any) only rejects."""
    orelse = branch.orelse
    if isinstance(orelse, cst.If):
        rest = arms_only_reject(orelse, rejects)
    else:
        rest = orelse is None or only_rejects(orelse.body, rejects)
    return rest and only_rejects(branch.body, rejects)


def only_sets_grad_flags(body: cst.BaseSuite) -> bool:
    """The block does nothing (``pass``) or only turns autograd flags off (``pos.requires_grad_(False)``,
    ``t.requires_grad = False``), as when a function restores the flag its caller gave after turning it
    on for its own use: the same operations run either way, so the test chooses no route. Turning
    recording on in the branch (``if not x.requires_grad: x.requires_grad_()``) makes what follows
    record a graph, a route, and stays flagged."""
    statements = _small_statements(body)
    return bool(statements) and all(_sets_grad_flag(statement) for statement in statements)


def _sets_grad_flag(statement: cst.BaseSmallStatement) -> bool:
    if isinstance(statement, cst.Pass):
        return True
    if isinstance(statement, cst.Assign):
        return is_literal(statement.value, "False") and all(
            isinstance(t.target, cst.Attribute) and t.target.attr.value == "requires_grad"
            for t in statement.targets
        )
    value = statement.value if isinstance(statement, cst.Expr) else None
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "requires_grad_"
        and len(value.args) == 1
        and is_literal(value.args[0].value, "False")
    )


def only_detaches(body: cst.BaseSuite) -> bool:
    """The block only rebinds names to detached copies (``x = x.detach()``) or detaches in place."""
    statements = _small_statements(body)
    return bool(statements) and all(_detaches(statement) for statement in statements)


def _detaches(statement: cst.BaseSmallStatement) -> bool:
    value = statement.value if isinstance(statement, cst.Assign | cst.Expr) else None
    return value is not None and _detached_copy_of(value) is not None


def _detached_copy_of(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """What ``value`` detaches, when it is ``x.detach()``/``x.detach_()`` or ``x.data`` (the same
    values, no history), optionally followed by ``.clone()``, ``.contiguous()`` or ``.cpu()`` (a
    detached copy of ``x``); else None."""
    detached = False
    while True:
        if isinstance(value, cst.Attribute) and value.attr.value == "data" and not detached:
            detached, value = True, value.value
            break
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and not value.args):
            break
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
    return _same_but_detach(node.body, node.orelse)


def _same_but_detach(one: cst.BaseExpression, other: cst.BaseExpression) -> bool:
    """Whether the two expressions are the same but for a ``.detach()`` (or ``.data``) in one; for
    two tuples or lists of the same length, element by element (``(a, b)`` and ``(a.detach(),
    b.detach())``), with at least one element differing so."""
    if type(one) is type(other) and isinstance(one, cst.Tuple | cst.List):
        if len(one.elements) != len(other.elements):  # type: ignore[attr-defined]
            return False
        pairs = list(zip(one.elements, other.elements, strict=True))  # type: ignore[attr-defined]
        differing = [(a.value, b.value) for a, b in pairs if not a.value.deep_equals(b.value)]
        return bool(differing) and all(_same_but_detach(a, b) for a, b in differing)
    for arm, rest in ((one, other), (other, one)):
        source = _detached_copy_of(arm)
        if source is not None and rest.deep_equals(source):
            return True
    stripped = [_without_detach(arm) for arm in (one, other)]
    return any(s is not a for s, a in zip(stripped, (one, other), strict=True)) and stripped[0].deep_equals(
        stripped[1]
    )


def arms_differ_by_detach(branch: cst.If, following: Callable[[], cst.BaseStatement | None]) -> bool:
    """``if x.requires_grad: y = x.cpu().detach().numpy()`` with ``else: y = x.cpu().numpy()``, or
    ``if x.requires_grad: return x.detach().numpy()`` followed by ``return x.numpy()``: the two ways
    are one statement but for a ``.detach()``, the same form as `is_detached_form`'s expression.
    ``following`` gives the statement after ``branch``, asked for only in the second form."""
    one = _only_statement(branch.body)
    if isinstance(branch.orelse, cst.Else):
        other = _only_statement(branch.orelse.body)
    elif branch.orelse is None and isinstance(one, cst.Return):
        after = following()
        other = after.body[0] if isinstance(after, cst.SimpleStatementLine) and len(after.body) == 1 else None
    else:
        return False
    if isinstance(one, cst.Return) and isinstance(other, cst.Return):
        values = (one.value, other.value)
    elif isinstance(one, cst.Assign) and isinstance(other, cst.Assign):
        if len(one.targets) != len(other.targets) or not all(
            a.target.deep_equals(b.target) for a, b in zip(one.targets, other.targets, strict=True)
        ):
            return False
        values = (one.value, other.value)
    else:
        return False
    return values[0] is not None and values[1] is not None and _same_but_detach(values[0], values[1])


def _only_statement(body: cst.BaseSuite) -> cst.BaseSmallStatement | None:
    statements = _small_statements(body)
    return statements[0] if len(statements) == 1 else None


def _without_detach(value: cst.BaseExpression) -> cst.BaseExpression:
    """``value``'s method chain without its ``.detach()`` calls and ``.data`` reads (the same node
    when it has none)."""
    if isinstance(value, cst.Attribute) and value.attr.value == "data":
        return _without_detach(value.value)
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
        and _is_name_text(statement.value.args[0].value)
        for statement in statements
    )


def _is_name_text(value: cst.BaseExpression) -> bool:
    """Text, or a variable named for a name or key (``name``, ``param_name``, ``key``): what a block
    collecting the names of trainable things appends."""
    return isinstance(value, _TEXT) or (
        isinstance(value, cst.Name) and _NAME_VARIABLE.search(value.value) is not None
    )


def only_extends_text(body: cst.BaseSuite) -> bool:
    """The block only extends text a name already holds (``text = text[:-1] + ", requires_grad=True)"``,
    ``note += " (leaf)"``): each statement adds a string literal to the name it binds, calling nothing
    but ``str``, ``repr``, ``type`` or ``len``. Describing a tensor for a reader routes no work, while
    binding a fresh literal (``mode = "graph"``) may pick a route later."""
    statements = _small_statements(body)
    return bool(statements) and all(_extends_text(statement) for statement in statements)


def _extends_text(statement: cst.BaseSmallStatement) -> bool:
    if isinstance(statement, cst.AugAssign):
        target, value = statement.target, statement.value
    elif isinstance(statement, cst.Assign) and len(statement.targets) == 1:
        target, value = statement.targets[0].target, statement.value
    else:
        return False
    if not isinstance(target, cst.Name):
        return False
    parts = list(walk(value))
    extends = isinstance(statement, cst.AugAssign) or any(
        isinstance(part, cst.Name) and part.value == target.value for part in parts
    )
    return (
        extends
        and any(isinstance(part, _TEXT) for part in parts)
        and all(
            isinstance(part.func, cst.Name) and part.func.value in _TEXT_BUILTINS
            for part in parts
            if isinstance(part, cst.Call)
        )
    )


def only_tallies_parameters(body: cst.BaseSuite) -> bool:
    """The block only gathers trainable tensors into a collection named for parameters
    (``parameters.append(t)``) or counts their elements (``total += t.numel()``): optimizer and
    model bookkeeping, which computes nothing with them."""
    statements = _small_statements(body)
    return bool(statements) and all(_tallies(statement) for statement in statements)


def _tallies(statement: cst.BaseSmallStatement) -> bool:
    if isinstance(statement, cst.AugAssign) and isinstance(statement.operator, cst.AddAssign):
        value = statement.value
        return (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "numel"
        )
    call = statement.value if isinstance(statement, cst.Expr) else None
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value in _COLLECTING_METHODS
        and isinstance(call.func.value, cst.Name)
        and "param" in call.func.value.value.lower()
    )


def only_registers_observers(ctx: FileContext, body: cst.BaseSuite) -> bool:
    """The block only registers gradient hooks that watch the gradient without changing it (a hook
    that returns nothing or its argument, or a lambda that calls a warning or check such as
    ``warn_if_nan``), keeping or collecting the handle, or asks torch to keep a gradient
    (``t.retain_grad()``). Torch refuses a hook on a tensor that does
    not require grad, so the test around it guards that call, and neither the forward nor the
    backward computation changes. A hook that returns a new gradient is a backward route, still
    reported."""
    statements = _small_statements(body)
    return bool(statements) and all(_registers_observer(ctx, statement) for statement in statements)


def _registers_observer(ctx: FileContext, statement: cst.BaseSmallStatement) -> bool:
    value = statement.value if isinstance(statement, cst.Expr | cst.Assign) else None
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and not value.args:
        if value.func.attr.value == "retain_grad":  # keeps a non-leaf's gradient for someone to read
            return True
    if (  # ``handles.append(t.register_hook(fn))``
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in _COLLECTING_METHODS
        and len(value.args) == 1
    ):
        value = value.args[0].value
    if not (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in _HOOK_REGISTRATIONS
        and len(value.args) == 1
    ):
        return False
    hook = value.args[0].value
    if isinstance(hook, cst.Lambda):
        called = hook.body.func if isinstance(hook.body, cst.Call) else None
        name = called.attr.value if isinstance(called, cst.Attribute) else getattr(called, "value", "")
        if isinstance(name, str) and any(word in name.lower() for word in _OBSERVING_WORDS):
            return True
        definition = _callee(ctx, called) if called is not None else None
        return definition is not None and _returns_nothing(definition)  # ``lambda g: self.clear_cache()``
    if isinstance(hook, cst.Call) and ctx.qualname(hook.func) == "functools.partial" and hook.args:
        definition = _callee(ctx, hook.args[0].value)  # ``partial(_on_grad, flag)``: its own arguments first
        return definition is not None and _returns_nothing(definition)
    definition = _callee(ctx, hook)
    if definition is None:
        return False
    bound = isinstance(hook, cst.Attribute)  # ``self._on_grad``: the gradient comes after ``self``
    return _returns_its_argument(definition, skip=1 if bound else 0)


def _callee(ctx: FileContext, func: cst.BaseExpression) -> cst.FunctionDef | None:
    """The ``def`` a hook names: a function of the enclosing function or module (``_seen``), or a
    method of the enclosing class (``self._seen``)."""
    if isinstance(func, cst.Name):
        return _definition(ctx, func.value)
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
        function = ctx.enclosing_function()
        return class_methods(ctx, function).get(func.attr.value) if function is not None else None
    return None


def _definition(ctx: FileContext, name: str) -> cst.FunctionDef | None:
    """The ``def`` of ``name`` in the enclosing function's body or at module level."""
    scopes = [node.body for node in reversed(ctx.ancestors) if isinstance(node, cst.FunctionDef)][:1]
    scopes.append(ctx.module)
    for scope in scopes:
        for node in walk(scope, into_functions=False):
            if isinstance(node, cst.FunctionDef) and node.name.value == name:
                return node
    return None


def _returns_nothing(function: cst.FunctionDef) -> bool:
    """Every ``return`` gives nothing back (a hook made of it leaves the gradient as it was)."""
    return all(
        node.value is None or (isinstance(node.value, cst.Name) and node.value.value == "None")
        for node in walk(function.body, into_functions=False)
        if isinstance(node, cst.Return)
    )


def _returns_its_argument(function: cst.FunctionDef, skip: int = 0) -> bool:
    """Every ``return`` gives nothing or the function's first parameter (after ``skip`` bound ones,
    ``self`` of a method) back unchanged."""
    params = function.params.params[skip:]
    first = params[0].name.value if params else None
    return all(
        node.value is None or (isinstance(node.value, cst.Name) and node.value.value in (first, "None"))
        for node in walk(function.body, into_functions=False)
        if isinstance(node, cst.Return)
    )


def only_returns_tested(test: cst.BaseExpression, body: cst.BaseSuite) -> bool:
    """``if t.requires_grad: return t``: a search for the first tensor that records (to hang a hook
    on it), which hands back what it tested unchanged and computes nothing either way."""
    statements = _small_statements(body)
    if not (isinstance(test, cst.Attribute) and test.attr.value == "requires_grad" and len(statements) == 1):
        return False
    (statement,) = statements
    return (
        isinstance(statement, cst.Return)
        and statement.value is not None
        and statement.value.deep_equals(test.value)
    )


def only_keeps_for_backward(ctx: FileContext, body: cst.BaseSuite) -> bool:
    """In a custom ``torch.autograd.Function``'s ``forward``, the block only keeps what ``backward``
    will need on its context (``ctx.opt = opt``, ``ctx.save_for_backward(x)``): the output is computed
    the same way either way, so the test around it chooses no route."""
    function = ctx.enclosing_function()
    if function is None or function.name.value != "forward" or not _in_autograd_function(ctx):
        return False
    params = function.params.params
    owner = params[0].name.value if params else None
    statements = _small_statements(body)
    if not statements or owner is None:
        return False
    later = _statements_after(ctx, function)
    return all(
        _keeps_on(statement, owner) or _drops_a_saved_value(statement, owner, later) for statement in statements
    )


def _statements_after(ctx: FileContext, function: cst.FunctionDef) -> list[cst.CSTNode]:
    """The statements of ``function``'s body after the one holding the visited node."""
    lines = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
    current = next((node for node in ctx.ancestors if any(node is line for line in lines)), None)
    return lines[next(i for i, line in enumerate(lines) if line is current) + 1 :] if current is not None else []


def _drops_a_saved_value(statement: cst.BaseSmallStatement, owner: str, later: list[cst.CSTNode]) -> bool:
    """``X = None`` where what follows reads ``X`` only to keep it on the context
    (``ctx.save_for_backward(X, Y)``, ``ctx.x = X``): the branch decides what the backward gets, the
    output is already computed."""
    if not (
        isinstance(statement, cst.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0].target, cst.Name)
        and is_literal(statement.value, "None")
    ):
        return False
    name = statement.targets[0].target.value
    kept = reads = 0
    for line in later:
        for node in walk(line):
            if isinstance(node, cst.SimpleStatementLine):
                for small in node.body:
                    if _keeps_on(small, owner):
                        kept += sum(isinstance(n, cst.Name) and n.value == name for n in walk(small))
            elif isinstance(node, cst.Name) and node.value == name:
                reads += 1
    return kept > 0 and kept == reads


def _keeps_on(statement: cst.BaseSmallStatement, owner: str) -> bool:
    """``ctx.opt = opt`` or ``ctx.save_for_backward(x)``, for ``owner`` the context's name."""
    if isinstance(statement, cst.Assign):
        return all(_member_of(t.target, owner) for t in statement.targets)
    call = statement.value if isinstance(statement, cst.Expr) else None
    return isinstance(call, cst.Call) and _member_of(call.func, owner)


def _member_of(node: cst.BaseExpression, owner: str) -> bool:
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == owner


def _in_autograd_function(ctx: FileContext) -> bool:
    owner = next((node for node in reversed(ctx.ancestors) if isinstance(node, cst.ClassDef)), None)
    return owner is not None and _is_autograd_function(ctx, owner)


def _is_autograd_function(ctx: FileContext, owner: cst.ClassDef) -> bool:
    return any(is_autograd_base(ctx, base.value) for base in owner.bases)


def is_autograd_base(ctx: FileContext, base: cst.BaseExpression) -> bool:
    """``torch.autograd.Function``, or a project class deriving from it (here or in another module,
    as the project index tells): a class with this base defines a backward pass."""
    return ctx.qualname(base) in AUTOGRAD_FUNCTIONS or derives_from_autograd_function(ctx, base)


def derives_from_autograd_function(ctx: FileContext, base: cst.BaseExpression) -> bool:
    """``base`` is a project class that is a ``torch.autograd.Function`` subclass (here or in another
    module): a class deriving from it derives from ``torch.autograd.Function`` too."""
    if not isinstance(base, cst.Name | cst.Attribute) or not ctx.kernel.autograd_classes:
        return False
    name = ctx.qualname(base) or (f"{ctx.module_name}.{base.value}" if isinstance(base, cst.Name) else None)
    return name in ctx.kernel.autograd_classes


def only_amends_a_raise(branch: cst.If, block: cst.CSTNode) -> bool:
    """``if x.requires_grad: msg += " hint"`` followed by ``raise ...(msg)``: the branch only adds to
    the message of the error raised right after it, in the block holding it, so it routes nothing."""
    statements = _small_statements(branch.body)
    targets = [
        target
        for statement in statements
        for target in (
            [t.target for t in statement.targets]
            if isinstance(statement, cst.Assign)
            else [statement.target]
            if isinstance(statement, cst.AugAssign)
            else []
        )
    ]
    bound = {target.value for target in targets if isinstance(target, cst.Name)}
    if not statements or len(bound) != len(statements) or branch.orelse is not None:
        return False
    if not isinstance(block, cst.IndentedBlock | cst.Module):
        return False  # an ``elif``: its parent is the ``if`` it continues
    lines = list(block.body)
    position = next((i for i, line in enumerate(lines) if line is branch), None)
    if position is None or position + 1 >= len(lines):
        return False
    after = lines[position + 1]
    raised = after.body[0] if isinstance(after, cst.SimpleStatementLine) and len(after.body) == 1 else None
    return isinstance(raised, cst.Raise) and bool(
        bound & {n.value for n in walk(raised) if isinstance(n, cst.Name)}
    )


def only_reports(body: cst.BaseSuite) -> bool:
    """The block only reports: every statement calls a warning, logging or printing function
    (``warnings.warn``, ``logger.warning``, ``logger.info``, ``print``), after binding at most the
    names those calls use."""
    statements = _small_statements(body)
    reports = [s for s in statements if isinstance(s, cst.Expr) and is_report(s.value)]
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


def is_report(value: cst.BaseExpression) -> bool:
    """A call of a warning, logging or printing function (or one that sets which warnings are shown,
    ``warnings.simplefilter("ignore")``), also a project helper named for one (``_print_rank0``,
    ``rank_zero_warn``, ``log_once``): it tells someone something, or decides what they are told.
    A name ending in ``_`` (``x.log_()``) is an in-place tensor method, not a report."""
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return name in _REPORTING_CALLS or (
        not name.endswith("_") and _REPORTING_HELPER.search(name) is not None and not _MATH.match(name)
    )


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
