"""``--add-noqa``, ``--ignore-noqa`` and TPL901's wording, from the console script."""

from __future__ import annotations

import subprocess
import sys

SOURCE = (
    "import torch\n"
    "y = x.cuda()  # move it\n"
    "z = torch.ones(2, device='cuda')  # noqa: E501\n"
    'doc = """\n'
    'text"""; w = x.cuda()\n'
    "v = x.cuda()  # noqa\n"
)


def run(*args, cwd):
    command = [sys.executable, "-m", "torchperf_lint", "--no-cache", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd)


def test_add_noqa_keeps_comments_merges_directives_and_then_nothing_is_reported(tmp_path):
    (tmp_path / "a.py").write_text(SOURCE)
    result = run("a.py", "--add-noqa", cwd=tmp_path)
    assert result.returncode == 0 and result.stderr == "Added 3 noqa directives.\n"
    assert (tmp_path / "a.py").read_text() == (
        "import torch\n"
        "y = x.cuda()  # move it  # noqa: TPL003\n"
        "z = torch.ones(2, device='cuda')  # noqa: E501, TPL003\n"
        'doc = """\n'
        'text"""; w = x.cuda()  # noqa: TPL003\n'
        "v = x.cuda()  # noqa\n"
    )
    assert run("a.py", cwd=tmp_path).stdout == "All checks passed!\n"


def test_ignore_noqa_reports_what_directives_hide(tmp_path):
    (tmp_path / "a.py").write_text("import torch\ny = x.cuda()  # noqa: TPL003\n")
    assert run("a.py", "-q", cwd=tmp_path).stdout == ""
    shown = run("a.py", "-q", "--ignore-noqa", cwd=tmp_path)
    assert shown.returncode == 1 and shown.stdout.startswith("a.py:2:5: TPL003 ")


def test_unused_directive_wording_follows_ruff(tmp_path):
    (tmp_path / "a.py").write_text(
        "import torch\ny = x.cuda()  # noqa: TPL003, TPL003, TPL001\nz = 1  # noqa: TPL006\nw = 2  # noqa\n"
    )
    result = run("a.py", "-q", "--ignore", "TPL006", cwd=tmp_path)
    assert result.stdout.splitlines() == [
        "a.py:2:15: TPL901 [*] Unused `noqa` directive (unused: `TPL001`; duplicated: `TPL003`)",
        "a.py:3:8: TPL901 [*] Unused `noqa` directive (non-enabled: `TPL006`)",
    ]  # the blanket directive on line 4 may serve another linter, so it is not reported


def test_only_directives_for_this_linter_send_a_file_through_the_tokenizer(monkeypatch):
    from torchperf_lint import suppression

    tokenized: list[int] = []
    real = suppression.tokenize.generate_tokens
    monkeypatch.setattr(suppression.tokenize, "generate_tokens", lambda *a: tokenized.append(1) or real(*a))
    foreign = "import torch\nimport os  # noqa: F401\n"
    assert suppression.find_directives(foreign, only_prefix="TPL") == {}
    assert tokenized == []
    assert suppression.find_directives(foreign)[2].codes == ("F401",)  # --add-noqa still merges into it
    ours = 'import torch\ns = "# noqa: TPL003"\ny = x.cuda()  # NOQA:tpl003\n'
    assert list(suppression.find_directives(ours, only_prefix="TPL")) == [3]  # the string is not a comment
    assert suppression.has_directive_for("x = 1  # noqa\n") and not suppression.has_directive_for(foreign)


UNUSED = (
    "import torch\n"
    "y = x.cuda()  # noqa: TPL003, TPL001, E501, TPL003\n"
    "z = 1  # noqa: TPL001\n"
    "w = 2  # noqa: TPL001  # the reason stays\n"
    "v = 3  # a reason # noqa: TPL001\n"
    "u = 4  # noqa: E501,TPL9999\n"
    "t = 5  # noqa\n"
)


def test_unused_noqa_fix_removes_unused_codes_keeps_other_tools_and_drops_empty_directives(tmp_path):
    (tmp_path / "a.py").write_text(UNUSED)
    listed = run("a.py", "-q", cwd=tmp_path)
    assert listed.stdout == (
        "a.py:2:15: TPL901 [*] Unused `noqa` directive (unused: `TPL001`; duplicated: `TPL003`)\n"
        "a.py:3:8: TPL901 [*] Unused `noqa` directive (unused: `TPL001`)\n"
        "a.py:4:8: TPL901 [*] Unused `noqa` directive (unused: `TPL001`)\n"
        "a.py:5:19: TPL901 [*] Unused `noqa` directive (unused: `TPL001`)\n"
        "a.py:6:8: TPL901 [*] Unused `noqa` directive (unknown: `TPL9999`)\n"
    )
    fixed = run("a.py", "--fix", cwd=tmp_path)
    assert (fixed.returncode, fixed.stdout) == (0, "Found 5 errors (5 fixed, 0 remaining).\n")
    assert (tmp_path / "a.py").read_text() == (
        "import torch\n"
        "y = x.cuda()  # noqa: TPL003, E501\n"
        "z = 1\n"
        "w = 2  # the reason stays\n"
        "v = 3  # a reason\n"
        "u = 4  # noqa: E501\n"
        "t = 5  # noqa\n"
    )


def test_add_noqa_works_in_a_file_with_newer_syntax(tmp_path):
    (tmp_path / "a.py").write_text("import torch\n\ntype Volume = torch.Tensor\ny = x.cuda()\n")
    result = run("a.py", "--add-noqa", "--target-version", "py312", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "Added 1 noqa directive.\n")
    assert (tmp_path / "a.py").read_text() == (
        "import torch\n\ntype Volume = torch.Tensor\ny = x.cuda()  # noqa: TPL003\n"
    )
