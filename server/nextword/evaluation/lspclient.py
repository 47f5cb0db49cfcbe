"""A JSON-RPC client for `nextword serve` over stdio: what `nextword bench` and the tests speak.

It frames and sends messages, well-formed or not, and a reader thread takes every
message the server sends: responses are kept by id until asked for, the server's own
requests are answered at once (null, or one null per `workspace/configuration` item),
notifications are counted and the window messages kept. Because the server's output
is always read, a client that writes many requests without waiting never fills both
pipes and stalls.

    with LspClient.spawn() as client:
        client.initialize({"throttleMs": 0})
        client.open_document(URI, "The history of the ")
        labels = client.labels(URI, types.Position(0, 19))
        code = client.shutdown()
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import IO, Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from nextword.errors import CommandError

# The real server, run by this interpreter.
SERVE = (sys.executable, "-m", "nextword", "serve")
TIMEOUT_S = 60.0  # for one answer: a ready server answers in milliseconds
WINDOW = ("window/logMessage", "window/showMessage")


class ResponseError(CommandError):
    """The server answered a request with an error."""

    def __init__(self, error: dict[str, Any]):
        super().__init__(f"server error: {error.get('message')}")
        self.code: int | None = error.get("code")
        self.error = error


@dataclass(frozen=True)
class Response:
    """One response, as it arrived."""

    id: Any
    result: Any
    error: dict[str, Any] | None
    received: float  # time.perf_counter() once it was read and parsed

    def value(self) -> Any:
        """The result; a ResponseError when the server answered with an error."""
        if self.error is not None:
            raise ResponseError(self.error)
        return self.result


class LspClient:
    """A JSON-RPC connection to a server process, over its pipes or given streams."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        *,
        reader: IO[bytes] | None = None,
        writer: IO[bytes] | None = None,
    ):
        """Args:
        proc: the server process (or the one wrapping it: strace, unshare).
        reader, writer: the streams to speak over (default: its stdout and stdin),
            e.g. a socket's file for `nextword serve --tcp`.
        """
        self.proc = proc
        reader = reader or proc.stdout
        writer = writer or proc.stdin
        assert reader is not None and writer is not None, "the process needs pipes"
        self._in: IO[bytes] = reader
        self._out: IO[bytes] = writer
        self.converter = get_converter()
        self.notifications: Counter[str] = Counter()
        self.server_requests: Counter[str] = Counter()  # what the server asked the client
        self.window: list[dict[str, Any]] = []  # window/logMessage and window/showMessage
        self.null_id_errors = 0  # error responses to messages with no usable id
        self._responses: dict[Any, Response] = {}
        self._methods: dict[int, str] = {}  # what each pending request asked, for errors
        self._next_id = 0
        self._closed: str | None = None  # why the reader stopped
        self._cond = threading.Condition()
        self._write_lock = threading.Lock()
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    @classmethod
    def spawn(
        cls, *args: str, stderr: Any = subprocess.DEVNULL, env: dict[str, str] | None = None
    ) -> LspClient:
        """`nextword serve *args` in a new process, its stderr to `stderr`."""
        proc = subprocess.Popen(
            [*SERVE, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env
        )
        return cls(proc)

    def __enter__(self) -> LspClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    @property
    def show_messages(self) -> list[dict[str, Any]]:
        """The params of every window/showMessage so far."""
        return [m["params"] for m in self.window if m["method"] == "window/showMessage"]

    # ------------------------------------------------------------------------ reading

    def _read_loop(self) -> None:
        why = "the server closed the connection"
        try:
            while (message := self._read()) is not None:
                self._dispatch(message)
        except Exception as err:  # whatever stops the reader, a waiting caller learns it
            why = f"the client stopped reading: {err!r}"
        with self._cond:
            self._closed = why
            self._cond.notify_all()

    def _read(self) -> Any:
        """The next message, or None at the end of the stream."""
        length = None
        while True:
            line = self._in.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        if length is None:
            raise ValueError("a message without Content-Length")
        return json.loads(self._in.read(length))

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is not None and "id" in message:
            self.server_requests[method] += 1
            result: Any = None
            if method == types.WORKSPACE_CONFIGURATION:
                result = [None for _ in message["params"]["items"]]
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif method is not None:
            self.notifications[method] += 1
            if method in WINDOW:
                self.window.append(message)
        else:
            received = time.perf_counter()
            with self._cond:
                if message.get("id") is None:
                    self.null_id_errors += 1
                else:
                    self._responses[message["id"]] = Response(
                        message["id"], message.get("result"), message.get("error"), received
                    )
                self._cond.notify_all()

    def response(self, msg_id: Any, timeout: float | None = TIMEOUT_S) -> Response:
        """Wait for the response to `msg_id` and take it (None: wait as long as it takes)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while msg_id not in self._responses:
                left = None if deadline is None else deadline - time.monotonic()
                if self._closed is not None or (left is not None and left <= 0):
                    what = f"request {msg_id} ({self._methods.get(msg_id, '?')})"
                    why = self._closed or f"none within {timeout:g} s"
                    raise CommandError(f"no answer to {what}: {why}")
                self._cond.wait(left)
            self._methods.pop(msg_id, None)
            return self._responses.pop(msg_id)

    # ------------------------------------------------------------------------ writing

    def write(self, data: bytes) -> None:
        """Bytes already framed (see `frame_request`), written at once."""
        with self._write_lock:
            self._out.write(data)
            self._out.flush()

    def send_raw(self, body: bytes) -> None:
        """`body` framed as one message, whatever it holds (for malformed traffic)."""
        self.write(_frame(body))

    def send(self, message: dict[str, Any]) -> None:
        """One JSON message as it is, valid JSON-RPC or not."""
        self.write(_frame(_encode(message)))

    def frame_request(
        self, method: str, params: Any = None, *, omit_params: bool = False
    ) -> tuple[int, bytes]:
        """A request's id and framed bytes, built before a clock starts; not sent.

        Args:
            params: an lsprotocol type, or plain JSON values.
            omit_params: leave "params" out altogether (not even null).
        """
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if not omit_params:
            message["params"] = self.converter.unstructure(params)
        self._methods[self._next_id] = method
        return self._next_id, _frame(_encode(message))

    def frame_notification(self, method: str, params: Any = None) -> bytes:
        params = self.converter.unstructure(params)
        return _frame(_encode({"jsonrpc": "2.0", "method": method, "params": params}))

    def send_request(self, method: str, params: Any = None, *, omit_params: bool = False) -> int:
        """Send a request without waiting; its id, for `response`."""
        msg_id, data = self.frame_request(method, params, omit_params=omit_params)
        self.write(data)
        return msg_id

    def request(self, method: str, params: Any = None, *, timeout: float | None = TIMEOUT_S) -> Any:
        """Send a request and wait for its result (a ResponseError for an error answer)."""
        return self.response(self.send_request(method, params), timeout).value()

    def notify(self, method: str, params: Any = None) -> None:
        self.write(self.frame_notification(method, params))

    # ------------------------------------------------------------------ LSP, briefly

    def initialize(
        self,
        settings: dict[str, Any] | None = None,
        *,
        capabilities: types.ClientCapabilities | None = None,
    ) -> Any:
        """initialize (with `settings` as initializationOptions), then initialized;
        the server's InitializeResult as JSON."""
        result = self.request(
            types.INITIALIZE,
            types.InitializeParams(
                capabilities=capabilities or types.ClientCapabilities(),
                process_id=None,
                initialization_options=settings,
            ),
        )
        self.notify(types.INITIALIZED, types.InitializedParams())
        return result

    def open_document(
        self, uri: str, text: str = "", *, version: int = 0, language_id: str = "plaintext"
    ) -> None:
        self.notify(
            types.TEXT_DOCUMENT_DID_OPEN,
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id=language_id, version=version, text=text)
            ),
        )

    def keystroke(
        self,
        uri: str,
        version: int,
        change: types.TextDocumentContentChangePartial,
        cursor: types.Position,
    ) -> tuple[int, bytes]:
        """One key as an editor sends it: the didChange, then a completion request at
        the new cursor; framed together, to write at once. Returns (request id, bytes)."""
        edit = self.frame_notification(
            types.TEXT_DOCUMENT_DID_CHANGE,
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]
            ),
        )
        msg_id, ask = self.frame_request(
            types.TEXT_DOCUMENT_COMPLETION,
            types.CompletionParams(types.TextDocumentIdentifier(uri=uri), cursor),
        )
        return msg_id, edit + ask

    def labels(self, uri: str, position: types.Position) -> list[str]:
        """The labels of the completion items at `position`."""
        result = self.request(
            types.TEXT_DOCUMENT_COMPLETION,
            types.CompletionParams(types.TextDocumentIdentifier(uri=uri), position),
        )
        return [item["label"] for item in (result or {}).get("items", [])]

    def until_words(self, uri: str, position: types.Position, deadline: float) -> list[str]:
        """Ask at `position` until the answer has words (the model is loaded) or the
        time.perf_counter() `deadline` passes; the words, or [] at the deadline."""
        while not (words := self.labels(uri, position)):
            if time.perf_counter() > deadline:
                return []
            time.sleep(0.005)
        return words

    def shutdown(self, timeout: float = 30.0) -> int:
        """shutdown, then exit, as an editor closes; the process' exit code, once it has
        ended and everything it sent has been read."""
        self.request(types.SHUTDOWN, None)
        self.notify(types.EXIT, None)
        code = self.proc.wait(timeout=timeout)
        self._reader.join(timeout)
        return code

    def kill(self) -> None:
        """End the process now unless it has ended already."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


def _frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
