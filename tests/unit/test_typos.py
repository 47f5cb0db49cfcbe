"""The evaluator's typo generator (evaluation/typos.py) and the typist's typo mode."""

from __future__ import annotations

import random

import pytest

from nextword.engine.errormodel import classify
from nextword.engine.words import WORD_RE
from nextword.evaluation.typist import Tally, speller_rates, type_document
from nextword.evaluation.typos import (
    CODESPELL,
    SYNTHETIC,
    Corrupted,
    Typo,
    TypoGenerator,
    eligible,
    match_case,
)

TEXT = (
    "The quick brown foxes jumped over the lazy dogs while everyone watched. "
    "Nobody believed what happened next, because the weather was strange. "
    "SOMETIMES people write loudly; JavaScript and snake_case and don't stay as typed. "
) * 20
KINDS = {kind for kind, _ in SYNTHETIC}


def corrupt(text: str = TEXT, rate: float = 0.3, seed: int = 1, **kw) -> Corrupted:
    return TypoGenerator(rate, **kw).corrupt([text], seed=seed)[0]


def test_the_same_seed_gives_the_same_typos_and_another_seed_others():
    assert corrupt(seed=7) == corrupt(seed=7)
    assert corrupt(seed=7).typos != corrupt(seed=8).typos


def test_only_eligible_words_are_corrupted_at_about_the_rate():
    words = [m for m in WORD_RE.finditer(TEXT)]
    n_eligible = sum(eligible(m.group()) for m in words)
    done = corrupt(rate=0.3)
    assert done.eligible == n_eligible
    assert 0.22 * n_eligible < len(done.typos) < 0.38 * n_eligible
    starts = {m.start(): m.group() for m in words}
    for typo in done.typos:
        assert starts[typo.start] == typo.intended
        assert len(typo.intended) >= 4 and eligible(typo.intended)
        assert typo.typed != typo.intended
    hit = {typo.intended for typo in done.typos}
    assert not hit & {"the", "fox", "was", "JavaScript", "snake_case", "don't"}
    assert len(corrupt(rate=1.0).typos) == n_eligible


def test_the_corrupted_text_has_the_typed_spellings_in_place():
    done = corrupt(rate=0.5)
    text = done.text
    assert text != TEXT
    typed = [m.group() for m in WORD_RE.finditer(text)]
    clean = [m.group() for m in WORD_RE.finditer(TEXT)]
    assert len(typed) == len(clean)
    changed = [(c, t) for c, t in zip(clean, typed, strict=True) if c != t]
    assert changed == [(t.intended, t.typed) for t in done.typos]


def test_synthetic_edits_are_one_edit_of_the_drawn_kind():
    done = corrupt(rate=1.0)
    kinds = {typo.kind for typo in done.typos}
    assert kinds == KINDS  # every kind occurs, and nothing else without pairs
    for typo in done.typos:
        got = classify(typo.typed, typo.intended)
        # The engine splits omissions into "omit" and "omit_double"; an extra key that
        # repeats its neighbour reads as a double there.
        if typo.kind == "omit":
            assert got in ("omit", "omit_double"), typo
        elif typo.kind == "insert_adjacent":
            assert got in ("insert_adjacent", "insert_double"), typo
        else:
            assert got == typo.kind, typo


def test_the_kinds_come_in_their_shares():
    words = " ".join(["everything"] * 4000)
    done = corrupt(words, rate=1.0)
    counts = {kind: 0 for kind in KINDS}
    for typo in done.typos:
        counts[typo.kind] += 1
    for kind, share in SYNTHETIC:
        assert abs(counts[kind] / len(done.typos) - share) < 0.03, (kind, counts)


def test_codespell_pairs_are_used_where_the_word_has_one():
    pairs = [("recieve", "receive"), ("wierd", "weird"), ("weidr", "weird"), ("teh", "the")]
    text = "Receive it, receive it, RECEIVE it. Weird weird. Other words stay synthetic."
    done = corrupt(text, rate=1.0, pairs=pairs)
    by_word = {t.intended: t for t in done.typos}
    assert by_word["Receive"].typed == "Recieve"
    assert by_word["receive"].typed == "recieve"
    assert by_word["RECEIVE"].typed == "RECIEVE"
    assert by_word["Weird"].typed in ("Wierd", "Weidr")
    assert {t.kind for t in done.typos if t.intended.lower() in ("receive", "weird")} == {CODESPELL}
    assert {t.kind for t in done.typos if t.intended in ("Other", "words", "stay")} <= KINDS
    # Over many draws, both misspellings of "weird" are used.
    many = corrupt(" ".join(["weird"] * 200), rate=1.0, pairs=pairs)
    assert {t.typed for t in many.typos} == {"wierd", "weidr"}


def test_capitals_are_kept():
    done = corrupt("Everything Anywhere SOMETHING nothing " * 50, rate=1.0)
    for typo in done.typos:
        if typo.intended.isupper():
            assert typo.typed.isupper(), typo
        elif typo.intended[0].isupper():
            assert typo.typed[0].isupper() and typo.typed[1:].islower(), typo
        else:
            assert typo.typed.islower(), typo
    assert match_case("receive", "Recieve") == "Receive"
    assert match_case("receive", "RECIEVE") == "RECEIVE"
    assert match_case("receive", "recieve") == "receive"


def test_chinese_documents_and_bad_rates():
    assert corrupt("今天天气很好，我们去公园散步吧。" * 5, rate=1.0).typos == ()
    for rate in (0, -0.1, 1.5):
        with pytest.raises(ValueError):
            TypoGenerator(rate)


def test_mistake_at_counts_the_letters_typed_right():
    assert Typo(0, "address", "adress", "omit").mistake_at == 2
    assert Typo(0, "until", "untill", "insert_double").mistake_at == 5
    assert Typo(0, "java", "ajva", "transpose").mistake_at == 0


# ------------------------------------------------------------------ the typist's typo mode


def oracle(offers: dict[str, list[str]]):
    """A predictor that offers, for a typed prefix, the words listed for it."""
    return lambda context, prefix, k: offers.get(prefix, [])[:k]


def test_a_corrupted_word_is_typed_misspelled_and_the_word_meant_accepted():
    doc = "send the address now"
    typo = Typo(9, "address", "adress", "omit")
    # Offered at rank 2 once "adr" is typed (after the mistake: "ad" + "r").
    tally = Tally()
    type_document(doc, oracle({"adr": ["adrenaline", "address"]}), tally, [typo])
    assert tally.corrupted == 1
    assert tally.recovered == {1: 0, 3: 1, 5: 1}
    assert tally.before_mistake == {1: 0, 3: 0, 5: 0}
    # "address" costs 3 letters + accept at k=3; the other words are typed in full.
    separators = 3
    assert tally.keystrokes[3] == 4 + 3 + 4 + 3 + separators
    assert tally.keystrokes[1] == 4 + 3 + 7 + 3 + separators
    assert tally.chars == len(doc)


def test_a_late_correction_costs_no_more_than_the_word():
    doc = "wait until then"
    typo = Typo(5, "until", "untill", "insert_double")
    tally = Tally()
    # Offered only once the whole misspelling is typed (6 letters): charged 5, not 7.
    type_document(doc, oracle({"untill": ["until"]}), tally, [typo])
    assert tally.recovered[1] == 1 and tally.before_mistake[1] == 0
    assert tally.keystrokes[1] == len(doc)
    # Offered before the mistake: prediction, counted as such.
    tally = Tally()
    type_document(doc, oracle({"un": ["until"]}), tally, [typo])
    assert tally.before_mistake[1] == 1 and tally.keystrokes[1] == len(doc) - 5 + 3


def test_without_typos_the_typist_is_unchanged():
    doc = "the cat sat on the mat"
    offers = {"": ["the"], "c": ["cat"], "s": ["sun", "sat"], "m": ["mat"]}
    tally = Tally()
    type_document(doc, oracle(offers), tally)
    # the: 1, cat: 2, sat: 2 (k=3), on: 2, the: 1, mat: 2; 5 spaces.
    assert tally.keystrokes[3] == 1 + 2 + 2 + 2 + 1 + 2 + 5
    assert tally.ranked_keystrokes[3] == 1 + 2 + 3 + 2 + 1 + 2 + 5
    assert tally.corrupted == 0


def test_speller_rates_rank_the_suggestions():
    typos = [Typo(0, "receive", "recieve", CODESPELL), Typo(0, "weird", "wierd", CODESPELL)]
    suggestions = {"recieve": ["receive"], "wierd": ["wired", "wield", "weird"]}
    rates = speller_rates(typos, lambda word, k: suggestions[word][:k])
    assert rates == {"correction@1": 0.5, "correction@3": 1.0, "correction@5": 1.0}


def test_the_generator_draws_from_its_own_rng():
    gen = TypoGenerator(1.0)
    first = gen.misspell("everything", random.Random(3))
    assert first == gen.misspell("everything", random.Random(3))
    assert first[1] in KINDS
