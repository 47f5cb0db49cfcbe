"""A client that announces no capabilities at all, against the real server.

Its initialize sends `capabilities: {}` and no initializationOptions: no
inlineCompletion, no window.workDoneProgress, no workspace.configuration, no
dynamic registration. The server must never ask it for anything (no
`window/workDoneProgress/create`, `workspace/configuration` or
`client/registerCapability`), never report `$/progress`, speak UTF-16 positions,
and still serve completions, settings pushed with didChangeConfiguration, an
inlineCompletion request if one comes, and a clean shutdown.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from lsprotocol import types

from nextword.engine.words import is_word
from nextword.evaluation.lspclient import LspClient

URI = "file:///minimal/notes.txt"
TEXT = "The history of the "


class Client:
    """An LspClient driven as a capability-less client: one document, typed at its end."""

    def __init__(self) -> None:
        self.server = LspClient.spawn()
        self.text = ""
        self.version = 0

    def type(self, text: str) -> None:
        pos = {"line": 0, "character": len(self.text)}
        self.text += text
        self.version += 1
        self.server.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": URI, "version": self.version},
                "contentChanges": [{"range": {"start": pos, "end": pos}, "text": text}],
            },
        )

    def position(self) -> dict[str, Any]:
        return {"textDocument": {"uri": URI}, "position": {"line": 0, "character": len(self.text)}}

    def words(self) -> list[str]:
        return self.server.labels(URI, types.Position(0, len(self.text)))

    def ready_words(self, timeout: float = 30.0) -> list[str]:
        """The candidates at the cursor once the model has loaded (empty answers before)."""
        cursor = types.Position(0, len(self.text))
        return self.server.until_words(URI, cursor, time.perf_counter() + timeout)


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    c = Client()
    with c.server:
        yield c


@pytest.fixture(scope="module")
def init_result(client: Client) -> dict[str, Any]:
    result = client.server.initialize()  # capabilities: {}, no initializationOptions
    client.server.open_document(URI)
    client.type(TEXT)
    return result


def assert_never_asked(client: Client) -> None:
    """The server sent no request and no progress to a client that announced neither."""
    assert not client.server.server_requests, dict(client.server.server_requests)
    assert client.server.notifications["$/progress"] == 0


def test_initialize_succeeds_in_utf16(init_result: dict[str, Any]) -> None:
    caps = init_result["capabilities"]
    assert " " in caps["completionProvider"]["triggerCharacters"]
    assert caps.get("positionEncoding", "utf-16") == "utf-16"
    assert init_result["serverInfo"]["name"] == "nextword"


def test_completions_are_whole_words(client: Client, init_result: dict) -> None:
    words = client.ready_words()
    assert words and all(is_word(w) for w in words), words
    client.type("wor")
    words = client.words()
    assert words and all(is_word(w) and w.startswith("wor") for w in words), words
    client.type(" ")
    assert_never_asked(client)


def test_pushed_settings_apply(client: Client, init_result: dict) -> None:
    client.server.notify("workspace/didChangeConfiguration", {"settings": {"nextword": {"k": 2}}})
    words = client.ready_words()
    assert 0 < len(words) <= 2, words
    # An empty push means "ask me", which this client cannot answer: not asked.
    client.server.notify("workspace/didChangeConfiguration", {"settings": None})
    client.server.notify("workspace/didChangeConfiguration", {"settings": {}})
    assert 0 < len(client.ready_words()) <= 2
    assert client.server.show_messages == []  # valid settings: nothing to warn about
    assert_never_asked(client)


def test_inline_completion_is_answered_all_the_same(client: Client, init_result: dict) -> None:
    client.ready_words()
    params = {**client.position(), "context": {"triggerKind": 1}}
    result = client.server.request("textDocument/inlineCompletion", params)
    # The decision at the cursor is made (ready_words): one word, inline.
    [item] = result["items"] if isinstance(result, dict) else result
    assert is_word(item["insertText"])
    assert_never_asked(client)


def test_shutdown_exits_zero(client: Client, init_result: dict) -> None:
    assert client.server.shutdown() == 0
    assert_never_asked(client)
