"""Rule pages as plain text, for clients that show no Markdown."""

from __future__ import annotations

from torchperf_lint.server.hover import plain_text


def test_plain_text_underlines_headings_indents_code_and_spells_out_links():
    page = (
        "# name (TPL950)\n\n## Example\n```python\nif x:\n\n    y()\n```\n\n"
        "See [the guide](https://example.org/guide) on `x.cuda()`.\n---\n\n# other (TPL951)\n"
    )
    assert plain_text(page).split("\n") == [
        "name (TPL950)",
        "=============",
        "",
        "Example",
        "-------",
        "    if x:",
        "",
        "        y()",
        "",
        "See the guide (https://example.org/guide) on `x.cuda()`.",
        "---",
        "",
        "other (TPL951)",
        "==============",
        "",
    ]
