"""Every use of pygls' private names, in one place, each with why.

pygls 2 has no public way to do a few things the server needs: answer a request with
an error outside a handler, fail one of its own requests whose answer is unreadable,
stamp a request before its handler is scheduled, drop the futures it files for
notifications, choose the class of its documents, install another workspace, and
read stdio from a pipe in one go. Other modules use the public names below; a pygls
release that renames its internals breaks this module alone.

Tested with pygls 2.1.1 and lsprotocol 2025.0.0; pyproject.toml keeps pygls below 3.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Callable
from typing import Any, BinaryIO, TypeVar, cast

from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.workspace import TextDocument, Workspace

log = logging.getLogger(__name__)

P = TypeVar("P", bound=LanguageServerProtocol)


def bind_protocol(cls: type[P], **kwargs: Any) -> type[P]:
    """`cls` with arguments of its own, to pass as a server's `protocol_cls`.

    pygls only ever calls `protocol_cls(server, converter)`; a partial adds the rest.
    """
    return cast("type[P]", functools.partial(cls, **kwargs))


class Protocol(LanguageServerProtocol):
    """pygls' protocol with the private parts the server uses behind public names."""

    @property
    def shutting_down(self) -> bool:
        """True once `shutdown` was answered."""
        # pygls sets `_shutdown` when it answers `shutdown`, and has no reader for it.
        return self._shutdown

    def set_workspace(self, workspace: Workspace) -> None:
        """Serve documents from `workspace` from now on (call from `initialize`)."""
        # pygls makes its own Workspace in `initialize`, just before the server's
        # handler runs, and keeps it in `_workspace`, with no setter.
        self._workspace = workspace

    def send_error(self, msg_id: Any, error: JsonRpcException) -> None:
        """Answer request `msg_id` with `error`, outside any handler."""
        # pygls answers with an error only on its own paths, through `_send_response`.
        self._send_response(msg_id, None, error.to_response_error())

    def fail_request(self, msg_id: Any, error: JsonRpcException) -> None:
        """Fail the server's own pending request `msg_id`, so nothing awaits it forever."""
        # pygls files the future of each request it sends in `_request_futures`.
        future = self._request_futures.pop(msg_id, None)
        if future is not None and not future.done():
            future.set_exception(error)

    def request_received(self, params: Any) -> None:
        """Runs as each request is read, before pygls schedules its handler; for subclasses."""

    def _handle_request(self, msg_id: Any, method_name: str, params: Any) -> None:
        # pygls has no hook between reading a request and scheduling its handler, and
        # the handler runs in a copy of this context: what is set here travels with it.
        self.request_received(params)
        super()._handle_request(msg_id, method_name, params)

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        # pygls files the future of a generator or async handler in _request_futures
        # (for $/cancelRequest) under an id, and only a request's answer takes it out:
        # the future of every notification handled by a generator (didOpen, didChange,
        # didClose: pygls' own handlers are generators) stays there for good, about
        # 0.4 KB a keystroke. It goes as soon as the handler is done. (A cancelled one
        # stays: pygls cancels them while iterating the table, at shutdown, and pops
        # them itself for $/cancelRequest.)
        def done(future: Any) -> None:
            if not future.cancelled() and self._request_futures.get(msg_id) is future:
                del self._request_futures[msg_id]
            callback(future)

        super()._execute_handler(msg_id, handler, done, args, kwargs)


class DocumentWorkspace(Workspace):
    """pygls' Workspace, making its documents with `make_document`."""

    def make_document(
        self, uri: str, source: str | None, version: int | None, language_id: str | None
    ) -> TextDocument:
        """The document for a didOpen (or a lookup of an unknown URI); for subclasses."""
        raise NotImplementedError

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        # pygls makes every document here and has no public way to choose its class.
        return self.make_document(doc_uri, source, version, language_id)


def serve_pipe(
    server: LanguageServer,
    stdin: BinaryIO,
    stdout: BinaryIO,
    *,
    on_reader: Callable[[asyncio.StreamReader], None],
) -> None:
    """pygls' stdio loop, reading `stdin` (a pipe) through asyncio's StreamReader.

    Args:
        on_reader: called with the reader once it reads the pipe, before any message.
    """
    # pygls' shutdown() ends its loop by setting `_stop_event`.
    server._stop_event = stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout))

    async def serve() -> None:
        reader = asyncio.StreamReader()
        loop = asyncio.get_running_loop()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
        on_reader(reader)
        await run_async(
            stop_event=stop_event,
            reader=reader,
            protocol=server.protocol,
            logger=log,
            error_handler=server.report_server_error,
        )

    try:
        asyncio.run(serve())
    except BrokenPipeError:
        log.error("the client closed the connection; stopping")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
