"""The one place every entry point gets a file's kernel facts: the command line (files and stdin), the
pre-commit hook (the command line), baseline mode, the editor server and the reviewers' script.

Per project: the index (built or refreshed, reused from the store or from this process's last build)
and the kernel map's facts for each module. The facts are stored under the shapes of all the
project's files, so a run where no function's calls, checks or claims changed reads them back without
loading a summary or inferring the map again. A file whose bytes the index does not hold (standard
input, an unsaved editor buffer, a base revision, a file outside any project) is summarised from its
own bytes; if its shape differs from the indexed one, the map is inferred again with it in place.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from torchperf_lint.cache import code_fingerprint
from torchperf_lint.config import Settings
from torchperf_lint.index.build import Mapper, ProjectIndex, build, project_files, scope_root, summarize_bytes
from torchperf_lint.index.store import IndexStore
from torchperf_lint.index.summary import ModuleSummary
from torchperf_lint.kernel_map.facts import FileFacts
from torchperf_lint.kernel_map.infer import KernelMap, MapSettings

if TYPE_CHECKING:
    from torchperf_lint.runner import Job


@dataclass
class ProjectMap:
    """One project's index and the kernel map's facts for its modules; the map itself is inferred
    only when something needs it (the facts were not stored, a file has another shape, ``map``)."""

    index: ProjectIndex
    settings: MapSettings
    facts: dict[str, FileFacts] = field(default_factory=dict)
    _kernel_map: KernelMap | None = None

    @property
    def kernel_map(self) -> KernelMap:
        if self._kernel_map is None:
            self._kernel_map = KernelMap(self.index.modules(), self.settings)
        return self._kernel_map

    def facts_of(self, module: str) -> FileFacts:
        return self.facts.get(module) or FileFacts()


#: This process's last map of each project; its index is refreshed by ``stat`` on the next request.
_maps: dict[Path, ProjectMap] = {}


def map_settings(settings: Settings) -> MapSettings:
    return MapSettings(
        prevalidated=settings.prevalidated,
        primitives=settings.primitives,
        not_prevalidated=settings.not_prevalidated,
        not_primitives=settings.not_primitives,
        infer=settings.infer_kernel_map,
    )


def project_map(root: Path, settings: Settings, cache_dir: Path | None, mapper: Mapper = map) -> ProjectMap:
    """The index and kernel-map facts of the project rooted at ``root``; ``cache_dir`` None keeps
    nothing on disk."""
    tool = code_fingerprint(())
    store = IndexStore(cache_dir, tool, root) if cache_dir is not None else None
    previous = _maps.get(root)
    index = build(root, project_files(root, settings), settings, store, mapper, previous and previous.index)
    found = ProjectMap(index, map_settings(settings))
    key = index.shapes_key(f"{tool}\0{found.settings}")
    stored = store.load_facts(key) if store is not None else None
    if stored is None:
        kernel_map = found.kernel_map
        stored = {summary.module: kernel_map.file_facts(summary.module) for summary in index.modules()}
        if store is not None:
            store.save_facts(key, stored)
    found.facts = stored
    _maps[root] = found
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
    entry = found.index.entries.get(job.path.resolve()) if found is not None else None
    if found is not None and entry is not None and entry.module == module:
        sha = hashlib.sha256(data).hexdigest() if data is not None else entry.sha256
        if sha == entry.sha256:
            return replace(found.facts_of(module), parsed_sha256=sha if entry.parses else None)
    if data is None:
        try:
            data = job.path.read_bytes()
        except OSError:
            return FileFacts()
    own = summarize_bytes(data, module, job.path.name == "__init__.py")
    parsed = hashlib.sha256(data).hexdigest() if own.syntax_error is None else None
    if found is not None and entry is not None and entry.module == module and own.shape() == entry.shape:
        return replace(found.facts_of(module), parsed_sha256=parsed)  # the same map, other lines
    others = _others(found, module)
    facts = KernelMap([*others, own], map_settings(job.settings.settings)).file_facts(module)
    return replace(facts, parsed_sha256=parsed)


def _others(found: ProjectMap | None, module: str) -> list[ModuleSummary]:
    return [m for m in found.index.modules() if m.module != module] if found is not None else []


def forget() -> None:
    """Drop the maps this process holds (the configuration changed)."""
    _maps.clear()
