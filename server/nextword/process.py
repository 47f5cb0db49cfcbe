"""How a nextword process ends: flushed, then `os._exit`, never interpreter teardown.

MLX used from a thread other than the main one can abort the process while its C++
static objects are destroyed at interpreter exit ("terminate called without an
active exception", ml-explore/mlx#3126). The server runs every model call on its
inference worker, so any command may have touched MLX from another thread. Ending
through `os._exit` skips that teardown whatever the threads did; what the process
must not lose (the standard streams, the logs) is flushed first, and files are
closed by the code that opened them.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys


def leave(code: int) -> None:
    """Flush what the process wrote, then end it with `code`."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        # A closed pipe or stream: nothing left to save.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
