"""Chinese through the real server: Han continuations with UTF-16 ranges.

`nextword serve` with the bundled English and Chinese models, driven over stdio with
nextword.evaluation.lspclient: a document typed into one key per didChange, then a
completion (or inline completion) at the cursor. Routing and the continuations
themselves are tests/engine/test_chinese.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from helpers import EDITOR_CAPABILITIES, utf16_len
from nextword.engine.words import is_han_text
from nextword.evaluation.lspclient import LspClient

URI = "file:///chinese/a.txt"


@pytest.fixture(scope="module")
def server() -> Iterator[LspClient]:
    with LspClient.spawn() as client:
        client.initialize(capabilities=EDITOR_CAPABILITIES)
        yield client
        client.shutdown()


def open_and_type(server: LspClient, uri: str, before: str, typed: str) -> tuple[int, int]:
    """Open a one-line document holding `before`, type `typed` at its end; the cursor."""
    server.open_document(uri, before)
    text = before
    for n, ch in enumerate(typed, 1):
        at = {"line": 0, "character": utf16_len(text)}
        server.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": n},
                "contentChanges": [{"range": {"start": at, "end": at}, "text": ch}],
            },
        )
        text += ch
    return 0, utf16_len(text)


def ask(server: LspClient, method: str, uri: str, cursor: tuple[int, int]) -> dict:
    params = {"textDocument": {"uri": uri}, "position": {"line": cursor[0], "character": cursor[1]}}
    if method.endswith("inlineCompletion"):
        params["context"] = {"triggerKind": 2}  # Automatic
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until the models have loaded and decided
        result = server.request(method, params)
        if result["items"]:
            return result
        time.sleep(0.05)
    raise AssertionError("no candidates")


def test_server_offers_chinese_after_emoji_with_utf16_ranges(server: LspClient) -> None:
    # 😀 is two UTF-16 code units: the cursor after "😀 今天天气很" is at 8, not 7.
    cursor = open_and_type(server, URI, "😀 ", "今天天气很")
    assert cursor == (0, 8)
    result = ask(server, "textDocument/completion", URI, cursor)
    for item in result["items"]:
        assert is_han_text(item["label"])
        # A continuation inserts at the cursor: it replaces no typed characters.
        rng = item["textEdit"]["range"]
        assert rng["start"] == rng["end"] == {"line": 0, "character": 8}
    inline = ask(server, "textDocument/inlineCompletion", URI, cursor)
    item = inline["items"][0]
    assert is_han_text(item["insertText"])
    assert item["range"]["start"] == item["range"]["end"] == {"line": 0, "character": 8}


def test_server_offers_a_new_phrase_after_chinese_punctuation(server: LspClient) -> None:
    cursor = open_and_type(server, "file:///chinese/b.txt", "", "今天下雨了。")
    result = ask(server, "textDocument/completion", "file:///chinese/b.txt", cursor)
    assert all(is_han_text(item["label"]) for item in result["items"])


def test_server_completes_an_english_word_typed_after_chinese(server: LspClient) -> None:
    uri = "file:///chinese/c.txt"
    cursor = open_and_type(server, uri, "我喜欢 ", "pyth")
    result = ask(server, "textDocument/completion", uri, cursor)
    for item in result["items"]:
        assert item["label"].startswith("pyth")
        assert item["textEdit"]["range"]["start"] == {"line": 0, "character": cursor[1] - 4}
