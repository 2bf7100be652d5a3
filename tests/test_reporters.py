"""Machine formats: SARIF for code scanning, GitHub annotations, JSON lines, and ``-o``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.reporters import github

SOURCE = "import torch\n\n@torch.compile\ndef f(x):\n    return x.cuda()\n"


def run(*args, cwd):
    command = [sys.executable, "-m", "torchperf_lint", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd)


def project(tmp_path: Path) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(SOURCE)
    return tmp_path


def test_sarif_has_every_field_code_scanning_reads_and_round_trips_findings(tmp_path):
    root = project(tmp_path)
    result = run("pkg", "--output-format", "sarif", "--no-cache", cwd=root)
    assert result.returncode == 1
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run_,) = log["runs"]
    driver = run_["tool"]["driver"]
    # The tool has no page of its own to point at yet; SARIF requires only the name.
    assert sorted(driver) == ["name", "rules", "version"] and driver["name"] == "torchperf-lint"
    rules = {rule["id"]: rule for rule in driver["rules"]}
    for rule in rules.values():
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"] and rule["help"]["text"]
    assert run_["columnKind"] == "unicodeCodePoints"
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == root.resolve().as_uri() + "/"
    found = []
    for result_ in run_["results"]:
        assert result_["level"] == "error" and result_["message"]["text"]
        assert driver["rules"][result_["ruleIndex"]]["id"] == result_["ruleId"]
        (location,) = result_["locations"]
        artifact, region = location["physicalLocation"]["artifactLocation"], location["physicalLocation"]["region"]
        assert artifact == {"uri": "pkg/a.py", "uriBaseId": "%SRCROOT%"}
        found.append(
            (result_["ruleId"], region["startLine"], region["startColumn"], region["endLine"], region["endColumn"])
        )
    assert found == [("TPL002", 3, 2, 3, 15), ("TPL003", 5, 12, 5, 20)]


def test_sarif_uses_absolute_file_uris_outside_the_project(tmp_path):
    root = project(tmp_path / "proj")
    outside = tmp_path / "elsewhere.py"
    outside.write_text(SOURCE)
    log = json.loads(run(str(outside), "--output-format", "sarif", "--no-cache", cwd=root).stdout)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {outside.resolve().as_uri()}


def test_github_annotation_escapes_data_and_properties_exactly():
    finding = Diagnostic("dir,1/a:b.py", 3, 2, "TPL002", "100% sure:\r\nno, really", 3, 15)
    assert github.annotation(finding) == (
        "::error title=torchperf-lint (TPL002),file=dir%2C1/a%3Ab.py,line=3,col=2,endLine=3,endColumn=15"
        "::dir,1/a:b.py:3:2: TPL002 100%25 sure:%0D%0Ano, really"
    )


def test_json_lines_has_one_ruff_style_object_per_finding_with_its_fix(tmp_path):
    root = project(tmp_path)
    lines = run("pkg", "--output-format", "json-lines", "--no-cache", cwd=root).stdout.splitlines()
    objects = [json.loads(line) for line in lines]
    assert [(o["code"], o["location"]["row"], o["location"]["column"]) for o in objects] == [
        ("TPL002", 3, 2),
        ("TPL003", 5, 12),
    ]
    assert objects[0]["fix"] == {
        "applicability": "safe",
        "message": "Remove the `@torch.compile` decorator",
        "edits": [{"content": "", "location": {"row": 3, "column": 1}, "end_location": {"row": 4, "column": 1}}],
    }
    assert objects[1]["fix"]["applicability"] == "unsafe"


def test_output_file_receives_the_report(tmp_path):
    root = project(tmp_path)
    result = run("pkg", "-o", "report.json", "--output-format", "json", "--no-cache", cwd=root)
    assert result.returncode == 1 and result.stdout == ""
    assert [o["code"] for o in json.loads((root / "report.json").read_text())] == ["TPL002", "TPL003"]


def test_statistics_count_per_rule_in_text_and_json(tmp_path):
    root = project(tmp_path)
    text = run("pkg", "--statistics", "--no-cache", cwd=root).stdout
    assert text.splitlines()[:2] == ["1\tTPL002\t[*] compilation", "1\tTPL003\tdevice-route"]
    rows = json.loads(run("pkg", "--statistics", "--output-format", "json", "--no-cache", cwd=root).stdout)
    assert rows == [
        {"code": "TPL002", "name": "compilation", "count": 1, "fixable": True},
        {"code": "TPL003", "name": "device-route", "count": 1, "fixable": False},
    ]
