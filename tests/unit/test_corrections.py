"""The error model of corrections: the edits it explains, and their fitted rates."""

from __future__ import annotations

import json

import pytest

from nextword.data.misspellings import is_reserved, parse
from nextword.engine.corrections import (
    KINDS,
    NEIGHBOURS,
    Corrector,
    ErrorModel,
    WordList,
    classify,
    edits,
    two_edits,
)
from nextword.engine.loader import MODELS_DIR


def test_keyboard_neighbours_touch() -> None:
    assert set(NEIGHBOURS["f"]) == set("dgrtcv")
    assert set(NEIGHBOURS["q"]) == set("wa")
    assert "p" not in NEIGHBOURS["a"]


def test_each_kind_of_mistake_is_explained() -> None:
    explained = dict(edits("recie"))
    assert explained["recei"] == "transpose"
    assert dict(edits("adres"))["addres"] == "omit_double"
    assert dict(edits("definat"))["definit"] == "substitute_vowel"
    assert dict(edits("thw"))["the"] == "substitute_adjacent"
    assert dict(edits("untill"))["until"] == "insert_double"
    assert dict(edits("sould"))["could"] == "substitute_other"
    assert dict(edits("slibling"))["sibling"] == "insert_other"
    assert dict(edits("govermen"))["governmen"] == "omit"
    assert dict(edits("ines"))["lines"] == "omit"  # the first letter left out
    assert dict(edits("aautis"))["autis"] == "insert_double"
    # The letter after the last typed one is the next to type, not a missing one.
    assert "recies" not in explained and "recie" not in explained


def test_capitals_stay_capitals() -> None:
    assert "The" in dict(edits("Teh"))
    # A capitalised typo finds the word the lexicon holds in lower case.
    corrector = Corrector(["compulsive"], ErrorModel({k: 1e-3 for k in KINDS}))
    assert "compulsiv" in corrector.intended("Compulsv")


def test_classify_reads_one_edit() -> None:
    assert classify("teh", "the") == "transpose"
    assert classify("adress", "address") == "omit_double"
    assert classify("goverment", "government") == "omit"
    assert classify("untill", "until") == "insert_double"
    assert classify("definately", "definitely") == "substitute_vowel"
    assert classify("cat", "dog") is None
    assert classify("sould", "could") == "substitute_other"  # s is not beside c
    assert classify("slibling", "sibling") == "insert_other"
    assert classify("moteur", "motor") is None  # two edits
    assert classify("recieve", "receive") == "transpose"


def test_the_shipped_rates_are_fitted_for_every_kind() -> None:
    record = json.loads((MODELS_DIR / "typos.json").read_text())
    model = ErrorModel.read(MODELS_DIR / "typos.json")
    assert set(model.rates) == set(KINDS)
    assert all(0 < rate < 0.05 for rate in model.rates.values())
    assert record["pairs"] > 40_000  # four fifths of codespell's 65,000 lines
    # Swapped letters are a likelier mistake per chance than a stray neighbouring key.
    assert model.rates["transpose"] > model.rates["substitute_adjacent"]


def test_a_broken_error_model_corrects_nothing(tmp_path) -> None:
    path = tmp_path / "typos.json"
    path.write_text("{not json")
    model = ErrorModel.read(path)
    assert model.rates == {}
    assert Corrector(["receive"], model).intended("recie") == {}


def test_intended_prefixes_are_known_ones() -> None:
    words = sorted(["address", "addresses", "receive", "received", "the", "then"])
    corrector = Corrector(words, ErrorModel({k: 1e-3 for k in KINDS}))
    # A swap, or a stray "i" after "rece" (equal rates here; the fitted ones favour the swap).
    assert set(corrector.intended("recie")) == {"recei", "rece"}
    assert "addres" in corrector.intended("adres")
    assert corrector.intended("th") == {}  # too short to call a mistake
    # Nothing one edit away starts a word, but "th" with a stray "e" (`insert_other`).
    assert corrector.intended("the") == {"th": 1e-3}


def test_two_edits_are_searched_only_where_the_prefix_starts_no_word() -> None:
    words = sorted(["motor", "motors", "mote", "motel", "recover", "recovery", "record"])
    corrector = Corrector(words, ErrorModel({k: 1e-3 for k in KINDS}, pair_factor=10.0))
    # "recorev": two letters written for each other (r for v, v for r), past "reco".
    assert corrector.intended("recorev")["recove"] == pytest.approx(1e-3 * 1e-3 * 10)
    # "moteu": a vowel for another and a stray letter; one edit finds "mote" too.
    found = corrector.intended("moteu")
    assert found["mote"] == 1e-3 and found["moto"] == pytest.approx(1e-5)
    # A prefix that starts a word is not searched twice over: "moto" is one edit from
    # "mote" and "moto" itself, two from "motel".
    assert "motel" not in corrector.intended("moto")
    # Without a fitted factor there are no two-edit corrections.
    plain = Corrector(words, ErrorModel({k: 1e-3 for k in KINDS}))
    assert "recove" not in plain.intended("recorev")


def test_the_two_edit_search_keeps_the_first_letter_and_finds_every_pair() -> None:
    words = WordList(sorted(["definitely", "recover", "brown", "crown"]))
    assert words.next_letters("re") == ["c"] and words.next_letters("") == list("bcdr")
    found = {intended for intended, _, _ in two_edits("definatly", words)}
    assert "definitely" in found  # a for i, and the e left out
    assert {intended for intended, _, _ in two_edits("xrowm", words)} == set()  # "x" stays
    # r for v and v for r; or the r struck early, then "ev" for "ve" (the prefix "recove").
    found = set(two_edits("recorev", words))
    assert ("recover", "substitute_other", "substitute_other") in found
    assert ("recove", "insert_adjacent", "transpose") in found


def test_reserved_entries_are_never_read() -> None:
    names = ["wrong" + "".join(chr(97 + int(d)) for d in str(i)) for i in range(200)]
    kept = {wrong for wrong, _ in parse([f"{name}->right" for name in names])}
    reserved = {name for name in names if is_reserved(name)}
    assert 20 < len(reserved) < 60  # about a fifth
    assert not kept & reserved and len(kept) + len(reserved) == 200
    # A phrase teaches no typo; of several corrections the first is the one meant.
    assert parse(["alot->a lot"]) == []
    assert parse(["acn->can, scan"]) == ([] if is_reserved("acn") else [("acn", "can")])


def test_the_spelling_list_leaves_out_the_lexicons_words_and_keeps_order(tmp_path) -> None:
    from nextword.engine.corrections import Spelling

    path = tmp_path / "spelling.txt"
    path.write_text("upstairs\t7e-06\nlondon\t2e-04\nbedroom\t3e-05\nbedrooms\t1e-05\nbad line\n")
    spelling = Spelling.read(path, {"London", "the"})  # the lexicon holds London capitalised
    assert spelling.words == ["bedroom", "bedrooms", "upstairs"]
    assert spelling.frequency("upstairs") == 7e-06 and spelling.frequency("up") == 0.0
    found, total = spelling.completions("bedr", 1)
    assert found == {"bedroom": 3e-05} and total == pytest.approx(4e-05)
    assert spelling.completions("Bedr", 5)[0] == {"Bedroom": 3e-05, "Bedrooms": 1e-05}
    assert Spelling.read(tmp_path / "missing.txt", set()).words == []


def test_a_word_one_mistake_from_a_far_commoner_one_is_a_misspelling() -> None:
    from nextword.training.spelling import looks_mistyped, select

    freqs = {"received": 5e-5, "recieved": 4e-7, "lose": 1e-4, "loose": 4e-5, "bedroom": 3e-5}
    assert looks_mistyped("recieved", 4e-7, freqs)
    assert not looks_mistyped("loose", 4e-5, freqs)
    chosen = select({**freqs, "x11": 1e-5, "rare": 1e-9, "tomatos": 2e-6}, {"tomatos"})
    assert sorted(chosen) == ["bedroom", "loose", "lose", "received"]


def test_the_fit_counts_two_edit_misspellings_and_scales_their_pairs() -> None:
    from nextword.training.typo_fit import fit, is_two_edits

    assert is_two_edits("recorev", "recover") and is_two_edits("acomodate", "accommodate")
    assert not is_two_edits("teh", "the")  # one edit
    assert not is_two_edits("cat", "dog")
    pairs = [("teh", "the"), ("adress", "address"), ("recorev", "recover"), ("cat", "dog")]
    record = fit(pairs)
    assert record["two_edit_share"] == 0.25 and record["pair_factor"] > 0
    assert fit(pairs[:2])["pair_factor"] == 0  # none seen: no two-edit corrections
    shipped = json.loads((MODELS_DIR / "typos.json").read_text())
    assert shipped["pair_factor"] > 0 and shipped["two_edit_share"] > 0.1
