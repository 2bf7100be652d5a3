"""Which statements run together: exits that make code run at most once, or exclude what follows.

A loop body that always leaves (its last statement is ``return``, ``break`` or ``raise``, or an
``if``/``else``, ``with``, ``try`` or ``match`` every way through which leaves) runs once, and so does
a branch inside the loop that ends in one of them. A branch that ends in ``return`` or ``raise``
never runs before the code after its ``if``. Everything here reads the engine's ancestor
stack, or ancestors a rule saved, so it costs the depth of the node, not a pass over the function.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import libcst as cst

from torchperf_lint.context import FileContext
from torchperf_lint.toolkit.functions import class_methods
from torchperf_lint.toolkit.matching import int_value, is_literal, source_of
from torchperf_lint.toolkit.scopes import dotted
from torchperf_lint.toolkit.traversal import children, walk
from torchperf_lint.vocabulary import is_collective

#: Statements after which control never reaches the next statement of the same block.
_LEAVING = (cst.Return, cst.Raise, cst.Break)
_FUNCTION_EXITS = (cst.Return, cst.Raise)
#: How a loop ends when it is done: a value it settles on, rather than an error.
_ENDS = (cst.Break, cst.Return)
_BUILTIN_NAMES = frozenset(dir(builtins))
#: Nodes a ``continue`` inside belongs to (or cannot leave).
_LOOPS_AND_SCOPES = (cst.For, cst.While, cst.FunctionDef, cst.Lambda, cst.ClassDef)
_BLOCK_OWNERS = (
    cst.If,
    cst.Else,
    cst.For,
    cst.While,
    cst.With,
    cst.Try,
    cst.TryStar,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)


def ends_with(block: cst.BaseSuite, kinds: tuple[type, ...]) -> bool:
    """Whether every way through the last statement of ``block`` ends in one of ``kinds``
    (``return``, ``break``...): the statement itself, or each arm of a compound statement."""
    statements = block.body
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine | cst.SimpleStatementSuite):
        return bool(last.body) and (
            isinstance(last.body[-1], kinds) or (cst.Raise in kinds and _fails(last.body[-1]))
        )
    if isinstance(last, cst.If):
        return isinstance(last.orelse, cst.Else | cst.If) and (
            ends_with(last.body, kinds) and _orelse_ends_with(last.orelse, kinds)
        )
    if isinstance(last, cst.With):
        return ends_with(last.body, kinds)
    if isinstance(last, cst.Try | cst.TryStar):
        return _try_ends_with(last, kinds)
    if isinstance(last, cst.Match):
        return _irrefutable(last.cases[-1].pattern) and all(ends_with(case.body, kinds) for case in last.cases)
    return False


def _try_ends_with(node: cst.Try | cst.TryStar, kinds: tuple[type, ...]) -> bool:
    """A ``finally`` that leaves always leaves; otherwise the body (or its ``else``) and every handler must."""
    if node.finalbody is not None and ends_with(node.finalbody.body, kinds):
        return True
    body = node.orelse.body if node.orelse is not None else node.body
    return ends_with(body, kinds) and all(ends_with(handler.body, kinds) for handler in node.handlers)


def _irrefutable(pattern: cst.MatchPattern) -> bool:
    """``case _:`` or ``case name:``, which match anything."""
    return isinstance(pattern, cst.MatchAs) and pattern.pattern is None


def _fails(statement: cst.BaseSmallStatement) -> bool:
    """``torch._assert(False, ...)``: TorchScript-friendly code spells ``raise`` this way."""
    if not (isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call)):
        return False
    call = statement.value
    args = call.args
    return (
        dotted(call.func) == "torch._assert"
        and bool(args)
        and isinstance(args[0].value, cst.Name)
        and args[0].value.value == "False"
    )


def _orelse_ends_with(orelse: cst.If | cst.Else, kinds: tuple[type, ...]) -> bool:
    if isinstance(orelse, cst.Else):
        return ends_with(orelse.body, kinds)
    if orelse.orelse is None:
        return False
    return ends_with(orelse.body, kinds) and _orelse_ends_with(orelse.orelse, kinds)


def runs_at_most_once(ancestors: Sequence[cst.CSTNode], loop: cst.CSTNode) -> bool:
    """Whether the node whose ancestors are given runs at most once per entry into ``loop``: the
    loop's body, or a block between it and the node, always leaves the loop (or the function), and
    no ``continue`` after the node takes the loop round again first.

    Below an inner loop, ``break`` only leaves that inner loop, so there only ``return`` and
    ``raise`` count.
    """
    start = next((i for i in range(len(ancestors) - 1, -1, -1) if ancestors[i] is loop), None)
    if start is None:
        return False
    if _one_pass_at_most(loop):
        return True
    leaving = _LEAVING
    for index in range(start + 1, len(ancestors)):
        node = ancestors[index]
        if isinstance(node, cst.For | cst.While):
            leaving = _FUNCTION_EXITS
        elif isinstance(node, cst.BaseSuite) and isinstance(ancestors[index - 1], _BLOCK_OWNERS):
            if ends_with(node, leaving) and not _continues_after(ancestors, index):
                return True
            owner = ancestors[index - 1]
            if isinstance(owner, cst.If) and node is owner.body:
                if _picks_one_pass(owner.test, loop) or _initialises_once(owner, loop, ancestors[0]):
                    return True
                if _converts_once(owner, loop):
                    return True
                if _dispatches_on_name(ancestors[: index - 1], owner, loop):
                    return True
            if isinstance(owner, cst.Else) and isinstance(ancestors[index - 2], cst.If):
                test = ancestors[index - 2].test
                if _picks_one_pass(test, loop, negated=True) or _last_pass(test, loop, negated=True):
                    return True
            if isinstance(owner, cst.If) and node is owner.body and _last_pass(owner.test, loop):
                return True
        elif isinstance(node, cst.IfExp) and index + 1 < len(ancestors):
            # ``torch.ones(()) if i == 0 else aux``: an arm of a conditional expression as an ``if``
            arm = ancestors[index + 1]
            if arm is node.body and (_picks_one_pass(node.test, loop) or _last_pass(node.test, loop)):
                return True
            if arm is node.orelse and (
                _picks_one_pass(node.test, loop, negated=True) or _last_pass(node.test, loop, negated=True)
            ):
                return True
    return False


def _picks_one_pass(test: cst.BaseExpression, loop: cst.CSTNode, negated: bool = False) -> bool:
    """Whether ``test`` (or, with ``negated``, its failing) holds on one pass of ``loop`` only: an
    equality of the loop's key (see `_loop_key`) with a value the body does not change (``if i == 0:``,
    ``if key == "done":`` over ``d.items()``), or the key's truth where at most one pass can give it
    (``if not i:`` over a counter, ``if flag:`` over ``(False, True)``). An ``and`` holds on one pass
    when either side does."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) and not negated:
        return _picks_one_pass(test.left, loop) or _picks_one_pass(test.right, loop)
    key = _loop_key(loop)
    if key is None:
        return False
    name, truth_once = key
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        compared: cst.BaseExpression = test.expression
        other: cst.BaseExpression | None = None
        allowed = _truth_once(truth_once, wanted=negated)
    elif isinstance(test, cst.Name):
        compared, other = test, None
        allowed = _truth_once(truth_once, wanted=not negated)
    elif (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        # ``i == 0`` holds on one pass; ``i != 0`` fails on one (its ``else`` runs once)
        and isinstance(test.comparisons[0].operator, cst.NotEqual if negated else cst.Equal)
    ):
        compared, other = test.left, test.comparisons[0].comparator
        if isinstance(other, cst.Name) and other.value == name:
            compared, other = other, compared
        allowed = True
    else:
        return False
    if not (allowed and isinstance(compared, cst.Name) and compared.value == name):
        return False
    changed = bound_names(loop.body)  # type: ignore[attr-defined]
    if isinstance(loop, cst.While):
        changed.discard(name)  # a ``while`` loop's counter: stepped once per pass, checked by `_loop_key`
    return name not in changed and (other is None or not (read_names(other) & (changed | {name})))


def _last_pass(test: cst.BaseExpression, loop: cst.CSTNode, negated: bool = False) -> bool:
    """Whether ``test`` (or, with ``negated``, its failing) holds on the last pass of ``for i in
    range(n)`` only: ``i >= n - 1``, or the ``else`` of ``i < n - 1`` (a line search that gives up
    on its last step), with ``n`` and ``i`` unchanged by the body."""
    if not (isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) and isinstance(loop.iter, cst.Call)):
        return False
    args = loop.iter.args
    if (
        dotted(loop.iter.func) != "range"
        or not 1 <= len(args) <= 2
        or any(arg.keyword or arg.star for arg in args)
    ):
        return False
    if len(args) == 2 and int_value(args[0].value) != 0:
        return False
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    operator, bound = test.comparisons[0].operator, test.comparisons[0].comparator
    wanted = cst.LessThan if negated else cst.GreaterThanEqual
    if not (
        isinstance(test.left, cst.Name) and test.left.value == loop.target.value and isinstance(operator, wanted)
    ):
        return False
    end = args[-1].value
    last = (
        isinstance(bound, cst.BinaryOperation)
        and isinstance(bound.operator, cst.Subtract)
        and int_value(bound.right) == 1
        and bound.left.deep_equals(end)
    )
    changed = bound_names(loop.body)
    return last and not (read_names(end) & changed) and loop.target.value not in changed


def _one_pass_at_most(loop: cst.CSTNode) -> bool:
    """``for x in [value]:`` or ``for a, b in zip([masks], images, ...)``: the loop's iterable is a
    literal of at most one element, or ``zip`` stops at one, so the body runs once at most."""
    if not isinstance(loop, cst.For):
        return False
    iterable = loop.iter
    if isinstance(iterable, cst.Call) and dotted(iterable.func) == "zip":
        return any(_at_most_one_element(arg.value) for arg in iterable.args if arg.star == "")
    return _at_most_one_element(iterable)


def _at_most_one_element(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.List | cst.Tuple)
        and len(node.elements) <= 1
        and not any(isinstance(element, cst.StarredElement) for element in node.elements)
    )


def _dispatches_on_name(above: Sequence[cst.CSTNode], branch: cst.If, loop: cst.CSTNode) -> bool:
    """``for mode in self.modes: if mode == "cls": ... elif mode == "mean": ...``: one arm of a chain
    that compares the loop's target with two or more different strings picks the pass whose item is
    that name. A collection of names (modes, keys, options) holds each once, so the arm runs once.
    ``above`` are the ancestors of ``branch``, outermost first."""
    if not isinstance(loop, cst.For):
        return False
    head, depth = branch, len(above) - 1
    while depth >= 0 and isinstance(above[depth], cst.If) and above[depth].orelse is head:  # type: ignore[union-attr]
        head, depth = above[depth], depth - 1  # type: ignore[assignment]
    chain: list[cst.If] = []
    current: cst.CSTNode | None = head
    while isinstance(current, cst.If):
        chain.append(current)
        current = current.orelse
    for target in _target_names(loop.target):
        names = [_compared_name(arm.test, target) for arm in chain]
        texts = [name for name in names if name is not None]
        mine = _compared_name(branch.test, target)
        if mine is not None and len(texts) >= 2 and len(texts) == len(set(texts)):
            return True
    return False


def _target_names(target: cst.BaseExpression) -> list[str]:
    """The names a loop binds: ``mode``, or each plain name of ``kind, weight`` (``zip(kinds, weights)``)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, cst.Tuple | cst.List):
        return [element.value.value for element in target.elements if isinstance(element.value, cst.Name)]
    return []


def _compared_name(test: cst.BaseExpression, target: str) -> str | None:
    """The string ``test`` compares ``target`` with by ``==`` (either side), else None."""
    if not (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Equal)
    ):
        return None
    left, right = test.left, test.comparisons[0].comparator
    for name, other in ((left, right), (right, left)):
        if isinstance(name, cst.Name) and name.value == target and isinstance(other, cst.SimpleString):
            return other.value
    return None


def _initialises_once(branch: cst.If, loop: cst.CSTNode, module: cst.CSTNode) -> bool:
    """``if acc is None: acc = torch.zeros(n)``: lazy initialisation (also ``if not exists(acc):`` with
    a function of the module returning ``v is not None``). The branch's own block binds the name (or
    attribute) it tests to a value other than None, and nothing else in the loop binds it (``sop =
    data.get(key, None)`` each pass may hand it None again), so only the first pass that reaches the
    test finds it None."""
    tested_node = _tested_for_none(branch.test, module)
    if tested_node is None:
        return False
    values = _bound_only_in_block(branch, loop, source_of(tested_node))
    return values is not None and any(not is_literal(value, "None") for value in values)


def _bound_only_in_block(branch: cst.If, loop: cst.CSTNode, tested: str) -> list[cst.BaseExpression] | None:
    """The values ``branch``'s own block binds to the name or attribute whose code is ``tested``, or
    None when a statement of the loop outside that block binds it too."""
    block = branch.body.body if isinstance(branch.body, cst.IndentedBlock) else ()
    values = [value for statement in block for value in _assigned_values(statement, tested)]
    inside = {id(node) for node in walk(branch.body)}
    for statement in walk(loop.body):  # type: ignore[attr-defined]
        if id(statement) not in inside and _assigned_values(statement, tested):
            return None
    return values


def _converts_once(branch: cst.If, loop: cst.CSTNode) -> bool:
    """``if not isinstance(w, int): w = w.item()`` (or ``if torch.is_tensor(w): w = float(w)``): the
    branch tests whether a name still holds a tensor and its block rebinds that name to the Python
    value read from it, so once the first pass has converted it the test fails on every later pass.
    Nothing else in the loop may bind the name (``w = widths[i]`` each pass would hand it a tensor
    again)."""
    tested = _tested_for_tensor(branch.test)
    if tested is None or (isinstance(loop, cst.For) and tested in read_names(loop.target)):
        return False
    values = _bound_only_in_block(branch, loop, tested)
    return values is not None and bool(values) and all(_python_value_of(value, tested) for value in values)


#: Types a name converted by ``.item()``, ``int()``, ``float()`` or ``bool()`` is an instance of.
_PYTHON_NUMBERS = frozenset(
    {"int", "float", "bool", "complex", "Number", "numbers.Number", "Real", "numbers.Real"}
)


def _tested_for_tensor(test: cst.BaseExpression) -> str | None:
    """The name a test finds still holding a tensor: ``w`` in ``isinstance(w, torch.Tensor)``, in
    ``torch.is_tensor(w)`` and in ``not isinstance(w, int)`` (or ``(int, float)``)."""
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    inner = test.expression if negated else test  # type: ignore[attr-defined]
    if not isinstance(inner, cst.Call) or not inner.args or not isinstance(inner.args[0].value, cst.Name):
        return None
    called = dotted(inner.func) or ""
    name = inner.args[0].value.value
    if called.split(".")[-1] == "is_tensor" and len(inner.args) == 1 and not negated:
        return name
    if called != "isinstance" or len(inner.args) != 2:
        return None
    kind = inner.args[1].value
    kinds = [e.value for e in kind.elements] if isinstance(kind, cst.Tuple) else [kind]
    spelled = {dotted(k) or "" for k in kinds}
    if negated:
        return name if spelled and spelled <= _PYTHON_NUMBERS else None
    return name if spelled and all(s.split(".")[-1] == "Tensor" for s in spelled) else None


def _python_value_of(value: cst.BaseExpression, name: str) -> bool:
    """``w.item()``, ``int(w)``, ``float(w)`` or ``bool(w)``: the Python number read from ``name``."""
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    if isinstance(func, cst.Attribute) and func.attr.value == "item" and not value.args:
        return isinstance(func.value, cst.Name) and func.value.value == name
    return (
        isinstance(func, cst.Name)
        and func.value in ("int", "float", "bool")
        and len(value.args) == 1
        and isinstance(value.args[0].value, cst.Name)
        and value.args[0].value.value == name
    )


def _tested_for_none(test: cst.BaseExpression, module: cst.CSTNode) -> cst.BaseExpression | None:
    """The name or attribute a test finds None: ``acc`` in ``acc is None``, in ``not exists(acc)``
    where the module's ``exists`` returns ``v is not None``, and in ``is_none(acc)`` where it returns
    ``v is None``."""
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    inner = test.expression if negated else test  # type: ignore[attr-defined]
    if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and len(inner.args) == 1:
        checks = _none_check_of(inner.func.value, module)
        if checks is None or checks is not negated:  # ``not exists(x)`` or ``is_none(x)``
            return None
        tested = inner.args[0].value
    elif not negated and _compares_to_none(test) is cst.Is:
        tested = test.left  # type: ignore[attr-defined]
    else:
        return None
    return tested if isinstance(tested, cst.Name | cst.Attribute) else None


def _compares_to_none(test: cst.BaseExpression) -> type | None:
    """``cst.Is`` for ``v is None``, ``cst.IsNot`` for ``v is not None``; None otherwise."""
    if (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is | cst.IsNot)
        and is_literal(test.comparisons[0].comparator, "None")
    ):
        return type(test.comparisons[0].operator)
    return None


def _none_check_of(name: str, module: cst.CSTNode) -> bool | None:
    """For a module-level function whose one statement returns its parameter compared to None: True
    when it returns ``v is not None`` (``exists``), False for ``v is None``; None otherwise."""
    body = module.body if isinstance(module, cst.Module) else ()
    function = next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)
    if function is None or len(function.params.params) != 1:
        return None
    lines = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    line = lines[-1] if len(lines) == 1 else None
    small = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
    value = small.value if isinstance(small, cst.Return) else None
    if value is None or not isinstance(value, cst.Comparison) or not isinstance(value.left, cst.Name):
        return None
    if value.left.value != function.params.params[0].name.value:
        return None
    operator = _compares_to_none(value)
    return None if operator is None else operator is cst.IsNot


def _assigned_values(statement: cst.CSTNode, target: str) -> list[cst.BaseExpression]:
    """The values a simple statement assigns to the name or attribute whose code is ``target``."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return []
    return [
        small.value
        for small in statement.body
        if isinstance(small, cst.Assign) and any(source_of(t.target) == target for t in small.targets)
    ]


def _truth_once(truth_once: str, wanted: bool) -> bool:
    """Whether at most one pass gives the loop key the truth value ``wanted``."""
    return truth_once == "both" or (truth_once == "falsy" and not wanted)


#: Methods whose iteration yields each key of a mapping once.
_KEY_ITERATORS = frozenset({"keys", "items"})


def _loop_key(loop: cst.CSTNode) -> tuple[str, str] | None:
    """The name a ``for`` loop binds to a different value on every pass, and which of its truth
    values at most one pass can have ("falsy", "both" or ""): the counter of ``range(...)`` or of
    ``enumerate(...)`` (only ``0`` is falsy), also in another order (``reversed(range(n))``) or
    zipped (``zip(range(n), xs)``), the key of ``d.keys()`` or ``d.items()`` (keys are
    unique), or the target over a literal of distinct constants (``(False, True)``: each truth value
    once); for a ``while`` loop, its counter (see `_while_counter`), which takes each value once."""
    if isinstance(loop, cst.While):
        counter = _while_counter(loop)
        return (counter, "falsy") if counter is not None else None
    if not isinstance(loop, cst.For):
        return None
    target, iterable = loop.target, _unordered(loop.iter)
    first = target.elements[0].value if isinstance(target, cst.Tuple) and target.elements else None
    if isinstance(iterable, cst.Call):
        called = dotted(iterable.func)
        if called == "range" and isinstance(target, cst.Name):
            return target.value, "falsy"
        if called == "enumerate" and isinstance(first, cst.Name):
            return first.value, "falsy"
        if called == "zip" and isinstance(target, cst.Tuple) and len(target.elements) == len(iterable.args):
            for element, arg in zip(target.elements, iterable.args, strict=True):
                counted = _unordered(arg.value)
                if (
                    isinstance(element.value, cst.Name)
                    and not arg.star
                    and isinstance(counted, cst.Call)
                    and dotted(counted.func) == "range"
                ):
                    return element.value.value, "falsy"  # ``for i, x in zip(range(n), xs):``
        method = iterable.func.attr.value if isinstance(iterable.func, cst.Attribute) else None
        if method in _KEY_ITERATORS and not iterable.args:
            if method == "keys" and isinstance(target, cst.Name):
                return target.value, ""
            if method == "items" and isinstance(first, cst.Name) and len(target.elements) == 2:  # type: ignore[union-attr]
                return first.value, ""
        return None
    if isinstance(iterable, cst.Tuple | cst.List | cst.Set) and isinstance(target, cst.Name):
        values = [element.value for element in iterable.elements]
        texts = [_constant_text(value) for value in values]
        if None in texts or len(set(texts)) != len(texts):
            return None
        return target.value, "both" if set(texts) <= {"True", "False"} else ""
    return None


def _unordered(iterable: cst.BaseExpression) -> cst.BaseExpression:
    """The iterable under ``reversed(...)``, ``list(...)``, ``tuple(...)`` or ``sorted(...)`` (of one
    argument): the same items in another order or container, each still on one pass."""
    while (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Name)
        and iterable.func.value in _REORDERING
        and len(iterable.args) == 1
        and not iterable.args[0].keyword
        and not iterable.args[0].star
    ):
        iterable = iterable.args[0].value
    return iterable


_REORDERING = frozenset({"reversed", "list", "tuple", "sorted"})


def _while_counter(loop: cst.While) -> str | None:
    """``idx`` of ``while ...:`` whose body steps it by ``idx += 1`` (a positive integer literal), as
    a statement of the body itself, binds it nowhere else and never ``continue``s (which could skip
    the step): the counter grows on every pass, so it holds each value on one pass at most."""
    body = loop.body
    if not isinstance(body, cst.IndentedBlock) or any(_has_continue(line) for line in body.body):
        return None
    steps = [
        line.body[0]
        for line in body.body
        if isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
        and isinstance(line.body[0], cst.AugAssign)
        and isinstance(line.body[0].operator, cst.AddAssign)
        and isinstance(line.body[0].target, cst.Name)
        and (int_value(line.body[0].value) or 0) > 0
    ]
    for step in steps:
        name = step.target.value  # type: ignore[attr-defined]
        bindings = [node for node in walk(body) if _binds_name(node, name)]
        if bindings == [step]:
            return name
    return None


def _binds_name(node: cst.CSTNode, name: str) -> bool:
    """Whether ``node`` is a statement or expression that binds ``name``."""
    if isinstance(node, cst.AugAssign | cst.AnnAssign):
        return isinstance(node.target, cst.Name) and node.target.value == name
    if isinstance(node, cst.Assign):
        return any(name in bound_names(target.target) for target in node.targets)
    if isinstance(node, cst.For | cst.CompFor):
        return name in bound_names(node.target)
    if isinstance(node, cst.NamedExpr):
        return isinstance(node.target, cst.Name) and node.target.value == name
    return False


def _constant_text(node: cst.BaseExpression) -> str | None:
    """The source of a literal constant (number, string, ``True``/``False``/``None``), else None."""
    if isinstance(node, cst.Integer | cst.Float | cst.SimpleString):
        return node.value
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return node.value
    return None


def bound_names(root: cst.CSTNode) -> set[str]:
    """Names a statement under ``root`` binds (assignments, loop and comprehension targets, ``with ...
    as``, walrus, ``except ... as``, ``match`` captures), not inside nested functions; or, for a target
    (``i``, ``(a, b)``), the names it binds."""
    names: set[str] = set()
    for node in walk(root, into_functions=False):
        targets: list[cst.CSTNode] = []
        if isinstance(node, cst.AssignTarget | cst.AugAssign | cst.AnnAssign | cst.For | cst.CompFor):
            targets.append(node.target)
        elif isinstance(node, cst.AsName):
            targets.append(node.name)
        elif isinstance(node, cst.NamedExpr):
            targets.append(node.target)
        elif isinstance(node, cst.MatchAs | cst.MatchStar) and node.name is not None:
            targets.append(node.name)
        elif isinstance(node, cst.MatchMapping) and node.rest is not None:
            targets.append(node.rest)
        for target in targets:
            names.update(_target_names(target))
        if root is not node and isinstance(node, cst.Name) and isinstance(root, cst.Name | cst.Tuple | cst.List):
            names.add(node.value)
    if isinstance(root, cst.Name):
        names.add(root.value)
    return names


def _target_names(target: cst.CSTNode) -> set[str]:
    """The names an assignment target binds or changes: ``a`` and ``b`` of ``a, *b``, and the base of
    ``out[i] = ...`` or ``self.x = ...`` (its value changes); not the names an index or a key only
    reads (``i`` of ``out[i]``, ``n`` of ``logits[torch.arange(n), 0]``)."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, cst.Tuple | cst.List):
        return {name for element in target.elements for name in _target_names(element.value)}
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    if isinstance(target, cst.Subscript | cst.Attribute):
        return _target_names(target.value)
    return {n.value for n in walk(target) if isinstance(n, cst.Name)}


def _continues_after(ancestors: Sequence[cst.CSTNode], index: int) -> bool:
    """Whether a statement after the node's path, in the block ``ancestors[index]`` or a block below
    it, holds a ``continue`` of the loop around that block (one inside an inner loop is that loop's)."""
    for level in range(index, len(ancestors) - 1):
        node = ancestors[level]
        if isinstance(node, _LOOPS_AND_SCOPES):
            return False
        if isinstance(node, cst.IndentedBlock | cst.SimpleStatementSuite | cst.Module):
            child = ancestors[level + 1]
            statements = list(node.body)
            position = next((i for i, s in enumerate(statements) if s is child), len(statements))
            if any(_has_continue(s) for s in statements[position + 1 :]):
                return True
    return False


def _has_continue(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Continue):
        return True
    if isinstance(node, _LOOPS_AND_SCOPES):
        return False
    return any(_has_continue(child) for child in children(node))


def excludes(earlier: Sequence[cst.CSTNode], later: Sequence[cst.CSTNode]) -> bool:
    """Whether a statement with ancestors ``earlier`` never runs before a node with ancestors
    ``later``: some block holding the first, but not the second, ends in ``return`` or ``raise``."""
    inside_later = {id(node) for node in later}
    for index, node in enumerate(earlier):
        if id(node) in inside_later or not isinstance(node, cst.BaseSuite) or index == 0:
            continue
        if isinstance(earlier[index - 1], _BLOCK_OWNERS) and ends_with(node, _FUNCTION_EXITS):
            return True
    return False


def in_exclusive_arms(first: Sequence[cst.CSTNode], second: Sequence[cst.CSTNode]) -> bool:
    """Whether nodes with ancestors ``first`` and ``second`` sit in different arms of one ``if``/``elif``
    /``else`` chain or conditional expression, so at most one of them runs."""
    depth = 0
    while depth < min(len(first), len(second)) and first[depth] is second[depth]:
        depth += 1
    if depth == 0 or depth >= min(len(first), len(second)):
        return False
    owner = first[depth - 1]
    arms = (owner.body, owner.orelse) if isinstance(owner, cst.If | cst.IfExp) else ()
    return any(first[depth] is arm for arm in arms) and any(second[depth] is arm for arm in arms)


class LoopState:
    """What a loop carries from one pass to the next: the names its body binds that are read before
    they are bound in a pass (or read by a ``while`` test), the objects it changes in place
    (``r.sub_(c)``, ``q[k + 1].copy_(r)``, ``torch.norm(r, out=n)``, ``q[k] = r``), which keep their
    new values for the next pass, and what each bound name is computed from."""

    def __init__(self, loop: cst.For | cst.While, ctx: FileContext) -> None:
        self._ctx = ctx
        self.bound: set[str] = set()
        self.read_first: set[str] = set()
        self.changed_in_place: set[str] = set()
        #: name -> names read to compute it, over every binding of it in the body
        self.sources: dict[str, set[str]] = {}
        #: names read by a test that can end the loop: its ``while`` test, or an ``if`` with a way out
        self.stop_names: set[str] = set()
        self._inner_loops = 0
        #: names read by the tests of the ``if`` statements around the statement being read
        self._guards: list[set[str]] = []
        if isinstance(loop, cst.While):
            self.stop_names |= self._read(loop.test)
        self._suite(loop.body)
        if isinstance(loop, cst.While):
            self._read(loop.test)
        called: set[str] = set()
        #: ``self.`` attributes the body changes in place, itself or through the class's methods it
        #: calls (``torch.any(m, out=self.state.active)`` in ``self._update()``), as source text
        self.changed_attributes: set[str] = set()
        _pass_effects(ctx, loop.body, set(), called, self.changed_attributes)
        if "backward" in called and "step" in called:  # a training step, itself or through a method
            self.changed_in_place |= self._trained_objects(loop)
        # a ``for`` loop binds its target afresh at the start of each pass (``for _id in ranked:``
        # then ``_id = _id.item()``): the body's rebinding of it carries nothing into the next pass
        fresh = read_names(loop.target) if isinstance(loop, cst.For) else set()
        self.carried = ((self.bound & self.read_first) - fresh) | self.changed_in_place
        self._feeding_stop: set[str] | None = None

    def _trained_objects(self, loop: cst.For | cst.While) -> set[str]:
        """A pass that steps an optimizer changes the parameters of whatever it trains in place, and
        the body cannot say which objects own them (``opt = Adam([x])`` before the loop, ``self.net``
        stepped inside ``self._train_step()``): every object of the function the pass reads, other
        than the loop's own items, carries new values into the next pass. Imported modules and
        builtins are no such objects."""
        own_items = read_names(loop.target) if isinstance(loop, cst.For) else set()
        return {
            name
            for name in self.read_first - self.bound - own_items
            if name not in _BUILTIN_NAMES and self._ctx.qualname(cst.Name(name)) is None
        }

    def feeds_stop(self, names: set[str]) -> bool:
        """Whether any of ``names`` flows, through the body's assignments, into a test that can end
        the loop (``error = ...`` then ``if error < tol: break``)."""
        if self._feeding_stop is None:
            feeding, pending = set(), list(self.stop_names)
            while pending:
                name = pending.pop()
                if name not in feeding:
                    feeding.add(name)
                    pending.extend(self.sources.get(name, ()))
            self._feeding_stop = feeding
        return bool(names & self._feeding_stop)

    def depends_on_carried(self, expression: cst.BaseExpression) -> bool:
        """Whether ``expression`` is computed, within a pass, from state carried between passes."""
        if self.changed_attributes and any(
            isinstance(node, cst.Attribute) and source_of(node) in self.changed_attributes
            for node in walk(expression)
        ):
            return True
        pending = list(read_names(expression))
        seen: set[str] = set()
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in self.carried:
                return True
            pending.extend(self.sources.get(name, ()))
        return False

    def _read(self, node: cst.CSTNode | None) -> set[str]:
        names = read_names(node) if node is not None else set()
        self.read_first.update(names - self.bound)
        return names

    def _bind(self, target: cst.CSTNode, sources: set[str]) -> None:
        for name in read_names(target):
            self.bound.add(name)
            self.sources.setdefault(name, set()).update(sources)

    def _suite(self, suite: cst.BaseSuite) -> None:
        statements = suite.body
        for statement in statements:
            if isinstance(statement, cst.SimpleStatementLine | cst.BaseSmallStatement):
                for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else [statement]:
                    self._small(small)
            else:
                self._compound(statement)

    def _small(self, node: cst.CSTNode) -> None:
        self._note_in_place(node)
        if isinstance(node, cst.Assign):
            sources = self._read(node.value)
            if _is_flag_value(node.value):  # ``patience = 0`` under ``if best - loss > eps:``
                sources = sources | self._guard_names()
            for target in node.targets:
                self._read_subscripts(target.target)
                self._bind(target.target, sources)
        elif isinstance(node, cst.AnnAssign):
            sources = self._read(node.value) if node.value is not None else set()
            self._bind(node.target, sources)
        elif isinstance(node, cst.AugAssign):
            sources = self._read(node.value) | self._read(node.target)
            if _is_flag_value(node.value):  # ``patience += 1`` in the other arm
                sources |= self._guard_names()
            self._bind(node.target, sources)
        else:
            self._read(node)

    def _read_subscripts(self, target: cst.BaseExpression) -> None:
        """``y[i] = v`` reads ``y`` and ``i``; it binds nothing, and changes ``y`` in place."""
        if isinstance(target, cst.Subscript | cst.Attribute):
            self._read(target)
            root = _plain_root(target)
            if root is not None:
                self.changed_in_place.add(root)

    def _note_in_place(self, statement: cst.CSTNode) -> None:
        """The names whose objects a statement changes through an in-place method, an ``out=`` or a
        collective exchange between processes."""
        for node in walk(statement):
            if not isinstance(node, cst.Call):
                continue
            func = node.func
            qualname = self._ctx.qualname(func)
            if qualname is not None and is_collective(qualname) and node.args and node.args[0].keyword is None:
                root = _plain_root(node.args[0].value)  # ``dist.all_reduce(flag)`` exchanges ``flag``
                if root is not None:
                    self.changed_in_place.add(root)
            method = func.attr.value if isinstance(func, cst.Attribute) else ""
            if method.endswith("_") and not method.startswith("_"):
                root = _plain_root(func.value)  # type: ignore[attr-defined]
                if root is not None:
                    self.changed_in_place.add(root)
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value == "out":
                    root = _plain_root(arg.value)
                    if root is not None:
                        self.changed_in_place.add(root)

    def _guard_names(self) -> set[str]:
        return set().union(*self._guards) if self._guards else set()

    def _compound(self, node: cst.CSTNode, chain_ends: bool = False) -> None:
        if isinstance(node, cst.If):
            tested = self._read(node.test)
            # a normal end (``break``/``return``), not a ``raise`` that rejects what the pass computed;
            # the tests of an ``elif`` chain with such an arm all decide whether it is reached
            chain_ends = chain_ends or exits_loop(node, _ENDS if self._inner_loops == 0 else (cst.Return,))
            if chain_ends:
                self.stop_names |= tested
            # a flag or count set in either arm is decided by the test (``if best - loss > eps:
            # patience = 0`` / ``else: patience += 1`` under ``while patience < limit:``)
            self._guards.append(tested)
            self._suite(node.body)
            if isinstance(node.orelse, cst.If):
                self._compound(node.orelse, chain_ends)
            elif node.orelse is not None:
                self._suite(node.orelse.body)
            self._guards.pop()
        elif isinstance(node, cst.For):
            sources = self._read(node.iter)
            self._bind(node.target, sources)
            self._inner_loops += 1
            self._suite(node.body)
            self._inner_loops -= 1
        elif isinstance(node, cst.While):
            self._read(node.test)
            self._inner_loops += 1
            self._suite(node.body)
            self._inner_loops -= 1
        elif isinstance(node, cst.With):
            for item in node.items:
                sources = self._read(item.item)
                if item.asname is not None:
                    self._bind(item.asname.name, sources)
            self._suite(node.body)
        elif isinstance(node, cst.Try):
            self._suite(node.body)
            for handler in node.handlers:
                self._suite(handler.body)
            if node.orelse is not None:
                self._suite(node.orelse.body)
            if node.finalbody is not None:
                self._suite(node.finalbody.body)


def _is_flag_value(value: cst.BaseExpression) -> bool:
    """A literal number or truth value: what a flag or a count is set to or moved by."""
    return isinstance(value, cst.Integer) or is_literal(value, "True") or is_literal(value, "False")


def _pass_effects(
    ctx: FileContext,
    body: cst.CSTNode,
    seen: set[str],
    called: set[str],
    changed: set[str],
    closures: dict[str, cst.FunctionDef] | None = None,
) -> None:
    """Collect what a pass does, itself and through the methods of the class it calls on ``self``
    (each read once, ``seen``): into ``called`` the method names it calls (``.backward()`` and a
    ``.step()`` make a training step), into ``changed`` the ``self.`` attributes it changes in place
    (an ``out=`` argument, an in-place method, an item or attribute stored into), as source text.
    A function the pass or its function defines and hands to a call (``optimizer.step(closure)``,
    whose ``closure`` calls ``loss.backward()``) runs in the pass, so it is read too."""
    function = ctx.enclosing_function()
    if closures is None:  # the functions the function around the loop defines, the pass's own included
        closures = {
            node.name.value: node
            for node in walk(function.body if function is not None else body, into_functions=False)
            if isinstance(node, cst.FunctionDef)
        }
    for node in walk(body, into_functions=False):
        if isinstance(node, cst.Call):
            func = node.func
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value == "out" and _on_self(arg.value):
                    changed.add(source_of(arg.value))
                handed = arg.value.value if isinstance(arg.value, cst.Name) else None
                if handed in closures and f"def {handed}" not in seen:
                    seen.add(f"def {handed}")
                    _pass_effects(ctx, closures[handed].body, seen, called, changed, closures)
            if not isinstance(func, cst.Attribute):
                continue
            name = func.attr.value
            called.add(name)
            if name.endswith("_") and not name.startswith("_") and _on_self(func.value):
                changed.add(source_of(func.value))
            if isinstance(func.value, cst.Name) and func.value.value == "self" and name not in seen:
                seen.add(name)
                method = class_methods(ctx, function).get(name) if function is not None else None
                if method is not None:
                    _pass_effects(ctx, method.body, seen, called, changed, closures)
        elif isinstance(node, cst.AssignTarget | cst.AugAssign):
            target = node.target
            while isinstance(target, cst.Subscript):
                target = target.value
            if isinstance(target, cst.Attribute) and _on_self(target):
                changed.add(source_of(target))


def _on_self(node: cst.BaseExpression) -> bool:
    """``self.state.mask``: an attribute chain (not only ``self`` itself) that starts from ``self``."""
    if not isinstance(node, cst.Attribute):
        return False
    while isinstance(node, cst.Attribute | cst.Subscript):
        node = node.value
    return isinstance(node, cst.Name) and node.value == "self"


def _plain_root(node: cst.BaseExpression) -> str | None:
    """``q`` for ``q``, ``q[k + 1]`` or ``q[k].T``: the local an indexed or attribute chain starts
    from; None for ``self.x`` (an object's attribute is no local the loop's tests read by name)."""
    while isinstance(node, cst.Subscript | cst.Attribute):
        node = node.value
    if isinstance(node, cst.Name) and node.value not in ("self", "cls"):
        return node.value
    return None


def exits_loop(branch: cst.If, kinds: tuple[type, ...] = _LEAVING) -> bool:
    """Whether an arm of an ``if`` (its body, an ``elif`` or the ``else``) ends in one of ``kinds``,
    directly or through a lone nested ``if`` that does (``if done: if not fixed: break``)."""
    arms: list[cst.BaseSuite] = [branch.body]
    orelse = branch.orelse
    while isinstance(orelse, cst.If):
        arms.append(orelse.body)
        orelse = orelse.orelse
    if isinstance(orelse, cst.Else):
        arms.append(orelse.body)
    for arm in arms:
        if ends_with(arm, kinds):
            return True
        statements = arm.body
        if len(statements) == 1 and isinstance(statements[0], cst.If) and exits_loop(statements[0], kinds):
            return True
    return False


def chain_head(ancestors: Sequence[cst.CSTNode], branch: cst.If) -> cst.If:
    """The ``if`` that opens the ``elif`` chain ``branch`` belongs to (``branch`` itself when it opens
    one); ``ancestors`` are those of a node inside ``branch``."""
    head = branch
    for node in reversed(ancestors):
        if isinstance(node, cst.If) and node.orelse is head:
            head = node
    return head


def loop_state(ctx: FileContext, loop: cst.For | cst.While) -> LoopState:
    """The carried state of ``loop``, computed once per loop."""
    key = ("loop-state", id(loop))
    found = ctx.facts.get(key)
    if found is None:
        found = ctx.facts[key] = LoopState(loop, ctx)
    return found


def read_names(node: cst.CSTNode) -> set[str]:
    """The plain names an expression (or target) mentions: not attribute parts, keyword names or
    names inside nested functions."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Name:
            found.add(current.value)  # type: ignore[attr-defined]
        elif kind is cst.Attribute:
            stack.append(current.value)  # type: ignore[attr-defined]
        elif kind is cst.Arg:
            stack.append(current.value)  # type: ignore[attr-defined]
        elif kind is not cst.Lambda and kind is not cst.FunctionDef:
            stack.extend(children(current))
    return found
