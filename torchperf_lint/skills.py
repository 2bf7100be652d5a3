"""The reviewers' agent skill: render its catalog reference, check it for drift, install it.

The skill's text lives in the ``skill/`` folder (installed as ``torchperf_lint.skill``); only
``references/rules.md`` restates the catalog, so only it is rendered, from the rule objects.
"""

from __future__ import annotations

import filecmp
import shutil
from importlib import resources
from pathlib import Path

import jinja2

from torchperf_lint.registry import all_rules

SKILL_NAME = "torchperf-review"
RULES_REFERENCE = Path("references") / "rules.md"
DEFAULT_DESTINATION = Path(".agents") / "skills"


def source_folder() -> Path:
    """The skill folder shipped with the package (the repository's ``skill/`` in a checkout)."""
    return Path(str(resources.files("torchperf_lint.skill").joinpath(SKILL_NAME)))


def render_rules() -> str:
    """``references/rules.md`` as the current catalog renders it."""
    template_text = resources.files("torchperf_lint").joinpath("templates", "skill_rules.md.j2").read_text("utf-8")
    environment = jinja2.Environment(keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)
    environment.undefined = jinja2.StrictUndefined
    rules = [rule for rule in all_rules().values()]
    return environment.from_string(template_text).render(rules=rules)


def drifted(folder: Path) -> bool:
    """Whether the committed ``references/rules.md`` under ``folder`` differs from a fresh render."""
    target = folder / RULES_REFERENCE
    return not target.is_file() or target.read_text(encoding="utf-8") != render_rules()


def write_rules(folder: Path) -> Path:
    target = folder / RULES_REFERENCE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_rules(), encoding="utf-8")
    return target


def local_edits(source: Path, target: Path) -> list[str]:
    """Files of an installed copy that differ from the source or were added to it."""
    if not target.exists():
        return []
    changed: list[str] = []
    for path in sorted(p for p in target.rglob("*") if p.is_file()):
        relative = path.relative_to(target)
        original = source / relative
        if not original.is_file() or not filecmp.cmp(path, original, shallow=False):
            changed.append(relative.as_posix())
    return changed


def install(destination: Path, *, force: bool) -> tuple[Path, list[str]]:
    """Copy the skill to ``destination/torchperf-review``; with local edits and no ``force`` nothing is
    copied and the edited files are returned."""
    source = source_folder()
    target = destination / SKILL_NAME
    edits = local_edits(source, target)
    if edits and not force:
        return target, edits
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target, []
