"""A real ``torchperf-lint server`` process per test, driven over stdio by pytest-lsp's client."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest_asyncio
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from torchperf_lint.lines import split_lines

CONSOLE_SCRIPT = str(Path(sys.executable).with_name("torchperf-lint"))
TIMEOUT = 60.0  # generous: the machine is shared, and a missing message must fail, not hang


class Editor(LanguageClient):
    """pytest-lsp's client, keeping every ``publishDiagnostics`` and registration in order."""

    published: list[types.PublishDiagnosticsParams]
    registrations: list[types.Registration]

    async def publish_after(self, uri: str, since: int) -> types.PublishDiagnosticsParams:
        """The first diagnostics for ``uri`` published after the first ``since`` ones."""

        async def arrive() -> types.PublishDiagnosticsParams:
            while True:
                for params in self.published[since:]:
                    if params.uri == uri:
                        return params
                await asyncio.sleep(0.01)

        return await asyncio.wait_for(arrive(), TIMEOUT)

    async def open(self, path: Path, text: str | None = None, language: str = "python") -> list[types.Diagnostic]:
        """Open ``path`` (with ``text`` in the buffer, else its content) and wait for its diagnostics."""
        since = len(self.published)
        item = types.TextDocumentItem(path.as_uri(), language, 1, path.read_text() if text is None else text)
        self.text_document_did_open(types.DidOpenTextDocumentParams(item))
        return list((await self.publish_after(item.uri, since)).diagnostics)

    async def change(
        self, path: Path, version: int, *changes: types.TextDocumentContentChangeEvent
    ) -> types.PublishDiagnosticsParams:
        since = len(self.published)
        document = types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version)
        self.text_document_did_change(types.DidChangeTextDocumentParams(document, list(changes)))
        return await self.publish_after(path.as_uri(), since)


def _record_publish(client: Editor, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)


def _record_registration(client: Editor, params: types.RegistrationParams) -> None:
    client.registrations.extend(params.registrations)


def _make_editor() -> Editor:
    client = Editor(converter_factory=default_converter)
    client.published, client.registrations = [], []
    features = {
        **DEFAULT_CLIENT_FEATURES,
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _record_publish,
        types.CLIENT_REGISTER_CAPABILITY: _record_registration,
    }
    register_lsp_features(client, features)
    return client


StartEditor = Callable[..., "asyncio.Future[Editor]"]


@pytest_asyncio.fixture
async def start_editor(tmp_path: Path) -> AsyncIterator[StartEditor]:
    """Start a server and initialize it as ``client`` (a pytest-lsp client profile, or the
    ``capabilities`` given) with the given workspace folders; every server started is shut down at
    the end of the test."""
    started: list[Editor] = []

    async def start(
        *folders: Path,
        client: str = "visual-studio-code",
        env: dict[str, str] | None = None,
        capabilities: types.ClientCapabilities | None = None,
    ) -> Editor:
        environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), **(env or {})}
        config = ClientServerConfig(
            [CONSOLE_SCRIPT, "server"], client_factory=_make_editor, server_env=environment
        )
        editor = await config.start()
        started.append(editor)
        workspace = [types.WorkspaceFolder(folder.as_uri(), folder.name) for folder in folders]
        params = types.InitializeParams(
            capabilities=capabilities or client_capabilities(client), workspace_folders=workspace
        )
        await asyncio.wait_for(editor.initialize_session(params), TIMEOUT)
        return editor

    yield start
    for editor in started:
        if editor._server is not None and editor._server.returncode is None:
            await asyncio.wait_for(editor.shutdown_session(), TIMEOUT)
        await editor.stop()


def cli(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The console script with ``args``; ``check`` runs skip the findings cache."""
    args = ("check", "--no-cache", *args[1:]) if args[0] == "check" else args
    return subprocess.run([CONSOLE_SCRIPT, *args], capture_output=True, text=True, cwd=cwd, input=stdin)


def spans(diagnostics: list[types.Diagnostic]) -> list[tuple[str, tuple[int, int, int, int]]]:
    """Each diagnostic's code and range as (line, character, end line, end character)."""
    return [
        (str(d.code), (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character))
        for d in diagnostics
    ]


def apply_edit(text: str, edit: types.WorkspaceEdit) -> str:
    """``text`` with a workspace edit's text edits applied, as an editor applies them (last first;
    columns in UTF-16 units, the test clients' encoding; lines end at line breaks only, not at form
    feeds)."""
    edits = [e for change in edit.document_changes or [] for e in change.edits]
    edits += [e for changes in (edit.changes or {}).values() for e in changes]
    lines = split_lines(text, keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        units = 0
        for index, char in enumerate(lines[position.line]):
            if units >= position.character:
                return starts[position.line] + index
            units += 2 if ord(char) > 0xFFFF else 1
        return starts[position.line + 1]

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end) :]
    return text
