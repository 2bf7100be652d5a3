"""``torchperf-lint clean``: delete the findings cache."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from torchperf_lint.cache import DIRECTORY_NAME, clear
from torchperf_lint.config import find_config, load
from torchperf_lint.exit_codes import ExitCode


def run(args: argparse.Namespace) -> ExitCode:
    directory = args.cache_dir or load(find_config(Path.cwd()), Path.cwd()).root / DIRECTORY_NAME
    removed = clear(directory)
    print(f"Removed {directory}" if removed else f"No cache at {directory}", file=sys.stderr)
    return ExitCode.CLEAN
