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
import time
from pathlib import Path

import pytest
from lsprotocol import types

from nextword.evaluation.lspclient import LspClient

URI = "file:///tmp/nextword-test/exit.txt"
CYCLES = 50
KINDS = ("typed", "broken-model", "in-flight", "loading", "no-shutdown")


def type_text(client: LspClient, text: str, version: int = 2) -> int:
    """Insert `text` at the start of the empty document; returns a completion's id."""
    change = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)), text=text
    )
    msg_id, data = client.keystroke(URI, version, change, types.Position(0, len(text)))
    client.write(data)
    return msg_id


def cycle(kind: str, broken: Path) -> tuple[int, str]:
    """One server's life, ended as `kind` says; its exit code and stderr."""
    args = ["--model", str(broken)] if kind == "broken-model" else []
    with LspClient.spawn(*args, stderr=subprocess.PIPE) as client:
        client.initialize()
        client.open_document(URI, version=1)
        if kind in ("typed", "broken-model"):
            # Wait until the words come: the model (or the fallback) is loaded and used.
            assert client.until_words(URI, types.Position(0, 0), time.perf_counter() + 120)
            client.response(type_text(client, "The history of the ")).value()
        elif kind == "in-flight":
            assert client.until_words(URI, types.Position(0, 0), time.perf_counter() + 120)
            type_text(client, "Thank you for your ")  # not waited for: shutdown overtakes it
        # "loading": shutdown right after didOpen, while the model loads.
        if kind == "no-shutdown":
            client.notify(types.EXIT, None)
            code = client.proc.wait(timeout=60)
        else:
            code = client.shutdown(timeout=60)
        assert client.proc.stderr is not None
        return code, client.proc.stderr.read().decode("utf-8", "replace")


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
