"""Is more client input already waiting? The server reads ahead before it decides.

A client that sends faster than the server answers (a paste replayed key by key, a
burst after a pause, a slow machine) leaves keystrokes queued: in asyncio's read
buffer, or still in the pipe. A decision started for a keystroke with newer ones
queued behind it is stale before it begins, and it arms the throttle against the
decision that counts. So while input waits, typing only moves the cursor and
requests wait for the reader to catch up; the model runs for the newest state.
"""

from __future__ import annotations

import array
import asyncio
import fcntl
import termios


class InputBacklog:
    """Bytes waiting to be read: in the stream reader's buffer, or in the pipe."""

    def __init__(self, reader: asyncio.StreamReader, fd: int):
        self._reader = reader
        self._fd = fd

    def pending(self) -> bool:
        # asyncio.StreamReader has no public count of what it buffered.
        if len(getattr(self._reader, "_buffer", b"")):
            return True
        waiting = array.array("i", [0])
        try:
            fcntl.ioctl(self._fd, termios.FIONREAD, waiting, True)
        except OSError:  # not a pipe or socket that can say: never hold anything back
            return False
        return waiting[0] > 0


def no_backlog() -> bool:
    """For transports the server cannot look into (TCP through pygls, tests)."""
    return False
