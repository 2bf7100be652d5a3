"""What is written: the names a block writes in place, hands on, returns or reads through a view.

One pass over a block (a function body, or a loop body) in source order records events per name:

- ``written``: ``y[...] = v``, ``y[...] op= v``, ``y op= v``, ``y.attr op= v``, ``y.op_()``,
  ``torch.nn.init.op_(y)``,
  ``y[...].op_()``, ``y.attr.op_()``, ``f(y, inplace=True)``, ``f(..., out=y)``, and the same through
  any view of ``y`` (``y.diagonal().zero_()``, ``torch.diagonal(y).zero_()``, ``y.view(-1)[0] = v``);
- ``kept``: passed to a container method (``items.append(y)``, ``table.update({k: y})``), stored as an
  attribute or item (``self.y = y``, ``setattr(self, name, y)``, ``table[k] = y``), or added to a
  container (``items += [y]``): the value outlives the statement on purpose. A store into a tensor or
  an array (``out[:, i] = y``: an index with a slice or ``...`` beside others, or a target known to be
  one) copies the values in, so there ``y`` is only read;
- ``returned``: returned or yielded, alone, through a view or subscript, or inside a tuple, list or dict;
- ``viewed``: read by an operation that needs contiguous memory (``y.view(...)``,
  ``torch.view_as_complex(y)``, a compiled extension under ``torch.ops``) or makes it contiguous itself
  (softmax and log-softmax, a convolution's weight), so a ``.contiguous()`` before it costs nothing;
- ``passed``: handed to a function this file cannot see into (``helper(y)``, ``obj.method(y)``,
  ``f(**{"k": y})``), which may write it: torch functions, tensor methods and pure builtins are known
  readers (not torch classes such as ``nn.Parameter(y)``, nor sparse tensors' constructors, whose
  results hold what they are given), and a function of the same file is read for what it does with
  each parameter (one that returns its parameter hands the argument on to what its result becomes);
- ``mutated``: a container method that changes what the name holds (``items.append(x)``).

Aliases are followed: a name bound to a view of another (``d = y.diagonal()``), to a subscript of it,
to a loop target over it, or to a container holding it (``kw = {"k": y}``) passes its events on. A
rebinding to a new value (``y = y[idx]`` with a tensor index, ``y = y + 1``, ``y = torch.cat(...)``)
ends the old value for the code after it. Rules ask :meth:`Writes.uses` for the value bound by one
statement, so a ``return y`` before ``y = x.clone()`` does not count for the copy.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

import libcst as cst

from torchperf_lint.context import FileContext
from torchperf_lint.toolkit import types
from torchperf_lint.toolkit.functions import class_methods, module_functions
from torchperf_lint.toolkit.traversal import children, walk
from torchperf_lint.vocabulary import is_collective

WRITTEN, KEPT, RETURNED, VIEWED, MUTATED, PASSED = "written", "kept", "returned", "viewed", "mutated", "passed"

#: Container methods that keep their argument: the value is stored, not just read.
KEEPING_METHODS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "add",
        "appendleft",
        "setdefault",
        "update",
        "put",
        "set",  # a key-value store's ``set(key, value)`` (``TensorDict.set``)
        "register_buffer",
        "register_parameter",
        "add_state",  # a metric's state (torchmetrics' ``Metric.add_state``) keeps its default tensor
    }
)
#: How a method that stores its argument on its object is named (``image.set_embedding(name, t)``,
#: ``layer.register_mask(m)``); a trailing underscore marks a tensor's in-place method instead (``set_``).
_SETTER_PREFIXES = ("set_", "register_")


def keeps_argument(method: str | None, arg: cst.Arg | None = None) -> bool:
    """Whether a method of this name (or a private wrapper of one, ``_add_state``) keeps what it is
    given: a container's (``append``, ``update``), or a setter's positional argument
    (``set_embedding(name, t)``; a keyword such as ``set_timesteps(sigmas=s)`` configures it rather
    than storing the value)."""
    if method is None:
        return False
    method = method.lstrip("_")  # a class's own wrapper (``self._add_state(name, t)``)
    if method in KEEPING_METHODS:
        return True
    setter = method.startswith(_SETTER_PREFIXES) and not method.endswith("_")
    return setter and (arg is None or (arg.keyword is None and not arg.star))


#: Container methods that change the container a name holds.
MUTATING_METHODS = KEEPING_METHODS | frozenset({"pop", "remove", "clear", "sort", "reverse"})
#: Tensor methods whose result shares the receiver's memory (views, and methods that may return the
#: receiver itself: ``contiguous``, ``to``, ``float``...). A write through the result writes the receiver.
VIEW_METHODS = frozenset(
    "view view_as reshape reshape_as flatten unflatten unsqueeze squeeze permute transpose t movedim moveaxis "
    "swapaxes swapdims expand expand_as diagonal select narrow as_strided unfold unbind split chunk "
    "tensor_split hsplit vsplit dsplit split_with_sizes detach detach_ numpy contiguous real imag conj "
    "view_as_real view_as_complex mT mH T H squeeze_ unsqueeze_ to type type_as float double half bfloat16 "
    "int long short bool byte char cpu data requires_grad_ share_memory_ pin_memory resolve_conj resolve_neg "
    "align_to refine_names rename __getitem__".split()
)
#: Tensor methods whose result is a new tensor, or no tensor at all: it shares nothing with the receiver.
FRESH_METHODS = frozenset(
    "clone add sub mul div true_divide floor_divide remainder fmod matmul mm bmm mv dot pow neg abs exp log "
    "sqrt rsqrt sigmoid tanh relu softmax log_softmax sum mean std var prod max min amax amin argmax argmin "
    "norm cumsum cumprod flip roll repeat repeat_interleave masked_fill masked_select index_select gather "
    "scatter index_add index_copy index_fill where clamp clip floor ceil round trunc sign eq ne lt le gt ge "
    "logical_and logical_or logical_not bitwise_and bitwise_or bitwise_not any all nonzero sort topk "
    "argsort unique cross outer new_zeros new_ones new_full new_empty new_tensor item tolist size dim numel "
    "nelement stride storage_offset data_ptr element_size equal allclose isclose isnan isinf isfinite "
    "count_nonzero tril triu diag diag_embed kron lerp addmm baddbmm einsum".split()
)
#: Attributes that read a property of a tensor, not its memory.
_PROPERTY_ATTRIBUTES = frozenset(
    "shape dtype device ndim layout is_cuda is_cpu is_mps is_sparse is_quantized is_leaf requires_grad "
    "grad_fn names itemsize nbytes is_contiguous".split()
)
#: Methods that need contiguous memory, or make their receiver contiguous themselves (profiled on CPU:
#: softmax and log-softmax call ``contiguous()`` on their input), so a ``.contiguous()`` before them is
#: no extra pass.
#: ``clone`` is here because it keeps a strided receiver's strides: ``x.contiguous().clone()`` is how
#: a contiguous private copy is spelled, and dropping the ``.contiguous()`` changes the clone's layout.
#: A nested tensor's ``values()`` needs it contiguous. ``data_ptr`` and ``__dlpack__`` hand the memory to
#: code that walks it by a layout of its own (a C kernel through ``ctypes``, JAX through DLPack), which
#: is what the copy was made for.
#: Tensor methods that convert the dtype and keep the strides (``memory_format=torch.preserve_format``).
_DTYPE_CONVERSIONS = frozenset(
    {"float", "half", "double", "bfloat16", "int", "long", "short", "bool", "to", "type_as"}
)
CONTIGUOUS_METHODS = frozenset({"view", "softmax", "log_softmax", "clone", "values", "data_ptr", "__dlpack__"})
#: Operations along one axis, given as ``dim=``, whose CPU kernels run far faster on contiguous memory
#: than along a permuted axis, so a copy feeding them pays for itself. Profiled on one thread, over the
#: last axis of a channels-last view of a (4, 3, 256, 256) tensor: a vector norm took 29 ms on the view
#: and 2.9 ms with the copy included, ``normalize`` 34 ms and 4.8 ms, a cross product 13 ms and 8 ms.
#: Without ``dim=`` (a norm over everything, say) nothing runs along a permuted axis.
AXIS_METHODS = frozenset({"norm", "cross"})
AXIS_REDUCTIONS = frozenset(
    {
        "torch.cross",
        "torch.linalg.cross",
        "torch.norm",
        "torch.linalg.norm",
        "torch.linalg.vector_norm",
        "torch.nn.functional.normalize",
    }
)
#: Torch functions that need, or make, contiguous memory in their first argument.
CONTIGUOUS_FUNCTIONS = frozenset(
    {
        "torch.view_as_complex",
        "torch.view_as_real",
        "torch.softmax",
        "torch.log_softmax",
        "torch.nn.functional.softmax",
        "torch.nn.functional.log_softmax",
        "torch.special.softmax",
        "torch.special.log_softmax",
        # real-to-complex FFTs clone a permuted, sliced or expanded input (all but a transpose of the
        # transformed axes themselves) before transforming it
        "torch.fft.rfft",
        "torch.fft.rfft2",
        "torch.fft.rfftn",
        # fold and unfold (col2im, im2col) make a non-contiguous input contiguous first
        "torch.nn.functional.fold",
        "torch.nn.functional.unfold",
        # a DLPack capsule hands the memory to another framework, which may take only compact strides
        "torch.utils.dlpack.to_dlpack",
        "torch.to_dlpack",
    }
)
#: Searches whose CPU kernels copy a non-contiguous sorted sequence or set of values before searching
#: (searchsorted warns that it does): each of their first two operands is made contiguous.
CONTIGUOUS_SEARCHES = frozenset({"torch.searchsorted", "torch.bucketize"})
_SEARCH_OPERANDS = frozenset({"sorted_sequence", "input", "boundaries"})
#: Convolutions: their CPU kernels make the weight (second argument, or ``weight=``) contiguous.
CONVOLUTIONS = frozenset(
    [f"torch.nn.functional.conv{kind}{n}d" for kind in ("", "_transpose") for n in (1, 2, 3)]
    + [f"torch.conv{kind}{n}d" for kind in ("", "_transpose") for n in (1, 2, 3)]
)
#: Torch functions whose result shares memory with their tensor arguments (views, or the argument itself).
VIEW_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in (
        "view_as_real view_as_complex reshape flatten unflatten squeeze unsqueeze permute transpose t movedim "
        "moveaxis swapaxes swapdims narrow select diagonal as_strided unbind split chunk tensor_split hsplit "
        "vsplit dsplit split_with_sizes detach real imag conj as_tensor asarray from_numpy atleast_1d "
        "atleast_2d atleast_3d broadcast_to broadcast_tensors meshgrid expand_copy"
    ).split()
)
#: Torch functions whose result holds their tensor arguments without copying them: sparse tensors
#: built from index and value tensors.
HOLDING_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in (
        "sparse_coo_tensor sparse_csr_tensor sparse_csc_tensor sparse_bsr_tensor sparse_bsc_tensor "
        "sparse_compressed_tensor"
    ).split()
)
#: Control-flow operators of the compiler stack: their operands may not alias one another, so a copy
#: handed to them is needed whatever the file can see.
CAPTURE_OPERATORS = frozenset(
    {"torch.while_loop", "torch.cond", "torch.map", "torch.scan", "torch.associative_scan"}
)
#: Builtins that only read their arguments.
_READING_BUILTINS = frozenset(
    "len isinstance issubclass print repr str int float bool tuple list min max sum any all zip enumerate "
    "range getattr hasattr type id hash sorted reversed abs round divmod iter next format".split()
)
#: Builtins that regroup the very objects they are given: ``tuple(zip(outputs, tokens))``.
_REGROUPING = frozenset(
    {"tuple", "list", "zip", "dict", "set", "frozenset", "reversed", "iter", "enumerate", "sorted"}
)
#: Methods that read their arguments: tensor arithmetic and comparisons, and a few container queries.
KNOWN_READING_METHODS = frozenset(
    "add sub mul div matmul mm bmm pow eq ne lt le gt ge where masked_fill index_select gather expand_as "
    "view_as reshape_as type_as to copy_ index count get startswith endswith format join scatter "
    "scatter_add index_add index_copy masked_scatter addcmul addcdiv lerp maximum minimum".split()
)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp)
_LEAVING_KINDS = (
    cst.Assign,
    cst.AugAssign,
    cst.AnnAssign,
    cst.NamedExpr,
    cst.For,
    cst.While,
    cst.IndentedBlock,
    cst.SimpleStatementSuite,
)
_NEVER = 1 << 62


@dataclass
class Writes:
    """Events per name with their source-order positions, and the aliases and rebindings between names.

    The sets (``written``, ``kept``...) hold every name with such an event anywhere in the block, for
    rules that need no more; :meth:`uses` answers for the value one statement binds.
    """

    written: set[str] = field(default_factory=set)
    kept: set[str] = field(default_factory=set)
    returned: set[str] = field(default_factory=set)
    viewed: set[str] = field(default_factory=set)
    #: Names whose container contents change (``items.append(x)``), for loop-invariance.
    mutated: set[str] = field(default_factory=set)
    passed: set[str] = field(default_factory=set)
    events: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    #: name -> (position, name bound to a value sharing its memory or holding it)
    aliases: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    #: name -> sorted (position, id of the block of the statement) where it is bound to a new value
    rebinds: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    #: position of a binding -> ids of the blocks around its statement
    blocks: dict[int, frozenset[int]] = field(default_factory=dict)
    #: id of a binding statement (assignment, ``for``) -> its position
    positions: dict[int, int] = field(default_factory=dict)
    loops: list[tuple[int, int]] = field(default_factory=list)
    #: name -> (position, value, names it shares) for each binding of the name, in source order
    holds: dict[str, list[tuple[int, cst.BaseExpression | None, frozenset[str]]]] = field(default_factory=dict)
    #: id of a call -> its position
    calls: dict[int, int] = field(default_factory=dict)
    #: Per name a nested function or lambda reads, what it does with it (``returned`` counting as
    #: ``passed``): the closure may run at any later time, with any of the name's values.
    captured: dict[str, set[str]] = field(default_factory=dict)

    def position(self, statement: cst.CSTNode) -> int | None:
        """The position from which the names ``statement`` binds hold their new value."""
        return self.positions.get(id(statement))

    def uses(self, name: str, after: int, kinds: Collection[str], again: bool = False) -> bool:
        """Whether the value ``name`` holds from position ``after`` on (``-1``: on entry to the block)
        has an event of one of ``kinds``, directly or through an alias, before it is rebound.

        With ``again`` (the block is a loop body) events before ``after`` count too: the next
        iteration runs them on this value. A loop inside the block does the same for its own body.
        """
        stack = [(name, after)]
        seen: set[tuple[str, int]] = set()
        while stack:
            current, start = stack.pop()
            if (current, start) in seen:
                continue
            seen.add((current, start))
            if current in self.captured and not self.captured[current].isdisjoint(kinds):
                return True
            end = self._rebound(current, start)
            for where, kind in self.events.get(current, ()):
                if kind in kinds and self._reaches(start, where, end, again):
                    return True
            for where, alias in self.aliases.get(current, ()):
                if self._reaches(start, where, end, again):
                    stack.append((alias, where))
        return False

    def held_at(self, name: str, where: int) -> tuple[cst.BaseExpression | None, frozenset[str]] | None:
        """The value ``name`` was last bound to before position ``where`` and the names it shares."""
        found = None
        for position, value, shared in self.holds.get(name, ()):
            if position >= where:
                break
            found = (value, shared)
        return found

    def dominating_binding(
        self, name: str, where: int, enclosing: frozenset[int]
    ) -> tuple[cst.BaseExpression | None, frozenset[str]] | None:
        """Like `held_at`, but only bindings every way to ``where`` passes: ones whose blocks all
        enclose ``where`` (``enclosing``: the ids of the suites around it), not one in a branch."""
        found = None
        for position, value, shared in self.holds.get(name, ()):
            if position >= where:
                break
            if self.blocks.get(position, frozenset()) <= enclosing:
                found = (value, shared)
        return found

    def _rebound(self, name: str, start: int) -> int:
        """The first rebinding of ``name`` after ``start`` that every later use passes through: one in a
        block that holds the binding at ``start``."""
        around = self.blocks.get(start, frozenset())
        found = self.rebinds.get(name, ())
        index = bisect.bisect_right(found, (start, _NEVER))
        for where, block in found[index:]:
            if block in around:
                return where
        return _NEVER

    def _reaches(self, start: int, where: int, end: int, again: bool) -> bool:
        if start < where < end:
            return True
        return where < start and (again or any(low <= where and start <= high for low, high in self.loops))


def of(ctx: FileContext, block: cst.CSTNode, scope: cst.CSTNode | None = None) -> Writes:
    """The writes of ``block`` (not entering nested functions), computed once per block. ``scope`` is
    the function (or module) whose name kinds apply, by default the one around the visited node."""
    key = ("writes", id(block))
    found = ctx.facts.get(key)
    if found is None:
        ctx.facts[key] = _BUSY
        if scope is None:
            scope = types.scope_of(ctx)
        found = ctx.facts[key] = _Collector(ctx, block, scope).run()
    return found  # type: ignore[return-value]


_BUSY = object()


def base_name(node: cst.BaseExpression | None) -> str | None:
    """``y`` for ``y``, ``y[...]``, ``y.attr`` and chains of them (not calls: ``f(y)[0]`` is new)."""
    while isinstance(node, cst.Subscript | cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def reads_only(ctx: FileContext, call: cst.Call) -> bool:
    """Whether ``call`` is known not to write its arguments nor keep them: a torch function (in-place
    variants, compiled extensions, the compiler's control-flow operators and functions whose result
    holds their tensor arguments aside), a pure builtin, or a method of a container or tensor that
    only reads its arguments (``a.index(y)``, also in place: ``a.add_(y)``). A torch class
    (``nn.Parameter(y)``) may keep what it is given."""
    func = call.func
    if isinstance(func, cst.Name) and func.value in _READING_BUILTINS and ctx.qualname(func) is None:
        return True
    qualname = ctx.qualname(func) if isinstance(func, cst.Name | cst.Attribute) else None
    if qualname is not None:
        name = qualname.rpartition(".")[2]
        return (
            qualname.startswith("torch.")
            and not qualname.startswith(("torch.ops.", "torch._higher_order_ops."))
            and qualname not in CAPTURE_OPERATORS
            and qualname not in HOLDING_FUNCTIONS
            and not name.endswith("_")
            and not name[:1].isupper()
        )
    if not isinstance(func, cst.Attribute):
        return False
    method = func.attr.value
    # ``out.add_(y)`` writes its receiver (recorded as such) and only reads ``y``, as ``out.add(y)`` does
    return method in KNOWN_READING_METHODS or (
        method.endswith("_") and not method.endswith("__") and method[:-1] in KNOWN_READING_METHODS
    )


def needs_contiguous(ctx: FileContext, call: cst.Call, arg: cst.Arg | None) -> bool:
    """Whether ``call`` needs its argument ``arg`` (or its receiver, for ``arg=None``) in contiguous
    memory, or makes it contiguous itself: then a ``.contiguous()`` feeding it is no extra pass."""
    func = call.func
    method = func.attr.value if isinstance(func, cst.Attribute) else None
    if arg is None:
        return method in CONTIGUOUS_METHODS or (method in AXIS_METHODS and _along_given_axis(call))
    positional = [a for a in call.args if a.keyword is None and not a.star]
    qualname = ctx.qualname(func) if isinstance(func, cst.Name | cst.Attribute) else None
    if qualname is None:
        if method == "cross" and _along_given_axis(call):  # x.cross(y, dim=-1): y is the other factor
            return (bool(positional) and positional[0] is arg) or (
                arg.keyword is not None and arg.keyword.value == "other"
            )
        return False
    if qualname.startswith(("torch.ops.", "torch.distributed.")) or ".ops." in qualname:
        return True  # compiled extensions (``torch.ops``, a backend's ``torch.tpu.ops``), and collectives
    if qualname in AXIS_REDUCTIONS:
        if not _along_given_axis(call):
            return False
        factors = any(a is arg for a in positional[:2])
        return factors or (arg.keyword is not None and arg.keyword.value in ("input", "other", "x", "A"))
    if qualname in CONTIGUOUS_FUNCTIONS:
        first = bool(positional) and positional[0] is arg
        return first or (arg.keyword is not None and arg.keyword.value == "input")
    if qualname in CONTIGUOUS_SEARCHES:
        return any(a is arg for a in positional[:2]) or (
            arg.keyword is not None and arg.keyword.value in _SEARCH_OPERANDS
        )
    if qualname in CONVOLUTIONS:
        return (len(positional) > 1 and positional[1] is arg) or (
            arg.keyword is not None and arg.keyword.value == "weight"
        )
    return False


def _along_given_axis(call: cst.Call) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == "dim" for arg in call.args)


def _sliced_name(value: cst.BaseExpression) -> str | None:
    """``c`` for ``c``, a subscript of it (``c[:, :, 0:k]``) or a dtype conversion of it (``c.float()``,
    ``c.to(torch.float32)``): a slice takes its strides from ``c``, and a conversion keeps them."""
    while True:
        if isinstance(value, cst.Subscript):
            value = value.value
        elif converts_dtype(value):
            value = value.func.value  # type: ignore[attr-defined]
        else:
            return value.value if isinstance(value, cst.Name) else None


def converts_dtype(value: cst.BaseExpression) -> bool:
    """``c.float()``, ``c.half()``, ``c.to(torch.float32)``, ``c.type_as(other)``: a copy in another dtype
    with ``c``'s strides (``memory_format`` left at its default, which preserves them)."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
        return False
    if any(arg.keyword is not None and arg.keyword.value == "memory_format" for arg in value.args):
        return False
    return value.func.attr.value in _DTYPE_CONVERSIONS


def is_view_call(ctx: FileContext, call: cst.Call) -> bool:
    """``y.diagonal()``, ``torch.diagonal(y)``: a call whose result shares its tensor argument's memory."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in VIEW_METHODS:
        return True
    return ctx.qualname(func) in VIEW_FUNCTIONS if isinstance(func, cst.Name | cst.Attribute) else False


def is_fresh_index(subscript: cst.Subscript, kind: Callable[[cst.BaseExpression], types.Kind]) -> bool:
    """Advanced indexing (a tensor, array or list index) copies: its result shares nothing. ``kind``
    tells what an index expression holds."""
    for element in subscript.slice:
        part = element.slice
        if not isinstance(part, cst.Index):
            continue
        value = part.value
        if isinstance(value, cst.List | cst.ListComp) or kind(value) is not None:
            return True
    return False


def copies_values(target: cst.Subscript, kind: Callable[[cst.BaseExpression], types.Kind]) -> bool:
    """Whether storing into ``target`` copies the values in, as a store into a tensor or an array does
    (``out[:, i] = y``), rather than keeping the object (``table[k] = y``, ``items[i] = y``): the target
    is known to be a tensor or an array, or its index mixes a slice or ``...`` with other parts, or holds
    ``...``, which no list or dict takes. ``kind`` tells what an expression holds."""
    if kind(target.value) in (types.TENSOR, types.ARRAY):
        return True
    parts = [element.slice for element in target.slice]
    if any(isinstance(part, cst.Index) and isinstance(part.value, cst.Ellipsis) for part in parts):
        return True
    return len(parts) > 1 and any(isinstance(part, cst.Slice) for part in parts)


def bound_value(ctx: FileContext, name: str, call: cst.Call) -> cst.BaseExpression | None:
    """The value ``name`` was last bound to, in source order, before ``call`` (visited now) runs in the
    function around it: ``x.astype(np.float32)`` for ``a`` in ``a = x.astype(np.float32)`` then
    ``torch.tensor(a)``. None when the function binds no value to it before (a parameter, say)."""
    values = reaching_values(ctx, name, call)
    return values[-1] if values else None


def reaching_values(ctx: FileContext, name: str, call: cst.Call) -> list[cst.BaseExpression | None]:
    """The values ``name`` may hold where ``call`` (visited now) runs: its last binding on every way
    there and the bindings after it in branches (each arm of an ``if``/``elif`` chain), in source
    order; every binding before the call when none is on every way. Empty when the function binds
    none before it (a parameter, say)."""
    function = ctx.enclosing_function()
    facts = of(ctx, function.body if function is not None else ctx.module)
    where = facts.calls.get(id(call))
    if where is None:
        return []
    enclosing = frozenset(id(n) for n in ctx.ancestors if isinstance(n, cst.BaseSuite))
    before = [(position, value) for position, value, _ in facts.holds.get(name, ()) if position < where]
    dominating = [
        index for index, (position, _) in enumerate(before) if facts.blocks.get(position, frozenset()) <= enclosing
    ]
    start = dominating[-1] if dominating else 0
    return [value for _, value in before[start:]]


def _setattr_parts(ctx: FileContext, call: cst.Call) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """``(obj, value)`` for ``setattr(obj, name, value)`` (the builtin): the object keeps the value."""
    func = call.func
    if not (isinstance(func, cst.Name) and func.value == "setattr" and ctx.qualname(func) is None):
        return None
    args = call.args
    if len(args) != 3 or any(arg.keyword is not None or arg.star for arg in args):
        return None
    return args[0].value, args[2].value


def callee_effects(
    ctx: FileContext, call: cst.Call, local: dict[str, cst.FunctionDef] | None = None
) -> list[tuple[cst.Arg, str | None]] | None:
    """For a call to a function of this file (one of ``local``, a module-level one, or a plain method
    of the class around the call, ``self.method(...)``), what it does to each argument: writes it
    (``WRITTEN``), hands it to code out of sight (``PASSED``), keeps it (``KEPT``), returns it
    (``RETURNED``), needs it contiguous (``VIEWED``), or only reads it (None). None when the callee is
    unknown or an argument cannot be matched."""
    func = call.func
    if any(arg.star for arg in call.args):
        return None
    if isinstance(func, cst.Name) and ctx.qualname(func) is None:
        callee, bound = (local or {}).get(func.value) or module_functions(ctx).get(func.value), 0
    elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
        callee, bound = _own_method(ctx, func.attr.value), 1  # ``self`` fills the first parameter
    else:
        return None
    if callee is None or ctx.facts.get(("writes", id(callee.body))) is _BUSY:
        return None
    params = callee.params
    positional = [*params.posonly_params, *params.params][bound:]
    by_name = {param.name.value: param for param in (*positional, *params.kwonly_params)}
    inner = of(ctx, callee.body, callee)
    found: list[tuple[cst.Arg, str | None]] = []
    for number, arg in enumerate(call.args):
        if arg.keyword is None:
            param = positional[number] if number < len(positional) else None
        else:
            param = by_name.get(arg.keyword.value)
        if param is None:
            return None
        found.append((arg, _effect_on(inner, param.name.value)))
    return found


def _own_method(ctx: FileContext, name: str) -> cst.FunctionDef | None:
    """The method ``name`` of the innermost class around the visited node, when it is a plain one (no
    decorator: a static or class method binds its parameters differently, a property is no call)."""
    function = ctx.enclosing_function()
    method = class_methods(ctx, function).get(name) if function is not None else None
    return method if method is not None and not method.decorators else None


def _effect_on(inner: Writes, name: str) -> str | None:
    """What a function does with its parameter ``name``, the strongest first: writes it, hands it to
    code out of sight (or changes what it holds), keeps it, returns it, needs it contiguous, or reads it."""
    for kinds, effect in _EFFECTS:
        if inner.uses(name, -1, kinds):
            return effect
    return None


class _Collector:
    """One pass over a block in source order: positions, events, aliases and rebindings."""

    def __init__(self, ctx: FileContext, block: cst.CSTNode, scope: cst.CSTNode) -> None:
        self.ctx = ctx
        self.block = block
        self.facts = Writes()
        self.kinds = types.of(ctx, scope)
        self.index: int | None = None
        self.position = 0
        self.suites: list[int] = [id(block)]
        self.loop_starts: dict[int, int] = {}
        self.local = _local_functions(block)

    def _kind(self, expression: cst.BaseExpression) -> types.Kind:
        return None if self.index is None else types.kind_in(self.ctx, self.kinds, self.index, expression)

    def run(self) -> Writes:
        facts = self.facts
        facts.blocks[-1] = frozenset(self.suites)
        order = self.kinds.order
        stack: list[tuple[cst.CSTNode, bool]] = [(self.block, False)]
        while stack:
            node, leaving = stack.pop()
            if leaving:
                self._leave(node)
                continue
            self.position += 1
            kind = type(node)
            statement = order.get(id(node))
            if statement is not None:
                self.index = statement
            if kind in _SCOPE_TYPES and node is not self.block:
                if kind is not cst.ClassDef:
                    self._capture(node)  # type: ignore[arg-type]
                continue
            self._enter(node, kind)
            if kind in _LEAVING_TYPES:
                stack.append((node, True))
            stack.extend((child, False) for child in reversed(children(node)))
        for name in facts.rebinds:
            facts.rebinds[name].sort()
        return facts

    def _capture(self, function: cst.FunctionDef | cst.Lambda) -> None:
        """What a nested function or lambda does with the names of this block it reads."""
        ctx = self.ctx
        if ctx.facts.get(("writes", id(function.body))) is _BUSY:
            inner = None
        else:
            inner = of(ctx, function.body, function)
        captured = self.facts.captured
        for name in _free_names(function):
            if inner is None:
                captured.setdefault(name, set()).add(PASSED)
                continue
            for kind in _CAPTURED_KINDS:
                if inner.uses(name, -1, (kind,)):
                    captured.setdefault(name, set()).add(PASSED if kind == RETURNED else kind)

    # --- events -------------------------------------------------------------------------------

    def _event(self, names: set[str] | frozenset[str], kind: str) -> None:
        facts = self.facts
        getattr(facts, kind).update(names)
        for name in names:
            facts.events.setdefault(name, []).append((self.position, kind))

    def _enter(self, node: cst.CSTNode, kind: type) -> None:
        if kind is cst.Call:
            self.facts.calls[id(node)] = self.position
            self._call(node)  # type: ignore[arg-type]
        elif kind is cst.Return or kind is cst.Yield:
            self._event(self.shared(node.value), RETURNED)  # type: ignore[attr-defined]
        elif kind is cst.For or kind is cst.While:
            self.loop_starts[id(node)] = self.position
            if kind is cst.For:
                for target, source in self._loop_pairs(node.target, node.iter):  # type: ignore[attr-defined]
                    self._bind(target, source, node)
        elif kind in _ALL_COMPREHENSIONS:  # the targets hold for the element, which comes first in the source
            comp_for = node.for_in  # type: ignore[attr-defined]
            while comp_for is not None:
                for target, source in self._loop_pairs(comp_for.target, comp_for.iter):
                    self._bind(target, source, None)
                comp_for = comp_for.inner_for_in
        elif kind is cst.IndentedBlock or kind is cst.SimpleStatementSuite:
            self.suites.append(id(node))

    def _leave(self, node: cst.CSTNode) -> None:
        kind = type(node)
        if kind is cst.Assign:  # stores and bindings happen once the value is computed
            for target in node.targets:  # type: ignore[attr-defined]
                self._store(target.target, node.value)  # type: ignore[attr-defined]
                self._bind(target.target, node.value, node)  # type: ignore[attr-defined]
        elif kind is cst.AnnAssign:
            self._store(node.target, node.value)  # type: ignore[attr-defined]
            if node.value is not None:  # type: ignore[attr-defined]
                self._bind(node.target, node.value, node)  # type: ignore[attr-defined]
        elif kind is cst.NamedExpr:
            self._bind(node.target, node.value, node)  # type: ignore[attr-defined]
        elif kind is cst.AugAssign:  # ``t /= t[:, 2].clone() + eps`` writes ``t`` after reading it
            target = node.target  # type: ignore[attr-defined]
            written = self.shared(target.value) if isinstance(target, cst.Subscript | cst.Attribute) else None
            self._event(written if written is not None else self.shared(target), WRITTEN)
            if type(node.value) in _DISPLAYS:  # type: ignore[attr-defined]
                self._event(self.shared(node.value), KEPT)  # type: ignore[attr-defined]  # ``items += [y]``
        elif kind is cst.For or kind is cst.While:
            self.facts.loops.append((self.loop_starts.pop(id(node)), self.position))
        else:  # a block
            self.suites.pop()

    def _store(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Subscript):
            self._event(self.shared(target.value), WRITTEN)
            if copies_values(target, self._kind):
                return  # the values are copied in: the stored value is only read
        if isinstance(target, cst.Attribute):
            self._event(self.shared(target.value), MUTATED)
        if isinstance(target, cst.Subscript | cst.Attribute) and value is not None:
            self._event(self.shared(value), KEPT)
        if isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self._store(element.value, None)

    def _call(self, call: cst.Call) -> None:
        ctx = self.ctx
        func = call.func
        stored = _setattr_parts(ctx, call)
        if stored is not None:
            holder, value = stored
            self._event(self.shared(holder), MUTATED)
            self._event(self.shared(value), KEPT)
            return
        if fills_first_argument(ctx, call):
            if call.args and call.args[0].keyword is None:
                self._event(self.shared(call.args[0].value), WRITTEN)
        elif isinstance(func, cst.Attribute):
            method = func.attr.value
            receiver = func.value
            if _in_place_name(method):
                self._event(self.shared(receiver), WRITTEN)
            elif method in MUTATING_METHODS:
                self._event(self.shared(receiver), MUTATED)
            elif needs_contiguous(ctx, call, None):
                viewed = _sliced_name(receiver)  # ``c.view(-1)``, ``c[..., 0:k].view(-1, k)``
                if viewed is not None:
                    self._event({viewed}, VIEWED)
            for arg in call.args:
                if keeps_argument(method, arg):
                    self._event(self.shared(arg.value), KEPT)
        for arg in call.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == "out":
                self._event(self.shared(arg.value), WRITTEN)
            elif keyword == "inplace" and not (isinstance(arg.value, cst.Name) and arg.value.value == "False"):
                for other in call.args:
                    if other is not arg:
                        self._event(self.shared(other.value), WRITTEN)
            if isinstance(arg.value, cst.Name) and needs_contiguous(ctx, call, arg):
                self._event({arg.value.value}, VIEWED)
        if reads_only(ctx, call):
            return
        effects = callee_effects(ctx, call, self.local)
        if effects is None:
            for arg in call.args:
                self._event(self.shared(arg.value), PASSED)
            return
        for arg, effect in effects:
            if effect and effect != RETURNED:  # a returned argument lives on in the call's result
                self._event(self.shared(arg.value), effect)

    # --- bindings -----------------------------------------------------------------------------

    def _bind(
        self, target: cst.BaseExpression, value: cst.BaseExpression | None, statement: cst.CSTNode | None
    ) -> None:
        """Record what ``target`` holds after ``statement``: aliases of the names its value shares
        memory with, or a rebinding to a new value."""
        facts = self.facts
        position = self.position
        if statement is not None:
            facts.positions[id(statement)] = position
        around = frozenset(self.suites)
        if isinstance(statement, cst.For):  # the target is bound at the top of each pass of the body
            block = id(statement.body)
            around = around | {block}
        else:
            block = self.suites[-1]
        facts.blocks[position] = around
        pairs = _pairs(target, value)
        for name, part in pairs:
            shared = self.shared(part) if part is not None else set()
            kept = shared - {name}
            if name in shared:  # ``context = context.long()`` shares what ``context`` shared before
                kept |= {other for _, _, before in facts.holds.get(name, ()) for other in before}
            facts.holds.setdefault(name, []).append((position, part, frozenset(kept)))
            for source in shared:
                if source != name:
                    facts.aliases.setdefault(source, []).append((position, name))
            if name not in shared:
                facts.rebinds.setdefault(name, []).append((position, block))

    def _loop_pairs(
        self, target: cst.BaseExpression, iterable: cst.BaseExpression
    ) -> list[tuple[cst.BaseExpression, cst.BaseExpression | None]]:
        """What each part of a loop target shares memory with: ``a, b`` in ``zip(xs, ys)`` take items
        of ``xs`` and of ``ys`` respectively (``i, x`` in ``enumerate(xs)``: a counter and items of
        ``xs``), so a write through ``a`` changes nothing of ``ys``; with any other iterable, all of it."""
        whole: list[tuple[cst.BaseExpression, cst.BaseExpression | None]] = [(target, iterable)]
        if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name)):
            return whole
        name = iterable.func.value
        if name not in ("zip", "enumerate") or self.ctx.qualname(iterable.func) is not None:
            return whole
        if any(arg.keyword is not None or arg.star for arg in iterable.args) or not iterable.args:
            return whole
        sources: list[cst.BaseExpression | None] = [arg.value for arg in iterable.args]
        if name == "enumerate":
            sources = [None, sources[0]]
        if not isinstance(target, cst.Tuple | cst.List) or len(target.elements) != len(sources):
            return whole
        if any(isinstance(e, cst.StarredElement) for e in target.elements):
            return whole
        return [(element.value, source) for element, source in zip(target.elements, sources, strict=True)]

    def shared(self, node: cst.BaseExpression | None) -> set[str]:
        """The names whose memory the value of ``node`` may share: itself, a view or subscript of one,
        a container holding one, or what an unknown call may return."""
        found: set[str] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            kind = type(current)
            if kind is cst.Name:
                if current.value not in ("True", "False", "None"):  # type: ignore[attr-defined]
                    found.add(current.value)  # type: ignore[attr-defined]
            elif kind is cst.Attribute:
                if current.attr.value not in _PROPERTY_ATTRIBUTES:  # type: ignore[attr-defined]
                    stack.append(current.value)  # type: ignore[attr-defined]
            elif kind is cst.Subscript:
                if not is_fresh_index(current, self._kind):  # type: ignore[arg-type]
                    stack.append(current.value)  # type: ignore[attr-defined]
            elif kind is cst.Call:
                stack.extend(self._call_shares(current))  # type: ignore[arg-type]
            elif kind in (cst.Tuple, cst.List, cst.Set):
                stack.extend(element.value for element in current.elements)  # type: ignore[attr-defined]
            elif kind is cst.Dict:
                for element in current.elements:  # type: ignore[attr-defined]
                    if isinstance(element, cst.DictElement):
                        stack.extend((element.key, element.value))
                    else:
                        stack.append(element.value)
            elif kind is cst.StarredElement or kind is cst.NamedExpr:
                stack.append(current.value)  # type: ignore[attr-defined]
            elif kind is cst.IfExp:
                stack.extend((current.body, current.orelse))  # type: ignore[attr-defined]
            elif kind is cst.BooleanOperation:
                stack.extend((current.left, current.right))  # type: ignore[attr-defined]
            elif kind in _COMPREHENSIONS:
                stack.append(current.elt)  # type: ignore[attr-defined]
            elif kind is cst.DictComp:
                stack.extend((current.key, current.value))  # type: ignore[attr-defined]
        return found

    def _call_shares(self, call: cst.Call) -> list[cst.BaseExpression]:
        """The parts of a call's value that may share memory with its result."""
        func = call.func
        args = [arg.value for arg in call.args]
        qualname = self.ctx.qualname(func) if isinstance(func, cst.Name | cst.Attribute) else None
        if qualname is not None:
            name = qualname.rpartition(".")[2]
            if not qualname.startswith("torch.") or qualname in VIEW_FUNCTIONS or qualname in HOLDING_FUNCTIONS:
                return args
            if name.endswith("_") or name[:1].isupper():  # in place, or a class that may keep its arguments
                return args
            inplace = any(a.keyword is not None and a.keyword.value == "inplace" for a in call.args)
            return args if inplace else []
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in FRESH_METHODS:
                return []
            if method in VIEW_METHODS or (method.endswith("_") and not method.endswith("__")):
                return [func.value]
            return [func.value, *args]
        if isinstance(func, cst.Name) and func.value in _READING_BUILTINS and func.value not in _REGROUPING:
            return []
        effects = callee_effects(self.ctx, call, self.local)
        if effects is not None:  # a function of this file returns only what it lets escape
            return [arg.value for arg, effect in effects if effect in _MAY_RETURN]
        return args


_ALL_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp})
_SCOPE_TYPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})
_LEAVING_TYPES = frozenset(_LEAVING_KINDS)
_CAPTURED_KINDS = (WRITTEN, KEPT, RETURNED, PASSED, MUTATED, VIEWED)
#: A parameter's events, strongest first, and the effect a call has on the argument given there.
_EFFECTS = (
    (frozenset({WRITTEN}), WRITTEN),
    (frozenset({PASSED, MUTATED}), PASSED),
    (frozenset({KEPT}), KEPT),
    (frozenset({RETURNED}), RETURNED),
    (frozenset({VIEWED}), VIEWED),
)
#: Effects under which a call's result may hold or share the argument.
_MAY_RETURN = frozenset({WRITTEN, PASSED, KEPT, RETURNED})
#: Displays whose elements an augmented assignment adds to a container (``items += [y]``).
_DISPLAYS = frozenset({cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp})


def _pairs(
    target: cst.BaseExpression, value: cst.BaseExpression | None
) -> list[tuple[str, cst.BaseExpression | None]]:
    """Each name a target binds with the part of the value it receives: element by element for
    ``a, b = x, y``, the whole value for ``a, b = x.unbind()``."""
    if isinstance(target, cst.Name):
        return [(target.value, value)]
    if isinstance(target, cst.StarredElement):
        return _pairs(target.value, value)
    if isinstance(target, cst.Tuple | cst.List):
        elements = target.elements
        if (
            isinstance(value, cst.Tuple | cst.List)
            and len(value.elements) == len(elements)
            and not any(isinstance(e, cst.StarredElement) for e in (*elements, *value.elements))
        ):
            return [
                pair for e, v in zip(elements, value.elements, strict=True) for pair in _pairs(e.value, v.value)
            ]
        return [pair for e in elements for pair in _pairs(e.value, value)]
    return []


def _free_names(function: cst.FunctionDef | cst.Lambda) -> set[str]:
    """The names a nested function or lambda reads, apart from its own parameters."""
    params = function.params
    own = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            own.add(star.name.value)
    body = function.body
    return {node.value for node in walk(body) if type(node) is cst.Name} - own


def _local_functions(block: cst.CSTNode) -> dict[str, cst.FunctionDef]:
    """Functions defined directly in ``block`` (``def norm_ip(img): img.clamp_(0, 1)``); none in a
    lambda's expression, whose ``body`` (an ``IfExp``'s, say) is not a list of statements."""
    if not isinstance(block, cst.Module | cst.IndentedBlock | cst.SimpleStatementSuite):
        return {}
    return {node.name.value: node for node in block.body if isinstance(node, cst.FunctionDef)}


def fills_first_argument(ctx: FileContext, call: cst.Call) -> bool:
    """A torch function that writes its first argument: ``nn.init.kaiming_uniform_(w)`` fills ``w``,
    ``dist.all_reduce(t)`` replaces ``t``'s values with what the processes exchanged."""
    qualname = ctx.qualname(call.func)
    return qualname is not None and (
        (qualname.startswith("torch.") and _in_place_name(qualname)) or is_collective(qualname)
    )


def _in_place_name(name: str) -> bool:
    """``add_``, ``torch.nn.init.zeros_``: torch's spelling of an operation that writes its operand
    (also the initialisers' older names without the underscore, ``torch.nn.init.normal``, which fill
    their argument in place too)."""
    return (name.endswith("_") and not name.endswith("__")) or name in _OLD_INITIALISERS


#: ``torch.nn.init``'s deprecated spellings: each warns and calls the in-place one (``normal`` → ``normal_``).
_OLD_INITIALISERS = frozenset(
    f"torch.nn.init.{name}"
    for name in (
        "uniform normal constant xavier_uniform xavier_normal kaiming_uniform kaiming_normal orthogonal sparse"
    ).split()
)
