"""``torchperf-lint server``: the language server, over standard input and output."""

from __future__ import annotations

import argparse
import logging
import sys

from torchperf_lint.exit_codes import ExitCode

#: The modules the ``server`` extra installs.
_EXTRA_MODULES = frozenset({"pygls", "lsprotocol"})


def run(args: argparse.Namespace) -> int:
    """Serve until the client sends ``exit``: 0 after a ``shutdown`` request, 1 without one (as the
    protocol asks); 2 when the ``server`` extra is missing."""
    try:
        from torchperf_lint.server.protocol import create_server
    except ImportError as error:
        if (error.name or "").split(".")[0] not in _EXTRA_MODULES:
            raise
        from torchperf_lint.installation import extra_command

        print(
            f"torchperf-lint: error: the language server needs the `server` extra ({error}); install it with:\n"
            f"  {extra_command('server')}",
            file=sys.stderr,
        )
        return ExitCode.ERROR
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.DEBUG if getattr(args, "verbose", False) else logging.WARNING,
        format="torchperf-lint server: %(levelname)s: %(name)s: %(message)s",
    )
    server, session = create_server()
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print (a third-party rule's) must not corrupt the protocol stream
    server.start_io(sys.stdin.buffer, protocol_out)
    return 0 if session.shut_down else 1
