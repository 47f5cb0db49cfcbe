"""Informal spellings and their standard ones (data/variants.py builds the map,
engine/variants.py applies it), and the offensive-word list's selection."""

from __future__ import annotations

import numpy as np
import pytest

from nextword.data import offensive, variants
from nextword.engine.variants import StandardSpelling, Variants

CONTRACTIONS = ["don't", "I'm", "it's", "we'll", "can't", "let's"]
FREQUENCIES = {
    "don't": 1.5e-3, "dont": 5.4e-5, "i'm": 1.4e-3, "im": 4.8e-5, "it's": 2.1e-3,
    "its": 1.3e-3, "we'll": 7.6e-5, "well": 1.0e-3, "can't": 6.2e-4, "cant": 2.2e-5,
    "let's": 1.4e-4, "lets": 3.2e-5,
}  # fmt: skip


def test_a_bare_contraction_is_a_variant_only_where_it_is_no_word_of_its_own() -> None:
    table = variants.build(CONTRACTIONS, FREQUENCIES)
    assert table["dont"] == "don't" and table["cant"] == "can't" and table["im"] == "I'm"
    assert table["i"] == "I" and table["i'm"] == "I'm"
    # "its", "well" and "lets" (0.22 of "let's") are words of their own.
    assert not {"its", "well", "lets"} & set(table)


def test_text_and_words_take_the_standard_spelling_in_the_case_typed() -> None:
    spelling = Variants(variants.build(CONTRACTIONS, FREQUENCIES))
    assert spelling.standardise("im sure i dont know, Dont ask. DONT") == (
        "I'm sure I don't know, Don't ask. DON'T"
    )
    assert spelling.standardise("i.e. its well") == "i.e. its well"
    assert spelling.standard("don't") is None and spelling.standard("I") is None
    assert spelling.standard("dont") == "don't"


def test_a_variants_probability_goes_to_its_standard_word() -> None:
    words = ["dont", "don't", "im", "the"]
    index = {w: i for i, w in enumerate(words)}
    merge = StandardSpelling(Variants({"dont": "don't", "im": "I'm"}), words, index)
    mixed = np.array([0.2, 0.3, 0.1, 0.4])
    extra = {"cant": 0.05}
    merge.apply(mixed, extra)
    assert mixed.tolist() == pytest.approx([0.0, 0.5, 0.0, 0.4])
    # "I'm" is not in this lexicon: it stands beside it; "cant" has no entry here.
    assert extra == pytest.approx({"cant": 0.05, "I'm": 0.1})


def test_the_offensive_list_keeps_single_words_and_chinese_words() -> None:
    kept = offensive.select(["Bad", "two words", "worse"], ["乳", "下贱"])
    assert kept == ["bad", "worse", "下贱"]
