"""TPL901: a ``# noqa`` that suppressed nothing; emitted by the engine."""

from torchperf_lint.rule import Rule


class UnusedSuppression(Rule):
    code = "TPL901"
    fix_safety = "No fix yet: delete the directive, or the unused codes, by hand."
    name = "unused-suppression"
    hint = "Delete the directive or the codes it no longer needs."
    summary = "A `# noqa` directive that suppressed nothing"
    message = "Unused `noqa` directive ({detail})"
    why = (
        "A stale suppression hides the next real finding on that line. Like Ruff's RUF100, the "
        "message says which codes were unused, not enabled, or listed twice. Codes of other tools "
        "(`E501`, `F401`) are left alone."
    )
    example = "x = 1  # noqa: TPL003"
    use_instead = "x = 1"
