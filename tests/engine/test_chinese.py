"""Chinese: routing by script, whole-character continuations, UTF-16 positions.

Runs the real bundled models: the English default for alphabetic text and the
Chinese model (server/nextword/models/zh) for text written without spaces.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from lsp_fuzz import RawServer
from nextword.engine.router import Router
from nextword.engine.words import is_han_text, is_word, script_before, split_prefix

URI = "file:///chinese/a.txt"


@pytest.fixture(scope="module")
def router() -> Router:
    return Router.load()


def texts(router: Router, text: str, k: int = 5) -> list[str]:
    context, prefix = split_prefix(text)
    return [c.text for c in router.decider().decide(context, prefix, k)]


def test_han_characters_are_never_a_typed_prefix() -> None:
    assert split_prefix("今天天气真") == ("今天天气真", "")
    assert split_prefix("中文ab") == ("中文", "ab")
    assert split_prefix("日本語テスト") == ("日本語テスト", "")


@pytest.mark.parametrize(
    ("context", "script"),
    [("今天天气真", "zh"), ("中文 ", "zh"), ("他说：“你好。”", "zh"), ("Hello 中文。", "zh"),
     ("中文 hello ", "en"), ("", "en"), ("１９９８年", "zh")],
)  # fmt: skip
def test_the_script_before_the_cursor_picks_the_model(context: str, script: str) -> None:
    assert script_before(context) == script


def test_the_bundled_router_has_both_models(router: Router) -> None:
    assert set(router.engines) == {"en", "zh"}
    assert not router.problems


def test_chinese_decisions_are_whole_han_continuations(router: Router) -> None:
    for text in ["今天天气真", "中国人民", "我们的生活越来越", "他说，", "新年好。"]:
        found = texts(router, text)
        assert found, text
        # 1-4 whole characters, Han only: no punctuation, no half a character.
        assert all(is_han_text(w) and len(w) <= 4 for w in found), (text, found)


def test_mixed_documents_route_per_decision(router: Router) -> None:
    english = texts(router, "今天我们开会。The history of the ")
    assert english and all(is_word(w) and w.isascii() for w in english)
    chinese = texts(router, "The meeting was long. 今天我们")
    assert chinese and all(is_han_text(w) for w in chinese)
    latin_prefix = texts(router, "中文th")
    assert latin_prefix and all(w.startswith("th") for w in latin_prefix)


def test_predict_offers_chinese_continuations() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "nextword", "predict", "--json", "今天天气很"],
        capture_output=True,
        text=True,
        check=True,
    )
    found = [c["text"] for c in json.loads(out.stdout)["candidates"]]
    assert found and all(is_han_text(w) for w in found)


@pytest.fixture(scope="module")
def server() -> Iterator[RawServer]:
    raw = RawServer()
    raw.initialize()
    yield raw
    raw.close()


def open_and_type(server: RawServer, uri: str, before: str, typed: str) -> tuple[int, int]:
    """Open a one-line document holding `before`, type `typed` at its end; the cursor."""
    server.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "plaintext", "version": 0, "text": before}},
    )
    text = before
    for n, ch in enumerate(typed, 1):
        at = {"line": 0, "character": len(text.encode("utf-16-le")) // 2}
        server.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": n},
                "contentChanges": [{"range": {"start": at, "end": at}, "text": ch}],
            },
        )
        text += ch
    return 0, len(text.encode("utf-16-le")) // 2


def ask(server: RawServer, method: str, uri: str, cursor: tuple[int, int]) -> dict:
    params = {"textDocument": {"uri": uri}, "position": {"line": cursor[0], "character": cursor[1]}}
    if method.endswith("inlineCompletion"):
        params["context"] = {"triggerKind": 2}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until the models have loaded and decided
        result = server.call(method, params)
        if result["items"]:
            return result
        time.sleep(0.05)
    raise AssertionError("no candidates")


def test_server_offers_chinese_after_emoji_with_utf16_ranges(server: RawServer) -> None:
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


def test_server_offers_a_new_phrase_after_chinese_punctuation(server: RawServer) -> None:
    cursor = open_and_type(server, "file:///chinese/b.txt", "", "今天下雨了。")
    result = ask(server, "textDocument/completion", "file:///chinese/b.txt", cursor)
    assert all(is_han_text(item["label"]) for item in result["items"])


def test_server_completes_an_english_word_typed_after_chinese(server: RawServer) -> None:
    uri = "file:///chinese/c.txt"
    cursor = open_and_type(server, uri, "我喜欢 ", "pyth")
    result = ask(server, "textDocument/completion", uri, cursor)
    for item in result["items"]:
        assert item["label"].startswith("pyth")
        assert item["textEdit"]["range"]["start"] == {"line": 0, "character": cursor[1] - 4}


def test_the_chinese_mixture_fit_writes_fitted_weights(tmp_path) -> None:
    import shutil
    from pathlib import Path

    from nextword.training.mixture import HAN_DOC_GRID, fit_han_and_save

    bundled = Path(__file__).resolve().parents[2] / "server" / "nextword" / "models" / "zh"
    model = tmp_path / "zh"
    shutil.copytree(bundled, model)
    dev = Path(__file__).resolve().parents[2] / "fixtures" / "eval-zh" / "news.txt"
    weights = fit_han_and_save(model, [dev])
    record = json.loads((model / "mixture.json").read_text(encoding="utf-8"))
    assert record["weights"] == weights
    assert weights["doc"] in HAN_DOC_GRID and weights["ngram"] == 0.0
    assert set(record["grid"]) == {str(w) for w in HAN_DOC_GRID}
