"""One finding's edit, as an editor's quick fixes ask for it: its fix alone, or a ``noqa`` on its line,
each checked as the command line checks its own rewrites."""

from __future__ import annotations

from helpers import lint

from torchperf_lint.autofix import fix_one
from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.fixes import SAFE, Edit, Fix
from torchperf_lint.rewrite import takes_noqa, with_noqa

SOURCE = "import torch\n\n\n@torch.compile\ndef f(x):\n    return x.cuda()\n\n\ng = torch.jit.script(f)\n"


def finding(code: str) -> Diagnostic:
    return next(f for f in lint(SOURCE) if f.code == code)


def test_fix_one_applies_that_finding_s_fix_and_no_other():
    decorator = next(f for f in lint(SOURCE) if f.code == "TPL002" and f.row == 4)
    assert fix_one(SOURCE, decorator) == SOURCE.replace("@torch.compile\n", "")
    assert fix_one(SOURCE, finding("TPL003")) == SOURCE.replace("x.cuda()", "x")  # unsafe ones too


def test_fix_one_refuses_a_fix_whose_result_does_not_parse_and_a_finding_without_one():
    broken = Diagnostic("k.py", 1, 1, "TPL002", "m", 1, 1, Fix(SAFE, "m", (Edit(5, 1, 5, 4, "(("),)))
    assert fix_one(SOURCE, broken) is None
    assert fix_one(SOURCE, Diagnostic("k.py", 6, 12, "TPL003", "m", 6, 20)) is None


def test_with_noqa_merges_into_the_line_s_directive_and_skips_what_cannot_take_one():
    text = "import torch\nx = torch.zeros(1).cuda()  # noqa: E501\ns = '''\nx.cuda()\n'''\n"
    assert with_noqa(text, {2: {"TPL003"}}) == (text.replace("E501", "E501, TPL003"), 1)
    assert with_noqa(text, {3: {"TPL003"}}) is None  # the line ends inside a string
    assert not takes_noqa(Diagnostic("k.py", 1, 1, "TPL900", "SyntaxError", 1, 1))
    assert takes_noqa(finding("TPL003"))
