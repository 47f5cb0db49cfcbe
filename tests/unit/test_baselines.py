"""The unigram and Presage baselines (nextword.evaluation.baselines), word and character."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import FIXTURES
from nextword.engine.words import is_han
from nextword.evaluation import baselines
from nextword.evaluation.baselines import (
    PresageBaseline,
    PresageCharBaseline,
    UnigramBaseline,
    UnigramCharBaseline,
    char_tokens,
    recase,
)
from nextword.evaluation.typist import CJK_K

TINY_TRAIN = FIXTURES / "baselines" / "tiny_train.txt"
ZH = FIXTURES / "eval-zh"

needs_presage = pytest.mark.skipif(
    not PresageBaseline.available(), reason=baselines.PRESAGE_MISSING
)


# --------------------------------------------------------------------------- unigram


@pytest.fixture
def unigram(tmp_path: Path) -> UnigramBaseline:
    text = "the cat sat on the mat. The theory of them: the cat's theme, then THE end.\n"
    path = tmp_path / "train.txt"
    path.write_text(text * 3 + "there " * 6, encoding="utf-8")
    return UnigramBaseline([path])


def test_unigram_ranks_by_frequency(unigram: UnigramBaseline) -> None:
    assert unigram.predict("", "", 2) == ["the", "there"]
    # "there" (6) beats the once-per-copy words (3 each), which tie and sort alphabetically.
    assert unigram.predict("anything ", "th", 4) == ["the", "there", "them", "theme"]


def test_unigram_filters_by_prefix_case_sensitively(unigram: UnigramBaseline) -> None:
    assert unigram.predict("", "Th", 5) == ["The"]
    assert unigram.predict("", "TH", 5) == ["THE"]
    assert unigram.predict("", "cat", 5) == ["cat", "cat's"]
    assert unigram.predict("", "x", 5) == []
    assert all(w.startswith("the") for w in unigram.predict("", "the", 10))


def test_unigram_never_exceeds_k(unigram: UnigramBaseline) -> None:
    for k in (0, 1, 3):
        assert len(unigram.predict("", "", k)) == k
        assert len(unigram.predict("", "t", k)) <= k


def test_unigram_from_counts_and_unicode_prefix() -> None:
    model = UnigramBaseline.from_counts({"école": 5, "écrit": 7, "eat": 9, "\U0010ffffz": 1})
    assert model.predict("", "é", 3) == ["écrit", "école"]
    assert model.predict("", "\U0010ffff", 3) == ["\U0010ffffz"]


# --------------------------------------------------------------------------- recasing


@pytest.mark.parametrize(
    ("word", "context", "prefix", "expected"),
    [
        ("the", "in ", "Th", "The"),
        ("the", "in ", "TH", "THE"),
        ("the", "in ", "th", "the"),
        ("the", "", "", "The"),
        ("the", "It ends. ", "", "The"),
        ("the", "in ", "", "the"),
        ("the", "He said: ", "", "the"),
        ("école", "", "", "École"),
    ],
)
def test_recase(word: str, context: str, prefix: str, expected: str) -> None:
    assert recase(word, context, prefix) == expected


# --------------------------------------------------------------------------- presage


@pytest.fixture(scope="module")
def presage_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("presage-cache")


@pytest.fixture(scope="module")
def presage(presage_cache: Path) -> Iterator[PresageBaseline]:
    with PresageBaseline([TINY_TRAIN], cache_dir=presage_cache) as model:
        yield model


@needs_presage
def test_presage_predicts_learned_trigram(presage: PresageBaseline) -> None:
    assert presage.predict("the quick brown ", "", 3)[0] == "fox"
    assert presage.predict("the quick brown ", "f", 3)[0] == "fox"
    assert presage.predict("The quick brown ", "F", 3)[0] == "Fox"


@needs_presage
def test_presage_filters_prefix_and_respects_k(presage: PresageBaseline) -> None:
    for k in (1, 3, 5, 2):
        words = presage.predict("We went to the ", "m", k)
        assert 0 < len(words) <= k
        assert all(w.startswith("m") for w in words)
    assert presage.predict("the ", "zq", 5) == []
    assert len(presage.predict("the ", "", 10)) == 10


@needs_presage
def test_presage_repeats_suggestions_for_same_context(presage: PresageBaseline) -> None:
    first = presage.predict("the quick brown ", "", 3)
    assert presage.predict("the quick brown ", "", 3) == first


@needs_presage
def test_presage_capitalizes_sentence_start(presage: PresageBaseline) -> None:
    assert presage.predict("", "", 3)[0] == "The"
    assert presage.predict("It is raining today. ", "", 3)[0][0].isupper()


@needs_presage
def test_presage_reuses_cached_db(
    presage: PresageBaseline, presage_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("text2ngram ran although the database was cached")

    db = presage.db_path
    assert db.parent == presage_cache and db.name.startswith("presage-")
    mtime = db.stat().st_mtime_ns
    monkeypatch.setattr(subprocess, "run", no_build)
    with PresageBaseline([TINY_TRAIN], cache_dir=presage_cache) as again:
        assert again.db_path == db
        assert again.predict("the quick brown ", "", 1) == ["fox"]
    assert db.stat().st_mtime_ns == mtime


@needs_presage
def test_presage_close_then_predict_raises(presage_cache: Path) -> None:
    model = PresageBaseline([TINY_TRAIN], cache_dir=presage_cache)
    model.close()
    model.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        model.predict("the ", "", 3)


def test_presage_missing_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(PresageBaseline, "available", staticmethod(lambda: False))
    with pytest.raises(RuntimeError, match="apt-get install presage libpresage-data"):
        PresageBaseline([TINY_TRAIN], cache_dir=tmp_path)


# ------------------------------------------------------------------------- characters


def test_char_baselines_on_the_fixture_training_text(tmp_path: Path):
    train = [ZH / "train.txt"]
    unigram = UnigramCharBaseline(train)
    top = unigram.predict("任何", "", 5)
    assert len(top) == 5 and all(is_han(c) for c in top) and top[0] == "的"
    assert unigram.predict("", "我", 5) == []
    # Real presage: the test fails (does not skip) where presage is not installed.
    with PresageCharBaseline(train, cache_dir=tmp_path) as presage:
        assert presage.db_path.name.startswith("presage-chars-")
        assert presage.predict("我们一起去公", "", 5)[0] == "园"
        assert presage.predict("图书馆里很安", "", 5)[0] == "静"
        # 们 is E4 BB AC in UTF-8: Presage would split raw text at the byte BB.
        assert presage.predict("明天", "", 3)[0] == "我"
        assert presage.predict("晚上我", "", 3)[0] == "们"
        out = presage.predict("", "", CJK_K)
        assert len(out) == CJK_K == len(set(out)) and all(is_han(c) for c in out)
    assert char_tokens("今天 OK，\n好") == "u4eca u5929 u4f u4b uff0c\nu597d"


def test_character_baselines_learn_from_the_chinese_models_text(tmp_path: Path) -> None:
    """The word baselines learn from the main model's training text, the character ones
    from the Chinese model's: built from the English text, they knew no Chinese at all."""
    from nextword.commands.eval import _baselines

    english, chinese = tmp_path / "en.txt", tmp_path / "zh.txt"
    english.write_text("the cat saw the dog\n", encoding="utf-8")
    chinese.write_text("今天天气好。好好学习。\n", encoding="utf-8")
    notes: list[str] = []
    words, chars = _baselines(["unigram"], [english], [chinese], notes)
    assert words["unigram"]()("", "", 1) == ["the"]
    assert chars["unigram"]()("今天", "", 2) == ["好", "天"]
    assert notes == []
