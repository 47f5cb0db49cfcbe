"""Every process ends with the code it means, whatever its threads did (issue 13).

MLX used from the server's inference worker could abort the process at interpreter
exit (SIGABRT, "terminate called without an active exception"). Processes now leave
through `nextword.process.leave`. These tests spawn the real server over stdio with
the real bundled model, 50 times, and end it in the states that used to abort it: a
model load under way, a broken `--model` (the fallback load), a decision in flight.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types

from conftest import nextword
from nextword.commands.bench import Connection

URI = "file:///tmp/nextword-test/exit.txt"
CYCLES = 50
KINDS = ("typed", "broken-model", "in-flight", "loading", "no-shutdown")


def spawn(model: Path | None) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "nextword", "serve"]
    if model is not None:
        cmd += ["--model", str(model)]
    return subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def start(conn: Connection) -> None:
    conn.request(
        types.INITIALIZE,
        types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=None),
    )
    conn.notify(types.INITIALIZED, types.InitializedParams())
    conn.notify(
        types.TEXT_DOCUMENT_DID_OPEN,
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=URI, language_id="plaintext", version=1, text="")
        ),
    )


def type_text(conn: Connection, text: str, version: int = 2) -> int:
    """Insert `text` at the start of the empty document; returns a completion's id."""
    change = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)), text=text
    )
    msg_id, data = conn.keystroke(URI, version, change, types.Position(0, len(text)))
    conn.write(data)
    return msg_id


def cycle(kind: str, broken: Path) -> tuple[int, str]:
    """One server's life, ended as `kind` says; its exit code and stderr."""
    proc = spawn(broken if kind == "broken-model" else None)
    try:
        conn = Connection(proc)
        start(conn)
        if kind in ("typed", "broken-model"):
            # Wait until the words come: the model (or the fallback) is loaded and used.
            conn.until_words(URI, types.Position(0, 0), deadline=time.perf_counter() + 120)
            conn.wait(type_text(conn, "The history of the "))
        elif kind == "in-flight":
            conn.until_words(URI, types.Position(0, 0), deadline=time.perf_counter() + 120)
            type_text(conn, "Thank you for your ")  # not waited for: shutdown overtakes it
        # "loading": shutdown right after didOpen, while the model loads.
        if kind == "no-shutdown":
            conn.notify(types.EXIT, None)
        else:
            conn.request(types.SHUTDOWN, None)
            conn.notify(types.EXIT, None)
        code = proc.wait(timeout=60)
        assert proc.stderr is not None
        return code, proc.stderr.read().decode("utf-8", "replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def broken_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model directory whose config names an architecture MLX does not have."""
    model = tmp_path_factory.mktemp("broken")
    (model / "config.json").write_text(json.dumps({"model_type": "no-such-architecture"}))
    return model


@pytest.mark.timeout(1200)
def test_fifty_server_lives_end_with_the_code_lsp_asks_for(broken_model: Path) -> None:
    results = [cycle(KINDS[i % len(KINDS)], broken_model) for i in range(CYCLES)]
    for i, (code, stderr) in enumerate(results):
        kind = KINDS[i % len(KINDS)]
        # LSP: exit after shutdown is 0, exit without it is 1; never a signal.
        assert code == (1 if kind == "no-shutdown" else 0), (i, kind, code, stderr[-500:])
        assert "terminate called" not in stderr, (i, kind)


def test_commands_end_cleanly_after_using_mlx() -> None:
    for args in (["predict", "The history of the "], ["doctor"]):
        done = nextword(*args, check=False)
        assert done.returncode == 0, (args, done.stderr[-500:])
        assert "terminate called" not in done.stderr
        assert done.stdout.strip(), args  # what it printed was flushed before leaving


def test_usage_errors_keep_their_exit_code() -> None:
    done = nextword("predict", "--no-such-flag", check=False)
    assert done.returncode == 2
    assert "usage:" in done.stderr
