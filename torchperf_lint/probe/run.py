"""Run one call under the probe: warm up, snapshot the inputs, record, then try the outputs."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch

from .allocator import allocator_log
from .recorder import Recorder
from .report import ProbeReport, Threads
from .usability import backward_problem, inplace_problem
from .values import describe, leaves, memory_range, snapshot

#: Torch's thread settings a call could change; each is watched while the call runs.
_THREAD_SETTERS = ("set_num_threads", "set_num_interop_threads")


def probe(fn: Callable, /, *args, **kwargs) -> ProbeReport:
    """``fn(*args, **kwargs)`` once under the probe, after one uncounted warm-up call."""
    return probe_call(fn, args, kwargs)


def probe_call(fn: Callable, args: tuple = (), kwargs: dict | None = None, *, warmup: int = 1) -> ProbeReport:
    """The report of one call of ``fn``. ``warmup`` uncounted calls come first, so caches the
    function fills on its first call do not count against every call.

    The call runs with autograd enabled, as it would inside a training step, so a function that
    records a graph shows it. Exceptions from ``fn`` propagate.
    """
    kwargs = dict(kwargs or {})
    for _ in range(warmup):
        fn(*args, **kwargs)
    named = _named_arguments(fn, args, kwargs)
    inputs = {path: array for name, value in named.items() for path, array in leaves(value, name)}
    before = {path: snapshot(array) for path, array in inputs.items()}
    recorder = Recorder({path: span for path, array in inputs.items() if (span := memory_range(array))})
    threads_before = torch.get_num_threads()
    with _watched_threads() as thread_calls, torch.enable_grad(), allocator_log() as log, recorder.active():
        result = fn(*args, **kwargs)
    outputs = dict(leaves(result, "result"))
    recorder.finish(outputs)
    threads = Threads(threads_before, torch.get_num_threads(), tuple(thread_calls))
    mutated = tuple(path for path, array in inputs.items() if snapshot(array) != before[path])
    tensors = {path: array for path, array in outputs.items() if isinstance(array, torch.Tensor)}
    return ProbeReport(
        function=_qualified_name(fn),
        defined_in=_source_file(fn),
        options={name: repr(value) for name, value in named.items() if not any(leaves(value, name))},
        inputs={path: describe(array) for path, array in inputs.items()},
        outputs={path: describe(array) for path, array in outputs.items()},
        ops=tuple(recorder.ops),
        allocations=tuple(recorder.allocations),
        allocator_bytes=log.allocated,
        allocator_peak_bytes=log.peak,
        retained_bytes=recorder.retained_bytes,
        host_reads=dict(recorder.host_reads),
        graph_ops=tuple(recorder.graph_ops),
        device_ops=tuple(recorder.device_ops),
        input_writes=tuple(recorder.input_writes),
        mutated_inputs=mutated,
        threads=threads,
        backward_failures=_problems(backward_problem, tensors),
        inplace_failures=_problems(inplace_problem, outputs),
        aliases=_aliases(outputs, recorder),
    )


def _named_arguments(fn: Callable, args: tuple, kwargs: dict) -> dict:
    """The arguments by parameter name where the signature tells them (``volume``, ``matrix``),
    else by position (``args[0]``) and keyword."""
    try:
        return dict(inspect.signature(fn).bind(*args, **kwargs).arguments)
    except (TypeError, ValueError):
        return {**{f"args[{index}]": value for index, value in enumerate(args)}, **kwargs}


def _aliases(outputs: dict, recorder: Recorder) -> dict[str, str]:
    spans = {path: memory_range(array) for path, array in outputs.items()}
    found = {path: recorder.input_at(*span) for path, span in spans.items() if span and span[0] != span[1]}
    return {path: source for path, source in found.items() if source is not None}


def _problems(check: Callable, arrays: dict) -> dict[str, str]:
    found = {path: check(array) for path, array in arrays.items()}
    return {path: problem for path, problem in found.items() if problem is not None}


@contextmanager
def _watched_threads() -> Iterator[list[str]]:
    """Record every call of torch's thread setters made through the ``torch`` module."""
    calls: list[str] = []
    originals = {name: getattr(torch, name) for name in _THREAD_SETTERS}

    def watching(name: str) -> Callable[[int], None]:
        def setter(count: int) -> None:
            calls.append(f"torch.{name}({count})")
            originals[name](count)

        return setter

    for name in _THREAD_SETTERS:
        setattr(torch, name, watching(name))
    try:
        yield calls
    finally:
        for name, original in originals.items():
            setattr(torch, name, original)


def _source_file(fn: Callable) -> str:
    """The file the probed function was imported from, so a reader can tell a base tree from a head."""
    try:
        return inspect.getsourcefile(inspect.unwrap(fn)) or ""
    except TypeError:  # a builtin or a C extension's function
        return ""


def _qualified_name(fn: Callable) -> str:
    module = getattr(fn, "__module__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    return f"{module}.{name}" if module else name
