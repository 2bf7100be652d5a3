"""``torchperf-lint server`` end to end: a real server process, driven as an editor drives it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from .conftest import CONSOLE_SCRIPT, TIMEOUT, apply_edit, cli, spans

pytestmark = pytest.mark.asyncio

#: Three findings; the emoji before `.cuda()` is one code point but two UTF-16 units.
KERNEL = """import torch


@torch.compile
def warp(volume):
    log("🔥 warm", volume.cuda())
    if volume.shape[1] == 3:
        return volume.permute(0, 2, 3, 4, 1)
    return volume
"""
TPL002 = ("TPL002", (3, 1, 3, 14))
TPL003 = ("TPL003", (5, 19, 5, 32))  # code-point columns 19 to 32 on the command line
TPL006 = ("TPL006", (6, 7, 6, 27))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    (root / "kernel.py").write_text(KERNEL)
    return root


async def test_open_publishes_the_command_line_s_findings_in_utf16_ranges(start_editor, project):
    editor = await start_editor(project)
    diagnostics = await editor.open(project / "kernel.py")
    assert spans(diagnostics) == [TPL002, TPL003, TPL006]
    command_line = json.loads(cli("check", "kernel.py", "--output-format", "json", cwd=project).stdout)
    assert [(d.code, d.message) for d in diagnostics] == [(f["code"], f["message"]) for f in command_line]
    assert [f["location"]["column"] for f in command_line] == [2, 19, 8]  # code points, 1-based
    assert {(d.severity, d.source) for d in diagnostics} == {(types.DiagnosticSeverity.Error, "torchperf-lint")}
    assert diagnostics[0].data == {
        "fix": {
            "applicability": "safe",
            "message": "Remove the `@torch.compile` decorator",
            "edits": [
                {
                    "range": {"start": {"line": 3, "character": 0}, "end": {"line": 4, "character": 0}},
                    "newText": "",
                }
            ],
        }
    }
    assert diagnostics[1].data["fix"]["applicability"] == "unsafe"
    assert diagnostics[2].data is None
    page = Path(diagnostics[0].code_description.href.removeprefix("file://"))
    assert page.read_text() == cli("rule", "TPL002", cwd=project).stdout
    assert page.is_relative_to(project.parent / "cache" / "torchperf-lint")
    assert [r.register_options["watchers"][0]["globPattern"] for r in editor.registrations] == [
        "**/pyproject.toml"
    ]


@pytest.mark.parametrize(
    ("client", "tpl003"),
    [("emacs", (5, 18, 5, 31)), ("neovim", (5, 21, 5, 34))],
    ids=["utf-32 (eglot)", "utf-8 (neovim)"],
)
async def test_columns_follow_the_position_encoding_the_client_prefers(start_editor, project, client, tpl003):
    editor = await start_editor(project, client=client)
    diagnostics = await editor.open(project / "kernel.py")
    assert spans(diagnostics)[1] == ("TPL003", tpl003)


async def test_an_edit_that_fixes_one_finding_leaves_two(start_editor, project):
    editor = await start_editor(project)
    await editor.open(project / "kernel.py")
    cuda = types.Range(types.Position(5, 25), types.Position(5, 32))  # ".cuda()" after `volume`
    published = await editor.change(project / "kernel.py", 2, types.TextDocumentContentChangePartial(cuda, ""))
    assert (published.version, spans(published.diagnostics)) == (2, [TPL002, TPL006])


async def test_unsaved_buffer_content_is_what_gets_linted(start_editor, project):
    editor = await start_editor(project)
    buffer = KERNEL.replace("@torch.compile\n", "")
    diagnostics = await editor.open(project / "kernel.py", buffer)
    assert [d.code for d in diagnostics] == ["TPL003", "TPL006"]
    untitled = "untitled:Untitled-1"
    since = len(editor.published)
    item = types.TextDocumentItem(untitled, "python", 1, "import torch\ny = x.cuda()\n")
    editor.text_document_did_open(types.DidOpenTextDocumentParams(item))
    assert spans((await editor.publish_after(untitled, since)).diagnostics) == [("TPL003", (1, 4, 1, 12))]


async def _actions_at(editor, path: Path, where: tuple[int, int], only=None) -> list[types.CodeAction]:
    position = types.Position(*where)
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(path.as_uri()),
        range=types.Range(position, position),
        context=types.CodeActionContext(diagnostics=[], only=only),
    )
    return await editor.text_document_code_action_async(params)


async def test_the_tpl002_action_makes_the_edit_fix_makes(start_editor, project):
    editor = await start_editor(project)
    await editor.open(project / "kernel.py")
    offered = await _actions_at(editor, project / "kernel.py", (3, 5))
    assert [(a.title, a.kind, a.is_preferred, a.edit) for a in offered] == [
        ("torchperf-lint (TPL002): Remove the `@torch.compile` decorator", "quickfix", True, None),
        ("torchperf-lint (TPL002): Add `# noqa: TPL002` on this line", "quickfix", None, None),
        ("torchperf-lint: Apply every safe fix", "source.fixAll.torchperf-lint", None, None),
    ]
    assert spans(offered[0].diagnostics) == [TPL002]
    fixed_by_cli = cli("check", "--fix", "--stdin-filename", "kernel.py", "-", cwd=project, stdin=KERNEL).stdout
    assert fixed_by_cli == KERNEL.replace("@torch.compile\n", "")
    quick_fix = await editor.code_action_resolve_async(offered[0])
    assert apply_edit(KERNEL, quick_fix.edit) == fixed_by_cli
    assert quick_fix.edit.document_changes[0].text_document.version == 1
    fix_all = await editor.code_action_resolve_async(offered[2])
    assert apply_edit(KERNEL, fix_all.edit) == fixed_by_cli


async def test_an_unsafe_fix_is_labelled_not_preferred_and_matches_unsafe_fixes(start_editor, project):
    editor = await start_editor(project)
    await editor.open(project / "kernel.py")
    offered = await _actions_at(editor, project / "kernel.py", (5, 24), only=[types.CodeActionKind.QuickFix])
    assert [(a.title, a.is_preferred) for a in offered] == [
        ("torchperf-lint (TPL003): Remove `.cuda()` (unsafe fix)", False),
        ("torchperf-lint (TPL003): Add `# noqa: TPL003` on this line", None),
    ]
    resolved = await editor.code_action_resolve_async(offered[0])
    flags = ("--fix", "--unsafe-fixes", "--select", "TPL003", "--stdin-filename", "kernel.py", "-")
    command_line = cli("check", *flags, cwd=project, stdin=KERNEL)
    assert apply_edit(KERNEL, resolved.edit) == command_line.stdout
    fix_all_only = await _actions_at(editor, project / "kernel.py", (0, 0), only=[types.CodeActionKind.Source])
    assert [a.kind for a in fix_all_only] == ["source.fixAll.torchperf-lint"]


async def test_the_noqa_action_silences_the_finding_on_its_line(start_editor, project):
    editor = await start_editor(project)
    await editor.open(project / "kernel.py")
    offered = await _actions_at(editor, project / "kernel.py", (5, 24))
    resolved = await editor.code_action_resolve_async(offered[1])
    annotated = apply_edit(KERNEL, resolved.edit)
    assert annotated == KERNEL.replace("volume.cuda())\n", "volume.cuda())  # noqa: TPL003\n")
    published = await editor.change(
        project / "kernel.py", 2, types.TextDocumentContentChangeWholeDocument(annotated)
    )
    assert spans(published.diagnostics) == [TPL002, TPL006]


async def test_a_client_without_resolve_gets_the_edits_with_the_actions(start_editor, project):
    editor = await start_editor(project, client="emacs")
    await editor.open(project / "kernel.py")
    offered = await _actions_at(editor, project / "kernel.py", (3, 5))
    assert [a.title for a in offered][:2] == [
        "torchperf-lint (TPL002): Remove the `@torch.compile` decorator",
        "torchperf-lint (TPL002): Add `# noqa: TPL002` on this line",
    ]
    edit = offered[0].edit.document_changes[0].edits[0]
    assert (edit.range.start.line, edit.range.end.line, edit.new_text) == (3, 4, "")


async def test_hover_shows_the_rule_page(start_editor, project):
    editor = await start_editor(project)
    await editor.open(project / "kernel.py")
    uri = types.TextDocumentIdentifier((project / "kernel.py").as_uri())
    shown = await editor.text_document_hover_async(types.HoverParams(uri, types.Position(5, 27)))
    assert shown.contents.kind == types.MarkupKind.Markdown
    assert shown.contents.value == cli("rule", "TPL003", cwd=project).stdout
    assert shown.contents.value.startswith("# device-route (TPL003)\n\n## What it does\n")
    assert spans([types.Diagnostic(shown.range, "")]) == [("None", TPL003[1])]
    assert await editor.text_document_hover_async(types.HoverParams(uri, types.Position(4, 2))) is None


async def test_a_client_without_markdown_gets_the_rule_page_as_plain_text(start_editor, project):
    capabilities = client_capabilities("visual-studio-code")
    capabilities.text_document.hover.content_format = [types.MarkupKind.PlainText]
    editor = await start_editor(project, capabilities=capabilities)
    await editor.open(project / "kernel.py")
    uri = types.TextDocumentIdentifier((project / "kernel.py").as_uri())
    shown = await editor.text_document_hover_async(types.HoverParams(uri, types.Position(5, 27)))
    assert shown.contents.kind == types.MarkupKind.PlainText
    page = shown.contents.value
    assert page.startswith("device-route (TPL003)\n=====================\n\nWhat it does\n------------\n")
    assert '\nExample\n-------\n    volume = volume.to("cuda")\n    out = F.grid_sample(volume, grid)\n\n' in page
    assert "#" not in page.replace("# the caller", "") and "```" not in page


async def test_a_syntax_error_mid_edit_is_one_tpl900_and_the_server_lives_on(start_editor, project):
    editor = await start_editor(project)
    await editor.open(project / "kernel.py")
    broken = KERNEL.replace("def warp(volume):", "def warp(volume:")
    published = await editor.change(project / "kernel.py", 2, types.TextDocumentContentChangeWholeDocument(broken))
    assert [(d.code, d.message) for d in published.diagnostics] == [
        (
            "TPL900",
            cli("check", "--stdin-filename", "k.py", "-", cwd=project, stdin=broken)
            .stdout.split("\n")[0]
            .split(" ", 2)[2],
        )
    ]
    assert published.diagnostics[0].message == "SyntaxError: '(' was never closed"
    assert spans(published.diagnostics) == [("TPL900", (4, 8, 4, 8))]  # at the `(` CPython names
    command_line = json.loads(cli("check", "--output-format", "json", "-", cwd=project, stdin=broken).stdout)
    assert [(f["location"], f["end_location"]) for f in command_line] == [({"row": 5, "column": 9},) * 2]
    mended = await editor.change(project / "kernel.py", 3, types.TextDocumentContentChangeWholeDocument(KERNEL))
    assert spans(mended.diagnostics) == [TPL002, TPL003, TPL006]


#: A form feed in the indentation: LibCST drops it, the columns and the fix must not.
FORM_FEED = "import torch\n\x0cy = s.cuda()\ndef f(x):\n    z = 1\n  \x0c    return x.cuda()\n"


async def test_a_form_feed_in_the_indentation_moves_neither_ranges_nor_fixes(start_editor, project):
    editor = await start_editor(project)
    diagnostics = await editor.open(project / "ff.py", FORM_FEED)
    assert spans(diagnostics) == [("TPL003", (1, 5, 1, 13)), ("TPL003", (4, 14, 4, 22))]
    offered = await _actions_at(editor, project / "ff.py", (4, 20), only=[types.CodeActionKind.QuickFix])
    resolved = await editor.code_action_resolve_async(offered[0])
    assert editor.messages == []
    command_line = cli(
        "check", "--fix", "--unsafe-fixes", "--stdin-filename", "ff.py", "-", cwd=project, stdin=FORM_FEED
    )
    assert command_line.stdout == "import torch\n\x0cy = s\ndef f(x):\n    z = 1\n  \x0c    return x\n"
    assert apply_edit(FORM_FEED, resolved.edit) == FORM_FEED.replace("return x.cuda()", "return x")


ROUTES = "import torch\n\n\ndef _route(volume):\n    assert volume.ndim == 5\n    return volume.cuda()\n"


@pytest.fixture
def two_folders(tmp_path: Path) -> tuple[Path, Path]:
    """``pa`` marks routers prevalidated by glob and ignores TPL003 in ``scripts/``; ``pb`` ignores
    TPL003 everywhere."""
    for name in ("pa", "pb"):
        package = tmp_path / name / "src" / name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "routes.py").write_text(ROUTES)
    (tmp_path / "pa" / "scripts").mkdir()
    (tmp_path / "pa" / "scripts" / "tool.py").write_text(ROUTES)
    (tmp_path / "pa" / "pyproject.toml").write_text(
        '[tool.torchperf-lint]\nprevalidated = ["pa.routes._*"]\nper-file-ignores = { "scripts/*" = ["TPL003"] }\n'
    )
    (tmp_path / "pb" / "pyproject.toml").write_text('[tool.torchperf-lint]\nignore = ["TPL003"]\n')
    return tmp_path / "pa", tmp_path / "pb"


async def test_two_workspace_folders_each_apply_their_own_pyproject(start_editor, two_folders):
    pa, pb = two_folders
    editor = await start_editor(pa, pb)
    in_pa = await editor.open(pa / "src" / "pa" / "routes.py")
    assert spans(in_pa) == [("TPL005", (4, 4, 4, 27)), ("TPL003", (5, 11, 5, 24))]
    assert [(d.code, d.message) for d in in_pa] == [
        (
            "TPL005",
            "`assert` re-validates inside caller-prevalidated `pa.routes._route` "
            "(the `prevalidated` setting names it); "
            "validate once at the public entry",
        ),
        ("TPL003", "`.cuda()` moves work to a non-CPU device; routes are CPU-only by contract"),
    ]
    assert await editor.open(pa / "scripts" / "tool.py") == []
    assert await editor.open(pb / "src" / "pb" / "routes.py") == []
    assert [line.split(" ")[:2] for line in cli("check", "-q", "src", "scripts", cwd=pa).stdout.splitlines()] == [
        ["src/pa/routes.py:5:5:", "TPL005"],
        ["src/pa/routes.py:6:12:", "TPL003"],
    ]


GRID_SAMPLE = (
    "import torch.nn.functional as F\n\n\n"
    "def resample(volume, grid):\n"
    "    return F.grid_sample(volume, grid, align_corners=False)\n"
)


async def test_a_primitives_glob_makes_tpl007_apply_to_the_functions_it_matches(start_editor, tmp_path):
    root = tmp_path / "globbed"
    package = root / "src" / "pk"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "kernels.py").write_text(GRID_SAMPLE)
    (package / "helpers.py").write_text(GRID_SAMPLE)
    (root / "pyproject.toml").write_text('[tool.torchperf-lint]\nprimitives = ["pk.kernels.*"]\n')
    editor = await start_editor(root)
    matched = await editor.open(package / "kernels.py")
    assert spans(matched) == [("TPL007", (4, 11, 4, 59))]
    assert matched[0].message == (
        "`torch.nn.functional.grid_sample` runs outside `torch.no_grad()` in primitive "
        "`pk.kernels.resample` (the `primitives` setting names it); guard the kernel body"
    )
    assert await editor.open(package / "helpers.py") == []
    assert cli("check", "-q", "src", cwd=root).stdout.splitlines() == [
        f"src/pk/kernels.py:5:12: TPL007 {matched[0].message}"
    ]


async def test_a_pyproject_change_is_picked_up_without_a_restart(start_editor, project):
    editor = await start_editor(project)
    kernel = project / "kernel.py"
    await editor.open(kernel)
    (project / "pyproject.toml").write_text('[tool.torchperf-lint]\nignore = ["TPL003"]\n')
    since = len(editor.published)
    change = types.FileEvent((project / "pyproject.toml").as_uri(), types.FileChangeType.Changed)
    editor.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([change]))
    assert spans((await editor.publish_after(kernel.as_uri(), since)).diagnostics) == [TPL002, TPL006]
    # A client that watches no files: saving the pyproject.toml it has open reloads it too.
    config = project / "pyproject.toml"
    item = types.TextDocumentItem(config.as_uri(), "toml", 1, config.read_text())
    editor.text_document_did_open(types.DidOpenTextDocumentParams(item))
    config.write_text('[tool.torchperf-lint]\nselect = ["TPL006"]\n')
    since = len(editor.published)
    editor.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(config.as_uri())))
    assert spans((await editor.publish_after(kernel.as_uri(), since)).diagnostics) == [TPL006]


async def test_without_a_file_watcher_the_next_lint_notices_a_changed_pyproject(start_editor, project):
    editor = await start_editor(project, client="neovim")  # Neovim on Linux watches no files for servers
    kernel, other = project / "kernel.py", project / "other.py"
    other.write_text(KERNEL)
    await editor.open(kernel)
    await editor.open(other)
    assert editor.registrations == []
    (project / "pyproject.toml").write_text('[tool.torchperf-lint]\nignore = ["TPL003"]\n')
    since = len(editor.published)
    published = await editor.change(kernel, 2, types.TextDocumentContentChangeWholeDocument(KERNEL + "\n"))
    assert [d.code for d in published.diagnostics] == ["TPL002", "TPL006"]
    assert [d.code for d in (await editor.publish_after(other.as_uri(), since)).diagnostics] == [
        "TPL002",
        "TPL006",
    ]


async def test_a_broken_pyproject_is_shown_once_and_lints_nothing(start_editor, project):
    (project / "pyproject.toml").write_text("[tool.torchperf-lint]\nselct = []\n")
    editor = await start_editor(project)
    assert await editor.open(project / "kernel.py") == []
    await editor.change(project / "kernel.py", 2, types.TextDocumentContentChangeWholeDocument(KERNEL + "\n"))
    assert [(m.type, m.message.split(" (known:")[0]) for m in editor.messages] == [
        (
            types.MessageType.Error,
            f"torchperf-lint: {project / 'pyproject.toml'}: unknown key `tool.torchperf-lint.selct`",
        )
    ]


async def test_excluded_files_and_other_languages_get_no_findings(start_editor, project):
    (project / "pyproject.toml").write_text('[tool.torchperf-lint]\nextend-exclude = ["generated"]\n')
    (project / "generated").mkdir()
    (project / "generated" / "k.py").write_text(KERNEL)
    editor = await start_editor(project)
    assert await editor.open(project / "generated" / "k.py") == []
    (project / "notes.txt").write_text(KERNEL)
    since = len(editor.published)
    item = types.TextDocumentItem((project / "notes.txt").as_uri(), "plaintext", 1, KERNEL)
    editor.text_document_did_open(types.DidOpenTextDocumentParams(item))
    await editor.open(project / "kernel.py")  # published after the text file would have been
    assert [p.uri for p in editor.published[since:]] == [(project / "kernel.py").as_uri()]


async def test_saving_publishes_the_diagnostics_again(start_editor, project):
    editor = await start_editor(project)
    opened = await editor.open(project / "kernel.py")
    since = len(editor.published)
    document = types.TextDocumentIdentifier((project / "kernel.py").as_uri())
    editor.text_document_did_save(types.DidSaveTextDocumentParams(document))
    saved = await editor.publish_after(document.uri, since)
    assert (saved.version, spans(saved.diagnostics)) == (1, spans(opened))


async def test_closing_a_document_clears_its_diagnostics(start_editor, project):
    editor = await start_editor(project)
    await editor.open(project / "kernel.py")
    since = len(editor.published)
    uri = (project / "kernel.py").as_uri()
    editor.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    assert list((await editor.publish_after(uri, since)).diagnostics) == []


async def test_closing_a_document_never_linted_publishes_nothing(start_editor, project):
    editor = await start_editor(project)
    since = len(editor.published)
    notes = types.TextDocumentIdentifier((project / "notes.txt").as_uri())
    editor.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(notes.uri, "plaintext", 1, KERNEL))
    )
    editor.text_document_did_close(types.DidCloseTextDocumentParams(notes))
    kernel = types.TextDocumentIdentifier((project / "kernel.py").as_uri())
    await editor.open(project / "kernel.py")  # published after the text file's would have been
    editor.text_document_did_close(types.DidCloseTextDocumentParams(kernel))
    await editor.publish_after(kernel.uri, since + 1)
    assert [(p.uri, len(p.diagnostics)) for p in editor.published[since:]] == [(kernel.uri, 3), (kernel.uri, 0)]


async def test_shutdown_then_exit_ends_the_server_with_status_0(start_editor, project):
    editor = await start_editor(project)
    await editor.open(project / "kernel.py")
    await editor.shutdown_session()
    assert editor._server.returncode == 0


async def test_exit_without_shutdown_ends_the_server_with_status_1(start_editor, project):
    editor = await start_editor(project)
    editor.exit(None)
    assert await asyncio.wait_for(editor._server.wait(), TIMEOUT) == 1


RAISING_PACK = """
from torchperf_lint.rule import Rule


class Raises(Rule):
    code = "TPL950"
    name = "raises"
    summary = "A rule with a bug"
    hint = "none"
    message = "never reported"
    why = "It raises on every call."
    fix_safety = "No fix."

    def visit_Call(self, node):
        raise KeyError("boom")
"""


def rule_pack(folder: Path) -> Path:
    """An installed third-party rule pack (a dist-info with an entry point) whose rule raises."""
    folder.mkdir()
    (folder / "raising_pack.py").write_text(RAISING_PACK)
    info = folder / "raising_pack-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: raising-pack\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[torchperf_lint.rules]\nraises = raising_pack:Raises\n")
    return folder


async def test_a_rule_that_raises_becomes_one_diagnostic_as_on_the_command_line(start_editor, project, tmp_path):
    env = {"PYTHONPATH": str(rule_pack(tmp_path / "pack"))}
    editor = await start_editor(project, env=env)
    diagnostics = await editor.open(project / "kernel.py")
    message = "Internal error while linting this file (KeyError: 'boom'); please report it"
    assert [(d.code, d.message) for d in diagnostics] == [("TPL900", message)]
    command_line = subprocess.run(
        [CONSOLE_SCRIPT, "--no-cache", "kernel.py"],
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, **env},
    )
    assert command_line.stdout.splitlines()[0] == f"kernel.py:1:1: TPL900 {message}"
    hover = await editor.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier((project / "kernel.py").as_uri()), types.Position(0, 0))
    )
    assert hover.contents.value.startswith("# syntax-error (TPL900)")


async def test_the_server_imports_neither_torch_nor_the_code_it_lints(start_editor, project, tmp_path):
    """A ``torch`` and a linted module that leave a mark when imported, both importable by the server."""
    marks = tmp_path / "marks"
    marks.mkdir()
    fake = tmp_path / "fake" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(f"open({str(marks / 'torch')!r}, 'w').close()\n")
    kernel = f"open({str(marks / 'kernel')!r}, 'w').close()\n" + KERNEL
    (project / "kernel.py").write_text(kernel)
    editor = await start_editor(project, env={"PYTHONPATH": f"{fake.parent}{os.pathsep}{project}"})
    assert [d.code for d in await editor.open(project / "kernel.py")] == ["TPL002", "TPL003", "TPL006"]
    offered = await _actions_at(editor, project / "kernel.py", (4, 5))
    await editor.code_action_resolve_async(offered[-1])  # every safe fix: lints the fixed text again
    await editor.shutdown_session()
    assert editor._server.returncode == 0
    assert sorted(marks.iterdir()) == []
