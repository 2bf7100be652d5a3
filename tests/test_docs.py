"""Documentation that restates the catalog is generated from it and cannot drift."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchperf_lint.explain import explain, rule_markdown, rules_table
from torchperf_lint.registry import all_rules
from torchperf_lint.selection import UsageError

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_rules_table_is_the_catalogs():
    text = README.read_text()
    table = rules_table("markdown")
    assert table in text, "README rules table drifted: paste `torchperf-lint rules --output-format markdown`"


@pytest.mark.parametrize("rule", list(all_rules().values()), ids=lambda r: r.code)
def test_every_rule_page_has_the_ruff_sections(rule):
    page = rule_markdown(rule)
    for heading in ("## What it does", "## Why is this bad?", "## Fix safety"):
        assert heading in page
    if rule.code < "TPL900":
        assert "## Example" in page and "## Use instead" in page
    assert rule.fix_safety.strip()


def test_explain_refuses_unknown_codes():
    with pytest.raises(UsageError, match="unknown rule code `TPL999`"):
        explain("TPL999")


def test_ci_runs_the_readmes_set_up_and_test_commands_in_a_fresh_venv():
    text = README.read_text()
    block = text.split("## Set up and test", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line.strip()]
    ci = (README.parent / ".ci" / "run").read_text().splitlines()
    assert len(commands) == 2
    assert ci[-2:] == commands
    assert any(line.startswith("python -m venv ") for line in ci)
    assert any(line.startswith(". ") and line.endswith('/bin/activate"') for line in ci)
