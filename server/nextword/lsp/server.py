"""The pygls language server: lsprotocol in, a call into the sessions, lsprotocol out.

No model code here: engine work goes to the inference worker (worker.py) through
the per-document sessions (sessions.py); settings are parsed by settings.py. The
names of nextword's own requests, commands and notification, and the model's
state ("loading", "ready", "failed") that clients read, are in names.py.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import logging
import os
import stat
import sys
import time
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import FeatureNotificationError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from nextword import __version__
from nextword.engine import DEFAULT_MODEL, ModelError, Router, resolve
from nextword.lsp import items
from nextword.lsp.backlog import InputBacklog
from nextword.lsp.documents import LspTextDocument, LspWorkspace
from nextword.lsp.logs import apply_log_level, attach_client_log
from nextword.lsp.names import (
    CHECKSUM_REQUEST,
    FORGET_COMMAND,
    LEARNING_STATUS_COMMAND,
    PROGRESS_TOKEN,
    SECTION,
    STATE_CAPABILITY,
    STATE_NOTIFICATION,
    STATS_COMMAND,
    STATS_REQUEST,
    ModelState,
)
from nextword.lsp.protocol import NextwordProtocol, received_at, received_generation
from nextword.lsp.pygls_seam import bind_protocol, serve_pipe
from nextword.lsp.sessions import Sessions
from nextword.lsp.settings import PROSE_LANGUAGES, Settings, parse_settings
from nextword.lsp.stats import ServerStats
from nextword.lsp.worker import InferenceWorker
from nextword.process import leave

log = logging.getLogger(__name__)

# Edits arrive as ranges; documents.py applies them.
SYNC_KIND = types.TextDocumentSyncKind.Incremental


class NextwordServer(LanguageServer):
    """The server state the handlers share: settings, sessions, worker, stats."""

    protocol: NextwordProtocol

    def __init__(self, *, model_override: str | None = None) -> None:
        self.model_override = model_override  # `--model` wins over the client's setting
        self.settings = Settings()
        self.stats = ServerStats()
        self.worker = InferenceWorker()
        self.sessions = Sessions(self.worker, self.stats, self.settings)
        super().__init__(
            name="nextword",
            version=__version__,
            text_document_sync_kind=SYNC_KIND,
            protocol_cls=bind_protocol(NextwordProtocol, generation=self.sessions.generation),
        )
        self.progress_token: types.ProgressToken | None = None
        self.loading: asyncio.Future[Any] | None = None
        self.state: ModelState = "loading"
        self.state_listener = False  # the client opted in to STATE_NOTIFICATION
        self._reported_error = False

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
        models = (self.model_dir(self.settings), self.settings.chineseModel)
        if models != (self.model_dir(old), old.chineseModel) and self.loading is not None:
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
        """Load (or reload) the chosen model on the worker; requests get empty answers meanwhile.

        A model that fails to load never takes the server down: the user's own model
        falls back to the bundled one, and a bundled model that fails leaves the server
        answering every request with no completions. Either way a message says why.
        """
        self._load(self.model_dir(self.settings), time.perf_counter())

    def _load(self, model: str | None, started: float) -> None:
        """Start loading `model` (None: the bundled default); a newer load supersedes it."""
        self.sessions.set_engine(None)
        self._set_state("loading")

        chinese = self.settings.chineseModel

        def load() -> Any:
            return Router.load(model, chinese)

        self.loading = asyncio.wrap_future(self.worker.submit(load, key="engine"))
        self.loading.add_done_callback(lambda f: self._loaded(f, model, started))

    def _loaded(self, future: asyncio.Future[Any], model: str | None, started: float) -> None:
        if future is not self.loading or future.cancelled():
            return  # a newer load replaced this one
        error = future.exception()
        if error is None:
            engine = future.result()
            self.sessions.set_engine(engine)
            # The engine's ~27,000 long-lived containers (word lists, indexes, tables)
            # make each full pass of the cyclic collector cost ~17 ms, in the middle of
            # whatever request triggers it; frozen, a full pass costs ~0.2 ms. Freed by
            # reference counting as before when a reload replaces them.
            gc.freeze()
            for problem in engine.problems:  # an optional model (Chinese) that failed
                self._show_error(f"{problem}. Fix or remove the `nextword.chineseModel` setting.")
            log.info(
                "model %s ready in %.2f s (load + warm-up %.2f s)",
                engine.loaded.path,
                time.perf_counter() - started,
                engine.load_seconds,
            )
            chosen = self.model_dir(self.settings)
            if model != chosen:
                log.warning(
                    "serving completions from the bundled model %s, not %s, which failed",
                    engine.loaded.path,
                    chosen,
                )
            self._set_state("ready")
            self._end_progress("model ready")
            return
        # Anything the loader did not foresee is reported the same way: a bug in a
        # model's code must not cost the user their completions or the server.
        expected = isinstance(error, ModelError)
        text = str(error) if expected else f"model failed: {error!r}"
        log.error(text, exc_info=None if expected else error)  # a bug's traceback, for its report
        if not self._is_default(model):
            self._show_error(
                f"{text}. Fix or remove {self._model_source()}; "
                "completions come from the bundled model meanwhile."
            )
            # The progress stays open: it ends when the bundled model is ready (or not).
            self._load(None, started)
            return
        self._show_error(
            f"{text}. No completions until this is fixed (reinstall nextword, or set "
            "`nextword.model` to a working model)."
        )
        self._set_state("failed")
        self._end_progress("model failed to load")

    @staticmethod
    def _is_default(model: str | None) -> bool:
        # Compared resolved, so a setting that names the bundled directory is not retried.
        return resolve(model).resolve() == DEFAULT_MODEL.resolve()

    def _model_source(self) -> str:
        """Where the failing model was chosen, so the message says what to change."""
        if self.model_override:
            return "the `--model` argument of `nextword serve`"
        return "the `nextword.model` setting"

    def _show_error(self, text: str) -> None:
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=f"nextword: {text}")
        )

    def _set_state(self, state: ModelState) -> None:
        changed, self.state = state != self.state, state
        if changed and self.state_listener:
            self.notify_state()

    def notify_state(self) -> None:
        self.protocol.notify(STATE_NOTIFICATION, {"state": self.state})

    def _end_progress(self, message: str) -> None:
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

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve stdio; a pipe is read through asyncio's pipe reader.

        pygls reads stdin with a thread-pool call per header line and per body: about
        three thread hops per message, ~0.3 ms, which a client sending flat out turns
        into a queue the newest request waits behind. asyncio's StreamReader reads
        what the pipe holds in one go. Anything that is not a pipe (a file, a tty)
        keeps pygls' reader.
        """
        stdin = stdin or sys.stdin.buffer
        if not stat.S_ISFIFO(os.fstat(stdin.fileno()).st_mode):
            super().start_io(stdin, stdout)
            return

        def read_ahead(reader: asyncio.StreamReader) -> None:
            self.sessions.backlog = InputBacklog(reader, stdin.fileno()).pending

        serve_pipe(self, stdin, stdout or sys.stdout.buffer, on_reader=read_ahead)

    def document(self, uri: str) -> LspTextDocument | None:
        """The open document at `uri`; None for one the client never opened."""
        workspace = self.workspace
        return workspace.opened(uri) if isinstance(workspace, LspWorkspace) else None

    def shutdown(self) -> None:
        # However the server ends (shutdown request, exit, the client gone), what was
        # learned with consent is saved.
        self.sessions.learner.flush()
        super().shutdown()

    def report_server_error(self, error: Exception, source: Any) -> None:
        # pygls shows internal errors in a popup. An unreadable message from the client
        # is not the user's business (and request errors are answered), and a failing
        # notification handler would pop one up per keystroke: log them all, and show
        # the first failing handler once.
        # The type only: an exception's message may quote the message it choked on.
        log.error(
            "internal error (%s): %s", getattr(source, "__name__", source), type(error).__name__
        )
        if source is FeatureNotificationError and not self._reported_error:
            self._reported_error = True
            self.warn("nextword: an internal error occurred and was skipped; see the server log")


def prefix_range(doc: LspTextDocument, position: types.Position, prefix: str) -> types.Range:
    """From the start of the typed prefix to the cursor, in the client's units."""
    units = doc.position_codec.client_num_units(prefix)
    return types.Range(types.Position(position.line, position.character - units), position)


server = NextwordServer()


def make_server(*, model_override: str | None = None) -> NextwordServer:
    server.model_override = model_override
    return server


@server.feature(types.INITIALIZE)
def initialize(ls: NextwordServer, params: types.InitializeParams) -> None:
    # pygls has just made the workspace; swap in one that splits lines as editors do.
    ls.protocol.set_workspace(LspWorkspace.like(ls.workspace, SYNC_KIND))
    attach_client_log(ls)
    ls.sessions.learner.workspace = workspace_root(params)
    ls.apply_settings(params.initialization_options)
    ls.load_model()
    if params.work_done_token is not None:
        ls.begin_progress(params.work_done_token)


def workspace_root(params: types.InitializeParams) -> str | None:
    """The client's workspace root URI (its first folder), keying a workspace's store."""
    if params.workspace_folders:
        return params.workspace_folders[0].uri
    return params.root_uri


@server.feature(types.INITIALIZED)
async def initialized(ls: NextwordServer, params: types.InitializedParams) -> None:
    caps = ls.client_capabilities
    if isinstance(caps.experimental, dict) and caps.experimental.get(STATE_CAPABILITY) is True:
        # From now on each change of state is sent; this is the state so far.
        ls.state_listener = True
        ls.notify_state()
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
    doc = ls.document(uri)
    if doc is not None:
        ls.sessions.changed(uri, doc, params.content_changes)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: NextwordServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.sessions.close(params.text_document.uri)


@server.feature(
    types.TEXT_DOCUMENT_COMPLETION,
    types.CompletionOptions(trigger_characters=items.TRIGGER_CHARACTERS, resolve_provider=False),
)
async def completion(ls: NextwordServer, params: types.CompletionParams) -> types.CompletionList:
    # From when the request was read, not when its task began: the wait counts.
    started = received_at.get() or time.perf_counter()
    uri, position = params.text_document.uri, params.position
    session, doc = ls.sessions.get(uri), ls.document(uri)
    context = params.context
    if doc is not None:
        position = doc.clamp(position)
    if (
        session is None
        or doc is None
        or not ls.ready()
        or (
            context is not None
            and context.trigger_kind == types.CompletionTriggerKind.TriggerCharacter
            and session.language_id not in PROSE_LANGUAGES
        )
    ):
        return items.completion_list([], "", types.Range(position, position))
    answer = await ls.sessions.candidates(
        uri,
        doc,
        position,
        ls.settings.k,
        generation=received_generation.get(),
        correct=ls.settings.corrects(session.language_id),
    )
    prefix = answer.prefix
    # The engine's list ends with the words only ghost text reads (items.inline_list).
    popup = items.offered(answer.candidates, prefix)[: ls.settings.k]
    result = items.completion_list(popup, prefix, prefix_range(doc, position, prefix))
    ls.stats.latency(uri, (time.perf_counter() - started) * 1000, boundary=answer.boundary)
    return result


@server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())
async def inline_completion(
    ls: NextwordServer, params: types.InlineCompletionParams
) -> types.InlineCompletionList:
    uri, position = params.text_document.uri, params.position
    doc = ls.document(uri)
    if doc is not None:
        position = doc.clamp(position)
    session = ls.sessions.get(uri)
    if doc is None or not ls.settings.inline or not ls.ready() or session is None:
        return items.inline_list([], types.Range(position, position))
    # Asked as the popup asks, so both rank alike; inline_list passes over corrections
    # (ghost text only appends), and a correction found spares a needless spelling.
    generation = received_generation.get()
    answer = await ls.sessions.candidates(
        uri,
        doc,
        position,
        ls.settings.k,
        generation=generation,
        kind="inline",
        correct=ls.settings.corrects(session.language_id),
    )
    # The phrase, where one is held for this position (searched after the decision).
    phrase = await ls.sessions.phrase(uri, doc, position, generation=generation)
    prefix = answer.prefix
    return items.inline_list(
        answer.candidates,
        prefix_range(doc, position, prefix),
        prefix=prefix,
        phrase=phrase,
    )


def stats_report(ls: NextwordServer) -> dict[str, Any]:
    """The counters and latencies (stats.py), the deciders alive and the model's state."""
    return {
        **ls.stats.report(),
        "liveDeciders": ls.sessions.live_deciders(),
        "state": ls.state,
        "gcFrozen": gc.get_freeze_count(),
    }


@server.feature(STATS_REQUEST)
def stats_request(ls: NextwordServer, params: Any) -> dict[str, Any]:
    return stats_report(ls)


@server.command(STATS_COMMAND)
def stats_command(ls: NextwordServer, *args: Any) -> dict[str, Any]:
    return stats_report(ls)


@server.command(LEARNING_STATUS_COMMAND)
def learning_status(ls: NextwordServer, *args: Any) -> dict[str, Any]:
    """What learning has stored: counts, sizes, places; never the words."""
    return ls.sessions.learner.status()


@server.command(FORGET_COMMAND)
def forget(ls: NextwordServer, *args: Any) -> dict[str, Any]:
    """Delete what was learned: everything, or ("workspace") this workspace's store."""
    try:
        return ls.sessions.learner.forget(args[0] if args else None)
    except ValueError as err:
        raise JsonRpcInvalidParams(str(err)) from None


@server.feature(CHECKSUM_REQUEST)
def document_checksum(ls: NextwordServer, params: Any) -> dict[str, Any]:
    """sha256 of the server's copy of a document, to check it against the client's."""
    uri = params.get("uri") if isinstance(params, dict) else getattr(params, "uri", None)
    if not isinstance(uri, str):
        raise JsonRpcInvalidParams(f'{CHECKSUM_REQUEST} wants {{"uri": "..."}}')
    doc = ls.document(uri)
    if doc is None:
        raise JsonRpcInvalidParams(f"{uri} is not open")
    source = doc.source
    return {
        "uri": uri,
        "version": doc.version,
        # surrogatepass: a client may send lone surrogates (JSON allows "\ud83d").
        "sha256": hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest(),
        "length": len(source),
    }


# How long `shutdown` waits for the job on the inference worker (a model load under
# load can take seconds): the client waits for the answer anyway.
SHUTDOWN_WAIT_S = 15.0


@server.feature(types.SHUTDOWN)
def shutdown(ls: NextwordServer, params: Any) -> None:
    ls.worker.shutdown(SHUTDOWN_WAIT_S)
    ls.sessions.learner.flush()


@server.feature(types.EXIT)
def exit_now(ls: NextwordServer, params: Any) -> None:
    # Leave here, with the code LSP asks for, whatever the inference worker is doing
    # (a model load, a decision, a slide): see nextword.process. Every answer already
    # went out; what was learned with consent is saved first.
    ls.sessions.learner.flush()
    leave(0 if ls.protocol.shutting_down else 1)
