"""TPL901: a ``# noqa`` that suppressed nothing; emitted by the engine."""

from torchperf_lint.rule import Invalid, Rule


class UnusedSuppression(Rule):
    code = "TPL901"
    fix = "safe"
    fix_safety = (
        "Fix: safe. The unused, disabled, unknown and repeated `TPL` codes are removed from the directive, "
        "and the whole comment when no code is left; codes of other tools stay. Only findings that were "
        "not reported are unsuppressed, so the report is the same."
    )
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
    invalid = (
        Invalid("import torch\nx = 1  # noqa: TPL003\n", ((2, 8),), fixed="import torch\nx = 1\n"),
        Invalid(
            "import torch\nx = 1  # noqa: TPL003, E501\n", ((2, 8),), fixed="import torch\nx = 1  # noqa: E501\n"
        ),
    )
