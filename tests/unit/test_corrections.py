"""The error model of corrections: the edits it explains, and their fitted rates."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from nextword.data.misspellings import is_reserved, parse
from nextword.engine.corrections import (
    WHOLE_WORD,
    CorrectionGate,
    Corrector,
    Spelling,
    cased,
    reads_as_name,
    typed_case,
)
from nextword.engine.deletions import DeletionIndex, deletes
from nextword.engine.errormodel import KINDS, NEIGHBOURS, ErrorModel, classify, edits, pair_kinds
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


def test_case_is_read_once_and_put_back() -> None:
    assert "The" in dict(edits("Teh"))
    assert [typed_case(t) for t in ("teh", "Teh", "TEH", "tEh", "T")] == [
        "lower", "capital", "upper", None, "capital"
    ]  # fmt: skip
    assert cased("compulsive", "capital") == "Compulsive" and cased("NASA", "capital") == "Nasa"
    assert cased("McDonald", "capital") == "McDonald" and cased("the", "upper") == "THE"
    # The corrector reads lower case; the words come back in the case typed, and a
    # capitalised word the lexicon holds in lower case too is that word.
    words = sorted(["The", "compulsive", "gentlemen", "the", "London"])
    corrector = Corrector(words, ErrorModel({k: 1e-3 for k in KINDS}))
    dense = np.full(len(words), 0.2)
    found = corrector.corrections(
        "Compulsv", dense, 5, typed_word=0.0, typed_mass=0.0, gate=CorrectionGate(0.0)
    )
    assert list(found.words) == ["Compulsive"]
    for typed, meant in (("GEENTLEMEN", "GENTLEMEN"), ("teh", "the"), ("lodnon", "London")):
        found = corrector.corrections(
            typed, dense, 5, typed_word=0.0, typed_mass=0.0, gate=CorrectionGate(0.0)
        )
        assert meant in found.words, (typed, found)
    teh = corrector.corrections("teh", dense, 5, typed_word=0, typed_mass=0, gate=CorrectionGate(0))
    # "the" and "The" with all their weight; ranked as the whole word typed (WHOLE_WORD).
    assert "The" not in teh.words and teh.words["the"] == pytest.approx(2 * 0.2 * 1e-3)
    assert teh.ranks["the"] == pytest.approx(WHOLE_WORD * 2 * 0.2 * 1e-3)
    # Mixed case is an identifier: never corrected.
    none = corrector.corrections(
        "tEh", dense, 5, typed_word=0, typed_mass=0, gate=CorrectionGate(0)
    )
    assert none.words == {} and none.mass == 0


def test_identifiers_are_no_corrections_for_prose(tmp_path) -> None:
    """The lexicon's words that the general-English list lacks only code writes; a word
    the list marks as most often a slip ("form" for "from") is English all the same."""
    path = tmp_path / "spelling.txt"
    path.write_text("form\t1e-04\tslip\nhandle\t1e-05\nhands\t2e-05\nupstairs\t7e-06\n")
    words = sorted(["form", "handle", "hands", "hasname", "has", "hasn't"])
    spelling = Spelling.read(path, set(words))
    corrector = Corrector(words, ErrorModel({k: 1e-3 for k in KINDS}), spelling)
    assert dict(zip(words, corrector.prose, strict=True)) == {
        "form": True, "handle": True, "hands": True, "has": True, "hasn't": True,
        "hasname": False,
    }  # fmt: skip
    found = corrector.corrections(
        "hasnsme", np.full(len(words), 0.2), 5, typed_word=0, typed_mass=0, gate=CorrectionGate(0)
    )
    assert "hasname" not in found.words
    found = corrector.corrections(
        "fprm", np.full(len(words), 0.2), 5, typed_word=0, typed_mass=0, gate=CorrectionGate(0)
    )
    assert "form" in found.words


def test_the_word_a_whole_typed_text_spells_ranks_above_the_longer_ones() -> None:
    """Typed to its end, "surroud" is surround, though the model likes surrounding more.
    Ranking only: the gate's error mass and the typed word's own weight read the plain
    weights."""
    words = sorted(["surround", "surrounding", "surroundings"])
    dense = np.array([0.02, 0.1, 0.05])  # surround, surrounding, surroundings
    corrector = Corrector(words, ErrorModel({k: 1e-3 for k in KINDS}))
    found = corrector.corrections(
        "surroud", dense, 3, typed_word=0, typed_mass=0, gate=CorrectionGate(0)
    )
    assert max(found.ranks, key=found.ranks.__getitem__) == "surround"
    # Its weight is its own: a probability, however it ranks.
    assert found.words["surround"] == pytest.approx(0.02 * corrector.intended("surroud")[0].rate)
    # The gate weighs the words as they are: the error mass is not inflated.
    plain = sum(
        dense[i] * r.rate
        for r in corrector.intended("surroud")
        for i, w in enumerate(words)
        if w.startswith(r.prefix)
    )
    assert found.mass == pytest.approx(plain)
    part = corrector.corrections(
        "surrou", dense, 3, typed_word=0, typed_mass=0, gate=CorrectionGate(0)
    )
    assert part.words == {}  # "surrou" starts them all: no mistake to correct
    # The typed text read as a word of its own must outweigh the plain weight only.
    rare = 0.02 * 1e-3 * 2  # more than surround's plain weight, less than its boosted
    assert (
        "surround"
        not in corrector.corrections(
            "surroud", dense, 3, typed_word=rare, typed_mass=0, gate=CorrectionGate(0)
        ).words
    )


def test_the_documents_own_words_are_corrected_to_by_one_edit() -> None:
    """Words beyond the lexicon that the document wrote ("hextab") are compared with
    the typed text directly: one edit, weighed P(word) * P(typed | its prefix), in the
    case typed; a word the typed text starts is a completion, not a correction."""
    corrector = Corrector(["table"], ErrorModel({k: 1e-3 for k in KINDS}))
    written = [("hextab", 0.2), ("hexadecimal", 0.1), ("decode_url", 0.3), ("zebra", 0.4)]
    written += [("eh", 0.5)]  # shorter than one edit reaches
    found = corrector.written("ehxtab", written, 3, typed_word=0.0)
    assert set(found.words) == {"hextab"}
    assert found.words["hextab"] == pytest.approx(0.2 * 1e-3)
    assert found.ranks["hextab"] > found.words["hextab"]  # typed to its end: WHOLE_WORD
    assert found.mass == pytest.approx(0.2 * 1e-3)
    # "Hetx": a swap in "hext", or "hex" with a letter too many; in capitals as typed.
    assert set(corrector.written("Hetx", written, 3, typed_word=0.0).words) == {
        "Hextab",
        "Hexadecimal",
    }
    assert "hextab" not in corrector.written("hext", written, 3, typed_word=0.0).words
    # The typed text read as a word of its own must be outweighed.
    assert corrector.written("ehxtab", written, 3, typed_word=1.0).words == {}


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
    assert Corrector(["receive"], model).intended("recie") == ()


def test_intended_prefixes_are_known_ones() -> None:
    words = sorted(["address", "addresses", "receive", "received", "the", "then"])
    corrector = Corrector(words, ErrorModel({k: 1e-3 for k in KINDS}))
    # A swap, or a stray "i" after "rece" (equal rates here; the fitted ones favour the swap).
    assert set(dict(corrector.intended("recie"))) == {"recei", "rece"}
    assert "addres" in dict(corrector.intended("adres"))
    assert corrector.intended("th") == ()  # too short to call a mistake
    # Nothing one edit away starts a word, but "th" with a stray "e" (`insert_other`).
    assert dict(corrector.intended("the")) == {"th": 1e-3}


def test_two_edits_are_searched_only_where_the_prefix_starts_no_word() -> None:
    words = sorted(["motor", "motors", "mote", "motel", "recover", "recovery", "record"])
    corrector = Corrector(words, ErrorModel({k: 1e-3 for k in KINDS}, pair_factor=10.0))
    # "recorev": two letters written for each other (r for v, v for r), past "reco".
    assert dict(corrector.intended("recorev"))["recove"] == pytest.approx(1e-3 * 1e-3 * 10)
    # "moteu": a vowel for another and a stray letter; one edit finds "mote" too.
    found = dict(corrector.intended("moteu"))
    assert found["mote"] == 1e-3 and found["moto"] == pytest.approx(1e-5)
    # A prefix that starts a word is not searched twice over: "moto" is one edit from
    # "mote" and "moto" itself, two from "motel".
    assert "motel" not in dict(corrector.intended("moto"))
    # Without a fitted factor there are no two-edit corrections.
    plain = Corrector(words, ErrorModel({k: 1e-3 for k in KINDS}))
    assert "recove" not in dict(plain.intended("recorev"))


def test_two_edits_keep_the_first_letter_and_find_every_pair() -> None:
    assert pair_kinds("definatly", "definitely") == [("substitute_vowel", "omit")]
    assert pair_kinds("xrowm", "brown") == []  # "x" stays
    assert ErrorModel({k: 1e-3 for k in KINDS}, 10.0).weight("teh", "the", two=True) == 1e-3
    # r for v and v for r; or the r struck early, then "ev" for "ve" (the prefix "recove").
    assert ("substitute_other", "substitute_other") in pair_kinds("recorev", "recover")
    assert ("insert_adjacent", "transpose") in pair_kinds("recorev", "recove")
    # One edit and a completion is no pair: "recie" is "recei" swapped, then "v" to
    # come, not a swap and a "v" left out.
    assert ("transpose", "omit") not in pair_kinds("recie", "receiv")


def test_the_deletion_index_finds_every_prefix_within_two_edits() -> None:
    """Against a brute force over every prefix of a word list, typed prefixes short and
    longer than the index's letters (where the words found are read further)."""
    words = sorted(
        ["accommodation", "accommodate", "accompany", "beginning", "begin", "weird", "wired",
         "receive", "recover", "record", "government", "governor", "internationally"]
    )  # fmt: skip
    model = ErrorModel({k: 1e-3 for k in KINDS}, pair_factor=10.0)
    corrector = Corrector(words, model)
    prefixes = {w[:n] for w in words for n in range(1, len(w) + 1)}
    for typed in ("acomodat", "accomodation", "begining", "wierd", "recie", "goverment",
                  "internationaly", "inetrnationally", "govenrment", "acommodation"):  # fmt: skip
        two = not corrector.starts_word(typed)
        expected = {p for p in prefixes if model.weight(typed, p, two=two) > 0}
        assert set(dict(corrector.intended(typed))) == expected, typed


def test_the_index_is_built_once_then_mapped(tmp_path) -> None:
    words = ["begin", "beginning", "weird"]
    built = DeletionIndex.cached(words, tmp_path)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 3 and all(f.endswith(".npy") for f in files)
    mapped = DeletionIndex.cached(words, tmp_path)
    assert isinstance(mapped.keys.base, np.memmap) or isinstance(mapped.keys, np.memmap)
    assert np.array_equal(built.keys, mapped.keys) and np.array_equal(built.ids, mapped.ids)
    # Another word list is another index; a directory that cannot be written, none.
    DeletionIndex.cached(["other"], tmp_path)
    assert len(list(tmp_path.iterdir())) == 6
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert len(DeletionIndex.cached(words, blocked / "sub").keys) == len(built.keys)
    assert ("bgin", 1) in deletes("begin", 1) and ("bin", 2) in deletes("begin", 2)


def test_the_gate_opens_where_a_mistake_is_likely() -> None:
    gate = CorrectionGate(0.5)
    assert gate.opens(0.0, 1e-9) and not gate.opens(0.0, 0.0)
    assert gate.opens(1e-4, 1e-4) and not gate.opens(1e-3, 1e-4)
    assert CorrectionGate(0.0).opens(1.0, 1e-12)
    words = sorted(["people", "proper", "receive"])
    corrector = Corrector(words, ErrorModel({k: 1e-3 for k in KINDS}))
    dense = np.array([0.3, 0.3, 0.3])
    # "peop" starts a likely word: shut, and the share tells how little a mistake explains.
    shut = corrector.corrections("peop", dense, 5, typed_word=0, typed_mass=0.3, gate=gate)
    assert shut.words == {} and gate.share(shut.typed, shut.mass) < 0.01
    opened = corrector.corrections("recie", dense, 5, typed_word=0, typed_mass=0.0, gate=gate)
    assert list(opened.words) == ["receive"] and gate.share(opened.typed, opened.mass) == 1.0


def test_the_unknown_word_floor_keeps_far_fetched_corrections_out() -> None:
    # Nothing known starts the prefix (A = 0): without a floor any correction passes;
    # with one, only an error mass that outweighs a word no list knows.
    floor = CorrectionGate(0.5, unknown=1e-6)
    assert CorrectionGate(0.5).opens(0.0, 1e-12)
    assert not floor.opens(0.0, 1e-9) and floor.opens(0.0, 1e-5)
    assert floor.share(0.0, 1e-6) == 0.5 and floor.share(0.3, 0.0) == 0.0


def test_a_capital_inside_a_sentence_has_the_name_floor() -> None:
    # "Hoffst" after "by Dougy": a name no list knows, typed right, more often than a
    # slip in "Hofstra"; the same capital opening a sentence is any word's.
    gate = CorrectionGate(0.5, unknown=0.0, name=1e-6)
    assert reads_as_name("Hoffst", "all the goodies put out by Dougy ")
    assert not reads_as_name("Hoffst", "It was fine. ") and not reads_as_name("Hoffst", "")
    assert not reads_as_name("hoffst", "by ") and not reads_as_name("HOFFST", "by ")
    assert not gate.opens(0.0, 1e-9, name=True) and gate.opens(0.0, 1e-9)
    words = sorted(["Hofstra", "receive"])
    corrector = Corrector(words, ErrorModel({k: 1e-3 for k in KINDS}))
    dense = np.array([1e-4, 0.3])
    found = {
        name: corrector.corrections(
            "Hoffst", dense, 5, typed_word=0, typed_mass=0, gate=gate, name=name
        ).words
        for name in (False, True)
    }
    assert "Hofstra" in found[False] and found[True] == {}


def test_a_fitted_floor_is_read_with_its_threshold(tmp_path) -> None:
    fit = tmp_path / "corrections.json"
    fit.write_text('{"threshold": 0.3, "unknown": 1e-7, "name": 1e-5}')
    assert CorrectionGate.read(fit) == CorrectionGate(0.3, 1e-7, 1e-5)
    fit.write_text('{"threshold": 0.3, "unknown": 1e-7}')  # before the name floor
    assert CorrectionGate.read(fit) == CorrectionGate(0.3, 1e-7, 1e-7)
    fit.write_text('{"threshold": 0.3}')  # a fit from before the floor
    assert CorrectionGate.read(fit) == CorrectionGate(0.3, 0.0)
    fit.write_text("[1, 2]")
    assert CorrectionGate.read(fit) == CorrectionGate()


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
    path = tmp_path / "spelling.txt"
    path.write_text(
        "upstairs\t7e-06\nlondon\t2e-04\nbedroom\t3e-05\nbedrooms\t1e-05\nbad line\n"
        "bedroon\t2e-07\tslip\nthe\t5e-02\tslip\n"
    )
    spelling = Spelling.read(path, {"London", "the"})  # the lexicon holds London capitalised
    assert spelling.words == ["bedroom", "bedrooms", "upstairs"]  # never a slip
    assert spelling.shared == {"london", "the"}  # the lexicon's words the list holds
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
    chosen, slips = select({**freqs, "x11": 1e-5, "rare": 1e-9, "tomatos": 2e-6}, {"tomatos"})
    assert sorted(chosen) == ["bedroom", "loose", "lose", "received"]
    assert slips == {"recieved": 4e-7}  # English to the lists, never offered beyond them


def test_the_lexicons_misspellings_are_the_slips_people_type(tmp_path) -> None:
    """A slip of the lexicon's that Hunspell rejects, as typed and capitalised, and that
    the chats and emails write: "seperate"; not code's "args", nor the name "london"."""
    from nextword.training.spelling import typed_misspellings

    model = genre_model(
        tmp_path,
        ["args", "london", "separate", "seperate"],
        {"chat": [0, 3, 40, 9], "code": [300, 0, 2, 0], "email": [2, 1, 30, 1]},
    )
    dic = hunspell_dictionary(tmp_path, ["London", "separate"])
    slips = {"args", "london", "seperate", "tomatos"}  # tomatos: not in the lexicon
    assert typed_misspellings(model, slips, dic) == {"seperate"}


def test_a_letter_drawn_out_is_no_spelling_to_offer(tmp_path) -> None:
    """ "soooo" and "Soooo" (the chats' stress) cut to "so"; not "IEEE" (capitals), "www"
    (one letter), "pppd" (the technical text's), nor "sooon", whose cut "soon" is
    rarer than it here."""
    from nextword.training.spelling import drawn_out

    model = genre_model(
        tmp_path,
        ["IEEE", "Soooo", "ie", "pd", "pppd", "so", "soon", "sooon", "soooo", "www"],
        {
            "chat": [0, 2, 1, 1, 0, 900, 1, 5, 9, 3],
            "email": [0, 0, 0, 0, 0, 100, 1, 0, 1, 0],
            "technical": [40, 0, 50, 9, 6, 90, 0, 0, 0, 30],
        },
    )
    dic = hunspell_dictionary(tmp_path, ["ie", "pd", "so", "soon", "www"])
    assert drawn_out(model, dic) == {"soooo"}


def genre_model(tmp_path: Path, words: list[str], counts: dict[str, list[int]]) -> Path:
    """A model directory with only its lexicon and each genre's counts of its words."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "lexicon.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    genres = sorted(counts)
    np.savez(
        model / "lexicon.npz",
        genre_names=np.array(genres),
        **{f"g{i}_unigram": np.array(counts[g], np.float32) for i, g in enumerate(genres)},
    )
    return model


def hunspell_dictionary(tmp_path: Path, entries: list[str]) -> Path:
    """A Hunspell dictionary of `entries`, as `hunspell -d` takes its path."""
    dic = tmp_path / "en_TEST"
    dic.with_suffix(".aff").write_text("SET UTF-8\n", encoding="utf-8")
    lines = [str(len(entries)), *entries]
    dic.with_suffix(".dic").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dic


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
