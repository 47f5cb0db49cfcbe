"""Logging to stderr and to the client (`window/logMessage`) at the configured level.

Document text is logged only at `trace`, a level below DEBUG: at every other level
neither our messages nor pygls' (whose INFO and DEBUG lines carry whole messages,
text included, and whose error paths log a failed message's params and tracebacks)
are let through with content.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

TRACE = 5
logging.addLevelName(TRACE, "TRACE")

# The `logLevel` setting's choices, most severe first (settings.py takes them from here).
LEVELS = {
    "error": logging.ERROR,
    "warning": logging.WARNING,
    "info": logging.INFO,
    "debug": logging.DEBUG,
    "trace": TRACE,
}
_MESSAGE_TYPES = [
    (logging.ERROR, types.MessageType.Error),
    (logging.WARNING, types.MessageType.Warning),
    (logging.INFO, types.MessageType.Info),
    (0, types.MessageType.Log),
]


def setup_stderr(log_file: str | None = None) -> None:
    """Send log records to stderr (stdout carries the protocol), or to a file."""
    handler: logging.Handler = (
        logging.FileHandler(log_file, encoding="utf-8")
        if log_file
        else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactPygls())
    root = logging.getLogger()
    root.addHandler(handler)
    apply_log_level("info")


def apply_log_level(name: str) -> None:
    level = LEVELS.get(name, logging.INFO)
    logging.getLogger().setLevel(level)
    logging.getLogger("nextword").setLevel(level)
    # pygls logs whole JSON-RPC messages (document text) at INFO and DEBUG.
    logging.getLogger("pygls").setLevel(logging.DEBUG if level <= TRACE else logging.WARNING)


class RedactPygls(logging.Filter):
    """Below `trace`, strip pygls' records down to their fixed wording.

    Raising pygls' level is not enough: at ERROR it logs a failed request's or
    notification's params ("Failed to handle request %s %s %s") and deserialization
    tracebacks (values included), and any of those may be document text. So its
    arguments become a placeholder and its traceback just the exception's type name.
    Our own "nextword" records pass untouched: by convention they never hold text.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith("pygls") or _trace_on():
            return True
        message = str(record.msg)
        if record.args:
            hidden = ("<hidden>",) * len(record.args) if isinstance(record.args, tuple) else ()
            # A format that wants numbers or names keeps its bare wording.
            with contextlib.suppress(TypeError, ValueError, KeyError):
                message %= hidden
        if record.exc_info and record.exc_info[0] is not None:
            message += f" [{record.exc_info[0].__name__}]"
        record.msg, record.args = message, ()
        record.exc_info = record.exc_text = record.stack_info = None
        return True


def _trace_on() -> bool:
    return logging.getLogger("nextword").getEffectiveLevel() <= TRACE


class ClientLogHandler(logging.Handler):
    """Forward records to the client as `window/logMessage`, from any thread."""

    def __init__(self, server: LanguageServer, loop: asyncio.AbstractEventLoop):
        super().__init__()
        self.server = server
        self.loop = loop
        self.setFormatter(logging.Formatter("%(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        kind = next(t for level, t in _MESSAGE_TYPES if record.levelno >= level)
        params = types.LogMessageParams(type=kind, message=self.format(record))
        try:
            # The writer belongs to the protocol loop; the worker thread must hop to it.
            self.loop.call_soon_threadsafe(self.server.window_log_message, params)
        except Exception:  # logging must never take the server down
            self.handleError(record)


def attach_client_log(server: LanguageServer) -> None:
    """Log our own records (not pygls') to the client; pygls' would echo its own sends.

    Call from the protocol loop (a handler).
    """
    logger = logging.getLogger("nextword")
    for handler in [h for h in logger.handlers if isinstance(h, ClientLogHandler)]:
        logger.removeHandler(handler)
    logger.addHandler(ClientLogHandler(server, asyncio.get_running_loop()))
