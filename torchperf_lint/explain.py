"""Rule documentation: ``torchperf-lint rule CODE`` pages and the ``rules`` table."""

from __future__ import annotations

import json

from torchperf_lint.registry import all_rules
from torchperf_lint.rule import Rule
from torchperf_lint.selection import UsageError


def rule_markdown(rule: type[Rule]) -> str:
    """A Ruff-style rule page: what it does, why, example, use instead, notes."""
    parts = [
        f"# {rule.name} ({rule.code})\n",
        f"## What it does\n{rule.summary}.\n",
        f"## Why is this bad?\n{rule.why}\n",
    ]
    if rule.example:
        parts.append(f"## Example\n```python\n{rule.example}\n```\n")
    if rule.use_instead:
        parts.append(f"## Use instead\n```python\n{rule.use_instead}\n```\n")
    if rule.notes:
        parts.append(f"## Notes\n{rule.notes}\n")
    parts.append(f"## Fix safety\n{_fix_line(rule)}{rule.fix_safety}\n")
    if rule.options:
        parts.append(f"## Options\n{rule.options}\n")
    return "\n".join(parts)


def _fix_line(rule: type[Rule]) -> str:
    if rule.fix is None:
        return ""
    flag = " (apply with `--fix --unsafe-fixes`)" if rule.fix == "unsafe" else " (apply with `--fix`)"
    return f"Fix: {rule.fix}{flag}. "


def _metadata(rule: type[Rule]) -> dict[str, object]:
    return {
        "code": rule.code,
        "name": rule.name,
        "summary": rule.summary,
        "hint": rule.hint,
        "fix": rule.fix or "none",
        "explanation": rule_markdown(rule),
    }


def explain(selector: str, output_format: str = "text") -> str:
    """One rule's page, the rule named by its code (``TPL003``) or its name (``device-route``)."""
    rule = find_rule(selector)
    if output_format == "json":
        return json.dumps(_metadata(rule), indent=2) + "\n"
    return rule_markdown(rule)


def explain_all(output_format: str = "text") -> str:
    """Every rule's page, in catalog order: a JSON list, or the Markdown pages one after another."""
    rules = list(all_rules().values())
    if output_format == "json":
        return json.dumps([_metadata(rule) for rule in rules], indent=2) + "\n"
    return "\n".join(rule_markdown(rule) for rule in rules)


def find_rule(selector: str) -> type[Rule]:
    rules = all_rules()
    found = rules.get(selector.upper()) or next((r for r in rules.values() if r.name == selector.lower()), None)
    if found is None:
        raise UsageError(f"unknown rule code or name `{selector}`; `torchperf-lint rules` lists them")
    return found


def rules_table(output_format: str = "text") -> str:
    """Every rule: a text table, a Markdown table (the README's), or JSON metadata."""
    rules = list(all_rules().values())
    if output_format == "json":
        return json.dumps([_metadata(rule) for rule in rules], indent=2) + "\n"
    if output_format == "markdown":
        rows = [f"| {r.code} | {r.name} | {r.fix or '-'} | {r.summary} |" for r in rules]
        return "\n".join(["| code | name | fix | what it flags |", "| --- | --- | --- | --- |", *rows]) + "\n"
    width = max(len(rule.name) for rule in rules)
    return "".join(f"{rule.code}  {rule.name:<{width}}  {rule.fix or '-':<6}  {rule.summary}\n" for rule in rules)
