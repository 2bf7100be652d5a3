"""Lints many files: serial for a handful, a process pool when the batch pays for it."""

from __future__ import annotations

import os
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from torchperf_lint.cache import Cache, code_fingerprint
from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.engine import SYNTAX_ERROR, FileOptions, lint_bytes
from torchperf_lint.registry import all_rules
from torchperf_lint.workspace import FileSettings

#: Below this many files, starting worker processes costs more than it saves.
POOL_THRESHOLD = 32


@dataclass(frozen=True)
class Job:
    path: Path
    display: str
    settings: FileSettings
    data: bytes | None = None  # given for stdin


def options_for(job: Job, ignore_noqa: bool = False) -> FileOptions:
    """The rules and knobs the engine applies to one job's file."""
    rules = all_rules()
    file = job.settings
    return FileOptions(
        path=job.display,
        module_name=file.module_name,
        rules=tuple(cls for code, cls in rules.items() if code in file.enabled),
        enabled=file.enabled,
        prevalidated=file.settings.prevalidated,
        primitives=file.settings.primitives,
        ignore_noqa=ignore_noqa,
    )


def lint_job(job: Job, options: FileOptions, cache_dir: Path | None = None) -> list[Diagnostic]:
    """One file's findings, stored in the cache when ``cache_dir`` is given (``run`` has already
    looked the file up there, so a worker never asks the cache twice)."""
    data = _read(job)
    if isinstance(data, list):
        return data
    findings = lint_bytes(data, options)
    if cache_dir is not None and job.data is None:
        store = Cache(cache_dir)
        store.put(_cache_key(store, data, options), findings)
    return findings


def cached_findings(job: Job, options: FileOptions, cache_dir: Path) -> list[Diagnostic] | None:
    """The findings the cache holds for this job, or None when it must be linted."""
    data = _read(job)
    if isinstance(data, list) or job.data is not None:
        return None
    store = Cache(cache_dir)
    return store.get(_cache_key(store, data, options), job.display)


def _read(job: Job) -> bytes | list[Diagnostic]:
    """The job's bytes, or the finding that says why they could not be read."""
    if job.data is not None:
        return job.data
    try:
        return job.path.read_bytes()
    except OSError as error:
        reason = error.strerror or str(error)
        return [Diagnostic(job.display, 1, 1, SYNTAX_ERROR, f"File could not be read: {reason}", 1, 1)]


def _cache_key(store: Cache, data: bytes, options: FileOptions) -> str:
    rule_modules = tuple(sorted({cls.__module__ for cls in options.rules}))
    return store.key(data, code_fingerprint(rule_modules) + "\n" + options.fingerprint())


def _size(job: Job) -> int:
    if job.data is not None:
        return len(job.data)
    try:
        return job.path.stat().st_size
    except OSError:
        return 0


def _lint_triple(triple: tuple[Job, FileOptions, Path | None]) -> list[Diagnostic]:
    return lint_job(*triple)


def run(
    jobs: Iterable[Job], workers: int | None = None, *, use_cache: bool = False, ignore_noqa: bool = False
) -> list[Diagnostic]:
    """Findings for every job, sorted by path, row and column. With ``use_cache``, each file's
    findings are kept in its project's cache folder."""
    triples = [
        (job, options_for(job, ignore_noqa), job.settings.project.cache_dir if use_cache else None) for job in jobs
    ]
    findings: list[Diagnostic] = []
    if use_cache:  # hits are served here, so a warm run never starts a worker
        misses = []
        for job, options, cache_dir in triples:
            cached = cached_findings(job, options, job.settings.project.cache_dir)
            if cached is None:
                misses.append((job, options, cache_dir))
            else:
                findings.extend(cached)
        triples = misses
    workers = workers if workers is not None else (os.cpu_count() or 1)
    if workers > 1 and len(triples) >= POOL_THRESHOLD:
        # Largest files first, one per task: the last task to finish is then a small one, so no
        # worker idles while another parses a big file (longest-processing-time-first scheduling).
        triples.sort(key=lambda triple: _size(triple[0]), reverse=True)
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for result in pool.map(_lint_triple, triples):
                findings.extend(result)
    else:
        for triple in triples:
            findings.extend(_lint_triple(triple))
    return sorted(findings)
