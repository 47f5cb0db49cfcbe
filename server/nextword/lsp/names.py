"""The names nextword adds to LSP, spelled once: requests, commands, a notification, a token.

The editor clients (vscode-extension/src, neovim/lua/nextword, editors/emacs) spell
them the same way; tests/unit/test_names.py reads their sources and says so.

The model's state, an explicit field:

- "loading": a model is being loaded (at start, or after a settings change);
  completions are empty meanwhile;
- "ready": completions come from a model;
- "failed": no model could be loaded, not even the bundled one; completions stay
  empty until the install or the `model` setting is fixed (a window/showMessage said why).

The `nextword/stats` result carries it as "state". A client that puts
`"nextwordState": true` in its capabilities' `experimental` object is also sent
`nextword/state` notifications, `{"state": ...}`: the state once the client is
initialized, then each change. The load's work-done progress is for people to read:
its messages are text, never a signal.
"""

from __future__ import annotations

from typing import Literal

SECTION = "nextword"  # the workspace/configuration section; VS Code's `nextword.<setting>`

STATS_REQUEST = "nextword/stats"  # counters and latency percentiles, and the state
CHECKSUM_REQUEST = "nextword/documentChecksum"  # sha256 of the server's copy of a document
STATE_NOTIFICATION = "nextword/state"  # server -> client, for clients that opt in
STATE_CAPABILITY = "nextwordState"  # the opt-in, under the client's `experimental` capabilities
PROGRESS_TOKEN = "nextword/load"  # the model load's work-done progress, when the server makes it

# workspace/executeCommand commands.
STATS_COMMAND = "nextword.stats"  # the same report as STATS_REQUEST
LEARNING_STATUS_COMMAND = "nextword.learningStatus"
FORGET_COMMAND = "nextword.forget"

ModelState = Literal["loading", "ready", "failed"]
MODEL_STATES: tuple[ModelState, ...] = ("loading", "ready", "failed")

# Every method, token and command name above, as a client may meet it on the wire.
ALL = (
    STATS_REQUEST,
    CHECKSUM_REQUEST,
    STATE_NOTIFICATION,
    PROGRESS_TOKEN,
    STATS_COMMAND,
    LEARNING_STATUS_COMMAND,
    FORGET_COMMAND,
)
