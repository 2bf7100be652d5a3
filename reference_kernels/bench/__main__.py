"""``python -m torchperf_lint.reference_kernels.bench``: time every region and write the results JSON."""

from __future__ import annotations

import sys

from . import heap, options


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = options.parser()
    args = options.parse(command, argv)
    if heap.needs_child(args.heap):
        return heap.run_child(args.heap, __package__, argv)
    try:
        from . import run
    except ModuleNotFoundError as missing:  # the kernels extra is not installed: say so, without a traceback
        from .. import INSTALL_HINT

        print(
            f"the benchmark needs {missing.name}, which the `kernels` extra installs: {INSTALL_HINT}",
            file=sys.stderr,
        )
        return 2
    unknown = run.unknown_regions(args.regions)
    if unknown:
        command.error(f"unknown region ids: {', '.join(unknown)}")
    return run.run(args, argv)


if __name__ == "__main__":
    raise SystemExit(main())
