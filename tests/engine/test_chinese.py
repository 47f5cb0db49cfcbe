"""Chinese: routing by script and whole-character continuations, in-process.

Runs the real bundled models: the English default for alphabetic text and the
Chinese model (server/nextword/models/zh) for text written without spaces. The
server's side (UTF-16 positions, ranges) is tests/server/test_chinese_server.py.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from nextword.engine.router import Router
from nextword.engine.words import is_han_text, is_word, script_before, split_prefix


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


# Everyday contexts, written for these tests (none is in the dev splits): what a user
# of an input method types, and what the bundled model must offer among its first few.
EVERYDAY = [
    ("今天天气真", 3, {"好", "不错"}),
    ("下班以后我想喝", 3, {"茶", "咖啡", "水"}),
    ("这个菜很好", 3, {"吃"}),
    # With the system's model mixed in, 去看 and 去做 come before 去旅行 (4th).
    ("周末我打算去", 5, {"旅行", "旅游"}),
    ("你吃饭了", 3, {"吗"}),
]


@pytest.mark.parametrize("context, k, wanted", EVERYDAY)
def test_everyday_contexts_offer_what_people_say(
    router: Router, context: str, k: int, wanted: set[str]
) -> None:
    found = texts(router, context, k)
    assert wanted & set(found), (context, found)


def test_the_weather_is_good_comes_first(router: Router) -> None:
    assert texts(router, "今天天气很")[0] == "好"


def test_a_sure_word_is_offered_whole(router: Router) -> None:
    """After 祝你生日 the model is sure of 快乐: the continuation is the word, which
    saves a keystroke, not the character 快 alone."""
    assert texts(router, "祝你生日", 1) == ["快乐"]


def test_predict_offers_chinese_continuations() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "nextword", "predict", "--json", "今天天气很"],
        capture_output=True,
        text=True,
        check=True,
    )
    found = [c["text"] for c in json.loads(out.stdout)["candidates"]]
    assert found and all(is_han_text(w) for w in found)


def test_the_chinese_mixture_fit_writes_fitted_weights(tmp_path) -> None:
    import shutil
    from pathlib import Path

    from nextword.training.mixture import (
        HAN_DOC_GRID,
        HAN_NGRAM_GRID,
        HAN_SYSTEM_GRID,
        fit_han_and_save,
    )

    bundled = Path(__file__).resolve().parents[2] / "server" / "nextword" / "models" / "zh"
    model = tmp_path / "zh"
    shutil.copytree(bundled, model)
    dev = Path(__file__).resolve().parents[2] / "fixtures" / "eval-zh" / "news.txt"
    weights = fit_han_and_save(model, [dev])
    record = json.loads((model / "mixture.json").read_text(encoding="utf-8"))
    assert record["weights"] == weights
    assert weights["doc"] in HAN_DOC_GRID and weights["ngram"] in HAN_NGRAM_GRID
    assert weights["system"] in HAN_SYSTEM_GRID
    # The trigram's weights with the cache at 0.3, then the cache's with the trigram's
    # best, then the system model's (the test set-up installs it) with both.
    n = weights["ngram"]
    tried = {f"ngram {g}, doc 0.3, system 0.0" for g in HAN_NGRAM_GRID}
    tried |= {f"ngram {n}, doc {d}, system 0.0" for d in HAN_DOC_GRID}
    tried |= {f"ngram {n}, doc {weights['doc']}, system {g}" for g in HAN_SYSTEM_GRID}
    assert set(record["grid"]) == tried
    assert record["system_lm"].endswith("zh_CN.lm")
