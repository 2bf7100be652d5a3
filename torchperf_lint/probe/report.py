"""What one probed call did, as exact counts: the report, its contract verdict, and its text and JSON.

Plain data, no torch: a report read back from JSON compares and prints like a fresh one.

"Full-size" is measured in elements, not bytes, so that converting a uint8 volume to float32 (four
times the bytes) and copying it (the same bytes) are both one full-size pass. The yardstick is the
smaller of two counts: the elements of the volume (the first array argument) and of the result (the
largest array returned). A copy of either the input or the output is then full-size, whether the call
shrinks or grows the volume, while a per-item piece of a batch, or a grid of one plane, is not.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields

#: Operations that copy values without computing new ones: ``clone`` (also what ``contiguous()``,
#: ``reshape`` of a non-viewable tensor and ``copy.deepcopy`` dispatch to), ``_to_copy`` (``.to``,
#: ``.float()``, ``.cpu()``), ``copy_`` (slice assignment, ``out[...] = x``), and the joins.
COPY_OPS = frozenset({"aten.clone", "aten._to_copy", "aten.copy_", "aten.cat", "aten.stack", "aten.repeat"})


@dataclass(frozen=True)
class ArrayInfo:
    """One tensor or NumPy array the call took or returned. Strides are in elements for both
    containers; ``order`` lists the axes from outermost to innermost in memory."""

    container: str
    dtype: str
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    layout: str
    contiguous: bool
    order: tuple[int, ...]
    device: str
    inference: bool
    requires_grad: bool

    @property
    def numel(self) -> int:
        count = 1
        for size in self.shape:
            count *= size
        return count

    def text(self) -> str:
        flags = [self.container, self.dtype, str(self.shape), f"strides {self.strides}"]
        flags.append("contiguous" if self.contiguous else f"memory order {self.order}")
        if self.layout != "strided":
            flags.append(self.layout)
        if self.device != "cpu":
            flags.append(f"on {self.device}")
        if self.inference:
            flags.append("inference tensor")
        if self.requires_grad:
            flags.append("requires grad")
        return " ".join(flags)


@dataclass(frozen=True)
class OpRecord:
    """One aten operation of the call: how many elements it read (its largest tensor argument) and
    wrote (new results and arguments it updates in place); views read and write nothing."""

    name: str
    read: int
    written: int
    view: bool

    @property
    def touched(self) -> int:
        return 0 if self.view else max(self.read, self.written)


@dataclass(frozen=True)
class Allocation:
    """A buffer the call brought into being: by an aten operation (``source`` ``torch``), by
    ``torch.tensor`` from Python values (``torch``), or by NumPy, seen when it crossed into torch
    through ``torch.from_numpy`` or was returned (``numpy``)."""

    op: str
    nbytes: int
    shape: tuple[int, ...]
    dtype: str
    source: str


@dataclass(frozen=True)
class Threads:
    """Torch's intra-op thread count around the call, and the thread settings the call made."""

    before: int
    after: int
    calls: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.calls) or self.before != self.after


@dataclass(frozen=True)
class ProbeReport:
    """Exact counts of one call. Equal calls give equal reports (after the warm-up call that
    fills caches), so tests can pin them and a diff of two reports is a change's cost."""

    function: str
    inputs: dict[str, ArrayInfo]
    outputs: dict[str, ArrayInfo]
    ops: tuple[OpRecord, ...]
    allocations: tuple[Allocation, ...]
    #: Every byte torch's CPU allocator handed out during the call, and its highest live total.
    allocator_bytes: int
    allocator_peak_bytes: int
    retained_bytes: int
    host_reads: dict[str, int]
    graph_ops: tuple[str, ...]
    device_ops: tuple[str, ...]
    input_writes: tuple[str, ...]
    mutated_inputs: tuple[str, ...]
    threads: Threads
    backward_failures: dict[str, str] = field(default_factory=dict)
    inplace_failures: dict[str, str] = field(default_factory=dict)
    #: Output path -> the input whose memory it shares.
    aliases: dict[str, str] = field(default_factory=dict)
    #: The file the function was imported from ("" for a builtin).
    defined_in: str = ""
    #: Arguments that hold no array or tensor, as ``repr`` (the size, the interpolation mode, ...).
    options: dict[str, str] = field(default_factory=dict)

    # Autograd ----------------------------------------------------------------------------------

    @property
    def inference_outputs(self) -> tuple[str, ...]:
        """Paths of returned tensors created under ``inference_mode``."""
        return tuple(path for path, info in self.outputs.items() if info.inference)

    @property
    def records_graph(self) -> bool:
        """Whether any operation of the call (or a returned tensor) joined an autograd graph."""
        return bool(self.graph_ops) or any(info.requires_grad for info in self.outputs.values())

    @property
    def layout_changes(self) -> tuple[str, ...]:
        """How each returned array differs from the volume (the first array argument) in container,
        dtype, storage layout and memory order; empty when each keeps all four."""
        volume = next(iter(self.inputs.values()), None)
        if volume is None:
            return ()
        changes = []
        for path, info in self.outputs.items():
            for what in ("container", "dtype", "layout"):
                if getattr(info, what) != getattr(volume, what):
                    changes.append(f"{path}: {what} {getattr(volume, what)} -> {getattr(info, what)}")
            if (info.contiguous, info.order) != (volume.contiguous, volume.order) and len(info.shape) == len(
                volume.shape
            ):
                changes.append(f"{path}: memory order {volume.order} -> {info.order}")
        return tuple(changes)

    # Memory --------------------------------------------------------------------------------------

    @property
    def numpy_bytes(self) -> int:
        return sum(item.nbytes for item in self.allocations if item.source == "numpy")

    @property
    def allocated_bytes(self) -> int:
        """Bytes of every buffer the call allocated, freed or kept: all of torch's (scratch buffers
        inside operations included) and the NumPy buffers the probe saw."""
        return self.allocator_bytes + self.numpy_bytes

    @property
    def peak_bytes(self) -> int:
        """The most bytes the call held at once: torch's exact peak, plus the NumPy buffers it saw
        (counted as alive together, which they are when they are the result)."""
        return self.allocator_peak_bytes + self.numpy_bytes

    @property
    def internal_bytes(self) -> int:
        """Torch bytes allocated inside operations (scratch buffers no operation returned)."""
        return self.allocator_bytes - sum(item.nbytes for item in self.allocations if item.source == "torch")

    @property
    def full_size_elements(self) -> int:
        """The yardstick of "full-size": the smaller of the volume's and the result's element counts
        (either alone when the other is missing; 0 when the call took and returned no array)."""
        volume = next(iter(self.inputs.values()), None)
        result = max(self.outputs.values(), key=lambda info: info.numel, default=None)
        counts = [info.numel for info in (volume, result) if info is not None]
        return min(counts, default=0)

    def _full_size(self, op: OpRecord) -> bool:
        return self.full_size_elements > 0 and op.touched >= self.full_size_elements

    @property
    def full_size_copies(self) -> tuple[OpRecord, ...]:
        """Copies (:data:`COPY_OPS`) that write at least a full-size number of elements."""
        full = self.full_size_elements
        return tuple(op for op in self.ops if op.name in COPY_OPS and full > 0 and op.written >= full)

    @property
    def full_size_ops(self) -> tuple[OpRecord, ...]:
        """Operations that read or write at least a full-size number of elements."""
        return tuple(op for op in self.ops if self._full_size(op))

    @property
    def full_size_passes(self) -> int:
        return len(self.full_size_ops)

    # Verdict -------------------------------------------------------------------------------------

    @property
    def breaches(self) -> tuple[str, ...]:
        """What the call does that the performance contract rules out, one line each."""
        found = []
        if self.inference_outputs:
            found.append(f"returns inference tensors: {', '.join(self.inference_outputs)}")
        if self.records_graph:
            found.append(f"records autograd: {', '.join(self.graph_ops) or 'a returned tensor requires grad'}")
        found += [f"{path} cannot feed a backward pass: {why}" for path, why in self.backward_failures.items()]
        found += [f"{path} cannot take an in-place update: {why}" for path, why in self.inplace_failures.items()]
        if self.device_ops:
            found.append(f"works off the CPU: {', '.join(self.device_ops)}")
        if self.input_writes:
            found.append(f"writes into its inputs: {', '.join(self.input_writes)}")
        if self.mutated_inputs:
            found.append(f"changes its inputs' values: {', '.join(self.mutated_inputs)}")
        if self.threads.changed:
            calls = ", ".join(self.threads.calls) or f"{self.threads.before} -> {self.threads.after}"
            found.append(f"changes torch's thread settings: {calls}")
        return tuple(found)

    # Output --------------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        """Every field, plus the derived counts, as JSON-ready values."""
        data = {item.name: _plain(getattr(self, item.name)) for item in fields(self)}
        data.update(
            allocated_bytes=self.allocated_bytes,
            peak_bytes=self.peak_bytes,
            internal_bytes=self.internal_bytes,
            full_size_elements=self.full_size_elements,
            full_size_copies=[op.name for op in self.full_size_copies],
            full_size_passes=self.full_size_passes,
            inference_outputs=list(self.inference_outputs),
            layout_changes=list(self.layout_changes),
            records_graph=self.records_graph,
            breaches=list(self.breaches),
        )
        return data

    def json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, data: dict) -> ProbeReport:
        """A report from :meth:`to_dict`'s output (derived counts are recomputed, not read)."""
        return cls(
            function=data["function"],
            inputs={path: _array_info(info) for path, info in data["inputs"].items()},
            outputs={path: _array_info(info) for path, info in data["outputs"].items()},
            ops=tuple(OpRecord(**op) for op in data["ops"]),
            allocations=tuple(Allocation(**{**one, "shape": tuple(one["shape"])}) for one in data["allocations"]),
            allocator_bytes=data["allocator_bytes"],
            allocator_peak_bytes=data["allocator_peak_bytes"],
            retained_bytes=data["retained_bytes"],
            host_reads=dict(data["host_reads"]),
            graph_ops=tuple(data["graph_ops"]),
            device_ops=tuple(data["device_ops"]),
            input_writes=tuple(data["input_writes"]),
            mutated_inputs=tuple(data["mutated_inputs"]),
            threads=Threads(data["threads"]["before"], data["threads"]["after"], tuple(data["threads"]["calls"])),
            backward_failures=dict(data["backward_failures"]),
            inplace_failures=dict(data["inplace_failures"]),
            aliases=dict(data["aliases"]),
            defined_in=data.get("defined_in", ""),
            options=dict(data.get("options", {})),
        )

    def text(self) -> str:
        """The report for a reader: one line per finding, allocations itemised."""
        lines = [f"probe: {self.function}" + (f" ({self.defined_in})" if self.defined_in else "")]
        lines += [f"  input  {path}: {info.text()}" for path, info in self.inputs.items()]
        lines += [
            f"  output {path}: {info.text()}"
            + (f" (shares {self.aliases[path]}'s memory)" if path in self.aliases else "")
            for path, info in self.outputs.items()
        ]
        kept = (
            "the result keeps the volume's container, dtype, layout and memory order" if self.outputs else "none"
        )
        lines.append(f"layout: {'; '.join(self.layout_changes) or kept}")
        lines.append(f"autograd: {self._autograd_text()}")
        lines.append(f"device: {', '.join(self.device_ops) or 'every operation on the CPU'}")
        reads = ", ".join(f"{name} x{count}" for name, count in self.host_reads.items())
        lines.append(f"host reads: {reads or 'none'}")
        lines.append(
            f"allocations: {megabytes(self.allocated_bytes)} ({self.allocated_bytes:,} bytes) in "
            f"{_plural(len(self.allocations), 'buffer', 'buffers')} and {self.internal_bytes:,} bytes inside "
            f"operations; peak {megabytes(self.peak_bytes)}, "
            f"{megabytes(self.retained_bytes)} still held when the call returned"
        )
        lines += [
            f"  {item.nbytes:>13,} B  {item.op} -> {item.dtype} {item.shape}"
            + ("" if item.source == "torch" else f" ({item.source})")
            for item in self.allocations
        ]
        copies = ", ".join(op.name for op in self.full_size_copies)
        lines.append(
            f"full-size (>= {self.full_size_elements:,} elements): "
            f"{_plural(len(self.full_size_copies), 'copy', 'copies')}"
            f"{f' ({copies})' if copies else ''}, {_plural(self.full_size_passes, 'pass', 'passes')}, "
            f"{_plural(len(self.ops), 'operation', 'operations')} in all"
        )
        lines.append(f"threads: {self._threads_text()}")
        lines.append(f"inputs: {self._inputs_text()}")
        verdict = self.breaches
        lines.append("contract: kept" if not verdict else "contract: breached")
        lines += [f"  - {breach}" for breach in verdict]
        return "\n".join(lines) + "\n"

    def _autograd_text(self) -> str:
        parts = ["graph recorded" if self.records_graph else "no graph recorded"]
        inference = ", ".join(self.inference_outputs)
        parts.append(f"inference outputs: {inference}" if inference else "no inference outputs")
        tensors = [path for path, info in self.outputs.items() if info.container == "Tensor"]
        if tensors and not self.backward_failures and not self.inplace_failures:
            parts.append("every returned tensor feeds a backward pass and takes an in-place update")
        return "; ".join(parts)

    def _threads_text(self) -> str:
        if not self.threads.changed:
            return f"{self.threads.before}, not changed"
        calls = ", ".join(self.threads.calls) or "changed"
        return f"{self.threads.before} before, {self.threads.after} after; {calls}"

    def _inputs_text(self) -> str:
        if not self.input_writes and not self.mutated_inputs:
            return "not written"
        return "; ".join(filter(None, [", ".join(self.input_writes), ", ".join(self.mutated_inputs)]))


def megabytes(count: int) -> str:
    """Bytes in decimal megabytes, one decimal: ``12582912`` is ``12.6 MB``."""
    return f"{count / 1e6:.1f} MB"


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _plain(value):
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if hasattr(value, "__dataclass_fields__"):
        return {key: _plain(item) for key, item in asdict(value).items()}
    return value


def _array_info(data: dict) -> ArrayInfo:
    return ArrayInfo(**{**data, "shape": tuple(data["shape"]), "strides": tuple(data["strides"]),
                        "order": tuple(data["order"])})  # fmt: skip
