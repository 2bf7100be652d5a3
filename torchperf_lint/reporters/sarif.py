"""SARIF 2.1.0 for code scanning: one run, rule metadata from the catalog, repository-relative URIs.

Columns are Unicode code points (``columnKind``), 1-based, as everywhere in torchperf-lint. Paths
under the project root are written relative to ``%SRCROOT%``; others become absolute ``file://`` URIs.
The driver has no ``informationUri`` (optional in SARIF): the tool has no hosted page to point at.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from torchperf_lint import __version__
from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.registry import all_rules
from torchperf_lint.reporters import ReportContext

if TYPE_CHECKING:
    from torchperf_lint.rule import Rule

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"


def render(findings: list[Diagnostic], context: ReportContext) -> str:
    rules = all_rules()
    index = {code: i for i, code in enumerate(rules)}
    run = {
        "tool": {
            "driver": {
                "name": "torchperf-lint",
                "version": __version__,
                "rules": [_descriptor(rule) for rule in rules.values()],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": context.root.resolve().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(f, index, context.root) for f in findings],
    }
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"


def _descriptor(rule: type[Rule]) -> dict[str, object]:
    from torchperf_lint.explain import rule_markdown

    page = rule_markdown(rule)
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.why},
        "help": {"text": page, "markdown": page},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["performance", "torch"]},
    }


def _result(finding: Diagnostic, index: dict[str, int], root: Path) -> dict[str, object]:
    result: dict[str, object] = {
        "ruleId": finding.code,
        "level": "error",
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(finding.path, root),
                    "region": {
                        "startLine": finding.row,
                        "startColumn": finding.column,
                        "endLine": finding.end_row,
                        "endColumn": finding.end_column,
                    },
                }
            }
        ],
    }
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    return result


def _artifact(path: str, root: Path) -> dict[str, str]:
    absolute = Path(path).resolve()
    try:
        return {"uri": absolute.relative_to(root.resolve()).as_posix(), "uriBaseId": SRCROOT}
    except ValueError:
        return {"uri": absolute.as_uri()}
