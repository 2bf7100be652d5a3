"""One editor session: the open documents, the workspace folders they belong to, and the answers to
each LSP message, built from the scheduler's outcome for the document's current version."""

from __future__ import annotations

import gc
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcContentModified
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from torchperf_lint.server import actions, linting, rule_pages
from torchperf_lint.server.diagnostics import SOURCE, to_lsp
from torchperf_lint.server.documents import Document, Documents
from torchperf_lint.server.hover import hover
from torchperf_lint.server.linting import Outcome, Snapshot
from torchperf_lint.server.positions import LineIndex
from torchperf_lint.server.scheduling import Scheduler

logger = logging.getLogger(__name__)

CONFIG_NAME = "pyproject.toml"
_WATCHER_ID = "torchperf-lint-pyproject"


class Session:
    def __init__(self, server: LanguageServer) -> None:
        self._server = server
        self.documents = Documents()
        self._scheduler = Scheduler(linting.lint, self._publish)
        self._pages: dict[str, str] = {}
        self._problems_shown: set[str] = set()
        #: Documents the client holds diagnostics of ours for: only these are cleared on close.
        self._published: set[str] = set()
        self.shut_down = False

    # Life cycle

    def initialize(self) -> None:
        self._pages = rule_pages.write_pages()  # loads every rule pack
        # What is alive now (modules, rule classes, LSP types) lives as long as the process. Frozen,
        # it stays out of the collector's full passes, which otherwise walk all of it in the middle
        # of a lint, most often the one after a large file's.
        gc.freeze()

    async def initialized(self) -> None:
        """Ask the client to report ``pyproject.toml`` changes, when it can watch files for us."""
        if not self._capability("workspace.did_change_watched_files.dynamic_registration"):
            return
        watcher = types.FileSystemWatcher(glob_pattern=f"**/{CONFIG_NAME}")
        registration = types.Registration(
            id=_WATCHER_ID,
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[watcher]),
        )
        try:
            await self._server.client_register_capability_async(types.RegistrationParams([registration]))
        except Exception as error:  # the client refused: saving a pyproject.toml still reloads it
            logger.warning("the client did not register the pyproject.toml watcher: %s", error)

    def shutdown(self) -> None:
        self.shut_down = True
        self._scheduler.close()

    # Documents

    def opened(self, params: types.DidOpenTextDocumentParams) -> None:
        document = self.documents.open(params.text_document)
        if document.is_python:
            self._scheduler.submit(self._snapshot(document))

    def changed(self, params: types.DidChangeTextDocumentParams) -> None:
        document = self.documents.get(params.text_document.uri)
        if document is None:
            logger.warning("change to %s, which is not open", params.text_document.uri)
            return
        document.apply(list(params.content_changes), params.text_document.version, self._encoding)
        if document.is_python:
            self._scheduler.submit(self._snapshot(document), debounce=True)

    def saved(self, params: types.DidSaveTextDocumentParams) -> None:
        document = self.documents.get(params.text_document.uri)
        if document is not None and document.name == CONFIG_NAME:
            self._reload()
        elif document is not None and document.is_python:
            self._scheduler.submit(self._snapshot(document))

    def closed(self, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        self.documents.close(uri)
        self._scheduler.forget(uri)
        if uri in self._published:
            self._published.discard(uri)
            self._server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def watched_files_changed(self, params: types.DidChangeWatchedFilesParams) -> None:
        if any(change.uri.endswith(f"/{CONFIG_NAME}") for change in params.changes):
            self._reload()

    def folders_changed(self) -> None:
        """A folder came or went: documents may now belong to another one (whose project applies)."""
        for document in self.documents.python():
            self._scheduler.submit(self._snapshot(document))

    # Requests

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        found = await self._outcome(params.text_document.uri)
        if found is None:
            return None
        outcome, index = found
        offered = actions.offered(outcome, index, params.range, params.context.only, self._pages)
        if "edit" in self._capability("text_document.code_action.resolve_support.properties", []):
            return offered
        resolved = [await self._resolve(action, outcome, index, quiet=True) for action in offered]
        return [action for action in resolved if action.edit is not None]

    async def resolve_code_action(self, action: types.CodeAction) -> types.CodeAction:
        data = action.data
        if not (
            isinstance(data, dict) and data.get("action") in (actions.FIX, actions.NOQA, actions.EVERY_SAFE_FIX)
        ):
            return action
        document = self.documents.get(data["uri"])
        if document is None or document.version != data["version"]:
            raise JsonRpcContentModified(f"{data['uri']} changed since the action was offered")
        found = await self._outcome(document.uri)
        if found is None:
            return action
        return await self._resolve(action, *found, quiet=False)

    async def hover(self, params: types.HoverParams) -> types.Hover | None:
        found = await self._outcome(params.text_document.uri)
        if found is None:
            return None
        formats = self._capability("text_document.hover.content_format", [])
        return hover(*found, params.position, markdown=types.MarkupKind.Markdown in formats)

    # Helpers

    async def _outcome(self, uri: str) -> tuple[Outcome, LineIndex] | None:
        """The current version's outcome, with the index its positions convert through."""
        document = self.documents.get(uri)
        if document is None or not document.is_python:
            return None
        outcome = await self._scheduler.outcome(self._snapshot(document))
        return outcome, LineIndex(outcome.snapshot.text, self._encoding)

    async def _resolve(
        self, action: types.CodeAction, outcome: Outcome, index: LineIndex, *, quiet: bool
    ) -> types.CodeAction:
        text = await self._scheduler.run(actions.new_text, outcome, action.data)
        if text is not None:
            versioned = bool(self._capability("workspace.workspace_edit.document_changes"))
            action.edit = actions.workspace_edit(outcome, index, text, versioned)
        elif not quiet:
            message = f"{SOURCE}: {actions.why_not(action.data)}"
            self._server.window_show_message(types.ShowMessageParams(types.MessageType.Warning, message))
        return action

    def _snapshot(self, document: Document) -> Snapshot:
        path = document.path
        folder = self._folder_for(path)
        return Snapshot(document.uri, document.version, document.text, path or folder / document.name, folder)

    def _folder_for(self, path: Path | None) -> Path:
        """The innermost workspace folder holding ``path``: what the command line would run from.
        A file outside every folder is linted as from its own folder; an untitled buffer as from
        the first workspace folder."""
        folders = self._folders()
        if path is None:
            return folders[0] if folders else Path.cwd()
        holding = [folder for folder in folders if path.is_relative_to(folder)]
        return max(holding, key=lambda folder: len(folder.parts)) if holding else path.parent

    def _folders(self) -> list[Path]:
        workspace = self._server.workspace
        uris = list(workspace.folders) or ([workspace.root_uri] if workspace.root_uri else [])
        paths = [to_fs_path(uri) for uri in uris]
        return [Path(path) for path in paths if path]

    def _publish(self, outcome: Outcome) -> None:
        snapshot = outcome.snapshot
        if self.documents.get(snapshot.uri) is None:
            return  # closed while it was being linted
        if outcome.reloaded:
            self._reload()  # the other documents' findings came from the old configuration
            return
        if outcome.problem is not None and outcome.problem not in self._problems_shown:
            self._problems_shown.add(outcome.problem)
            message = f"{SOURCE}: {outcome.problem}"
            self._server.window_show_message(types.ShowMessageParams(types.MessageType.Error, message))
        index = LineIndex(snapshot.text, self._encoding)
        diagnostics = [to_lsp(finding, index, self._pages) for finding in outcome.findings]
        params = types.PublishDiagnosticsParams(
            uri=snapshot.uri, diagnostics=diagnostics, version=snapshot.version
        )
        self._server.text_document_publish_diagnostics(params)
        self._published.add(snapshot.uri)

    def _reload(self) -> None:
        """A configuration changed: read every ``pyproject.toml`` again and re-lint what is open."""
        self._problems_shown.clear()
        self._scheduler.restart(linting.reload)
        for document in self.documents.python():
            self._scheduler.submit(self._snapshot(document))

    def _capability(self, field: str, default: Any = None) -> Any:
        return get_capability(self._server.client_capabilities, field, default)

    @property
    def _encoding(self) -> str:
        return self._server.workspace.position_encoding or types.PositionEncodingKind.Utf16
