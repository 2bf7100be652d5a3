"""The README stands alone: it cites only documents and results that the repository holds."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def prose() -> str:
    """The README without its fenced code blocks, whose file names are placeholders."""
    return re.sub(r"^```.*?^```", "", (ROOT / "README.md").read_text(), flags=re.MULTILINE | re.DOTALL)


def test_every_document_the_readme_names_is_in_the_repository():
    tracked = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True)
    documents = tracked.stdout.split()
    named = set(re.findall(r"[\w./-]*\w\.md\b", prose()))
    assert named and sorted(n for n in named if not any(d == n or d.endswith(f"/{n}") for d in documents)) == []


def test_the_readme_cites_no_results_run_the_repository_no_longer_holds():
    assert re.findall(r"\b(?:earlier|previous|older) (?:committed )?run\b", prose()) == []
