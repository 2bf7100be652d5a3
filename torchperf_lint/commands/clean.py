"""``torchperf-lint clean``: delete the findings cache."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from torchperf_lint.cache import clear
from torchperf_lint.exit_codes import ExitCode
from torchperf_lint.workspace import project_for


def run(args: argparse.Namespace) -> ExitCode:
    directory = args.cache_dir or project_for(Path.cwd()).cache_dir
    removed = clear(directory)
    print(f"Removed {directory}" if removed else f"No cache at {directory}", file=sys.stderr)
    return ExitCode.CLEAN
