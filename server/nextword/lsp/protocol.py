"""pygls' JSON-RPC protocol, made to answer every request and to survive any message.

A stock pygls server reads a message with `json.loads(body, object_hook=...)`, and
when the params of a request fail to deserialize (a negative position, a string
where a number belongs, a missing field) the exception ends up in its read loop:
the request is never answered, and the client waits forever. It also drops
requests without `params` (legal JSON-RPC) and requests after `shutdown`
silently. Here such a message becomes an `Unreadable` value instead of an
exception, and `handle_message` answers it with the proper JSON-RPC error:

- -32600 Invalid Request: not a request (bad `id` or `method`), or sent after `shutdown`;
- -32601 Method not found: pygls answers this itself;
- -32602 Invalid params: the params do not fit the method's lsprotocol type.

A malformed notification, a malformed response to one of our own requests, and
anything that is not JSON-RPC 2.0 are logged (without their content) and skipped.
"""

from __future__ import annotations

import contextvars
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cattrs import Converter, transform_error
from cattrs.errors import ClassValidationError
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
)
from pygls.lsp.server import LanguageServer

from nextword.lsp.pygls_seam import Protocol

log = logging.getLogger(__name__)

# The document's generation when a request arrived (see NextwordProtocol).
received_generation: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "received_generation", default=None
)
# When the request was read (perf_counter), for the server's own latency figures.
received_at: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "received_at", default=None
)


@dataclass
class Unreadable:
    """A JSON-RPC message whose params (or envelope) do not deserialize."""

    data: dict[str, Any]
    error: JsonRpcException

    @property
    def is_request(self) -> bool:
        return "method" in self.data and "id" in self.data

    @property
    def is_response(self) -> bool:
        return "method" not in self.data and "id" in self.data


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _describe(error: Exception) -> str:
    """Where the params went wrong, without their values (they may be document text)."""
    cause = error.__cause__
    if isinstance(cause, ClassValidationError):
        return "; ".join(transform_error(cause, path="$"))
    return type(cause or error).__name__


class NextwordProtocol(Protocol):
    """pygls' protocol: every request answered, each stamped with its document's generation.

    Args:
        generation: a document's generation now (None for one not open): typing bumps
            it, so a request stamped with an older one is out of date (sessions.py).
    """

    def __init__(
        self,
        server: LanguageServer,
        converter: Converter,
        *,
        generation: Callable[[str], int | None],
    ) -> None:
        super().__init__(server, converter)
        self._generation = generation

    def structure_message(self, data: dict[str, Any]) -> Any:
        # The object hook sees every nested dict; only whole messages carry "jsonrpc".
        if "jsonrpc" not in data:
            return data
        if "id" in data and not _valid_id(data["id"]):
            # pygls would take any JSON value as an id, and fail when it answers.
            return Unreadable(data, JsonRpcInvalidRequest("the id must be an integer or a string"))
        if "method" in data and "params" not in data:
            # `params` may be omitted; pygls' fallback types require it.
            data = {**data, "params": None}
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            return Unreadable(data, error)

    def handle_message(self, message: Any) -> None:
        if isinstance(message, Unreadable):
            self._handle_unreadable(message)
            return
        if getattr(message, "jsonrpc", None) != self.VERSION:
            log.warning("skipped a message that is not JSON-RPC 2.0")
            return
        method = getattr(message, "method", None)
        if self.shutting_down and method not in (None, types.EXIT):
            if hasattr(message, "id"):
                self.send_error(
                    message.id, JsonRpcInvalidRequest(f"{method}: the server is shutting down")
                )
            return
        super().handle_message(message)

    def _handle_unreadable(self, message: Unreadable) -> None:
        data = message.data
        method = data.get("method")
        msg_id: Any = data.get("id")  # JSON-RPC answers an unreadable id with null
        if message.is_response:
            # An answer to one of our requests: fail it, so nothing awaits it forever.
            if _valid_id(msg_id):
                self.fail_request(msg_id, message.error)
            log.warning("skipped a malformed response to request %r", msg_id)
            return
        if not message.is_request:
            log.warning("skipped a malformed %s notification: %s", method, _describe(message.error))
            return
        if not _valid_id(msg_id) or not isinstance(method, str):
            error: JsonRpcException = JsonRpcInvalidRequest(
                "a request needs a string method and id"
            )
            msg_id = msg_id if _valid_id(msg_id) else None
        else:
            error = JsonRpcInvalidParams(f"invalid params for {method}: {_describe(message.error)}")
        log.warning("answered request %r with an error: %s", msg_id, error.message)
        self.send_error(msg_id, error)

    def request_received(self, params: Any) -> None:
        # pygls starts an async handler on a later loop turn, after notifications read
        # in the same batch have run: a keystroke sent after a completion request would
        # otherwise change the text under the request before it looks, and the answer,
        # computed for a position that has moved, would be stale.
        uri = getattr(getattr(params, "text_document", None), "uri", None)
        if isinstance(uri, str):
            received_generation.set(self._generation(uri))
        received_at.set(time.perf_counter())
