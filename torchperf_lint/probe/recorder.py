"""Torch's own instrumentation around one call, and what it counts.

A dispatch mode (the mechanism ``torch.utils.flop_counter`` uses) sees every aten operation after
autograd and composite operations have been resolved: ``contiguous()`` arrives as ``aten.clone``,
``.to(dtype)`` as ``aten._to_copy``, ``torch.from_numpy`` and ``torch.tensor`` as ``aten.lift_fresh``.
Each operation's schema says which results are new and which arguments it writes. A function mode
sees the Python API above it: reads of tensor values into Python (``tolist`` never reaches the
dispatcher) and results that joined an autograd graph.

A new buffer's lifetime is followed through its storage object, which torch keeps alive exactly as
long as any tensor uses that memory, so what the result still holds is exact too.
"""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch
from torch.overrides import TorchFunctionMode, resolve_name
from torch.utils._python_dispatch import TorchDispatchMode

from .report import Allocation, OpRecord
from .values import byte_bounds

#: Python-level reads of tensor values (``float(t)`` is ``__float__``, ``if t:`` is ``__bool__``,
#: an f-string of a tensor is ``__format__``).
HOST_READS = frozenset(
    {"item", "tolist", "__bool__", "__float__", "__int__", "__index__", "__complex__", "__format__"}
)
#: Factories that allocate without writing a value.
_ALLOCATE_ONLY = frozenset(
    {"aten.empty", "aten.empty_like", "aten.empty_strided", "aten.new_empty", "aten.new_empty_strided"}
)
#: How tensors made outside the dispatcher (from Python values or a NumPy buffer) enter it.
_LIFT = "aten.lift_fresh"


class Recorder:
    """The counts of one call, filled in while :meth:`active`; ``inputs`` maps each input's path to
    the bytes it may be read or written through."""

    def __init__(self, inputs: dict[str, tuple[int, int]]) -> None:
        self._inputs = inputs
        self.ops: list[OpRecord] = []
        self.allocations: list[Allocation] = []
        self.host_reads: Counter[str] = Counter()
        self.graph_ops: list[str] = []
        self.device_ops: list[str] = []
        self.input_writes: list[str] = []
        self.retained_bytes = 0
        self._live: dict[int, int] = {}  # start address -> bytes of the call's buffers still alive
        self._shared_numpy: list[tuple[int, int]] = []  # NumPy buffers counted when they entered torch
        self._finalizers: list[weakref.finalize] = []

    @contextmanager
    def active(self) -> Iterator[None]:
        with _ApiMode(self), _OpMode(self):
            yield

    def finish(self, outputs: dict[str, torch.Tensor | np.ndarray]) -> None:
        """Count NumPy results that no torch buffer of the call holds, note what is still alive, and
        stop following lifetimes. Call while the outputs are still referenced."""
        kept = 0
        for array in outputs.values():
            if isinstance(array, np.ndarray):
                kept += self._numpy_result(array)
        self.retained_bytes = sum(self._live.values()) + kept
        for finalizer in self._finalizers:
            finalizer.detach()

    # The dispatch mode's side ------------------------------------------------------------------

    def operation(self, func: torch._ops.OpOverload, args: tuple, kwargs: dict, out: object) -> None:
        name = str(func.overloadpacket)
        read = written = 0
        for argument, value in _bound(func, args, kwargs):
            for tensor in _tensors(value):
                read = max(read, tensor.numel())
                self._check_device(name, tensor)
                if argument.alias_info is not None and argument.alias_info.is_write:
                    written += tensor.numel()
                    self._check_input_write(name, tensor)
        returns = func._schema.returns
        for returned, value in zip(returns, (out,) if len(returns) == 1 else out, strict=True):
            for tensor in _tensors(value):
                self._check_device(name, tensor)
                if returned.alias_info is None:
                    written += 0 if name in _ALLOCATE_ONLY else tensor.numel()
                    self._allocated(name, tensor)
                elif name == _LIFT:
                    self._allocated(name, tensor)
        self.ops.append(OpRecord(name, read, written, func.is_view))

    def _allocated(self, name: str, tensor: torch.Tensor) -> None:
        if tensor.layout != torch.strided or tensor.device.type != "cpu":
            return
        storage = tensor.untyped_storage()
        start, size = storage.data_ptr(), storage.nbytes()
        if size == 0 or start in self._live or self.input_at(start, start + size):
            return
        if name == _LIFT:
            # torch's allocator makes resizable storages; a NumPy buffer shared by from_numpy is not
            source = "torch" if storage.resizable() else "numpy"
            if source == "numpy":
                self._shared_numpy.append((start, start + size))
            name = "torch.tensor" if source == "torch" else "torch.from_numpy"
        else:
            source = "torch"
        self.allocations.append(
            Allocation(name, size, tuple(tensor.shape), str(tensor.dtype).removeprefix("torch."), source)
        )
        self._live[start] = size
        self._finalizers.append(weakref.finalize(storage, self._live.pop, start, None))

    def _numpy_result(self, array: np.ndarray) -> int:
        """Count a returned array's buffer if NumPy made it during the call and nothing counted it yet;
        the bytes it keeps alive that no live torch buffer of the call already holds."""
        root = array
        while isinstance(root.base, np.ndarray):
            root = root.base
        low, high = byte_bounds(root)
        if not root.flags.owndata or high == low or self.input_at(low, high):
            return 0  # memory torch or the caller owns: counted where it was made, if during the call
        if any(low < start + size and start < high for start, size in self._live.items()):
            return 0
        if not any(low < end and start < high for start, end in self._shared_numpy):
            self.allocations.append(Allocation("numpy", high - low, tuple(root.shape), str(root.dtype), "numpy"))
        return high - low

    def _check_device(self, name: str, tensor: torch.Tensor) -> None:
        if tensor.device.type != "cpu" and name not in self.device_ops:
            self.device_ops.append(name)

    def _check_input_write(self, name: str, tensor: torch.Tensor) -> None:
        if tensor.layout != torch.strided or tensor.device.type != "cpu":
            return
        storage = tensor.untyped_storage()
        path = self.input_at(storage.data_ptr(), storage.data_ptr() + storage.nbytes())
        if path is not None:
            self.input_writes.append(f"{name} wrote into {path}")

    def input_at(self, low: int, high: int) -> str | None:
        """The input whose memory overlaps ``[low, high)``, if any."""
        return next((path for path, (start, end) in self._inputs.items() if low < end and start < high), None)

    # The function mode's side ------------------------------------------------------------------

    def api_call(self, func, result: object) -> None:
        name = getattr(func, "__name__", "")
        if name in HOST_READS:
            self.host_reads[name] += 1
        if any(tensor.requires_grad for tensor in _tensors(result)):
            self.graph_ops.append(resolve_name(func) or name)


class _OpMode(TorchDispatchMode):
    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self._recorder = recorder

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        self._recorder.operation(func, args, kwargs, out)
        return out


class _ApiMode(TorchFunctionMode):
    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self._recorder = recorder

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        self._recorder.api_call(func, result)
        return result


def _bound(func: torch._ops.OpOverload, args: tuple, kwargs: dict) -> Iterator[tuple[object, object]]:
    """Each schema argument that was passed, with its value."""
    for index, argument in enumerate(func._schema.arguments):
        if index < len(args) and not argument.kwarg_only:
            yield argument, args[index]
        elif argument.name in kwargs:
            yield argument, kwargs[argument.name]


def _tensors(value: object) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _tensors(item)
