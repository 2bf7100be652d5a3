#!/usr/bin/env python3
"""Summarise a change set for a reviewer as one bounded JSON object.

    python "$SKILL_DIR/scripts/review_changes.py" --base BRANCH [PATH ...] [--worktree] [--repo DIR]
        [--config FILE | --config 'KEY = VALUE' ...] [--limit N]

``SKILL_DIR`` is the folder of the skill (``torchperf-lint skill path`` prints the installed one); the
script reviews the git repository around the current directory (or --repo), wherever it lives.

What it reports, each list bounded by --limit:
- torchperf-lint's findings in the Python files changed since the merge base of --base and HEAD, each
  "new" (the change introduced it) or "existing" (the merge base already had it on a line with the
  same text), as the linter's own ``check --baseline`` decides. A file git sees as renamed is compared
  with its old path's version, so a move alone makes nothing new. --config goes to the linter as is.
- the kind of code each finding and changed file is in: "test", "benchmark", "kernel" (other Python
  library code) or "other" (non-Python files, top-level scripts, docs, examples, tools), guessed from
  the path: a sort order for the reviewer, not a verdict.
- deleted files, each with the lines that still name it (an evidence note deleted while the
  threshold that cites it stays is the case this is for);
- test functions the merge base had that no changed file has any more (matched by name, so a test
  that only moved between changed files is not listed);
- added lines that mention ``inference_mode``, whose results cannot be saved for a backward pass.

By default the committed change is read (files as HEAD has them); --worktree adds uncommitted and
untracked files as they are on disk; PATHs lint those files on disk (the other lists then describe
the work tree). Without --base the first of origin/HEAD, main and master is used, with a warning.

Warnings go to stderr and into the JSON's "warnings". An empty change set is an error, never a clean
result: a committed review whose merge base is HEAD itself (a branch behind its base, or the wrong
base), or no file changed at all.

The linter runs as ``python -m torchperf_lint`` when this Python has it, else as the
``torchperf-lint`` command on PATH; its cache lives in a temporary folder, so nothing is written into
the reviewed repository. Exit codes: 0 the change adds no linter findings, 1 it adds some, 2 the
review could not run (no linter, a linter error, git failed, nothing to review), with
{"error": ...} on stdout and the same message on stderr. It never prompts.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

PYTHON_SUFFIXES = (".py", ".pyi")
DEFAULT_BASES = ("origin/HEAD", "main", "master")
KINDS = ("kernel", "benchmark", "test", "other")
TEST_FOLDERS = {"test", "tests", "testing"}
TEST_FILE_PREFIX = "test_"
TEST_FILE_ENDINGS = ("_test.py", "conftest.py")
OTHER_FOLDERS = {"doc", "docs", "example", "examples", "script", "scripts", "tool", "tools", ".github"}
#: Lines of a deleted file's citations listed per file, whatever --limit says.
CITATIONS_PER_FILE = 5
#: Characters of a quoted source line; enough to recognise it, bounded for the summary.
QUOTE_CHARS = 160
#: Child processes write no bytecode, so an editable install inside the reviewed repository stays as it was.
CHILD_ENV = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
NO_LINTER = (
    "torchperf-lint cannot be imported by {python} and no `torchperf-lint` command is on PATH: install "
    "torchperf-lint into this Python, or run this script with a Python that has it"
)


class ReviewError(Exception):
    """The change set could not be read or the linter could not run."""


@dataclass(frozen=True)
class Change:
    """The change under review: the repository, the merge base, and which side is the head."""

    root: Path
    merge_base: str
    worktree: bool  # the head is the work tree (uncommitted and untracked files), not HEAD

    def against(self) -> list[str]:
        """git diff's revision arguments for this change."""
        return [self.merge_base] if self.worktree else [self.merge_base, "HEAD"]

    def base_bytes(self, name: str) -> bytes:
        return show(self.root, self.merge_base, name)

    def head_bytes(self, name: str) -> bytes:
        return (self.root / name).read_bytes() if self.worktree else show(self.root, "HEAD", name)


@dataclass(frozen=True)
class Entry:
    """One changed file: git's status letter, its path (the base's for a deletion), its old path."""

    status: str
    path: str
    old: str | None = None

    @property
    def base_path(self) -> str | None:
        """Where the merge base has this file, if it has it."""
        if self.status in ("R", "C"):
            return self.old
        return None if self.status == "A" else self.path

    @property
    def head_path(self) -> str | None:
        return None if self.status == "D" else self.path


def git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    except OSError as error:
        raise ReviewError(f"git could not run: {error}") from None
    if done.returncode != 0:
        raise ReviewError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def show(root: Path, revision: str, name: str) -> bytes:
    shown = subprocess.run(["git", "-C", str(root), "show", f"{revision}:{name}"], capture_output=True)
    if shown.returncode != 0:
        raise ReviewError(f"git show {revision}:{name} failed: {shown.stderr.decode(errors='replace').strip()}")
    return shown.stdout


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
    raise ReviewError(f"no --base given and none of {', '.join(DEFAULT_BASES)} exists; pass --base")


def kind_of(path: str) -> str:
    """test, benchmark, kernel or other, from the path alone (pytest's file names, bench folders)."""
    parts = PurePosixPath(path.lower()).parts
    folders, name = parts[:-1], parts[-1]
    if TEST_FOLDERS & set(folders) or name.startswith(TEST_FILE_PREFIX) or name.endswith(TEST_FILE_ENDINGS):
        return "test"
    if any("bench" in part for part in parts):
        return "benchmark"
    if not name.endswith(PYTHON_SUFFIXES) or not folders or OTHER_FOLDERS & set(folders):
        return "other"
    return "kernel"


def changed_entries(change: Change) -> list[Entry]:
    """Every file added, copied, deleted, modified, renamed or retyped since the merge base."""
    fields = git(change.root, "diff", "--name-status", "-z", "--find-renames", *change.against()).split("\0")
    entries, at = [], 0
    while at < len(fields) and fields[at]:
        status = fields[at][0]
        if status in ("R", "C"):
            entries.append(Entry(status, fields[at + 2], fields[at + 1]))
            at += 3
        else:
            entries.append(Entry(status, fields[at + 1]))
            at += 2
    if change.worktree:
        untracked = git(change.root, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
        entries += [Entry("A", name) for name in untracked if name and not in_environment(change.root, name)]
    return sorted(entries, key=lambda entry: entry.path)


def in_environment(root: Path, name: str) -> bool:
    """Whether an untracked file lies in a virtual environment at the top of the work tree (one that a
    reviewer made there and the project does not ignore): installed packages are not the change."""
    top = PurePosixPath(name).parts[0]
    return top != name and (root / top / "pyvenv.cfg").is_file()


def is_python(path: str) -> bool:
    return path.endswith(PYTHON_SUFFIXES)


def linter_command() -> list[str]:
    """How to run torchperf-lint: this Python's module if it has one, else the command on PATH."""
    if importlib.util.find_spec("torchperf_lint") is not None:
        return [sys.executable, "-m", "torchperf_lint"]
    command = shutil.which("torchperf-lint")
    if command is None:
        raise ReviewError(NO_LINTER.format(python=sys.executable))
    return [command]


def config_options(values: list[str]) -> list[str]:
    """``--config`` for the linter; a value naming an existing file is made absolute, since the linter
    runs from the repository root rather than from where the script was started."""
    options = []
    for value in values:
        options += ["--config", str(Path(value).resolve()) if Path(value).is_file() else value]
    return options


@dataclass(frozen=True)
class Linter:
    """torchperf-lint as a subprocess, with the reviewer's configuration and a private cache."""

    command: list[str]
    config: list[str]
    cache: Path

    def run(self, root: Path, args: list[str], stdin: bytes | None = None) -> Any:
        """The JSON the linter printed; anything else (a crash, a usage error) is a ReviewError
        quoting what the linter said."""
        done = subprocess.run([*self.command, *args], capture_output=True, cwd=root, input=stdin, env=CHILD_ENV)
        if done.returncode in (0, 1):
            try:
                return json.loads(done.stdout)
            except json.JSONDecodeError:
                pass
        said = last_line(done.stderr) or last_line(done.stdout) or "no output"
        raise ReviewError(f"torchperf-lint failed (exit {done.returncode}): {said}")

    def hints(self, root: Path) -> dict[str, str]:
        """Each rule's one-line hint; the first call, so a linter that does not run is found early."""
        return {rule["code"]: rule["hint"] for rule in self.run(root, ["rules", "--output-format", "json"])}

    def check(self, baseline: str | None = None) -> list[str]:
        options = ["check", "--output-format", "json", "--force-exclude", "--cache-dir", str(self.cache)]
        options += self.config
        return options if baseline is None else [*options, "--baseline", baseline]


def last_line(output: bytes) -> str:
    lines = [line.strip() for line in output.decode(errors="replace").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def lint(change: Change, linter: Linter, files: list[str], baseline: str | None, committed: bool) -> list[dict]:
    """The linter's findings for ``files``: committed mode lints each file as HEAD has it (through
    stdin where the work tree differs), otherwise as it is on disk."""
    options = linter.check(baseline)
    differing = set()
    if committed:
        differing = set(git(change.root, "diff", "--name-only", "-z", "HEAD", "--", *files).split("\0"))
    on_disk = [name for name in files if name not in differing]
    findings = linter.run(change.root, [*options, "--", *on_disk]) if on_disk else []
    for name in sorted(differing & set(files)):
        stdin = show(change.root, "HEAD", name)
        findings += linter.run(change.root, [*options, "--stdin-filename", name, "-"], stdin=stdin)
    return findings


def new_in_renamed(
    change: Change, linter: Linter, moves: dict[str, str], everything: list[dict], committed: bool
) -> list[dict]:
    """The findings of renamed files that the old path's version at the merge base did not have,
    matched as ``--baseline`` matches them: by rule code and the text of the finding's line."""
    new = []
    for name, old in sorted(moves.items()):
        current = [item for item in everything if relative(change.root, item["filename"]) == name]
        if not current:
            continue
        base = change.base_bytes(old)
        options = [*linter.check(), "--stdin-filename", name, "-"]
        left = Counter(line_key(item, base) for item in linter.run(change.root, options, stdin=base))
        now = show(change.root, "HEAD", name) if committed else (change.root / name).read_bytes()
        for item in current:
            key = line_key(item, now)
            if left[key] > 0:
                left[key] -= 1
            else:
                new.append(item)
    return new


#: Where the linter ends a row: line feed, carriage return and line feed, or carriage return alone.
_ROW_END = re.compile(r"\r\n|\r|\n")


def line_key(item: dict, data: bytes) -> tuple[str, str]:
    """The finding's rule code and the text of its line without surrounding blanks."""
    lines = _ROW_END.split(data.decode("utf-8", errors="replace"))
    row = item["location"]["row"]
    return item["code"], lines[row - 1].strip() if 0 < row <= len(lines) else ""


def relative(root: Path, filename: str) -> str:
    try:
        return Path(filename).resolve().relative_to(root).as_posix()
    except ValueError:
        return filename


def classify(root: Path, everything: list[dict], new: list[dict]) -> list[dict]:
    """Each finding as a summary row with its kind and ``status`` new or existing: new ones first,
    then kernel code before benchmarks, tests and the rest."""
    introduced = Counter(identity(root, item) for item in new)
    rows = []
    for item in everything:
        key = identity(root, item)
        status = "existing"
        if introduced[key] > 0:
            introduced[key] -= 1
            status = "new"
        file, line, column, rule = key
        rows.append({"file": file, "line": line, "column": column, "rule": rule, "kind": kind_of(file),
                     "status": status, "message": item["message"]})  # fmt: skip
    order = {kind: rank for rank, kind in enumerate(KINDS)}
    return sorted(rows, key=lambda r: (r["status"] != "new", order[r["kind"]], r["file"], r["line"], r["column"]))


def identity(root: Path, item: dict) -> tuple[str, int, int, str]:
    return (relative(root, item["filename"]), item["location"]["row"], item["location"]["column"], item["code"])


def deleted_files(change: Change, entries: list[Entry]) -> list[dict]:
    """Each deleted file with the places on the head side that still name it."""
    return [
        {"file": entry.path, "kind": kind_of(entry.path), **citations(change, entry.path)}
        for entry in entries
        if entry.status == "D"
    ]


def citations(change: Change, path: str) -> dict:
    """Lines that name the file (by its file name), as ``path:line: text``; at most CITATIONS_PER_FILE."""
    where = ["--untracked"] if change.worktree else ["HEAD"]
    name = PurePosixPath(path).name
    done = subprocess.run(
        ["git", "-C", str(change.root), "grep", "-n", "-I", "-F", "-e", name, *where, "--"],
        capture_output=True,
        text=True,
        errors="replace",
    )
    if done.returncode not in (0, 1):
        raise ReviewError(f"git grep {name} failed: {done.stderr.strip()}")
    found = []
    for line in done.stdout.splitlines():
        file, number, text = line.removeprefix("HEAD:").split(":", 2)
        found.append(f"{file}:{number}: {text.strip()[:QUOTE_CHARS]}")
    return {"cited_by": found[:CITATIONS_PER_FILE], "citations": len(found)}


def test_names(source: bytes) -> set[str]:
    """Test functions as pytest finds them by name: ``test*`` at module level and in ``Test*`` classes."""
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names |= {
                f"{node.name}.{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith("test")
            }
    return names


def removed_tests(change: Change, entries: list[Entry], warnings: list[str]) -> list[dict]:
    """Test functions of changed test files at the merge base that no changed test file has now."""
    before: list[tuple[str, str]] = []
    after: set[str] = set()
    for entry in entries:
        if entry.base_path and is_python(entry.base_path) and kind_of(entry.base_path) == "test":
            names = parsed_tests(change.base_bytes(entry.base_path), entry.base_path, warnings)
            before += [(entry.base_path, name) for name in sorted(names)]
        if entry.head_path and is_python(entry.head_path) and kind_of(entry.head_path) == "test":
            after |= parsed_tests(change.head_bytes(entry.head_path), entry.head_path, warnings)
    return [{"file": file, "test": name} for file, name in before if name not in after]


def parsed_tests(source: bytes, path: str, warnings: list[str]) -> set[str]:
    try:
        return test_names(source)
    except (SyntaxError, ValueError) as error:
        warn(warnings, f"{path} does not parse ({error}); its test functions were not compared")
        return set()


#: A unified diff's hunk header: the first line number on the new side.
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def added_lines(change: Change, entries: list[Entry], needle: str) -> list[dict]:
    """Lines the change adds to Python files that contain ``needle``, with file, line and kind."""
    diff = git(change.root, "diff", "-U0", "--no-color", "--no-ext-diff", *change.against(), "--", "*.py", "*.pyi")
    found, file, number = [], None, 0
    for line in diff.splitlines():
        if line.startswith("+++ "):
            file = line[6:] if line.startswith("+++ b/") else None
        elif match := _HUNK.match(line):
            number = int(match.group(1))
        elif line.startswith("+") and file is not None:
            if needle in line:
                found.append(mention(file, number, line[1:]))
            number += 1
    if change.worktree:
        tracked = set(git(change.root, "ls-files", "-z").split("\0"))
        for entry in entries:
            if is_python(entry.path) and entry.path not in tracked and (change.root / entry.path).is_file():
                rows = (change.root / entry.path).read_text(errors="replace").splitlines()
                found += [mention(entry.path, at, row) for at, row in enumerate(rows, start=1) if needle in row]
    return found


def mention(file: str, line: int, text: str) -> dict:
    return {"file": file, "line": line, "kind": kind_of(file), "text": text.strip()[:QUOTE_CHARS]}


def bounded(summary: dict, lists: dict[str, list], limit: int) -> dict:
    """``summary`` with each list cut to ``limit`` entries; ``omitted`` counts what was left off."""
    omitted = {name: len(items) - limit for name, items in lists.items() if len(items) > limit}
    cut = {name: items[:limit] for name, items in lists.items()}
    return {**summary, **cut, "truncated": bool(omitted), "omitted": omitted}


def summarise(header: dict, rows: list[dict], entries: list[Entry], hint_of: dict[str, str]) -> dict:
    counts: dict[str, dict[str, int]] = {}
    by_kind = {kind: {"new": 0, "existing": 0} for kind in KINDS}
    for row in rows:
        counts.setdefault(row["rule"], {"new": 0, "existing": 0})[row["status"]] += 1
        by_kind[row["kind"]][row["status"]] += 1
    changed = Counter(kind_of(entry.path) for entry in entries)
    return {
        **header,
        "findings": len(rows),
        "new": sum(row["status"] == "new" for row in rows),
        "existing": sum(row["status"] == "existing" for row in rows),
        "counts": dict(sorted(counts.items())),
        "kinds": by_kind,
        "changed": {kind: changed[kind] for kind in KINDS},
        "shown": [{**row, "hint": hint_of.get(row["rule"], "")} for row in rows],
    }


def warn(warnings: list[str], message: str) -> None:
    warnings.append(message)
    print(f"review_changes.py: warning: {message}", file=sys.stderr)


def scope(
    args: argparse.Namespace, root: Path, warnings: list[str]
) -> tuple[dict, Change, list[Entry], list[str]]:
    """The header, the change, its changed files and the Python files to lint; an empty change set is
    an error, since a clean summary of nothing reads like an approval."""
    base = args.base
    if base is None:
        base = default_base(root)
        warn(warnings, f"no --base given: comparing with {base}; pass --base, the branch the change merges into")
    merge_base = git(root, "merge-base", base, "HEAD").strip()
    head = git(root, "rev-parse", "HEAD").strip()
    mode = "paths" if args.paths else "worktree" if args.worktree else "committed"
    if merge_base == head and mode == "committed":
        raise ReviewError(
            f"nothing to review: the merge base of {base} and HEAD is HEAD itself, so HEAD has no commit "
            f"that {base} lacks (a branch behind {base}, or the wrong base); pass --base with the branch the "
            "change merges into, or --worktree for uncommitted changes"
        )
    if merge_base == head and mode == "worktree":
        warn(warnings, f"the merge base of {base} and HEAD is HEAD itself: only uncommitted changes are reviewed")
    change = Change(root, merge_base, worktree=mode != "committed")
    header = {"mode": mode, "base": base, "merge_base": merge_base, "head": head, "warnings": warnings}
    entries = changed_entries(change)
    if args.paths:
        return header, change, entries, sorted({relative(root, str(Path(path).absolute())) for path in args.paths})
    if not entries:
        raise ReviewError(f"nothing to review: no file changed since the merge base {merge_base[:12]} ({mode})")
    files = [entry.path for entry in entries if entry.status != "D" and is_python(entry.path)]
    if not files:
        warn(warnings, "no Python file changed: the linter had nothing to check")
    return header, change, entries, files


def review(args: argparse.Namespace) -> dict:
    warnings: list[str] = []
    root = repository_root(args.repo)
    header, change, entries, files = scope(args, root, warnings)
    committed = header["mode"] == "committed"
    with tempfile.TemporaryDirectory(prefix="torchperf-review-") as cache:
        linter = Linter(linter_command(), config_options(args.config), Path(cache))
        hint_of = linter.hints(root)
        moves = {entry.path: entry.old for entry in entries if entry.status == "R" and entry.path in files}
        unmoved = [name for name in files if name not in moves]
        everything = lint(change, linter, files, None, committed) if files else []
        new = lint(change, linter, unmoved, change.merge_base, committed) if unmoved else []
        new += new_in_renamed(change, linter, moves, everything, committed)
    summary = summarise({**header, "files": len(files)}, classify(root, everything, new), entries, hint_of)
    lists = {
        "shown": summary["shown"],
        "deleted": deleted_files(change, entries),
        "removed_tests": removed_tests(change, entries, warnings),
        "inference_mode_added": added_lines(change, entries, "inference_mode"),
    }
    return bounded(summary, lists, args.limit)


def parser() -> argparse.ArgumentParser:
    described = argparse.ArgumentParser(description="Summarise a change set for a reviewer as JSON.")
    described.add_argument("paths", nargs="*", help="files to lint (default: the files the change touches)")
    described.add_argument("--base", help="the branch the change merges into (compared from the merge base)")
    described.add_argument("--worktree", action="store_true", help="include uncommitted and untracked files")
    described.add_argument("--repo", type=Path, help="a folder inside the repository (default: the current one)")
    described.add_argument(
        "--config", action="append", default=[], metavar="FILE | 'KEY = VALUE'", help="passed to the linter"
    )
    described.add_argument("--limit", type=int, default=20, help="entries per list (default: 20)")
    return described


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    args.limit = max(0, args.limit)
    try:
        summary = review(args)
    except (ReviewError, OSError) as error:
        print(json.dumps({"error": str(error)}))
        print(f"review_changes.py: error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2))
    return 1 if summary["new"] else 0


if __name__ == "__main__":
    sys.exit(main())
