"""The simulated typist of docs/EVAL.md (nextword.evaluation.typist): its keystroke
arithmetic for words and for Chinese character continuations, and mixed documents typed
span by span, checked with plain functions as predictors. `nextword eval` end to end:
tests/engine/test_eval.py.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from nextword.commands.eval import _print_table
from nextword.data.documents import chinese_spans, is_han_document, read_documents
from nextword.engine.words import WORD_RE, is_han
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

    # Each document is one part: both are reported, beside the whole.
    assert out["parts"]["word"]["words"] == 3 and out["parts"]["word"]["characters"] == 11
    assert out["parts"]["chinese"]["words"] == 4 and out["parts"]["chinese"]["characters"] == 5
    assert out["parts"]["word"]["unit"] == "word"
    assert out["parts"]["chinese"]["unit"] == "character-continuation"

    path.write_text("the cat sat\n", encoding="utf-8")
    out = evaluate_file(path, {"fake": lambda: recorder}, max_words=None, progress=False)
    assert out["unit"] == "word" and "nextchar_top1" not in out and "parts" not in out


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


MIXED = "运行 pip install nextword 然后重启。"


def spans_of(doc: str) -> list[tuple[str, bool]]:
    spans = chinese_spans(doc)
    assert [s[0] for s in spans[1:]] == [s[1] for s in spans[:-1]]  # contiguous, in order
    assert (spans[0][0], spans[-1][1]) == (0, len(doc))  # the whole document
    return [(doc[start:end], chinese) for start, end, chinese in spans]


def test_chinese_spans_cut_commands_and_paths_out_of_chinese_text():
    assert spans_of(MIXED) == [
        ("运行", True),
        (" pip install nextword ", False),
        ("然后重启。", True),
    ]
    # Digits, spaces and punctuation between Chinese characters are Chinese; next to a
    # Latin word they go with it; words glued to Han characters are cut from them.
    assert spans_of("2024年3月， 打开 ~/.cache/nextword。安装nextword包") == [
        ("2024年3月， 打开", True),
        (" ~/.cache/nextword", False),
        ("。安装", True),
        ("nextword", False),
        ("包", True),
    ]
    assert spans_of("See the 文档 for details.\n\n这是中文。") == [
        ("See the ", False),
        ("文档", True),
        (" for details.\n\n", False),
        ("这是中文。", True),
    ]
    # A document of one kind is one span, whatever its edges.
    assert spans_of("1. 今天，很好！\n") == [("1. 今天，很好！\n", True)]
    assert spans_of("the cat sat, 3 times.") == [("the cat sat, 3 times.", False)]
    assert spans_of("12 ...") == [("12 ...", False)]
    assert chinese_spans("") == []


def oracle(doc: str, calls: list[tuple[str, str, int]] | None = None) -> Predict:
    """Offers the text's next word (word typist) or its next two Han characters (the
    Chinese typist, as `perfect`), recording each call."""

    def predict(context: str, prefix: str, k: int) -> list[str]:
        assert doc.startswith(context)
        if calls is not None:
            calls.append((context, prefix, k))
        if k == CJK_K:
            return perfect(doc)(context, prefix, k)
        match = WORD_RE.match(doc, len(context))
        word = match.group() if match else ""
        return [word[: next((i for i, c in enumerate(word) if is_han(c)), len(word))]]

    return predict


def mixed_file(tmp_path: Path, text: str = MIXED) -> Path:
    path = tmp_path / "mixed.txt"
    path.write_text(text + "\n", encoding="utf-8")
    return path


def test_every_span_is_typed_with_the_whole_document_before_it(tmp_path: Path):
    calls: list[tuple[str, str, int]] = []
    evaluate_file(
        mixed_file(tmp_path), {"fake": lambda: oracle(MIXED, calls)}, max_words=None,
        progress=False,
    )  # fmt: skip
    # The Chinese typist asks at every Han position, with the document up to it...
    chinese = [(c, p) for c, p, k in calls if k == CJK_K]
    han = [i for i, char in enumerate(MIXED) if is_han(char)]
    assert chinese == [(MIXED[:i], "") for i in han]
    assert ("运行 pip install nextword ", "") in chinese  # 然: after the command
    # ... and the word typist at every word start of the command, after 运行.
    words = [(c, p) for c, p, k in calls if k == MAX_K]
    starts = [m.start() for m in WORD_RE.finditer(MIXED) if not is_han(m.group()[0])]
    assert words == [(MIXED[:i], "") for i in starts]
    assert words[0] == ("运行 ", "")


def test_a_mixed_document_reports_its_word_part_and_its_chinese_part(tmp_path: Path):
    out = evaluate_file(
        mixed_file(tmp_path), {"fake": lambda: oracle(MIXED)}, max_words=None, progress=False
    )
    word, chinese = out["parts"]["word"], out["parts"]["chinese"]
    # Words: pip, install, nextword accepted at once (3 keys), 4 spaces typed: 7 keys
    # for 22 characters.
    assert word["unit"] == "word" and word["words"] == 3 and word["characters"] == 22
    assert word["ksr@1"] == word["ksr@5(ranked)"] == round(1 - 7 / 22, 4)
    assert word["top1"] == 1.0 and "nextchar_top1" not in word
    # Chinese: 运行 (1), 然后 (1), 重启 (1), 。 (1): 4 keys for 7 characters.
    assert chinese["unit"] == "character-continuation"
    assert chinese["words"] == 6 and chinese["characters"] == 7
    assert chinese["ksr@1"] == chinese["ksr@5(ranked)"] == round(1 - 4 / 7, 4)
    assert chinese["top1"] == chinese["nextchar_top1"] == 1.0
    # The whole: both parts' sums.
    assert out["unit"] == "mixed" and out["words"] == 9 and out["characters"] == len(MIXED)
    assert out["ksr@1"] == round(1 - 11 / len(MIXED), 4)
    latency = {"p50", "p95", "p99", "boundary", "inword"}
    assert set(word["latency_ms"]) == set(chinese["latency_ms"]) == latency


def test_a_span_is_typed_within_its_edges():
    doc = "今天ok"
    predict = by_position(doc, {0: ["今天o"]})
    whole, span = Tally(), Tally()
    type_document_cjk(doc, predict, whole)
    type_document_cjk(doc, predict, span, start=0, end=2)
    assert whole.keystrokes[1] == 2 and whole.chars == 4  # 今天o (1), k (1)
    assert span.keystrokes[1] == 2 and span.chars == 2  # 今天o runs past the span: typed
    words = Tally()
    type_document("安装nextword包", oracle("安装nextword包"), words, start=2, end=10)
    assert words.words == 1 and words.chars == 8 and words.keystrokes[1] == 1


def test_each_document_gets_one_predictor_or_one_of_each_kind(tmp_path: Path):
    made: list[str] = []

    def factory(kind: str) -> Callable[[], Predict]:
        def make() -> Predict:
            made.append(kind)
            return lambda context, prefix, k: []

        return make

    path = mixed_file(tmp_path, f"{MIXED}\n\f\nthe cat sat")
    words = factory("words")
    # nextword's router serves both kinds of span: one predictor per document.
    evaluate_file(path, {"fake": words}, max_words=None, progress=False)
    assert made == ["words", "words"]
    # A baseline with a character version: one of each, and only where needed.
    made.clear()
    evaluate_file(
        path, {"fake": words}, cjk_predictors={"fake": factory("chars")}, max_words=None,
        progress=False,
    )  # fmt: skip
    assert made == ["chars", "words", "words"]


def test_the_table_prints_both_parts_of_a_mixed_file(tmp_path: Path, capsys):
    path = mixed_file(tmp_path)
    predictors = {"fake": lambda: oracle(MIXED), "other": lambda: oracle(MIXED)}
    result = evaluate_file(path, predictors, max_words=None, progress=False)
    _print_table([result], [1, 3, 5], "cpu")
    lines = capsys.readouterr().out.splitlines()
    parts = [line.split()[:4] for line in lines if line.startswith(("  word", "  Chinese"))]
    assert parts == [
        ["word", "spans", "nextword", "3"],
        ["Chinese", "spans", "nextword", "6"],
        ["word", "spans", "other", "3"],
        ["Chinese", "spans", "other", "6"],
    ]
    assert any(line.startswith("  unit: mixed") for line in lines)
    assert any(line.startswith("  parts: word spans") for line in lines)
    path.write_text("the cat sat\n", encoding="utf-8")
    predictors = {"fake": lambda: oracle("the cat sat")}
    _print_table([evaluate_file(path, predictors, max_words=None, progress=False)], [1], "cpu")
    assert "spans" not in capsys.readouterr().out


def test_progress_counts_the_words_of_one_long_document(tmp_path: Path, capsys):
    """One document of 40 words moves the bar word by word, not 0/1 until its end."""
    path = tmp_path / "long.txt"
    path.write_text(" ".join(f"w{i}" for i in range(40)) + "\n", encoding="utf-8")
    asked: list[str] = []

    def slow_at_the_sixth_word(context: str, prefix: str, k: int) -> list[str]:
        if prefix == "":
            asked.append(context)
            if len(asked) == 6:
                time.sleep(0.3)  # past tqdm's refresh interval: the next tick prints
        return []

    evaluate_file(path, {"slow": lambda: slow_at_the_sixth_word}, max_words=None, progress=True)
    err = capsys.readouterr().err
    assert "long.txt [slow]" in err
    # While the document was being typed: a count between none and all of its words.
    assert re.search(r" ([1-9]|[1-3][0-9])/40 ", err), err
    assert "40/40 " in err and "word" in err and "1/1 " not in err


def test_progress_counts_han_characters_in_chinese_text(tmp_path: Path, capsys):
    path = tmp_path / "zh.txt"
    path.write_text("今天很好。\n\f\n我们走吧。\n", encoding="utf-8")
    evaluate_file(path, {"fake": lambda: lambda c, p, k: []}, max_words=None, progress=True)
    err = capsys.readouterr().err
    assert "8/8 " in err and "char" in err


class Correcting:
    """Never the word; marks a correction in every answer inside `odd`, a word no
    dictionary holds (`MarksCorrections`)."""

    def __init__(self, odd: str) -> None:
        self.odd, self.corrected = odd, False

    def __call__(self, context: str, prefix: str, k: int) -> list[str]:
        self.corrected = bool(prefix) and self.odd.startswith(prefix)
        return []


def test_corrected_answers_are_split_by_the_word_typed():
    doc = "the Hoffstadler cat"
    tally = Tally()
    type_document(doc, Correcting("Hoffstadler"), tally)
    # In-word answers: 2 in "the", 10 in the name, 2 in "cat"; the name's all corrected.
    assert (tally.marked_answers, tally.corrected_answers) == (14, 10)
    assert tally.corrected_share() == {"inword_corrected": round(10 / 14, 5)}
    split = (tally + Tally()).corrected_share(lambda word: word != "Hoffstadler")
    assert split == {"inword_corrected": round(10 / 14, 5), "inword_corrected_known": 0.0}


def test_the_bundled_openings_are_well_formed() -> None:
    from nextword.evaluation.openings import BUNDLED, read_openings

    openings = read_openings(BUNDLED)
    assert len(openings) == 229
    assert len({o.text for o in openings}) == len(openings)
    assert all(o.accepted and o.accepted == {w.lower() for w in o.accepted} for o in openings)
