#!/usr/bin/env python3
"""Lint a change set with torchperf-lint and print a compact JSON summary for a reviewer.

    python review_changes.py [PATH ...] [--base REV] [--worktree] [--repo DIR] [--limit N]

The repository is the one around the current directory (or --repo), wherever this script lives.
By default the Python files changed between the merge base of --base and HEAD are checked, as
committed at HEAD (--base defaults to origin/HEAD, main or master, the first that exists).
--worktree also takes uncommitted and untracked files, as they are on disk. With PATHs, those files
are checked as they are on disk.

Every finding is marked "new" (the change introduced it) or "existing" (the merge base already had
it): findings are matched by rule code and the text of their line, so a finding that only moved
stays "existing". The linter's own `--baseline` mode decides, except for a file git sees as renamed
since the merge base: that one is compared with the old path's version there (linted under the new
name), so moving a file does not make its findings "new".

Prints one JSON object: the mode, base and commits, the number of files, findings in total, new and
existing, counts per rule, and the first --limit findings (default 20, new ones first) with file,
line, column, rule, status, message and the rule's one-line hint. Paths are relative to the
repository root, so the output is the same from any directory.

Nothing is written into the reviewed repository: the linter's cache lives in a temporary folder.
Exit codes: 0 the change adds no findings, 1 it adds some, 2 the review could not run (git or the
linter failed). It never prompts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

LINTER = [sys.executable, "-m", "torchperf_lint"]
PATTERNS = ("*.py", "*.pyi")
DEFAULT_BASES = ("origin/HEAD", "main", "master")
#: Child processes write no bytecode, so an editable install inside the reviewed repository stays as it was.
CHILD_ENV = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


class ReviewError(Exception):
    """The change set or the linter could not be read."""


def git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    except OSError as error:
        raise ReviewError(f"git could not run: {error}") from None
    if done.returncode != 0:
        raise ReviewError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def repository_root(explicit: Path | None) -> Path:
    """The top of the git work tree around ``explicit``, else around the current directory."""
    start = explicit or Path.cwd()
    return Path(git(start, "rev-parse", "--show-toplevel").strip()).resolve()


def default_base(root: Path) -> str:
    for candidate in DEFAULT_BASES:
        probe = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}"],
            capture_output=True,
        )
        if probe.returncode == 0:
            return candidate
    raise ReviewError(f"no --base given and none of {', '.join(DEFAULT_BASES)} exists")


def changed_files(root: Path, merge_base: str, worktree: bool) -> list[str]:
    """Repository-relative Python files added, copied, modified or renamed since ``merge_base``."""
    against = [merge_base] if worktree else [merge_base, "HEAD"]
    names = git(root, "diff", "--name-only", "-z", "--diff-filter=ACMR", *against, "--", *PATTERNS).split("\0")
    if worktree:
        names += git(root, "ls-files", "--others", "--exclude-standard", "-z", "--", *PATTERNS).split("\0")
    return sorted({name for name in names if name})


def renamed(root: Path, merge_base: str, worktree: bool) -> dict[str, str]:
    """Each Python file git's rename detection finds since ``merge_base``: new path -> old path."""
    against = [merge_base] if worktree else [merge_base, "HEAD"]
    fields = git(
        root, "diff", "--name-status", "-z", "--find-renames", "--diff-filter=R", *against, "--", *PATTERNS
    )
    parts = fields.split("\0")
    return {parts[i + 2]: parts[i + 1] for i in range(0, len(parts) - 2, 3) if parts[i].startswith("R")}


def _options(cache: Path, baseline: str | None = None) -> list[str]:
    options = ["check", "--output-format", "json", "--force-exclude", "--cache-dir", str(cache)]
    return options if baseline is None else [*options, "--baseline", baseline]


def lint(root: Path, files: list[str], cache: Path, baseline: str | None, committed: bool) -> list[dict]:
    """The linter's JSON findings for ``files``: committed mode lints each file as HEAD has it (through
    stdin where the work tree differs), otherwise as it is on disk."""
    options = _options(cache, baseline)
    differing = set()
    if committed:
        differing = set(git(root, "diff", "--name-only", "-z", "HEAD", "--", *files).split("\0"))
    on_disk = [name for name in files if name not in differing]
    findings = _run_linter(root, [*options, "--", *on_disk]) if on_disk else []
    for name in sorted(differing & set(files)):
        findings += _run_linter(root, [*options, "--stdin-filename", name, "-"], stdin=_show(root, "HEAD", name))
    return findings


def new_in_renamed(
    root: Path, moves: dict[str, str], everything: list[dict], merge_base: str, cache: Path, committed: bool
) -> list[dict]:
    """The findings of renamed files that the old path's version at ``merge_base`` did not have,
    matched as ``--baseline`` matches them: by rule code and the text of the finding's line."""
    new = []
    for name, old in sorted(moves.items()):
        current = [item for item in everything if _relative(root, item["filename"]) == name]
        if not current:
            continue
        base = _show(root, merge_base, old)
        options = [*_options(cache), "--stdin-filename", name, "-"]
        left = Counter(_line_key(item, base) for item in _run_linter(root, options, stdin=base))
        now = _show(root, "HEAD", name) if committed else (root / name).read_bytes()
        for item in current:
            key = _line_key(item, now)
            if left[key] > 0:
                left[key] -= 1
            else:
                new.append(item)
    return new


def _show(root: Path, revision: str, name: str) -> bytes:
    shown = subprocess.run(["git", "-C", str(root), "show", f"{revision}:{name}"], capture_output=True)
    if shown.returncode != 0:
        raise ReviewError(f"git show {revision}:{name} failed: {shown.stderr.decode(errors='replace').strip()}")
    return shown.stdout


#: Where the linter ends a row: line feed, carriage return and line feed, or carriage return alone.
_ROW_END = re.compile(r"\r\n|\r|\n")


def _line_key(item: dict, data: bytes) -> tuple[str, str]:
    """The finding's rule code and the text of its line without surrounding blanks."""
    lines = _ROW_END.split(data.decode("utf-8", errors="replace"))
    row = item["location"]["row"]
    return item["code"], lines[row - 1].strip() if 0 < row <= len(lines) else ""


def _run_linter(root: Path, args: list[str], stdin: bytes | None = None) -> list[dict]:
    done = subprocess.run([*LINTER, *args], capture_output=True, cwd=root, input=stdin, env=CHILD_ENV)
    if done.returncode not in (0, 1):
        message = done.stderr.decode(errors="replace").strip() or done.stdout.decode(errors="replace").strip()
        raise ReviewError(f"torchperf-lint failed: {message}")
    return json.loads(done.stdout)


def hints() -> dict[str, str]:
    command = [*LINTER, "rules", "--output-format", "json"]
    done = subprocess.run(command, capture_output=True, text=True, env=CHILD_ENV)
    if done.returncode != 0:
        raise ReviewError(f"torchperf-lint rules failed: {done.stderr.strip()}")
    return {rule["code"]: rule["hint"] for rule in json.loads(done.stdout)}


def classify(root: Path, everything: list[dict], new: list[dict]) -> list[dict]:
    """Each finding as a summary row with ``status`` new or existing, new ones first."""
    introduced = Counter(_identity(root, item) for item in new)
    rows = []
    for item in everything:
        identity = _identity(root, item)
        status = "existing"
        if introduced[identity] > 0:
            introduced[identity] -= 1
            status = "new"
        file, line, column, rule = identity
        rows.append({"file": file, "line": line, "column": column, "rule": rule, "status": status,
                     "message": item["message"]})  # fmt: skip
    return sorted(rows, key=lambda row: (row["status"] != "new", row["file"], row["line"], row["column"]))


def _identity(root: Path, item: dict) -> tuple[str, int, int, str]:
    return (_relative(root, item["filename"]), item["location"]["row"], item["location"]["column"], item["code"])


def _relative(root: Path, filename: str) -> str:
    try:
        return Path(filename).resolve().relative_to(root).as_posix()
    except ValueError:
        return filename


def summarise(rows: list[dict], header: dict, files: list[str], hint_of: dict[str, str], limit: int) -> dict:
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        counts.setdefault(row["rule"], {"new": 0, "existing": 0})[row["status"]] += 1
    return {
        **header,
        "files": len(files),
        "findings": len(rows),
        "new": sum(row["status"] == "new" for row in rows),
        "existing": sum(row["status"] == "existing" for row in rows),
        "counts": dict(sorted(counts.items())),
        "shown": [{**row, "hint": hint_of.get(row["rule"], "")} for row in rows[:limit]],
        "truncated": len(rows) > limit,
    }


def review(args: argparse.Namespace) -> dict:
    root = repository_root(args.repo)
    base = args.base or default_base(root)
    merge_base = git(root, "merge-base", base, "HEAD").strip()
    if args.paths:
        mode = "paths"
        files = sorted({_relative(root, str(Path(path).absolute())) for path in args.paths})
    else:
        mode = "worktree" if args.worktree else "committed"
        files = changed_files(root, merge_base, args.worktree)
    header = {"mode": mode, "base": base, "merge_base": merge_base, "head": git(root, "rev-parse", "HEAD").strip()}
    if not files:
        return summarise([], header, files, {}, args.limit)
    committed = mode == "committed"
    moves = {new: old for new, old in renamed(root, merge_base, not committed).items() if new in files}
    unmoved = [name for name in files if name not in moves]
    with tempfile.TemporaryDirectory(prefix="torchperf-review-") as cache:
        everything = lint(root, files, Path(cache), None, committed)
        new = lint(root, unmoved, Path(cache), merge_base, committed) if unmoved else []
        new += new_in_renamed(root, moves, everything, merge_base, Path(cache), committed)
    return summarise(classify(root, everything, new), header, files, hints(), args.limit)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Lint a change set and summarise it as JSON.")
    parser.add_argument("paths", nargs="*", help="files to check (default: the files the change touches)")
    parser.add_argument("--base", help="the branch or commit the change is compared with (merge base)")
    parser.add_argument("--worktree", action="store_true", help="include uncommitted and untracked files")
    parser.add_argument("--repo", type=Path, help="a folder inside the repository (default: the current one)")
    parser.add_argument("--limit", type=int, default=20, help="findings to list (default: 20)")
    args = parser.parse_args(argv)
    args.limit = max(0, args.limit)
    try:
        summary = review(args)
    except (ReviewError, OSError, json.JSONDecodeError) as error:
        print(json.dumps({"error": str(error)}))
        return 2
    print(json.dumps(summary, indent=2))
    return 1 if summary["new"] else 0


if __name__ == "__main__":
    sys.exit(main())
