"""What a name holds: a torch tensor, a NumPy array, a pandas object, or unknown (None).

Facts are built once per function (or module body) in one pass in source order, from parameter
annotations (``torch.Tensor``, ``np.ndarray``, ``npt.NDArray[...]``, ``pd.DataFrame``, optional forms
and containers of them) and from the value each assignment binds (``torch.*`` functions, ``np.*`` and
``pd.*`` calls, ``.numpy()``, method chains on a known value, what a project function returns as the
kernel map records it); unpacking and iteration give the items' kind, and a comprehension's targets
hold the items of what they iterate. A binding takes effect after its right-hand side is read: in
``mean = torch.tensor(mean)`` the argument is what ``mean`` held before. Each binding also keeps the
expression it bound, where one binding reaches a read (``bound_value``). Rules whose message claims a
tensor treat unknown as not one.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import libcst as cst

from torchperf_lint.context import FileContext
from torchperf_lint.toolkit.flow import ends_with
from torchperf_lint.toolkit.functions import class_methods, module_functions
from torchperf_lint.toolkit.matching import int_value, is_literal, isinstance_test, string_value
from torchperf_lint.toolkit.scopes import dotted
from torchperf_lint.toolkit.traversal import children, walk
from torchperf_lint.vocabulary import (
    ARRAY_TYPES,
    FRAME_TYPES,
    NOT_TENSOR_METHODS,
    SHAPED_TYPE_LIBRARIES,
    TENSOR_TYPES,
)

TENSOR, ARRAY, FRAME = "tensor", "array", "frame"
#: ``TENSOR``, ``ARRAY``, ``FRAME`` (a pandas DataFrame, Series or Index), None (unknown), or for
#: containers ``("items", kind)`` (a list or iterable of one kind), ``("tuple", (kind, ...))`` (a
#: fixed tuple) and ``("values", kind)`` (a dict whose values are of one kind): what iterating,
#: indexing or unpacking them gives.
Kind = str | tuple | None
ITEMS, TUPLE, VALUES = "items", "tuple", "values"

_OPTIONAL = frozenset({"typing.Optional"})
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
#: Namespaces whose functions return tensors, apart from the queries and settings below.
_TENSOR_NAMESPACES = frozenset({"torch", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special"})
_NOT_TENSOR_PREFIXES = ("is_", "get_", "set_", "use_", "are_", "manual_seed", "promote_types", "result_type")
_NOT_TENSOR_FUNCTIONS = frozenset(
    "device dtype Size finfo iinfo Generator no_grad enable_grad inference_mode set_grad_enabled autocast "
    "numel typename compile jit cuda backends equal allclose load save broadcast_shapes initial_seed seed "
    "can_cast".split()
)
_NOT_ARRAY_METHODS = frozenset({"item", "tolist", "tobytes", "any", "all"})
#: Tests over an array that give one NumPy bool, or an array of them when given an axis.
_PER_AXIS_TESTS = frozenset({"any", "all"})
#: Methods only pandas objects have: a chain through one is no tensor, whatever its receiver was.
_PANDAS_METHODS = frozenset(
    "isna isnull notna notnull dropna fillna iterrows itertuples groupby value_counts nunique idxmax "
    "idxmin reset_index set_index to_frame pivot_table drop_duplicates sort_values sort_index".split()
)
_PANDAS_ATTRIBUTES = frozenset({"loc", "iloc", "at", "iat", "str", "dt"})
_NOT_FRAME_METHODS = frozenset({"item", "tolist", "to_list", "to_dict", "to_string", "to_csv", "to_json"})
#: Builtins that return their argument's items in a list (or an iterator over them).
_ITEM_BUILTINS = frozenset({"list", "tuple", "sorted", "reversed", "iter"})
#: Progress bars that yield the items of what they wrap (``for v in tqdm(values)``); the bare names
#: also count when a star import brings them in.
_PROGRESS_WRAPPERS = frozenset(
    {"tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm", "rich.progress.track"}
    | {"fastprogress.progress_bar", "fastprogress.fastprogress.progress_bar"}
)
_PROGRESS_NAMES = frozenset({"tqdm", "progress_bar", "track"})
#: Builtins that return one of their argument's items (or a sum of them): ``max(t)`` is a 0-d tensor.
_PICK_BUILTINS = frozenset({"sum", "min", "max"})
_VALUE_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "data", "grad"})
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
_IDENTITY_TESTS = (cst.Is, cst.IsNot, cst.In, cst.NotIn)
#: Libraries whose functions take and return NumPy values, never tensors.
_NUMPY_LIBRARIES = ("scipy.", "sklearn.")
#: Methods of a SciPy or scikit-learn object that give the object itself, its settings or a number.
_ESTIMATOR_OWN_METHODS = frozenset({"fit", "partial_fit", "set_params", "get_params", "score"})
#: NumPy scalar types: calling one gives a number, not an array.
#: OpenCV functions that return numbers, rectangles or flags rather than arrays.
_CV2_NOT_ARRAYS = frozenset(
    "contourArea arcLength boundingRect minAreaRect imwrite countNonZero norm mean pointPolygonTest "
    "isContourConvex waitKey".split()
)
_NUMPY_SCALARS = frozenset(
    f"numpy.{name}"
    for name in "float16 float32 float64 int8 int16 int32 int64 uint8 uint16 uint32 uint64 bool_ "
    "complex64 complex128 longlong intp".split()
)


@dataclass
class Kinds:
    """Per name, the kind each binding gives it, by the statement index from which it holds."""

    order: dict[int, int] = field(default_factory=dict)  # id(statement) -> source-order index
    #: name -> (index from which it holds, kind, the expression bound, if one binding reaches there)
    bindings: dict[str, list[tuple[int, Kind, cst.BaseExpression | None]]] = field(default_factory=dict)
    #: The methods of the class around the scope, by name: ``self.m(...)`` returns what ``m`` is annotated to.
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)

    def at(self, name: str, index: int) -> Kind:
        """What ``name`` holds while the statement numbered ``index`` runs."""
        found = self._binding(name, index)
        return found[1] if found is not None and found[1] != _NOT_TENSOR else None

    def value_at(self, name: str, index: int) -> cst.BaseExpression | None:
        """The expression ``name`` was bound to, when one binding reaches the statement numbered ``index``."""
        found = self._binding(name, index)
        return found[2] if found is not None else None

    def _binding(self, name: str, index: int) -> tuple[int, Kind, cst.BaseExpression | None] | None:
        found = self.bindings.get(name)
        if not found:
            return None
        position = bisect.bisect_right([entry[0] for entry in found], index)
        return found[position - 1] if position else None


def kind_of(ctx: FileContext, expression: cst.BaseExpression) -> Kind:
    """What ``expression`` (inside the node being visited) evaluates to."""
    evaluator = _evaluator_here(ctx)
    return None if evaluator is None else evaluator.kind(expression)


def builds_object(ctx: FileContext, call: cst.BaseExpression) -> bool:
    """``TensorDict(obs)``, ``th.Variable(t)``: an instance of a class from outside torch and NumPy (by
    the capitalised name it is called by). Such an object is no tensor, and it usually holds what it
    is given. Torch's and NumPy's own classes (``torch.Tensor(...)``) are left out."""
    if not isinstance(call, cst.Call):
        return False
    callee = ctx.qualname(call.func) or dotted(call.func)
    if not callee:
        return False
    return callee.rpartition(".")[2][:1].isupper() and not callee.startswith(("torch.", "numpy."))


def bound_value(ctx: FileContext, name: cst.Name) -> cst.BaseExpression | None:
    """The expression the name ``name`` (inside the node being visited) was last bound to, when one
    binding of the scope reaches it (not a parameter, loop target or comprehension target)."""
    evaluator = _evaluator_here(ctx)
    if evaluator is None or name.value in evaluator.local:
        return None
    return evaluator.kinds.value_at(name.value, evaluator.index)


def _evaluator_here(ctx: FileContext) -> _Evaluator | None:
    """An evaluator for the statement around the visited node, with the targets of the
    comprehensions around it bound."""
    scope: cst.CSTNode = ctx.module
    comprehensions: list[cst.CSTNode] = []
    scope_at = 0
    for position in range(len(ctx.ancestors) - 2, -1, -1):
        node = ctx.ancestors[position]
        kind = type(node)
        if kind in _SCOPE_TYPES:
            scope, scope_at = node, position
            break
        if kind in _COMPREHENSIONS:
            comprehensions.append(node)
    evaluator = _evaluator_in(ctx, scope, ctx.ancestors)
    if evaluator is None and isinstance(scope, cst.Lambda):
        # a lambda numbers no statements: read it where it is defined, its parameters unknown
        evaluator = _enclosing_evaluator(ctx, ctx.ancestors[: scope_at + 1])
        if evaluator is not None:
            params = scope.params
            names = (*params.posonly_params, *params.params, *params.kwonly_params)
            evaluator.local.update(dict.fromkeys((param.name.value for param in names), None))
    elif evaluator is not None and isinstance(scope, cst.FunctionDef | cst.Lambda):
        evaluator.outer = partial(_enclosing_evaluator, ctx, ctx.ancestors[: scope_at + 1])  # to the scope
    if evaluator is None:
        return None
    for comprehension in reversed(comprehensions):
        for_in: cst.CompFor | None = comprehension.for_in  # type: ignore[attr-defined]
        while for_in is not None:
            item = item_kind(evaluator.kind(for_in.iter))
            evaluator.local.update(target_kinds(for_in.target, item))
            for_in = for_in.inner_for_in
    # an ``isinstance`` test around the node narrows what a comprehension target holds too:
    # ``c.tolist() if isinstance(c, np.ndarray) else c for c in pairs``
    targets, evaluator.local = evaluator.local, {}
    _narrow_in_expression(ctx, evaluator)
    evaluator.local = {**targets, **evaluator.local}
    return evaluator


def _evaluator_in(ctx: FileContext, scope: cst.CSTNode, path: Sequence[cst.CSTNode]) -> _Evaluator | None:
    """An evaluator of ``scope``'s kinds at the innermost statement of ``path`` it numbers."""
    kinds = of(ctx, scope)
    order = kinds.order
    index = next((order[id(node)] for node in reversed(path) if id(node) in order), None)
    return None if index is None else _Evaluator(ctx, kinds, index)


def _enclosing_evaluator(ctx: FileContext, path: Sequence[cst.CSTNode]) -> _Evaluator | None:
    """The evaluator of the function around the nested function that ends ``path`` (its ancestors,
    outermost first, and itself), where that nested function is defined; class bodies enclose
    nothing. None at module level, whose names a function reads when it runs, not where it is
    defined."""
    for depth in range(len(path) - 2, -1, -1):
        node = path[depth]
        if isinstance(node, cst.FunctionDef | cst.Lambda):
            evaluator = _evaluator_in(ctx, node, path)
            if evaluator is not None:
                evaluator.outer = partial(_enclosing_evaluator, ctx, path[: depth + 1])
            return evaluator
    return None


def _narrow_in_expression(ctx: FileContext, evaluator: _Evaluator) -> None:
    """Inside ``a.tolist() if isinstance(a, np.ndarray) else a`` (or after ``isinstance(a, T) and``)
    the name holds a ``T`` in the arm the test guards, and in the other arm no tensor where ``T`` is
    one, as inside an ``if`` statement."""
    ancestors = ctx.ancestors
    for index in range(len(ancestors) - 2, -1, -1):
        parent, child = ancestors[index], ancestors[index + 1]
        if isinstance(parent, cst.BaseSmallStatement | cst.BaseCompoundStatement):
            return
        if isinstance(parent, cst.IfExp) and child is not parent.test:
            _narrow_name(ctx, evaluator, parent.test, inside=child is parent.body)
        elif (
            isinstance(parent, cst.BooleanOperation)
            and isinstance(parent.operator, cst.And)
            and child is parent.right
        ):
            _narrow_name(ctx, evaluator, parent.left, inside=True)


def _narrow_name(ctx: FileContext, evaluator: _Evaluator, test: cst.BaseExpression, inside: bool) -> None:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        _narrow_name(ctx, evaluator, test.expression, not inside)
        return
    tested = isinstance_test(test)
    if tested is None or not isinstance(tested[1], cst.Name | cst.Attribute):
        return
    name, kind = tested[0], annotation_kind(ctx, tested[1])
    if name in evaluator.local:  # an inner test, met first, decides
        return
    if inside:
        evaluator.local[name] = kind
    elif kind == TENSOR:
        evaluator.local[name] = _NOT_TENSOR  # the other arm keeps what it knew, unless that was a tensor


_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})
_SCOPE_TYPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})


def annotation_kind(ctx: FileContext, annotation: cst.BaseExpression, aliases: int = 3) -> Kind:
    """The kind an annotation promises: ``torch.Tensor``, ``np.ndarray``, ``NDArray[...]``, a shaped
    type (``Float[torch.Tensor, "b c"]`` of jaxtyping), ``Optional``/``| None`` of one of them, or a
    type alias the module defines (``Pair: TypeAlias = tuple[np.ndarray, np.ndarray]``), followed
    ``aliases`` deep at most."""
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        sides = [annotation.left, annotation.right]
        kinds = {annotation_kind(ctx, side) for side in sides if not _is_none(side)}
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(annotation, cst.Subscript):
        container = _generic_name(ctx, annotation.value)
        arguments = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
        if len(arguments) != len(annotation.slice):
            return None
        if container in _OPTIONAL and len(arguments) == 1:
            return annotation_kind(ctx, arguments[0])
        if container is not None and container.startswith(SHAPED_TYPE_LIBRARIES) and arguments:
            return annotation_kind(ctx, arguments[0])
        if container in _SEQUENCES and len(arguments) == 1:
            item = annotation_kind(ctx, arguments[0])
            return (ITEMS, item) if item is not None else None
        if container in _TUPLES and arguments:
            if len(arguments) == 2 and isinstance(arguments[1], cst.Ellipsis):
                item = annotation_kind(ctx, arguments[0])
                return (ITEMS, item) if item is not None else None
            items = tuple(annotation_kind(ctx, argument) for argument in arguments)
            return (TUPLE, items) if any(item is not None for item in items) else None
        if container in _MAPPINGS and len(arguments) == 2:
            value = annotation_kind(ctx, arguments[1])
            return (VALUES, value) if value is not None else None
        annotation = annotation.value
    if not isinstance(annotation, cst.Name | cst.Attribute):
        return None
    kind = _TYPE_KINDS.get(ctx.qualname(annotation))  # type: ignore[arg-type]
    if kind is None and isinstance(annotation, cst.Name) and aliases:
        aliased = _module_aliases(ctx).get(annotation.value)
        return annotation_kind(ctx, aliased, aliases - 1) if aliased is not None else None
    return kind


def _module_aliases(ctx: FileContext) -> dict[str, cst.BaseExpression]:
    """Names the module binds, at its top level, to a subscripted type (``Pair = tuple[np.ndarray,
    np.ndarray]``, ``Pair: TypeAlias = ...``, ``type Pair = ...``): the type aliases its annotations
    may use. Computed once per file."""
    key = ("type-aliases", id(ctx.module))
    found = ctx.facts.get(key)
    if found is None:
        found = ctx.facts[key] = {}
        for statement in ctx.module.body:
            if isinstance(statement, cst.TypeAlias):
                found[statement.name.value] = statement.value
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target, value = small.targets[0].target, small.value
                elif isinstance(small, cst.AnnAssign) and small.value is not None:
                    target, value = small.target, small.value
                else:
                    continue
                if isinstance(target, cst.Name) and isinstance(value, cst.Subscript):
                    found[target.value] = value
    return found  # type: ignore[return-value]


_TYPE_KINDS: dict[str, Kind] = {
    **dict.fromkeys(TENSOR_TYPES, TENSOR),
    **dict.fromkeys(ARRAY_TYPES, ARRAY),
    **dict.fromkeys(FRAME_TYPES, FRAME),
}


def _generic_name(ctx: FileContext, node: cst.BaseExpression) -> str | None:
    """``typing.List`` for ``List`` imported from typing, ``list`` for the builtin."""
    qualname = ctx.qualname(node) if isinstance(node, cst.Name | cst.Attribute) else None
    if qualname is None and isinstance(node, cst.Name) and node.value in ("list", "tuple", "dict"):
        return node.value
    return qualname


def item_kind(kind: Kind) -> Kind:
    """What iterating over a value of ``kind`` gives (a tensor's rows are tensors, a dict's keys are
    not its values)."""
    if isinstance(kind, tuple):
        if kind[0] == ITEMS:
            return kind[1]
        if kind[0] == VALUES:
            return None
        items = set(kind[1])
        return items.pop() if len(items) == 1 else None
    return kind if kind in (TENSOR, ARRAY) else None


def target_kinds(target: cst.BaseExpression, kind: Kind) -> list[tuple[str, Kind]]:
    """The names an assignment or loop target binds to a value of ``kind``, with what each holds:
    ``a, b = t`` unpacks a tensor's rows, a fixed tuple gives each its own item."""
    if isinstance(target, cst.Name):
        return [(target.value, kind)]
    if isinstance(target, cst.StarredElement):
        item = item_kind(kind)
        return target_kinds(target.value, (ITEMS, item) if item is not None else None)
    if not isinstance(target, cst.Tuple | cst.List):
        return []
    elements = target.elements
    fixed: tuple[Kind, ...] | None = kind[1] if isinstance(kind, tuple) and kind[0] == TUPLE else None
    starred = any(isinstance(e, cst.StarredElement) for e in elements)
    if fixed is not None and len(fixed) == len(elements) and not starred:
        items: Sequence[Kind] = fixed
    else:  # a tensor or array unpacks into rows; a tuple of another length, or around a star, into unknowns
        items = [None if fixed is not None else item_kind(kind)] * len(elements)
    found: list[tuple[str, Kind]] = []
    for element, item in zip(elements, items, strict=True):
        value = element if isinstance(element, cst.StarredElement) else element.value
        found.extend(target_kinds(value, item))
    return found


def returns_kind(ctx: FileContext, function: cst.FunctionDef) -> Kind:
    """What ``function`` is annotated to return."""
    returns = function.returns
    return annotation_kind(ctx, returns.annotation) if returns is not None else None


def of(ctx: FileContext, scope: cst.CSTNode) -> Kinds:
    """The kinds of every name a function (or the module body) binds, computed once."""
    key = ("kinds", id(scope))
    found = ctx.facts.get(key)
    if found is None:
        found = ctx.facts[key] = _Builder(ctx).build(scope)
    return found  # type: ignore[return-value]


def kind_in(ctx: FileContext, kinds: Kinds, index: int, expression: cst.BaseExpression) -> Kind:
    """What ``expression`` evaluates to in the statement numbered ``index`` of the scope ``kinds`` describe."""
    return _Evaluator(ctx, kinds, index).kind(expression)


def scope_of(ctx: FileContext) -> cst.CSTNode:
    """The function, lambda or class body around the visited node (the module at top level)."""
    return _scope_node(ctx)


def _scope_node(ctx: FileContext) -> cst.CSTNode:
    for node in reversed(ctx.ancestors[:-1]):
        if isinstance(node, _SCOPES):
            return node
    return ctx.module


#: Statements after which an ``if`` body's narrowing no longer reaches the code that follows it.
_LEAVING = (cst.Return, cst.Raise, cst.Continue, cst.Break)


def _orelse_leaves(orelse: cst.If | cst.Else | None) -> bool:
    """The ``else`` (or every arm of an ``elif`` chain with a final ``else``) always leaves."""
    if isinstance(orelse, cst.Else):
        return ends_with(orelse.body, _LEAVING)
    if isinstance(orelse, cst.If):
        return ends_with(orelse.body, _LEAVING) and _orelse_leaves(orelse.orelse)
    return False


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


#: Methods that give back an array or tensor of the same kind, moved, cast or reshaped (``.mean()``
#: of an array without an axis gives a scalar, so reductions are left out).
_SHAPE_AND_DTYPE_METHODS = frozenset(
    "to cpu float double half int long bool contiguous clone detach type astype copy reshape view permute "
    "transpose squeeze unsqueeze flatten".split()
)


class _Evaluator:
    """Kinds of expressions, given the facts of the scope they are read in."""

    def __init__(self, ctx: FileContext, kinds: Kinds, index: int = 0) -> None:
        self.ctx, self.kinds, self.index = ctx, kinds, index
        #: Comprehension targets around the expression, which shadow the scope's names.
        self.local: dict[str, Kind] = {}
        #: Gives the evaluator of the function the scope is nested in, where it is defined: a name
        #: the scope never binds is that function's (a closure reading ``indices`` bound around it).
        self.outer: Callable[[], _Evaluator | None] | None = None

    def kind(self, node: cst.BaseExpression) -> Kind:
        kind = type(node)
        if kind is cst.Name:
            local = self.local.get(node.value, _UNBOUND)  # type: ignore[attr-defined]
            if local is not _UNBOUND:
                return local  # type: ignore[return-value]
            if self.outer is not None and node.value not in self.kinds.bindings:  # type: ignore[attr-defined]
                outer = self.outer()
                return outer.kind(node) if outer is not None else None
            return self.kinds.at(node.value, self.index)  # type: ignore[attr-defined]
        if kind is cst.Call:
            return self._call(node)  # type: ignore[arg-type]
        if kind is cst.Subscript:
            return self._subscript(node)  # type: ignore[arg-type]
        if kind is cst.Attribute:
            return self._attribute(node)  # type: ignore[arg-type]
        if kind is cst.BinaryOperation:
            sides = {self.kind(node.left), self.kind(node.right)}  # type: ignore[attr-defined]
            return TENSOR if TENSOR in sides else ARRAY if ARRAY in sides else None
        if kind is cst.UnaryOperation:
            return self.kind(node.expression)  # type: ignore[attr-defined]
        if kind is cst.Comparison:
            return self._comparison(node)  # type: ignore[arg-type]
        if kind is cst.IfExp:
            return self._conditional(node)  # type: ignore[arg-type]
        if kind is cst.Tuple or kind is cst.List:
            return self._sequence(node)  # type: ignore[arg-type]
        if kind is cst.Dict:
            values = {self.kind(e.value) for e in node.elements if isinstance(e, cst.DictElement)}  # type: ignore[attr-defined]
            value = values.pop() if len(values) == 1 and len(node.elements) > 0 else None  # type: ignore[attr-defined]
            return (VALUES, value) if value is not None else None
        if kind is cst.DictComp:  # ``{p: np.zeros(n) for p in props}``: its targets shadow the scope's names
            return self._dict_comprehension(node)  # type: ignore[arg-type]
        return None

    def _conditional(self, node: cst.IfExp) -> Kind:
        """The kind both arms share; an array (or a frame) when the other arm holds no tensor at all
        (``p.numpy() if p is not None else None``, ``np.split(a, k) if a is not None else [None] * n``)."""
        body, orelse = self.kind(node.body), self.kind(node.orelse)
        if body == orelse:
            return body
        if body in (ARRAY, FRAME) and _holds_no_tensor(node.orelse):
            return body
        return orelse if orelse in (ARRAY, FRAME) and _holds_no_tensor(node.body) else None

    def _dict_comprehension(self, node: cst.DictComp) -> Kind:
        saved = dict(self.local)
        loop: cst.CompFor | None = node.for_in
        while loop is not None:
            for name in (n.value for n in walk(loop.target) if isinstance(n, cst.Name)):
                self.local[name] = None
            loop = loop.inner_for_in
        value = self.kind(node.value)
        self.local = saved
        return (VALUES, value) if value is not None else None

    def _attribute(self, node: cst.Attribute) -> Kind:
        """``t.T`` is a tensor; ``df.loc`` a pandas indexer, ``df.values`` its array; ``self.means``
        what its class annotates it as or always makes it."""
        name = node.attr.value
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            return self._state_kind(name)
        if name in _VALUE_ATTRIBUTES:
            return self.kind(node.value)
        if name in _PANDAS_ATTRIBUTES:
            return FRAME
        if name == "values" and self.kind(node.value) == FRAME:
            return ARRAY
        return None

    def _state_kind(self, name: str) -> Kind:
        """The kind of ``self.name`` in the class around the visited node: its class-level annotation
        (``values: np.ndarray``), or the one kind every ``self.name = ...`` of its methods makes by a
        torch or NumPy call (``self.means = torch.zeros(n, d).to(device)``)."""
        owner = next((n for n in reversed(self.ctx.ancestors) if isinstance(n, cst.ClassDef)), None)
        if owner is None:
            return None
        key = ("state-kinds", id(owner))
        found = self.ctx.facts.get(key)
        if found is None:
            self.ctx.facts[key] = {}  # while computed: an append judged in its method sees no state kinds
            found = self.ctx.facts[key] = self._state_kinds(owner)
        return found.get(name)  # type: ignore[union-attr]

    def _state_kinds(self, owner: cst.ClassDef) -> dict[str, Kind]:
        declared: dict[str, Kind] = {}
        for statement in owner.body.body if isinstance(owner.body, cst.IndentedBlock) else ():
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    declared[small.target.value] = annotation_kind(self.ctx, small.annotation.annotation)
        made = self._appended_kinds(owner)
        for node in walk(owner.body):
            if isinstance(node, cst.Assign):
                targets, value = [t.target for t in node.targets], node.value
            elif isinstance(node, cst.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            if isinstance(value, cst.List) and not value.elements:
                continue  # ``self.preds = []``: what is appended to it says what it holds
            for target in targets:
                name = _state_name(target)
                if name is not None:
                    made.setdefault(name, set()).add(
                        self._made_by_library(value) or self._method_returns(owner, value)
                    )
                elif isinstance(target, cst.Tuple | cst.List):
                    for name, kind in self._unpacked_state(owner, target, value):
                        made.setdefault(name, set()).add(kind)
        for name, kinds in made.items():
            if name not in declared and len(kinds) == 1:
                declared[name] = kinds.pop()
        return declared

    def _appended_kinds(self, owner: cst.ClassDef) -> dict[str, set[Kind]]:
        """Per attribute, the kinds of list its methods fill by ``self.preds.append(v)``, each ``v``
        judged in the method that appends it (``v = out.cpu().numpy()``): a list of arrays."""
        appended: dict[str, set[Kind]] = {}
        body = owner.body.body if isinstance(owner.body, cst.IndentedBlock) else ()
        for method in body:
            if not isinstance(method, cst.FunctionDef):
                continue
            appends = [node for node in walk(method.body) if _appended_state(node)]
            if not appends:
                continue
            # built apart, not cached: the method's kinds are built again, with the state known, when used
            kinds = _Builder(self.ctx).build(method)
            for node in appends:
                value = node.value.args[0].value  # type: ignore[attr-defined]
                index = kinds.order.get(id(node))
                item = kind_in(self.ctx, kinds, index, value) if index is not None else None
                state = _appended_state(node)
                appended.setdefault(state, set()).add((ITEMS, item) if item is not None else None)  # type: ignore[arg-type]
        return appended

    def _method_returns(self, owner: cst.ClassDef, value: cst.BaseExpression) -> Kind:
        """What ``self.method(...)``, a method of ``owner``, is annotated to return."""
        func = value.func if isinstance(value, cst.Call) else None
        if not (isinstance(func, cst.Attribute) and _state_name(func) is not None):
            return None
        body = owner.body.body if isinstance(owner.body, cst.IndentedBlock) else ()
        for statement in body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value == func.attr.value:
                return returns_kind(self.ctx, statement)
        return None

    def _unpacked_state(
        self, owner: cst.ClassDef, target: cst.Tuple | cst.List, value: cst.BaseExpression
    ) -> list[tuple[str, Kind]]:
        """``self.data, self.offsets = self._serialize()``: each attribute takes its item of the
        tuple the method is annotated to return (``-> Tuple[np.ndarray, np.ndarray]``)."""
        kind = self._method_returns(owner, value)
        if not (isinstance(kind, tuple) and kind[0] == TUPLE and len(kind[1]) == len(target.elements)):
            return []
        unpacked = []
        for element, item in zip(target.elements, kind[1], strict=True):
            name = _state_name(element.value)
            if name is not None and not isinstance(element, cst.StarredElement):
                unpacked.append((name, item))
        return unpacked

    def _made_by_library(self, value: cst.BaseExpression) -> Kind:
        """The kind a torch or NumPy call makes, moved, cast or reshaped (``torch.zeros(n).to(d)``);
        None for anything else, whose names belong to another method's scope."""
        root = value
        while (
            isinstance(root, cst.Call)
            and isinstance(root.func, cst.Attribute)
            and isinstance(root.func.value, cst.Call)
            and root.func.attr.value in _SHAPE_AND_DTYPE_METHODS
        ):
            root = root.func.value
        callee = self.ctx.qualname(root.func) if isinstance(root, cst.Call) else None
        if not callee or not callee.startswith(("torch.", "numpy.")):
            return None
        return self._call(value) if isinstance(value, cst.Call) else None

    def _sequence(self, node: cst.Tuple | cst.List) -> Kind:
        """A literal tuple holds its items' kinds; a literal list items of one kind."""
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        items = tuple(self.kind(e.value) for e in node.elements)
        if isinstance(node, cst.Tuple):
            return (TUPLE, items) if any(item is not None for item in items) else None
        kinds = set(items)
        item = kinds.pop() if len(kinds) == 1 else None
        return (ITEMS, item) if item is not None else None

    def _comparison(self, node: cst.Comparison) -> Kind:
        """``t > 0`` on a tensor is a tensor; ``is``, ``in`` and their negations give a Python bool."""
        if any(isinstance(target.operator, _IDENTITY_TESTS) for target in node.comparisons):
            return None
        sides = {self.kind(node.left), *(self.kind(target.comparator) for target in node.comparisons)}
        return TENSOR if TENSOR in sides else ARRAY if ARRAY in sides else None

    def _subscript(self, node: cst.Subscript) -> Kind:
        """Indexing a tensor or array gives one (a string key means the value was a mapping after
        all); an element of an annotated list or tuple its item."""
        base = self.kind(node.value)
        if not isinstance(base, tuple):
            keyed = any(
                isinstance(part.slice, cst.Index) and string_value(part.slice.value) is not None
                for part in node.slice
            )
            return None if keyed and base == TENSOR else base
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        index = node.slice[0].slice.value
        if base[0] == ITEMS or base[0] == VALUES:
            return base[1]
        position = int_value(index)
        items = base[1]
        return items[position] if position is not None and -len(items) <= position < len(items) else None

    def _call(self, call: cst.Call) -> Kind:
        func = call.func
        qualname = self.ctx.qualname(func)
        if qualname in _PROGRESS_WRAPPERS:
            return self._items_of_first(call)
        if qualname is not None:
            return _function_kind(qualname) or project_kind(self.ctx.kernel.returns.get(qualname))
        callee = self._callee(func)
        if callee is not None:
            return returns_kind(self.ctx, callee) or project_kind(project_returns(self.ctx, func))
        if isinstance(func, cst.Name):
            return self._builtin(func.value, call) if func.value not in self.kinds.bindings else None
        if not isinstance(func, cst.Attribute):
            return None
        method = func.attr.value
        if method == "numpy":
            return ARRAY
        receiver = self.kind(func.value)
        if receiver == TENSOR:
            return None if method in NOT_TENSOR_METHODS or method.startswith("is_") else TENSOR
        if receiver == ARRAY:
            if method in _PER_AXIS_TESTS and call.args:
                return ARRAY  # ``m.all(axis=0)``: one answer per column, an array
            return None if method in _NOT_ARRAY_METHODS else ARRAY
        if receiver == FRAME or method in _PANDAS_METHODS:
            return ARRAY if method == "to_numpy" else None if method in _NOT_FRAME_METHODS else FRAME
        if receiver is None and method not in _ESTIMATOR_OWN_METHODS and self._library_object(func.value):
            return ARRAY  # ``model.radius_neighbors(x)`` of ``model = NearestNeighbors(...)``: NumPy results
        if isinstance(receiver, tuple) and receiver[0] == VALUES:
            value = _mapping_method(method, receiver[1])
            default = call.args[1].value if method in ("get", "pop") and len(call.args) > 1 else None
            # ``sd.get("model", sd)`` may give the mapping itself back: only a default of the same kind
            # keeps the value's kind
            return value if default is None or self.kind(default) == value else None
        return None

    def _library_object(self, node: cst.BaseExpression) -> bool:
        """An instance of a class of SciPy or scikit-learn (``NearestNeighbors(radius=r)``, also
        through the name bound to one): its methods compute on NumPy values and return them."""
        if isinstance(node, cst.Name) and node.value not in self.local:
            node = self.kinds.value_at(node.value, self.index) or node
        if not isinstance(node, cst.Call):
            return False
        qualname = self.ctx.qualname(node.func) or ""
        return qualname.startswith(_NUMPY_LIBRARIES) and qualname.rpartition(".")[2][:1].isupper()

    def _builtin(self, name: str, call: cst.Call) -> Kind:
        """``max(t)`` is a 0-d tensor, ``zip(a, b)`` pairs the items of both, ``list(t)`` holds rows."""
        if name in _PROGRESS_NAMES:  # ``progress_bar(values, leave=False)``: keywords set up the bar
            return self._items_of_first(call)
        # ``zip(a, b, strict=True)`` pairs the same items; any other keyword or star is unknown here
        given = [arg for arg in call.args if not (name == "zip" and arg.keyword and arg.keyword.value == "strict")]
        args = [arg.value for arg in given if not arg.star and arg.keyword is None]
        if not args or len(args) != len(given):
            return None
        if name in _PICK_BUILTINS:
            kinds = {self.kind(arg) for arg in args} if len(args) > 1 else {item_kind(self.kind(args[0]))}
            return kinds.pop() if len(kinds) == 1 else None
        if name == "abs" and len(args) == 1:
            return self.kind(args[0])
        if name == "zip" or name == "enumerate":
            items = tuple(item_kind(self.kind(arg)) for arg in args[: 1 if name == "enumerate" else None])
            if name == "enumerate":
                items = (None, *items)
            return (ITEMS, (TUPLE, items)) if any(item is not None for item in items) else None
        if name in _ITEM_BUILTINS and len(args) == 1:
            item = item_kind(self.kind(args[0]))
            return (ITEMS, item) if item is not None else None
        return None

    def _items_of_first(self, call: cst.Call) -> Kind:
        """A progress bar's items: those of the iterable it wraps (its first positional argument)."""
        first = call.args[0] if call.args else None
        if first is None or first.keyword is not None or first.star:
            return None
        item = item_kind(self.kind(first.value))
        return (ITEMS, item) if item is not None else None

    def _callee(self, func: cst.BaseExpression) -> cst.FunctionDef | None:
        """The function of this file a call names: ``helper(...)`` at module level (unless the scope
        binds that name), or ``self.method(...)`` of the class around the scope."""
        if isinstance(func, cst.Name):
            if func.value in self.kinds.bindings:
                return None
            return module_functions(self.ctx).get(func.value)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            return self.kinds.methods.get(func.attr.value)
        return None


def _appended_state(node: cst.CSTNode) -> str | None:
    """``preds`` for the statement ``self.preds.append(v)``."""
    if not (isinstance(node, cst.Expr) and isinstance(node.value, cst.Call) and len(node.value.args) == 1):
        return None
    func = node.value.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "append"):
        return None
    return _state_name(func.value)


def _state_name(target: cst.BaseExpression) -> str | None:
    """``data`` for ``self.data``."""
    return target.attr.value if isinstance(target, cst.Attribute) and _is_self(target.value) else None


def _join(kinds: set[Kind]) -> Kind:
    """What a name holds after arms that left it holding ``kinds``: their one kind; an array (or a
    frame) where the other arms hold no tensor (``if isinstance(x, torch.Tensor): x = x.numpy()``);
    else unknown."""
    if len(kinds) == 1:
        return kinds.pop()
    rest = kinds - {_NOT_TENSOR}
    return rest.pop() if len(rest) == 1 and len(kinds) == 2 and rest <= {ARRAY, FRAME} else None


def _holds_no_tensor(node: cst.BaseExpression) -> bool:
    """``None``, a constant, or a display of them (``[None] * n``, ``[]``): no tensor at all."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return _holds_no_tensor(node.left) or _holds_no_tensor(node.right)
    if isinstance(node, cst.List | cst.Tuple):
        return all(isinstance(e, cst.Element) and _holds_no_tensor(e.value) for e in node.elements)
    return isinstance(node, cst.BaseNumber | cst.BaseString) or (
        isinstance(node, cst.Name) and node.value in ("None", "True", "False")
    )


def _mapping_method(method: str, value: Kind) -> Kind:
    """What a method of a dict whose values are of kind ``value`` returns."""
    if method in ("get", "pop", "setdefault"):
        return value
    if method == "values":
        return (ITEMS, value)
    return (ITEMS, (TUPLE, (None, value))) if method == "items" else None


_UNBOUND = object()
#: What a name holds where ``isinstance(x, torch.Tensor)`` failed: no tensor, of no known kind. It
#: reads as unknown; it only lets a join with an array arm keep the array.
_NOT_TENSOR = "not-tensor"
_NOTHING: tuple[Kind, cst.BaseExpression | None] = (None, None)
_SIMPLE_KINDS: dict[str, Kind] = {TENSOR: TENSOR, ARRAY: ARRAY, FRAME: FRAME}


def project_kind(text: str | None) -> Kind:
    """The kind a project function returns, from the kernel map's record of it: ``tensor``, ``array``,
    ``frame``, ``items:<kind>``, ``values:<kind>`` (a kind that may itself be such a container,
    ``items:values:array``) or ``tuple:<kind>,<kind>,...`` (an empty part for an item of no known kind)."""
    if text is None:
        return None
    if text in _SIMPLE_KINDS:
        return text
    tag, _, rest = text.partition(":")
    if tag == ITEMS or tag == VALUES:
        item = project_kind(rest) if ":" in rest else _SIMPLE_KINDS.get(rest)
        return (tag, item) if item is not None else None
    if tag == TUPLE:
        items = tuple(_SIMPLE_KINDS.get(part) for part in rest.split(","))
        return (TUPLE, items) if any(item is not None for item in items) else None
    return None


def _is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def project_returns(ctx: FileContext, func: cst.BaseExpression) -> str | None:
    """What the kernel map records a project function returns (``tensor``, ``items:array``,
    ``size:0``...), for the function a call names: one imported from the project, one defined at
    module level in this file, or a method of the class around the call (``self._params(n)``)."""
    qualname = ctx.qualname(func)
    if qualname is None and isinstance(func, cst.Name) and func.value in module_functions(ctx):
        qualname = f"{ctx.module_name}.{func.value}"
    if qualname is None and isinstance(func, cst.Attribute) and _is_self(func.value):
        classes = [node.name.value for node in ctx.ancestors if isinstance(node, cst.ClassDef)]
        if classes:  # ``self._params(n)``: the method of the class around the call
            qualname = ".".join((ctx.module_name, *classes, func.attr.value))
    return ctx.kernel.returns.get(qualname) if qualname is not None else None


#: Names libraries give a function that turns tensors into NumPy arrays.
_TO_NUMPY_HELPERS = frozenset({"to_numpy", "to_np", "tonumpy", "tensor_to_numpy", "as_numpy"})


def _function_kind(qualname: str) -> Kind:
    if qualname.startswith("pandas."):
        return None if qualname.rpartition(".")[2].startswith("is_") else FRAME
    if qualname.startswith("numpy.") and not qualname.startswith("numpy.typing"):
        return None if qualname in _NUMPY_SCALARS else ARRAY
    if qualname.startswith(_NUMPY_LIBRARIES):  # SciPy and scikit-learn compute on NumPy values
        return ARRAY if qualname.rpartition(".")[2][:1].islower() else None
    if qualname.startswith("cv2."):  # OpenCV works on NumPy arrays and returns them
        name = qualname.rpartition(".")[2]
        return ARRAY if name[:1].islower() and name not in _CV2_NOT_ARRAYS else None
    namespace, _, name = qualname.rpartition(".")
    if name in _TO_NUMPY_HELPERS:  # ``tianshou.data.to_numpy(batch.logits)``: named for what it gives
        return ARRAY
    if namespace not in _TENSOR_NAMESPACES or name in _NOT_TENSOR_FUNCTIONS:
        return None
    if name.startswith(_NOT_TENSOR_PREFIXES):
        return None
    return TENSOR if name[:1].islower() else None


class _Builder:
    """One pass over a scope's statements in source order: numbers each statement and records each
    binding's kind from the statement after it. Only statements are numbered (not every node), so
    the pass costs the statement count; a query finds its statement among the engine's ancestors."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.kinds = Kinds()
        self.evaluate = _Evaluator(ctx, self.kinds)
        self.counter = 0

    def build(self, scope: cst.CSTNode) -> Kinds:
        if isinstance(scope, cst.FunctionDef):
            self.kinds.methods = class_methods(self.ctx, scope)
        if isinstance(scope, cst.FunctionDef | cst.Lambda):
            params = scope.params
            for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                annotation = param.annotation
                kind = annotation_kind(self.ctx, annotation.annotation) if annotation is not None else None
                self._bind(param.name.value, kind, None)
        body = getattr(scope, "body", None)
        if isinstance(body, cst.BaseSuite):
            self._suite(body)
        elif isinstance(scope, cst.Module):
            self._statements(scope.body)
        return self.kinds

    def _suite(self, suite: cst.BaseSuite) -> None:
        if isinstance(suite, cst.IndentedBlock):
            self._statements(suite.body)
        else:  # ``if x: y = 1`` on one line
            self._small(suite.body)  # type: ignore[arg-type]

    def _statements(self, statements: Sequence[cst.BaseStatement]) -> None:
        for statement in statements:
            if isinstance(statement, cst.SimpleStatementLine):
                self._small(statement.body)
            else:
                self._compound(statement)

    def _small(self, statements: Sequence[cst.BaseSmallStatement]) -> None:
        for statement in statements:
            self._mark(statement)
            self._binding_of(statement)

    def _mark(self, node: cst.CSTNode) -> None:
        """Number ``node``; what it binds holds from the next number on."""
        self.kinds.order[id(node)] = self.counter
        self.evaluate.index = self.counter
        self.counter += 1

    def _compound(self, node: cst.BaseCompoundStatement) -> None:
        self._mark(node)
        if isinstance(node, cst.FunctionDef | cst.ClassDef):
            self._bind(node.name.value, None, None)
            return
        if isinstance(node, cst.If):
            leaving = (ends_with(node.body, _LEAVING), _orelse_leaves(node.orelse))
            self._arms(lambda: self._if_body(node), lambda: self._if_else(node), leaving=leaving)
            if node.orelse is None and ends_with(node.body, _LEAVING):
                self._narrow(node.test, inside=False)  # ``if isinstance(x, Tensor): return x``
        elif isinstance(node, cst.For):
            self._bind_target(node.target, item_kind(self.evaluate.kind(node.iter)))
            self._arms(lambda: self._suite(node.body), lambda: None)
            self._else(node.orelse)
        elif isinstance(node, cst.With):
            for item in node.items:
                if item.asname is not None:
                    self._bind_target(item.asname.name, None)
            self._suite(node.body)
        elif isinstance(node, cst.Try | cst.TryStar):
            self._arms(lambda: self._try(node), lambda: None)
        elif isinstance(node, cst.While) and is_literal(node.test, "True") and node.orelse is None:
            self._blocks(node)  # ``while True:`` runs its body at least once
        else:  # while, match: any of the blocks may run, or none
            self._arms(lambda: self._blocks(node), lambda: None)

    def _if_body(self, node: cst.If) -> None:
        self._narrow(node.test, inside=True)
        self._suite(node.body)

    def _if_else(self, node: cst.If) -> None:
        self._narrow(node.test, inside=False, implicit=node.orelse is None)
        self._else(node.orelse)

    def _try(self, node: cst.Try | cst.TryStar) -> None:
        self._suite(node.body)
        for handler in node.handlers:
            if handler.name is not None:
                self._bind_target(handler.name.name, None)
            self._suite(handler.body)
        self._else(node.orelse)
        if node.finalbody is not None:
            self._suite(node.finalbody.body)

    def _blocks(self, node: cst.CSTNode) -> None:
        for child in children(node):
            if isinstance(child, cst.BaseSuite):
                self._suite(child)
            elif isinstance(child, cst.Else | cst.MatchCase):
                self._suite(child.body)

    def _arms(self, *arms: Callable[[], None], leaving: tuple[bool, ...] = ()) -> None:
        """Run each arm from the kinds held before them; afterwards a name keeps a kind (and a bound
        expression) only where every arm agrees (an arm that does not bind it leaves the old one).
        An arm that always leaves (``else: continue``) never reaches what follows, so only the
        others count there, unless every arm leaves."""
        start = {name: found[-1][1:] for name, found in self.kinds.bindings.items()}
        ends: list[dict[str, tuple[Kind, cst.BaseExpression | None]]] = []
        for arm in arms:
            for name in set().union(*ends):  # undo the previous arms for this one
                self._bind(name, *start.get(name, _NOTHING))
            counts = {name: len(found) for name, found in self.kinds.bindings.items()}
            arm()
            ends.append(
                {
                    name: found[-1][1:]
                    for name, found in self.kinds.bindings.items()
                    if len(found) > counts.get(name, 0)
                }
            )
        leaves = leaving or (False,) * len(ends)
        reaching = [end for end, left in zip(ends, leaves, strict=True) if not left] or ends
        for name in set().union(*ends):
            held = [end.get(name, start.get(name, _NOTHING)) for end in reaching]
            values = {id(value) for _, value in held}
            self._bind(name, _join({kind for kind, _ in held}), held[0][1] if len(values) == 1 else None)

    def _else(self, orelse: cst.If | cst.Else | None) -> None:
        if isinstance(orelse, cst.Else):
            self._suite(orelse.body)
        elif isinstance(orelse, cst.If):
            self._compound(orelse)

    def _narrow(self, test: cst.BaseExpression, inside: bool, implicit: bool = False) -> None:
        """Inside ``if isinstance(x, T):`` the name holds a ``T``, whatever its annotation said; in
        the ``else``/``elif`` arms it holds something else, so its kind is unknown there, and where
        ``T`` is a tensor type, no tensor. When the ``if`` has no ``else``, only an unknown name
        learns that it is no tensor when the test fails (an annotation still holds), unless the body
        always leaves (``if isinstance(x, Tensor): return x``). ``torch.is_tensor(x)`` tests the
        same as ``isinstance(x, torch.Tensor)``, and ``not`` swaps the arms."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            self._narrow(test.expression, not inside, implicit)
            return
        tested = isinstance_test(test)
        if tested is not None:
            name, checked = tested
            kind = annotation_kind(self.ctx, checked) if isinstance(checked, cst.Name | cst.Attribute) else None
        elif (
            isinstance(test, cst.Call)
            and self.ctx.qualname(test.func) == "torch.is_tensor"
            and len(test.args) == 1
            and isinstance(test.args[0].value, cst.Name)
        ):
            name, kind = test.args[0].value.value, TENSOR
        else:
            return
        if inside:
            self._bind(name, kind, None)
        elif not implicit or (kind == TENSOR and self._current(name) is None):
            self._bind(name, _NOT_TENSOR if kind == TENSOR else None, None)

    def _current(self, name: str) -> Kind:
        """What ``name`` holds at this point of the pass (its latest binding)."""
        found = self.kinds.bindings.get(name)
        return found[-1][1] if found else None

    def _bind(self, name: str, kind: Kind, value: cst.BaseExpression | None) -> None:
        self.kinds.bindings.setdefault(name, []).append((self.counter, kind, value))

    def _binding_of(self, node: cst.CSTNode) -> None:
        """A statement's binding applies after its right-hand side is read: from the next statement."""
        kind = type(node)
        if kind is cst.Assign:
            value = self.evaluate.kind(node.value)  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                self._bind_target(target.target, value, node.value)  # type: ignore[attr-defined]
        elif kind is cst.AnnAssign:
            declared = annotation_kind(self.ctx, node.annotation.annotation)  # type: ignore[attr-defined]
            value = node.value  # type: ignore[attr-defined]
            self._bind_target(node.target, declared or (self.evaluate.kind(value) if value else None), value)  # type: ignore[attr-defined]
        elif kind is cst.AugAssign and isinstance(node.target, cst.Name):  # type: ignore[attr-defined]
            value = self.evaluate.kind(node.value)  # type: ignore[attr-defined]
            held = self.evaluate.kind(node.target)  # type: ignore[attr-defined]
            self._bind(node.target.value, held if value == held else None, None)  # type: ignore[attr-defined]

    def _bind_target(
        self, target: cst.BaseExpression, kind: Kind, value: cst.BaseExpression | None = None
    ) -> None:
        """Bind what ``target`` names; a plain name also keeps the expression it was bound to."""
        if isinstance(target, cst.Name):
            self._bind(target.value, kind, value)
            return
        for name, item in target_kinds(target, kind):
            self._bind(name, item, None)
