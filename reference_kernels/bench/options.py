"""The benchmark's command line, parsed without torch, so ``--help`` works before the extra is installed."""

from __future__ import annotations

import argparse

from . import heap

PROG = "python -m torchperf_lint.reference_kernels.bench"
#: Peer libraries ``--peers`` knows (each in ``peers.PEERS``).
PEER_NAMES = ("albucore",)


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(prog=PROG)
    mode = command.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="one size, fewer samples")
    mode.add_argument("--full", action="store_true", help="two sizes, every region (the default)")
    command.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    command.add_argument("--json", metavar="OUT", help="write the results here instead of stdout")
    command.add_argument("--regions", help="comma-separated region ids (default: all)")
    command.add_argument("--size", help="one spatial size D,H,W instead of the mode's sizes")
    command.add_argument(
        "--peers", default="", help=f"comma-separated peer libraries to time as well ({', '.join(PEER_NAMES)})"
    )
    command.add_argument(
        "--heap",
        choices=heap.MODES,
        default="default",
        help="glibc heap for every call: fresh mappings (cold), reused memory (warm), or as it comes",
    )
    return command


def parse(command: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """The arguments, with lists split and numbers checked; region ids are checked by the runner."""
    args = command.parse_args(argv)
    args.peers = tuple(filter(None, args.peers.split(",")))
    unknown_peers = set(args.peers) - set(PEER_NAMES)
    if unknown_peers:
        command.error(f"unknown peers: {', '.join(sorted(unknown_peers))} (known: {', '.join(PEER_NAMES)})")
    args.threads = _integers(command, "--threads", args.threads)
    args.size = tuple(_integers(command, "--size", args.size)) if args.size else None
    if args.size is not None and len(args.size) != 3:
        command.error("--size takes three integers D,H,W")
    args.regions = set(args.regions.split(",")) if args.regions is not None else None
    return args


def _integers(command: argparse.ArgumentParser, option: str, text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        command.error(f"{option} takes positive integers such as 1,2, got {text!r}")
    if any(value < 1 for value in values):
        command.error(f"{option} takes positive integers, got {text!r}")
    return values
