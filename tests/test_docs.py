"""Documentation that restates the catalog is generated from it and cannot drift."""

from __future__ import annotations

import json
import subprocess
import sys
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
    with pytest.raises(UsageError, match="unknown rule code or name `TPL999`"):
        explain("TPL999")


def test_a_rule_is_explained_by_its_name_as_by_its_code():
    assert explain("device-route") == explain("TPL003") == explain("tpl003")


def test_rule_all_prints_every_page_in_catalog_order():
    result = subprocess.run(
        [sys.executable, "-m", "torchperf_lint", "rule", "--all"], capture_output=True, text=True, check=True
    )
    assert result.stdout == "\n".join(rule_markdown(rule) for rule in all_rules().values())
    as_json = subprocess.run(
        [sys.executable, "-m", "torchperf_lint", "rule", "--all", "--output-format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert [page["code"] for page in json.loads(as_json.stdout)] == list(all_rules())


@pytest.mark.parametrize("arguments", [[], ["TPL003", "--all"]], ids=["neither", "both"])
def test_rule_takes_one_rule_or_all(arguments):
    command = [sys.executable, "-m", "torchperf_lint", "rule", *arguments]
    result = subprocess.run(command, capture_output=True, text=True)
    assert (result.returncode, result.stderr) == (
        2,
        "torchperf-lint: error: rule takes a rule code or name, or --all\n",
    )


def test_ci_runs_the_readmes_set_up_and_test_commands_in_a_fresh_venv():
    text = README.read_text()
    block = text.split("## Set up and test", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line.strip()]
    ci = (README.parent / ".ci" / "run").read_text().splitlines()
    assert len(commands) == 2
    assert ci[-2:] == commands
    assert any(line.startswith("python -m venv ") for line in ci)
    assert any(line.startswith(". ") and line.endswith('/bin/activate"') for line in ci)
