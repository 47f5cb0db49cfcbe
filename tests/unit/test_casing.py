"""Standard capitals for words written in lower case (data/casing.py builds the map,
engine/variants.py applies it), against a small Hunspell dictionary of the test's own."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nextword.data import casing
from nextword.engine.variants import StandardSpelling, Variants

AFFIXES = "SET UTF-8\n\nSFX S Y 1\nSFX S 0 s .\n"
ENTRIES = ["Saturday/S", "iPhone", "TV", "SAM", "Sam", "bishop/S", "Grey", "BC"]


def dictionary(tmp_path: Path) -> Path:
    dic = tmp_path / "en_TEST"
    dic.with_suffix(".aff").write_text(AFFIXES, encoding="utf-8")
    dic.with_suffix(".dic").write_text(
        f"{len(ENTRIES)}\n" + "\n".join(ENTRIES) + "\n", encoding="utf-8"
    )
    return dic


def test_lower_case_words_take_the_dictionarys_capitals(tmp_path: Path) -> None:
    words = ["saturday", "saturdays", "iphone", "tv", "sam", "bishop", "bishops", "the"]
    edited = {"Saturday": 40.0, "saturday": 1.0, "TV": 30.0, "tv": 2.0, "Sam": 5.0}
    table = casing.case_variants(words, edited, edited, dictionary(tmp_path))
    assert table == {
        "saturday": "Saturday",
        "saturdays": "Saturdays",  # the plural the affix file derives
        "iphone": "iPhone",  # the entry's own capitals
        "tv": "TV",
        "sam": "Sam",  # the word with a capital before the abbreviation SAM
    }  # "bishop" is a word of its own in lower case; "the" no name


def test_the_training_text_keeps_words_it_writes_in_lower_case(tmp_path: Path) -> None:
    dic = dictionary(tmp_path)
    # The dictionary is American: British "grey" is no name, as the text shows.
    edited = {"Grey": 4.0, "grey": 50.0, "BC": 129.0, "bc": 70.0}
    # Chat's "bc" (because) outnumbers the era's BC, counted with the chats.
    every = {**edited, "BC": 133.0, "bc": 129.0}
    assert casing.case_variants(["grey", "bc"], edited, every, dic) == {}
    # A short word needs its capitals in the text at all: no "ty" -> "Ty" from nothing.
    assert casing.case_variants(["tv"], {}, {}, dic) == {}


def test_a_rare_lower_case_sense_of_a_name_takes_the_capital(tmp_path: Path) -> None:
    """The dictionary accepts "english" (spin on a ball), listed bare beside "English";
    the edited text writes the name. "congress" has its plural: a word of its own, however
    often the speeches write "Congress". "rand" (bare) is written in lower case too often."""
    dic = tmp_path / "en_TEST"
    dic.with_suffix(".aff").write_text(AFFIXES, encoding="utf-8")
    entries = ["English/M", "english", "Congress/M", "congress/S", "Rand", "rand", "Ito", "ito"]
    dic.with_suffix(".dic").write_text(
        f"{len(entries)}\n" + "\n".join(entries) + "\n", encoding="utf-8"
    )
    edited = {"English": 384.0, "english": 15.0, "Congress": 4919.0, "congress": 36.0}
    edited |= {"Rand": 109.0, "rand": 20.0, "Ito": 3.0}  # "Ito": too few to tell
    words = ["english", "congress", "rand", "ito"]
    assert casing.case_variants(words, edited, edited, dic) == {"english": "English"}


def test_a_lower_case_prefix_finds_the_capitalised_words() -> None:
    words = sorted(["Saturday", "sat", "saturday", "satin", "SATURDAY", "iphone"])
    index = {w: i for i, w in enumerate(words)}
    spelling = Variants({"saturday": "Saturday", "iphone": "iPhone"})
    assert spelling.standard("Saturday") is None and spelling.standard("SATURDAY") is None
    assert spelling.standard("Iphone") == "iPhone"  # its own capitals, at a sentence start
    merge = StandardSpelling(spelling, words, index)
    mixed = np.full(len(words), 0.1)
    extra: dict[str, float] = {}
    merge.apply(mixed, extra)
    assert mixed[index["saturday"]] == 0 and mixed[index["Saturday"]] == np.float64(0.2)
    assert mixed[index["SATURDAY"]] == np.float64(0.1)  # typed so, it stands
    assert extra == {"iPhone": 0.1}
    lo, hi = index["sat"], index["saturday"] + 1  # the words that start "sat"
    assert merge.capitals(lo, hi, mixed, extra, 5) == [("saturday", "Saturday", 0.2)]
    # "iPhone" is no word of this lexicon: its probability stands beside it.
    i = index["iphone"]
    assert merge.capitals(i, i + 1, mixed, extra, 5) == [("iphone", "iPhone", 0.1)]
    assert merge.capitals(0, index["iphone"], mixed, extra, 5) == []  # SATURDAY, Saturday
