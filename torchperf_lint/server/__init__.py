"""``torchperf-lint server``: the linter as a Language Server Protocol server over stdio.

It holds the engine in-process, lints each open document as the command line would lint the file
it stands for, and answers with diagnostics, code actions and hovers. It needs the ``server``
extra (pygls and lsprotocol); nothing outside this package imports them.
"""
