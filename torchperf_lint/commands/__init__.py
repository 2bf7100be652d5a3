"""One module per subcommand: each holds its command's body, so adding one means reading no other.

Every module exposes ``run(args) -> ExitCode``; ``torchperf_lint.cli`` parses and dispatches.
"""
