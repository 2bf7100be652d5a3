"""TPL900: the file could not be read as Python; emitted by the engine."""

from torchperf_lint.rule import Rule


class SyntaxErrorRule(Rule):
    code = "TPL900"
    fix_safety = "No fix: the file has to be repaired by hand."
    name = "syntax-error"
    hint = "Fix the file so it decodes and parses."
    summary = "The file does not parse, cannot be decoded, is too large, or uses syntax newer than the target"
    message = "{detail}"
    why = (
        "A file the linter cannot parse is a file none of the rules checked. It is reported as a "
        "finding so the run fails visibly, and every other file is still linted."
    )
    example = "def warp(volume:\n    ..."
    use_instead = "def warp(volume):\n    ..."
    notes = (
        "The same code reports every file the linter could not check fully: unreadable or undecodable "
        "files, files with a NUL byte, nesting too deep to parse, files over `max-file-size` (not parsed "
        "at all), a file Python accepts that LibCST cannot parse (its tokenizer is stricter about some "
        "mixes of tabs and spaces; the message says so and gives LibCST's reason), and an internal error "
        "in a rule (the message names the exception; please report it). "
        "Syntax newer than `target-version` is reported at each construct, in Ruff's words, and the rest "
        "of the file is still linted."
    )
