"""The wiring: a pygls language server whose every LSP message is handed to the session."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from torchperf_lint import __version__
from torchperf_lint.server import actions
from torchperf_lint.server.session import Session


class _Protocol(LanguageServerProtocol):
    """pygls' protocol without its own copy of each document: the session keeps the only one (see
    ``documents``), so these three notifications only reach the handlers registered for them."""

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Generator[Any, Any, None]:
        yield from self._to_handler(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        yield from self._to_handler(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Generator[Any, Any, None]:
        yield from self._to_handler(types.TEXT_DOCUMENT_DID_CLOSE, params)

    def _to_handler(self, method: str, params: object) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(method)) is not None:
            yield handler, (params,), None


def create_server() -> tuple[LanguageServer, Session]:
    server = LanguageServer(
        "torchperf-lint",
        __version__,
        protocol_cls=_Protocol,
        text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
    )
    session = Session(server)

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        session.initialize()

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        await session.initialized()

    @server.feature(types.SHUTDOWN)
    def shutdown(params: None) -> None:
        session.shutdown()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        session.opened(params)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        session.changed(params)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        session.saved(params)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        session.closed(params)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files_changed(params: types.DidChangeWatchedFilesParams) -> None:
        session.watched_files_changed(params)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(params: types.DidChangeWorkspaceFoldersParams) -> None:
        session.folders_changed()

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=list(actions.KINDS), resolve_provider=True),
    )
    async def code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        return await session.code_actions(params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve_code_action(action: types.CodeAction) -> types.CodeAction:
        return await session.resolve_code_action(action)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(params: types.HoverParams) -> types.Hover | None:
        return await session.hover(params)

    return server, session
