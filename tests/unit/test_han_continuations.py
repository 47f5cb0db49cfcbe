"""Which continuation each likely next character shows (engine/hantables.py), on a
hand-made lexicon: no model, the distribution given."""

from __future__ import annotations

import numpy as np
import pytest

from nextword.engine import hantables
from nextword.engine.hantables import AfterChar, CharTrigram, ChineseTables
from nextword.engine.lexicon import Lexicon

WORDS = sorted(["不", "不是", "不错", "好", "好吃", "很", "真"])


def lexicon() -> Lexicon:
    n = len(WORDS)
    return Lexicon(
        words=WORDS,
        counts=np.ones(n, dtype=np.int64),
        first_space=np.zeros(n, dtype=np.int32),
        first_bare=np.zeros(n, dtype=np.int32),
        cond_space=np.ones(n, dtype=np.float32),
        cond_bare=np.ones(n, dtype=np.float32),
        index={w: i for i, w in enumerate(WORDS)},
        capitalised=np.zeros(n, dtype=np.float32),
        shouted=np.zeros(n, dtype=bool),
    )


def dense(**p: float) -> np.ndarray:
    return np.array([p.get(w, 0.0) for w in WORDS])


def after(pairs: dict[tuple[str, str], int]) -> AfterChar:
    arrays = {
        "after_char": np.array([ord(c) for c, _ in pairs], dtype=np.int32),
        "after_word": np.array([WORDS.index(w) for _, w in pairs], dtype=np.int32),
        "after_count": np.array(list(pairs.values()), dtype=np.int32),
    }
    return AfterChar.from_arrays(arrays, len(WORDS))


# Context-free: 不 is mostly 不 alone or 不是, 不错 rare.
SHARES = dense(不=0.30, 不是=0.15, 不错=0.05, 好=0.3, 好吃=0.05, 很=0.1, 真=0.05)


@pytest.mark.parametrize(
    "bonus, expected", [(0.25, ["好", "不是", "很"]), (0.5, ["不", "好", "很"])]
)
def test_without_the_corpus_pairs_a_word_shows_when_it_saves_most(
    bonus: float, expected: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hantables, "LENGTH_BONUS", bonus)
    tables = ChineseTables(lexicon())
    shown = [c.text for c in tables.start_candidates(SHARES, 3, "今天天气真")]
    # 不 begins half the mass: 不是 (0.15 x 1) beats 不 alone (0.5 x bonus) with the
    # small bonus only; 好 alone (0.35 x bonus) beats 好吃 (0.05 x 1) with either.
    assert shown == expected  # in the order of the shown continuations' probabilities


def test_what_followed_the_character_before_picks_the_word() -> None:
    tables = ChineseTables(lexicon(), after({("真", "不错"): 40, ("真", "好"): 30}))
    shown = [c.text for c in tables.start_candidates(SHARES, 3, "今天天气真")]
    assert shown[:2] == ["不错", "好"]
    # Another character before: the context-free shares again.
    other = [c.text for c in tables.start_candidates(SHARES, 3, "他说")]
    plain = [c.text for c in ChineseTables(lexicon()).start_candidates(SHARES, 3, "他说")]
    assert other == plain and "不错" not in other


def test_the_likeliest_characters_each_show_one_continuation_by_its_probability() -> None:
    tables = ChineseTables(lexicon(), after({("真", "不错"): 40}))
    shown = tables.start_candidates(SHARES, 3, "真")
    assert sorted(c.text[0] for c in shown) == sorted("不好很")
    probs = [c.prob for c in shown]
    assert probs == sorted(probs, reverse=True) and all(0 < p <= 1 for p in probs)


def test_pairs_that_name_no_word_are_refused() -> None:
    arrays = {
        "after_char": np.array([ord("真")], dtype=np.int32),
        "after_word": np.array([len(WORDS)], dtype=np.int32),
        "after_count": np.array([3], dtype=np.int32),
    }
    with pytest.raises(ValueError, match="after_"):
        AfterChar.from_arrays(arrays, len(WORDS))
    assert AfterChar.from_arrays({}, len(WORDS)).counts("真", 0, len(WORDS)) is None


def test_the_tables_count_what_followed_each_character(tmp_path) -> None:
    """build_han_tables (training/tables.py) writes the pairs the engine reads, the
    sources weighed by the mix: a small source with a large share counts more."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    from nextword.engine.lexicon import load_lexicon
    from nextword.training.tables import build_han_tables

    chars = sorted(set("今天气真不错好很我是吃。"))
    tokenizer = Tokenizer(models.WordLevel({c: i for i, c in enumerate(chars)}, unk_token="。"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    news, spoken = tmp_path / "news.seg.txt", tmp_path / "spoken.seg.txt"
    news.write_text("今天 天气 很 好 。\n" * 6 + "我 是 。\n" * 20, encoding="utf-8")
    spoken.write_text("天气 真 不错 。\n" * 2 + "真 好吃 。\n", encoding="utf-8")
    build_han_tables([news, spoken], tmp_path, [0.5, 0.5])
    lex, arrays = load_lexicon(tmp_path, tokenizer, tmp_path)
    assert "好吃" in lex.index  # written once, but in the source the mix weighs up
    after = AfterChar.from_arrays(arrays, len(lex))
    lo, hi = lex.prefix_range("不")
    seen = after.counts("真", lo, hi)
    assert seen is not None and seen[lex.index["不错"] - lo] > 0
    # A pair written once is noise, however the mix weighs its source.
    assert after.counts("真", *lex.prefix_range("好")) is None
    assert after.counts("很", *lex.prefix_range("好")) is not None
    # The character trigram: after 气很 the text went on with 好; after 。 with a line start.
    chars = CharTrigram.from_arrays(arrays, lex)
    assert chars is not None
    after_hen = chars.component("今天天气很").dense
    lo, hi = lex.prefix_range("好")
    assert after_hen[lo:hi].sum() > 0.5  # 好 and the words it begins
    assert after_hen.sum() == pytest.approx(1.0)
    sentence_start = chars.component("我是。").dense
    assert {lex.words[i][0] for i in np.argsort(-sentence_start)[:3]} <= set("今我天真")
    assert chars.history("A好") == (len(lex) + 1, lex.index["好"])
