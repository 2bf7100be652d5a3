"""Every rule's own valid/invalid examples are exact tests of (code, row, column)."""

import pytest
from helpers import lint, spots

from torchperf_lint.autofix import fix_text
from torchperf_lint.fixes import Edit
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


FIXED = [(r.code, ex) for r in RULES for ex in r.invalid if ex.fixed is not None]


@pytest.mark.parametrize(("code", "example"), FIXED)
def test_fix_gives_the_expected_source_and_a_second_fix_changes_nothing(code, example):
    first = fix_text(example.source, lint(example.source, code), lambda text: lint(text, code), unsafe=True)
    assert first.text == example.fixed
    assert first.remaining == []
    second = fix_text(first.text, lint(first.text, code), lambda text: lint(text, code), unsafe=True)
    assert second.text == first.text and second.applied == []


@pytest.mark.parametrize("rule", [r for r in RULES if r.fix is not None])
def test_fixable_rules_show_their_fix_in_examples(rule):
    assert any(example.fixed is not None for example in rule.invalid)


def test_unsafe_fixes_wait_for_the_flag():
    source = "import torch\ny = x.cuda()\n"
    outcome = fix_text(source, lint(source), lambda text: lint(text), unsafe=False)
    assert outcome.text == source and [f.code for f in outcome.remaining] == ["TPL003"]


def test_a_round_that_would_not_parse_is_discarded():
    finding = lint("import torch\n@torch.compile\ndef f():\n    pass\n")[0]
    broken = finding.fix.__class__(finding.fix.applicability, "break", (Edit(3, 1, 3, 4, "de"),))
    bad = finding.__class__(**{**finding.__dict__, "fix": broken})
    outcome = fix_text("import torch\n@torch.compile\ndef f():\n    pass\n", [bad], lambda text: [], unsafe=True)
    assert outcome.text.startswith("import torch\n@torch.compile") and outcome.applied == []
