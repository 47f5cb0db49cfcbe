"""The phrase measurement (nextword.evaluation.phrases) and the threshold fit
(nextword.training.phrase_fit), with plain functions in place of the engine.
`nextword eval --phrases` on the bundled model: tests/engine/test_eval_phrases.py."""

from __future__ import annotations

import random
from collections.abc import Sequence

from nextword.evaluation.phrases import (
    PhraseTally,
    PhraseTypist,
    following_words,
    matched,
    measure_phrases,
    type_document_phrases,
)
from nextword.evaluation.typist import Tally, type_document
from nextword.training.phrase_fit import Collected, Scored, fit_threshold, precision, record

DOC = "the cat sat on the mat"


def never(context: str, prefix: str, k: int) -> list[str]:
    return []


def oracle(doc: str, length: int = 4):
    """Shows the text's own next words (two or more) at every boundary."""

    def show(context: str) -> Sequence[str] | None:
        words = following_words(doc, len(context), length)
        return words if len(words) >= 2 else None

    return show


def typed(doc: str, typist: PhraseTypist) -> PhraseTally:
    tally = PhraseTally()
    type_document_phrases(doc, typist, tally)
    return tally


def test_the_next_words_are_joined_by_single_spaces():
    doc = "Thank you, and see you  soon.\nBye now"
    assert following_words(doc, 0, 5) == ["Thank", "you"]  # the comma ends the run
    assert following_words(doc, doc.index("and"), 5) == ["and", "see", "you"]  # two spaces
    assert following_words(doc, doc.index("soon"), 5) == ["soon"]
    assert following_words(doc, doc.index("Bye"), 1) == ["Bye"]
    assert following_words(doc, doc.index("Bye"), 5) == ["Bye", "now"]
    assert matched(("see", "you", "later"), ["see", "you", "soon"]) == 2
    assert matched(("you", "see"), ["see", "you"]) == 0
    assert matched(("see", "you"), ["see"]) == 1


def test_perfect_phrases_are_accepted_a_word_at_a_time():
    tally = typed(DOC, PhraseTypist(never, oracle(DOC)))
    out = tally.figures()
    # "the cat sat on" (4 keys, 3 spaces inside), then "the mat" (2 keys, 1 space inside);
    # the space after "on" is typed: 7 keystrokes for 22 characters.
    assert out["ksr@1"] == round(1 - 7 / 22, 4) == out["ksr@5"]
    assert out["accepted_words"] == 6
    assert (out["boundaries"], out["shown"]) == (6, 5)  # "mat" alone is no phrase
    assert out["coverage"] == round(5 / 6, 4)
    assert out["shown_at_least"] == {"1": 5, "2": 5, "3": 4, "4": 3, "5": 0}
    assert [out[f"exact_match@{n}"] for n in range(1, 5)] == [1.0] * 4
    assert out["exact_match@5"] is None
    assert len(tally.ms) == 6 and out["latency_ms"]["p50"] >= 0


def test_with_no_phrase_right_it_types_as_the_word_typist():
    def first_letter(context: str, prefix: str, k: int) -> list[str]:
        following = following_words(DOC, len(context), 1)
        return following if prefix else []  # each word offered after one letter

    def wrong(context: str) -> Sequence[str]:
        return ("zebra", "crossing")

    tally = typed(DOC, PhraseTypist(first_letter, wrong))
    words = Tally()
    type_document(DOC, first_letter, words)
    assert tally.typist.quality()["ksr@1"] == words.quality()["ksr@1"] > 0
    out = tally.figures()
    assert out["shown"] == 6 and out["accepted_words"] == 0
    assert [out[f"exact_match@{n}"] for n in (1, 2)] == [0.0, 0.0]
    assert out["exact_match@3"] is None


def test_a_partial_match_is_accepted_up_to_the_first_wrong_word():
    doc = "see you soon, bye"

    def show(context: str) -> Sequence[str] | None:
        return ("see", "you", "later") if context == "" else None

    out = typed(doc, PhraseTypist(never, show)).figures()
    # "see you" for 2 keys (the space between free), then " soon, bye" typed: 2 + 10 keys.
    assert out["accepted_words"] == 2
    assert out["ksr@1"] == round(1 - 12 / len(doc), 4)
    assert (out["exact_match@1"], out["exact_match@2"], out["exact_match@3"]) == (1.0, 1.0, 0.0)


def test_a_phrase_across_a_comma_matches_only_up_to_it():
    doc = "yes, we can"
    out = typed(doc, PhraseTypist(never, lambda c: ("yes", "we") if c == "" else None)).figures()
    assert out["accepted_words"] == 1 and out["exact_match@2"] == 0.0
    assert out["ksr@1"] == round(1 - (1 + 2 + 3 + 3) / len(doc), 4)  # 3 separators typed


def test_chinese_documents_get_no_phrases():
    docs = ["你好世界你好", DOC]
    typists = iter([PhraseTypist(never, oracle(docs[0])), PhraseTypist(never, oracle(DOC))])
    out = measure_phrases(docs, "x", make=lambda: next(typists), progress=False)
    assert out["boundaries"] == 6  # the English document's words only
    assert out["shown"] == 5


def synthetic(n: int, seed: int) -> list[Scored]:
    """Phrases whose chance of being right grows with their score, ties included."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        score = round(rng.uniform(-4.0, 0.0), 1)  # coarse: many ties
        right = rng.random() < 0.9 * (1 + score / 4) ** 2
        words = rng.choice((2, 3, 4))
        out.append(Scored(score, words, words if right else rng.randrange(words)))
    return out


def test_the_fitted_threshold_reaches_the_target_on_its_positions():
    for seed in range(5):
        scored = synthetic(2000, seed)
        for target in (0.3, 0.5, 0.7):
            t = fit_threshold({"dev": scored}, target, min_shown=30)
            assert t is not None
            achieved, shown = precision(scored, t, lambda s: s.correct)
            assert achieved >= target and shown >= 30
            # The smallest such threshold: every lower score keeps too low a precision.
            for lower in {s.score for s in scored if s.score < t}:
                assert precision(scored, lower, lambda s: s.correct)[0] < target


def test_no_threshold_when_the_target_is_out_of_reach():
    scored = [Scored(-1.0, 2, 0)] * 50 + [Scored(-0.5, 2, 2)] * 10
    assert fit_threshold({"dev": scored}, 0.5, min_shown=30) is None  # 10 right of the top 60
    assert fit_threshold({"dev": scored}, 0.5, min_shown=5) == -0.5  # the ten right ones alone
    fitted = record(Collected({"dev": scored}, {}, 100), 0.5, [], 100)
    assert fitted["threshold"] is None and "precision" not in fitted
    assert fitted["in_word"]["threshold"] is None  # no candidates at all in words


def test_the_record_says_what_the_threshold_achieved():
    scored = synthetic(2000, 1)
    fitted = record(Collected({"dev": scored}, {}, 4000), 0.5, [], 3000)
    assert fitted["precision"] >= 0.5 and fitted["precision_target"] == 0.5
    assert fitted["precision_first_two"] >= fitted["precision"]  # a right phrase's two words
    assert fitted["coverage"] == round(fitted["shown"] / 4000, 4)
    curve = fitted["by_precision"]
    coverages = [curve[p]["coverage"] for p in sorted(curve)]
    assert coverages == sorted(coverages, reverse=True) and len(curve) >= 4
    assert all(curve[p]["precision"] >= float(p) for p in curve)


def test_in_words_a_threshold_of_its_own_for_the_same_precision():
    # In words the scores run higher for phrases no more often right: the same scores
    # shifted up by one must give a threshold one higher, at the same precision.
    at_starts = synthetic(2000, 2)
    in_words = [Scored(s.score + 1.0, s.words, s.matched) for s in at_starts]
    fitted = record(Collected({"dev": at_starts}, {"dev": in_words}, 4000), 0.5, [], 3000)
    inside = fitted["in_word"]
    assert inside["threshold"] == fitted["threshold"] + 1.0
    assert inside["precision"] == fitted["precision"] >= 0.5
    assert inside["coverage"] == fitted["coverage"]


def test_each_file_weighs_the_same_in_the_precision():
    # One file's confident phrases are all right, the other's all wrong: pooled, the
    # top 55 are 91% right; file by file the wrong file shows a phrase at every
    # threshold the right one does, so the mean never passes 0.5.
    footers = [Scored(-0.2, 2, 2)] * 50
    prose = [Scored(-0.3, 2, 0)] * 50 + [Scored(-0.1, 2, 0)] * 5
    assert fit_threshold({"all": footers + prose}, 0.6) == -0.2
    assert fit_threshold({"email": footers, "wiki": prose}, 0.6) is None
    # Right half the time in each file: 0.5 is reached, and the record says so per file.
    mixed = [Scored(-0.3, 2, 2), Scored(-0.3, 2, 1)] * 20
    fitted = record(Collected({"email": mixed, "wiki": mixed}, {}, 1000), 0.5, [], 500)
    assert fitted["threshold"] == -0.3 and fitted["precision"] == 0.5
    assert fitted["by_file"] == {
        name: {"precision": 0.5, "shown": 40} for name in ("email", "wiki")
    }
