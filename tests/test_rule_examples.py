"""Every rule's own valid/invalid examples are exact tests of (code, row, column)."""

import pytest
from helpers import spots

from torchperf_lint.registry import all_rules

RULES = list(all_rules().values())
VALID = [(r.code, src) for r in RULES for src in r.valid]
INVALID = [(r.code, ex) for r in RULES for ex in r.invalid]


@pytest.mark.parametrize(("code", "source"), VALID)
def test_valid_example_is_not_flagged(code, source):
    assert spots(source, code) == []


@pytest.mark.parametrize(("code", "example"), INVALID)
def test_invalid_example_is_flagged_exactly(code, example):
    assert spots(example.source, code) == [(code, row, col) for row, col in example.expected]


@pytest.mark.parametrize("rule", [r for r in RULES if r.code < "TPL900"])
def test_every_contract_rule_has_examples_and_docs(rule):
    assert rule.valid and rule.invalid
    assert rule.why and rule.summary and "{" in rule.message
