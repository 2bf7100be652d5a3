"""Lints many files: serial for a handful, a process pool when the batch pays for it.

Cache hits are served from the rule catalog and the project index alone: the engine, the rule
classes and LibCST are imported only when some file must actually be linted.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, TypeVar

from torchperf_lint.cache import Cache, code_fingerprint
from torchperf_lint.diagnostics import SYNTAX_ERROR, Diagnostic
from torchperf_lint.registry import catalog
from torchperf_lint.workspace import FileSettings

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

#: Below this many files, starting worker processes costs more than it saves.
POOL_THRESHOLD = 32
#: Allocations between two collections of the youngest generation while a batch runs. Parsing makes
#: millions of short-lived nodes without cycles; at CPython's default of 700 the cyclic collector
#: runs thousands of times per file and finds nothing, a twelfth of the parse time.
BATCH_GC_THRESHOLD = 50_000


@dataclass(frozen=True)
class Job:
    path: Path
    display: str
    settings: FileSettings
    data: bytes | None = None  # given for stdin


def fingerprint(job: Job, ignore_noqa: bool = False) -> str:
    """Everything besides its bytes that decides a job's findings: the tool's code (engine and
    active rule modules), the file's module name, the classes of its enabled rules and the project
    settings rules read. Built from the catalog, so a cache hit imports no rule."""
    rules = catalog()
    file = job.settings
    active = sorted(code for code in file.enabled if code in rules)
    classes = ",".join(f"{code}={rules[code].module}.{rules[code].qualname}" for code in active)
    code = code_fingerprint(tuple(sorted({rules[code].module for code in active})))
    settings = file.settings
    kernel = file.kernel.digest() if file.kernel is not None else "-"
    knobs = "|".join(
        str(knob)
        for knob in (settings.prevalidated, settings.primitives, kernel, ignore_noqa)
        + (settings.target_version, settings.max_file_size)
    )
    return "\n".join((code, file.module_name, classes, ",".join(sorted(file.enabled)), knobs))


#: Where a job's findings are stored: its project's cache folder and the job's fingerprint.
Store = tuple[Path, str]


def lint_job(job: Job, store: Store | None = None, ignore_noqa: bool = False) -> list[Diagnostic]:
    """One file's findings, kept in the cache when ``store`` is given (``run`` has already looked
    the file up there, so a worker never asks the cache twice)."""
    from torchperf_lint.engine import lint_bytes

    data = _read(job)
    if isinstance(data, list):
        return data
    findings = lint_bytes(data, job.settings, job.display, ignore_noqa=ignore_noqa)
    if store is not None and job.data is None:
        folder, job_fingerprint = store
        cache = Cache(folder)
        cache.put(cache.key(data, job_fingerprint), findings)
    return findings


def cached_findings(job: Job, store: Store) -> list[Diagnostic] | None:
    """The findings the cache holds for this job, or None when it must be linted."""
    data = _read(job)
    if isinstance(data, list) or job.data is not None:
        return None
    folder, job_fingerprint = store
    cache = Cache(folder)
    return cache.get(cache.key(data, job_fingerprint), job.display)


def _read(job: Job) -> bytes | list[Diagnostic]:
    """The job's bytes, or the finding that says why they could not be read."""
    if job.data is not None:
        return job.data
    try:
        return job.path.read_bytes()
    except OSError as error:
        reason = error.strerror or str(error)
        return [Diagnostic(job.display, 1, 1, SYNTAX_ERROR, f"File could not be read: {reason}", 1, 1)]


def _size(job: Job) -> int:
    if job.data is not None:
        return len(job.data)
    try:
        return job.path.stat().st_size
    except OSError:
        return 0


def _lint_task(task: tuple[Job, Store | None, bool]) -> list[Diagnostic]:
    return lint_job(*task)


_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


class Workers:
    """Runs work over many items, in a process pool when a batch is large enough to pay for one.

    The pool starts on the first batch that needs it and serves every later one (the project index
    and then the lint share it), so a run pays for starting processes at most once. While entered,
    the cyclic collector runs less often (``BATCH_GC_THRESHOLD``), in this process and the workers
    it forks."""

    def __init__(self, workers: int | None = None) -> None:
        self.count = workers if workers is not None else (os.cpu_count() or 1)
        self._pool: ProcessPoolExecutor | None = None
        self._gc_thresholds: tuple[int, int, int] | None = None

    def map(self, function: Callable[[_Item], _Result], items: Iterable[_Item]) -> Iterator[_Result]:
        batch = list(items)
        if self.count <= 1 or len(batch) < POOL_THRESHOLD:
            return map(function, batch)
        if self._pool is None:
            from concurrent.futures import ProcessPoolExecutor  # a pre-commit run of a few files needs none

            self._pool = ProcessPoolExecutor(max_workers=self.count)
        return self._pool.map(function, batch)

    def __enter__(self) -> Workers:
        self._gc_thresholds = gc.get_threshold()
        gc.set_threshold(BATCH_GC_THRESHOLD, *self._gc_thresholds[1:])
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._pool is not None:
            self._pool.shutdown()
        if self._gc_thresholds is not None:
            gc.set_threshold(*self._gc_thresholds)


def run(
    jobs: Iterable[Job],
    workers: Workers | None = None,
    *,
    use_cache: bool = False,
    ignore_noqa: bool = False,
    progress: Callable[[int], None] | None = None,
) -> list[Diagnostic]:
    """Findings for every job, sorted by path, row and column. With ``use_cache``, each file's
    findings are kept in its project's cache folder, and hits are served here, in this process.
    ``progress`` is told how many files are done after each one."""
    workers = workers if workers is not None else Workers(1)
    hits: list[list[Diagnostic]] = []
    misses: list[tuple[Job, Store | None]] = []
    for job in jobs:
        store = (job.settings.project.cache_dir, fingerprint(job, ignore_noqa)) if use_cache else None
        cached = cached_findings(job, store) if store is not None else None
        if cached is None:
            misses.append((job, store))
        else:
            hits.append(cached)
    # Largest files first, one per task: the last task to finish is then a small one, so no worker
    # idles while another parses a big file (longest-processing-time-first scheduling).
    misses.sort(key=lambda miss: _size(miss[0]), reverse=True)
    tasks = [(job, store, ignore_noqa) for job, store in misses]
    findings: list[Diagnostic] = []
    for done, result in enumerate(chain(hits, workers.map(_lint_task, tasks)), start=1):
        findings.extend(result)
        if progress is not None:
            progress(done)
    return sorted(findings)
