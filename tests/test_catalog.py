"""The rule catalog: it matches the classes, it spares LibCST where nothing is linted, and packs
without a catalog still register through the entry-point group."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from torchperf_lint.rules import RULES

from torchperf_lint import catalog
from torchperf_lint.registry import all_rules
from torchperf_lint.registry import catalog as rule_catalog

#: Runs the CLI in-process, then says which heavy modules the run imported.
PROBE = """
import sys
from torchperf_lint.cli import main
code = main(sys.argv[1:])
heavy = sorted({name.split(".")[0] for name in sys.modules if name == "libcst" or name.startswith("libcst.")})
rules = sorted(name for name in sys.modules if name.startswith("torchperf_lint.rules."))
print(code, heavy, rules)
"""


def probe(*args: str, cwd: Path) -> str:
    result = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=cwd)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()[-1]


def test_the_committed_catalog_matches_the_rule_classes():
    assert catalog.path().read_text(encoding="utf-8") == catalog.render(RULES), (
        "rules/catalog.json drifted from the rule classes: run `python -m torchperf_lint.catalog`"
    )
    assert {code: cls for code, cls in all_rules().items()} == {rule.code: rule for rule in RULES}
    assert [info.code for info in rule_catalog().values()] == [rule.code for rule in RULES]


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_imports_no_libcst(tmp_path, flag):
    assert probe(flag, cwd=tmp_path) == "0 [] []"


def test_a_fully_cached_run_imports_no_libcst_and_no_rule(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    (tmp_path / "kernel.py").write_text("import torch\n\n\n@torch.compile\ndef f(x):\n    return x.cuda()\n")
    (tmp_path / "clean.py").write_text("x = 1\n")
    cold = probe(".", "-q", cwd=tmp_path)
    assert cold.startswith("1 ['libcst'] ['torchperf_lint.rules.")
    assert probe(".", "-q", cwd=tmp_path) == "1 [] []"
    assert probe(".", "--statistics", cwd=tmp_path) == "1 [] []"
    assert probe(".", "--output-format", "json", cwd=tmp_path) == "1 [] []"


PACK = """
import libcst as cst

from torchperf_lint.rule import Invalid, Rule


class NoPrint(Rule):
    code = "XPK001"
    name = "no-print"
    summary = "A call to `print`"
    hint = "Log instead."
    message = "`print` in a kernel"
    why = "Kernels stay quiet."
    example = "print(x)"
    use_instead = "log(x)"
    fix_safety = "No fix."
    requires_text = ("print",)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "print":
            self.report(node)


RULES = [NoPrint]
"""


def test_a_third_party_pack_without_a_catalog_registers_through_the_entry_point_group(tmp_path):
    site = tmp_path / "site"
    (site / "xpack").mkdir(parents=True)
    (site / "xpack" / "__init__.py").write_text(PACK)
    info = site / "xpack-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: xpack\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[torchperf_lint.rules]\nxpack = xpack:RULES\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.py").write_text("import torch\nprint(torch.ones(1).cuda())\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    command = [sys.executable, "-m", "torchperf_lint", "--no-cache", "-q", "a.py"]
    default = subprocess.run(command, capture_output=True, text=True, cwd=project, env=env)
    assert default.stdout == CUDA, default.stderr  # the default selection is `TPL`
    extended = subprocess.run(
        [*command, "--extend-select", "XPK"], capture_output=True, text=True, cwd=project, env=env
    )
    assert extended.stdout == "a.py:2:1: XPK001 `print` in a kernel\n" + CUDA, extended.stderr


CUDA = "a.py:2:7: TPL003 `.cuda()` moves work to a non-CPU device; routes are CPU-only by contract\n"
