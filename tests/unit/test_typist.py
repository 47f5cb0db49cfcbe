"""The simulated typist of docs/EVAL.md (nextword.evaluation.typist): its keystroke
arithmetic for words and for Chinese character continuations, checked with plain
functions as predictors. `nextword eval` end to end: tests/engine/test_eval.py.
"""

from __future__ import annotations

from pathlib import Path

from nextword.data.documents import is_han_document, read_documents
from nextword.engine.words import is_han
from nextword.evaluation.typist import (
    CJK_K,
    MAX_K,
    Predict,
    Tally,
    evaluate_file,
    type_document,
    type_document_cjk,
)


def by_position(doc: str, answers: dict[int, list[str]]) -> Predict:
    """A predictor that answers from a table keyed by the cursor position."""

    def predict(context: str, prefix: str, k: int) -> list[str]:
        assert doc.startswith(context) and prefix == "" and k == CJK_K
        return answers.get(len(context), [])

    return predict


def perfect(doc: str) -> Predict:
    """Offers the next two characters, stopping before anything that is not Han."""

    def predict(context: str, prefix: str, k: int) -> list[str]:
        i = len(context)
        run = doc[i : i + 2]
        return [run[:1] if not is_han(run[-1:]) else run]

    return predict


def typed(doc: str, predict: Predict) -> dict[str, float]:
    tally = Tally()
    type_document_cjk(doc, predict, tally)
    return tally.quality()


def test_perfect_predictor_saves_exactly_what_the_protocol_says():
    doc = "今天很好。\nOK我们走"
    # 今天 (1) 很好 (1) 。(1) \n (1) O (1) K (1) 我们 (1) 走 (1): 8 keys for 11 characters.
    q = typed(doc, perfect(doc))
    for k in (1, 3, 5):
        assert q[f"ksr@{k}"] == q[f"ksr@{k}(ranked)"] == round(1 - 8 / 11, 4)
    assert q["top1"] == q["top3"] == q["mrr@5"] == 1.0
    assert q["nextchar_top1"] == q["nextchar_top3"] == 1.0
    tally = Tally()
    type_document_cjk(doc, perfect(doc), tally)
    assert tally.words == tally.han_positions == 7 and tally.chars == 11
    assert len(tally.boundary_ms) == 7 and not tally.inword_ms


def test_a_predictor_that_never_matches_saves_nothing():
    doc = "我们去公园，好吗？"
    q = typed(doc, lambda context, prefix, k: ["的", "是"])
    assert all(q[f"ksr@{k}"] == 0.0 for k in (1, 3, 5))
    assert q["top1"] == q["top3"] == q["mrr@5"] == q["nextchar_top3"] == 0.0


def test_the_typist_accepts_the_longest_correct_candidate_within_k():
    doc = "今天很好"
    q = typed(doc, by_position(doc, {0: ["今", "今天很", "今天"]}))
    # k=1: accepts 今 (1 key), types 天很好 (3 keys): 4 keys, nothing saved.
    assert q["ksr@1"] == q["ksr@1(ranked)"] == 0.0
    # k=3: accepts 今天很 at rank 2 (1 key; 2 ranked), types 好 (1 key).
    assert q["ksr@3"] == q["ksr@5"] == 0.5
    assert q["ksr@3(ranked)"] == q["ksr@5(ranked)"] == 0.25
    # Accuracy looks at the first candidate that fits: rank 1 here, at 1 of 4 positions.
    assert q["top1"] == q["top3"] == q["mrr@5"] == 0.25


def test_ranked_cost_and_candidates_beyond_k():
    doc = "中国人民"
    answers = {0: ["大家", "我们", "中国人", "你", "中"], 3: ["的", "是", "民"]}
    q = typed(doc, by_position(doc, answers))
    # k=1: nothing accepted: 4 keys. k=3: 中国人 at rank 3 (1 key; 3 ranked), then 民 at
    # rank 3 (1 key; 3 ranked): 2 keys, 6 ranked. k=5: the same (中 at 5 is shorter).
    assert q["ksr@1"] == 0.0
    assert q["ksr@3"] == q["ksr@5"] == 0.5
    assert q["ksr@3(ranked)"] == q["ksr@5(ranked)"] == round(1 - 6 / 4, 4)
    # Positions 0 and 3 fit at rank 3 (1/3 each); 国 and 人 get nothing.
    assert q["top1"] == 0.0 and q["top3"] == 0.5
    assert q["mrr@5"] == round(2 / 3 / 4, 4)


def test_next_character_accuracy_counts_distinct_first_characters():
    doc = "今天"
    # First characters 天 天 天 明 今: distinct 天, 明, 今; 今 is third, continuation rank 5.
    q = typed(doc, by_position(doc, {0: ["天气", "天空", "天上", "明天", "今天"]}))
    assert q["nextchar_top1"] == 0.0 and q["nextchar_top3"] == 0.5  # 天 (position 1) gets []
    assert q["top3"] == 0.0 and q["mrr@5"] == round(1 / 5 / 2, 4)
    q = typed(doc, by_position(doc, {0: ["天气", "明天", "后天", "今天"], 1: ["天"]}))
    assert q["nextchar_top1"] == 0.5 and q["nextchar_top3"] == 0.5  # 今 is fourth distinct
    # Candidates past MAX_K still rank next characters (今年 is sixth, 今 second distinct)...
    q = typed(doc, by_position(doc, {0: ["一天", "一年", "一月", "一日", "一时", "今年"]}))
    assert q["nextchar_top1"] == 0.0 and q["nextchar_top3"] == 0.5
    # ... but are never accepted nor ranked as continuations.
    q = typed(doc, by_position(doc, {0: ["一天", "一年", "二天", "二年", "三天", "今天"]}))
    assert q["ksr@5"] == q["mrr@5"] == 0.0 and q["nextchar_top3"] == 0.0


def test_han_detection():
    assert is_han("中") and is_han("\u3400") and is_han("\U00020000")
    for char in ("a", "1", "。", "，", "１", "ア", "あ", "한", " ", "", "中国"):
        assert not is_han(char)
    assert is_han_document("今天很好。")
    assert is_han_document("中文字 ab\n\n  ")  # 3 of 5 non-space characters
    assert not is_han_document("中文 abc")  # 2 of 5
    assert not is_han_document("hello 世界")
    assert not is_han_document("   \n")


def test_english_documents_keep_the_word_typist(tmp_path: Path):
    path = tmp_path / "mixed.txt"
    path.write_text("the cat sat\n\f\n今天很好。\n", encoding="utf-8")
    calls: list[tuple[str, int]] = []

    def recorder(context: str, prefix: str, k: int) -> list[str]:
        calls.append((prefix, k))
        return []

    out = evaluate_file(path, {"fake": lambda: recorder}, max_words=None, progress=False)
    english = [c for c in calls if c[1] == MAX_K]
    chinese = [c for c in calls if c[1] == CJK_K]
    assert len(english) == len("thecatsat") and {p for p, _ in english} >= {"", "c", "ca"}
    assert chinese == [("", CJK_K)] * 4
    assert out["unit"] == "mixed" and out["words"] == 3 + 4 and out["characters"] == 11 + 5

    path.write_text("the cat sat\n", encoding="utf-8")
    out = evaluate_file(path, {"fake": lambda: recorder}, max_words=None, progress=False)
    assert out["unit"] == "word" and "nextchar_top1" not in out


def test_max_words_counts_han_characters_in_chinese_documents(tmp_path: Path):
    path = tmp_path / "zh.txt"
    path.write_text("今天，很好。\n\f\n我们走吧。\n", encoding="utf-8")
    docs, _ = read_documents(path, 3)
    assert docs == ["今天，很"]
    docs, _ = read_documents(path, 5)
    assert docs == ["今天，很好。", "我"]


def test_keystroke_accounting_follows_the_protocol():
    """A typist that always offers the right word at the first keystroke saves the most."""
    doc = "the cat sat"

    def oracle(context: str, prefix: str, k: int) -> list[str]:
        words = doc.split()
        return [words[len(context.split())]]

    def blind(context: str, prefix: str, k: int) -> list[str]:
        return []

    tally = Tally()
    type_document(doc, oracle, tally)
    # 3 accepts + 2 spaces typed = 5 keystrokes for 11 characters.
    assert tally.quality()["ksr@1"] == round(1 - 5 / 11, 4)
    assert tally.quality()["top1"] == 1.0
    tally = Tally()
    type_document(doc, blind, tally)
    assert tally.quality()["ksr@5"] == 0.0
