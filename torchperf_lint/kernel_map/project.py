"""The one place every entry point gets a file's kernel facts: the command line (files and stdin), the
pre-commit hook (the command line), baseline mode, the editor server and the reviewers' script.

Per project: the index (built or refreshed, reused from the store or from this process's last build)
and the kernel map inferred from it. A file whose bytes the index does not hold (standard input, an
unsaved editor buffer, a base revision, a file outside any project) is summarised from its own bytes
and the map is inferred again with that summary in place of the stored one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from torchperf_lint.cache import code_fingerprint
from torchperf_lint.config import Settings
from torchperf_lint.index.build import Mapper, ProjectIndex, build, project_files, scope_root, summarize_bytes
from torchperf_lint.index.store import IndexStore
from torchperf_lint.kernel_map.facts import FileFacts
from torchperf_lint.kernel_map.infer import KernelMap, MapSettings

if TYPE_CHECKING:
    from torchperf_lint.runner import Job

#: This process's last map of each project; its index is refreshed by ``stat`` on the next ``attach``.
_maps: dict[Path, ProjectMap] = {}


@dataclass
class ProjectMap:
    index: ProjectIndex
    kernel_map: KernelMap


def map_settings(settings: Settings) -> MapSettings:
    return MapSettings(
        prevalidated=settings.prevalidated,
        primitives=settings.primitives,
        not_prevalidated=settings.not_prevalidated,
        not_primitives=settings.not_primitives,
        infer=settings.infer_kernel_map,
    )


def project_map(root: Path, settings: Settings, cache_dir: Path | None, mapper: Mapper = map) -> ProjectMap:
    """The index and kernel map of the project rooted at ``root``; ``cache_dir`` None keeps nothing on disk."""
    store = IndexStore(cache_dir, code_fingerprint(()), root) if cache_dir is not None else None
    previous = _maps.get(root)
    index = build(root, project_files(root, settings), settings, store, mapper, previous and previous.index)
    found = _maps[root] = ProjectMap(index, KernelMap(index.modules(), map_settings(settings)))
    return found


def attach(jobs: list[Job], *, use_cache: bool, mapper: Mapper = map) -> list[Job]:
    """``jobs`` with each file's kernel facts in its settings; each project's index is refreshed once."""
    maps: dict[Path, ProjectMap] = {}
    attached = []
    for job in jobs:
        settings = job.settings.settings
        root = scope_root(job.path, settings)
        found = None
        if root is not None:
            found = maps.get(root)
            if found is None:
                cache_dir = job.settings.project.cache_dir if use_cache else None
                found = maps[root] = project_map(root, settings, cache_dir, mapper)
        attached.append(with_facts(job, facts_for(job, found)))
    return attached


def with_facts(job: Job, facts: FileFacts) -> Job:
    return replace(job, settings=replace(job.settings, kernel=facts))


def facts_of_bytes(job: Job, data: bytes) -> FileFacts:
    """The facts ``data`` would have as the job's file (a base revision of it, say), from the map
    this process last built for its project."""
    root = scope_root(job.path, job.settings.settings)
    found = None
    if root is not None:
        found = _maps.get(root) or project_map(root, job.settings.settings, None)
    return facts_for(job, found, data)


def facts_for(job: Job, found: ProjectMap | None, data: bytes | None = None) -> FileFacts:
    """One file's facts from its project's map; from its own bytes (``data``, else the job's) when the
    index does not hold exactly those bytes."""
    module = job.settings.module_name
    data = data if data is not None else job.data
    settings = job.settings.settings
    if found is not None:
        entry = found.index.entries.get(job.path.resolve())
        if entry is not None and (data is None or hashlib.sha256(data).hexdigest() == entry.sha256):
            return found.kernel_map.file_facts(module)
    if data is None:
        try:
            data = job.path.read_bytes()
        except OSError:
            return FileFacts()
    own = summarize_bytes(data, module, job.path.name == "__init__.py")
    others = [m for m in found.index.modules() if m.module != module] if found is not None else []
    return KernelMap([*others, own], map_settings(settings)).file_facts(module)


def forget() -> None:
    """Drop the maps this process holds (the configuration changed)."""
    _maps.clear()
