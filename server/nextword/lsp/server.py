"""The pygls language server: lsprotocol in, a call into the sessions, lsprotocol out.

No model code here: engine work goes to the inference worker (worker.py) through
the per-document sessions (sessions.py); settings are parsed by settings.py.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import logging
import time
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from nextword import __version__
from nextword.lsp import items
from nextword.lsp.documents import LspWorkspace
from nextword.lsp.logs import apply_log_level, attach_client_log
from nextword.lsp.sessions import Sessions
from nextword.lsp.settings import PROSE_LANGUAGES, Settings, parse_settings
from nextword.lsp.stats import ServerStats
from nextword.lsp.worker import InferenceWorker

log = logging.getLogger(__name__)

STATS_REQUEST = "nextword/stats"
STATS_COMMAND = "nextword.stats"
CHECKSUM_REQUEST = "nextword/documentChecksum"
SECTION = "nextword"  # the workspace/configuration section
PROGRESS_TOKEN = "nextword/load"


# The document's generation when a request arrived (see NextwordProtocol).
received_generation: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "received_generation", default=None
)


class NextwordProtocol(LanguageServerProtocol):
    """pygls' protocol, stamping each request with its document's generation on arrival.

    pygls starts an async handler on a later loop turn, after notifications read in
    the same batch have run: a keystroke sent after a completion request would
    otherwise change the text under the request before it looks, and the answer,
    computed for a position that has moved, would be stale.
    """

    def _handle_request(self, msg_id: Any, method_name: str, params: Any) -> None:
        document = getattr(params, "text_document", None)
        uri = getattr(document, "uri", None)
        server = self._server
        if uri is not None and isinstance(server, NextwordServer):
            # Handlers run in a copy of this context, so the stamp travels with the task.
            received_generation.set(server.sessions.generation(uri))
        super()._handle_request(msg_id, method_name, params)


class NextwordServer(LanguageServer):
    """The server state the handlers share: settings, sessions, worker, stats."""

    def __init__(self, *, model_override: str | None = None) -> None:
        super().__init__(name="nextword", version=__version__, protocol_cls=NextwordProtocol)
        self.model_override = model_override  # `--model` wins over the client's setting
        self.settings = Settings()
        self.stats = ServerStats()
        self.worker = InferenceWorker()
        self.sessions = Sessions(self.worker, self.stats, self.settings)
        self.progress_token: types.ProgressToken | None = None
        self.loading: asyncio.Future[Any] | None = None
        self._pending_messages: list[str] = []

    # -- settings -----------------------------------------------------------------

    def apply_settings(self, raw: Any) -> None:
        """Validate settings from the client; show each problem; reload what changed."""
        if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
            raw = raw[SECTION]
        old = self.settings
        self.settings, errors = parse_settings(raw, base=old)
        for message in errors:
            self.warn(message)
        apply_log_level(self.settings.logLevel)
        self.sessions.configure(self.settings)
        if self.model_dir(self.settings) != self.model_dir(old) and self.loading is not None:
            self.load_model()

    def model_dir(self, settings: Settings) -> str | None:
        return self.model_override or settings.model

    def warn(self, message: str) -> None:
        log.warning(message)
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        )

    # -- the model ------------------------------------------------------------------

    def load_model(self) -> None:
        """Load (or reload) the model on the worker; requests get empty answers meanwhile."""
        model = self.model_dir(self.settings)
        self.sessions.set_engine(None)
        started = time.perf_counter()

        def load() -> Any:
            from nextword.engine import Engine  # imported on the worker: MLX lives there

            return Engine.load(model)

        self.loading = asyncio.wrap_future(self.worker.submit(load, key="engine"))
        self.loading.add_done_callback(lambda f: self._loaded(f, started))

    def _loaded(self, future: asyncio.Future[Any], started: float) -> None:
        from nextword.loader import ModelError

        if future is not self.loading or future.cancelled():
            return  # a newer load replaced this one
        error = future.exception()
        if error is None:
            engine = future.result()
            self.sessions.set_engine(engine)
            log.info(
                "model %s ready in %.2f s (load + warm-up %.2f s)",
                engine.loaded.path,
                time.perf_counter() - started,
                engine.load_seconds,
            )
            message = "model ready"
        else:
            text = str(error) if isinstance(error, ModelError) else f"model failed: {error!r}"
            log.error(text)
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Error, message=f"nextword: {text}")
            )
            message = "model failed to load"
        if self.progress_token is not None:
            self.work_done_progress.end(
                self.progress_token, types.WorkDoneProgressEnd(message=message)
            )
            self.progress_token = None

    def begin_progress(self, token: types.ProgressToken) -> None:
        self.progress_token = token
        self.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title="nextword", message="loading the model")
        )

    def ready(self) -> bool:
        return self.sessions.engine is not None

    def prefix_range(self, position: types.Position, prefix: str, uri: str) -> types.Range:
        """From the start of the typed prefix to the cursor, in the client's units."""
        doc = self.workspace.get_text_document(uri)
        units = doc.position_codec.client_num_units(prefix)
        return types.Range(types.Position(position.line, position.character - units), position)


server = NextwordServer()


def make_server(*, model_override: str | None = None) -> NextwordServer:
    server.model_override = model_override
    return server


@server.feature(types.INITIALIZE)
def initialize(ls: NextwordServer, params: types.InitializeParams) -> None:
    # pygls has just made the workspace; swap in one that splits lines as editors do.
    ls.protocol._workspace = LspWorkspace.like(ls.workspace, ls._text_document_sync_kind)
    attach_client_log(ls)
    ls.apply_settings(params.initialization_options)
    ls.load_model()
    if params.work_done_token is not None:
        ls.begin_progress(params.work_done_token)


@server.feature(types.INITIALIZED)
async def initialized(ls: NextwordServer, params: types.InitializedParams) -> None:
    caps = ls.client_capabilities
    window = caps.window
    if (
        ls.progress_token is None
        and window is not None
        and window.work_done_progress
        and ls.loading is not None
        and not ls.loading.done()
    ):
        # The client did not pass a token with initialize: make one for the load.
        await ls.work_done_progress.create_async(PROGRESS_TOKEN)
        if not ls.loading.done():
            ls.begin_progress(PROGRESS_TOKEN)
    await pull_configuration(ls)


async def pull_configuration(ls: NextwordServer) -> None:
    workspace = ls.client_capabilities.workspace
    if workspace is None or not workspace.configuration:
        return
    result = await ls.workspace_configuration_async(
        types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
    )
    if result and result[0] is not None:
        ls.apply_settings(result[0])


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(
    ls: NextwordServer, params: types.DidChangeConfigurationParams
) -> None:
    if params.settings:
        ls.apply_settings(params.settings)
    else:
        # An empty notification means "ask me" (the pull model).
        await pull_configuration(ls)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: NextwordServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.sessions.open(params.text_document.uri, params.text_document.language_id)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: NextwordServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    doc = ls.workspace.get_text_document(uri)
    ls.sessions.changed(uri, doc, params.content_changes)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: NextwordServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.sessions.close(params.text_document.uri)


@server.feature(
    types.TEXT_DOCUMENT_COMPLETION,
    types.CompletionOptions(trigger_characters=items.TRIGGER_CHARACTERS, resolve_provider=False),
)
async def completion(ls: NextwordServer, params: types.CompletionParams) -> types.CompletionList:
    started = time.perf_counter()
    uri, position = params.text_document.uri, params.position
    session = ls.sessions.get(uri)
    context = params.context
    if (
        session is None
        or not ls.ready()
        or (
            context is not None
            and context.trigger_kind == types.CompletionTriggerKind.TriggerCharacter
            and session.language_id not in PROSE_LANGUAGES
        )
    ):
        return items.completion_list([], types.Range(position, position))
    doc = ls.workspace.get_text_document(uri)
    prefix, found = await ls.sessions.candidates(
        uri, doc, position, ls.settings.k, generation=received_generation.get()
    )
    words = items.offered([c.text for c in found], prefix)
    probs = {c.text: c.prob for c in found}
    result = items.completion_list(
        [(w, probs[w]) for w in words], ls.prefix_range(position, prefix, uri)
    )
    ls.stats.latency(uri, (time.perf_counter() - started) * 1000)
    return result


@server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())
async def inline_completion(
    ls: NextwordServer, params: types.InlineCompletionParams
) -> types.InlineCompletionList:
    uri, position = params.text_document.uri, params.position
    if not ls.settings.inline or not ls.ready() or ls.sessions.get(uri) is None:
        return items.inline_list(None, types.Range(position, position))
    doc = ls.workspace.get_text_document(uri)
    prefix, found = await ls.sessions.candidates(
        uri, doc, position, 1, generation=received_generation.get()
    )
    words = items.offered([c.text for c in found], prefix)
    return items.inline_list(words[0] if words else None, ls.prefix_range(position, prefix, uri))


@server.feature(STATS_REQUEST)
def stats_request(ls: NextwordServer, params: Any) -> dict[str, Any]:
    return ls.stats.report()


@server.command(STATS_COMMAND)
def stats_command(ls: NextwordServer, *args: Any) -> dict[str, Any]:
    return ls.stats.report()


@server.feature(CHECKSUM_REQUEST)
def document_checksum(ls: NextwordServer, params: Any) -> dict[str, Any]:
    """sha256 of the server's copy of a document, to check it against the client's."""
    uri = params["uri"] if isinstance(params, dict) else params.uri
    doc = ls.workspace.get_text_document(uri)
    source = doc.source
    return {
        "uri": uri,
        "version": doc.version,
        "sha256": hashlib.sha256(source.encode("utf-8")).hexdigest(),
        "length": len(source),
    }


@server.feature(types.SHUTDOWN)
def shutdown(ls: NextwordServer, params: Any) -> None:
    ls.worker.shutdown()
