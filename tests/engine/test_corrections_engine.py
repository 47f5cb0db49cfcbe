"""Corrections on the bundled model: the word meant, in context (engine/corrections.py)."""

from __future__ import annotations

import re
from typing import Any

from helpers import FIXTURES
from nextword.engine.decisions import POPUP_FLOOR
from nextword.engine.words import WORD_RE


def corrected(engine: Any, context: str, typed: str, k: int = 3) -> list[tuple[str, bool]]:
    decider = engine.decider()
    decider.decide(context, "", k)  # the boundary decision the server makes at the space
    return [(c.text, c.correction) for c in decider.decide(context, typed, k, correct=True)]


def test_real_misspellings_are_corrected_in_context(default_engine: Any) -> None:
    assert ("receive", True) in corrected(default_engine, "I will ", "recieve")
    assert ("receive", True) in corrected(default_engine, "I will ", "recie")
    assert ("address", True) in corrected(default_engine, "Please send it to the ", "adress")
    assert corrected(default_engine, "Please tell me the ", "adress")[0] == ("address", True)
    assert corrected(default_engine, "What is the adress of ", "teh")[0] == ("the", True)


def test_two_mistakes_in_one_word_are_corrected(default_engine: Any) -> None:
    """Two edits are searched where the prefix starts no known word (corrections.py)."""
    assert ("recover", True) in corrected(default_engine, "We need to ", "recorev")[:3]
    assert ("accommodation", True) in corrected(default_engine, "Thank you for the ", "acomodat")
    assert ("necessary", True) in corrected(default_engine, "I think it is ", "neccesar")


def test_a_popup_ends_before_words_far_less_likely_than_its_first(default_engine: Any) -> None:
    """After "I dont" the word meant is near certain; the places left were filled with
    donut, dont_inherit and donate at a ten-millionth of it (decisions.POPUP_FLOOR)."""
    assert corrected(default_engine, "I ", "dont", 5) == [("don't", True)]
    # Where the words are close, the popup keeps its five.
    assert len(corrected(default_engine, "I will call you ", "t", 5)) == 5
    # A word the document wrote stays, however unlikely: a new name's second time.
    context = "We keep a zorblatt at home. Our "
    assert ("zorblatt", False) in corrected(default_engine, context, "zorb", 5)


def test_the_word_typed_in_full_sets_the_popups_floor(default_engine: Any) -> None:
    """After "Are you free this" the typed "this" is nearly all the words it starts;
    its completions (thisline, this_cpu at a fraction of a thousandth of it) were the
    popup, and the first the ghost text."""
    decider = default_engine.decider()
    context = "Are you free "
    decider.decide(context, "", 5)
    ranked = decider.filter_cached(context, "this", 5, typed=True)
    assert ranked and ranked[0].text == "this"
    own = ranked[0].prob
    assert all(c.prob >= own * POPUP_FLOOR for c in ranked)
    completions = decider.decide(context, "this", 5)
    assert "this" not in [c.text for c in completions]
    assert [c.text for c in completions] == [c.text for c in ranked[1:]]
    # A likely completion of a word typed in full stays for ghost text: "your" after
    # "you" (one letter on, it gives its popup place to words that save keys).
    decider.decide("I'll call ", "", 5)
    assert "your" in [c.text for c in decider.filter_cached("I'll call ", "you", 5, typed=True)]


def test_in_a_word_the_popup_offers_what_saves_keys_first(default_engine: Any) -> None:
    """A word one letter past the prefix costs a keystroke typed or accepted (the
    accept key inserts no space): after "th" the popup offers the words that save
    typing, and "the", the likeliest, is left to the ghost text."""
    decider = default_engine.decider()
    context = "I went to the shop and bought some milk, then "
    decider.decide(context, "", 5)
    ranked = decider.filter_cached(context, "th", 5, typed=True)
    assert ranked is not None
    likeliest = max(ranked, key=lambda c: c.prob)
    assert likeliest.text == "the"
    popup = decider.decide(context, "th", 5)
    assert len(popup) == 5 and all(len(c.text) > 3 for c in popup)
    assert [c.prob for c in popup] == sorted((c.prob for c in popup), reverse=True)
    # The words one letter on follow where there is room, likely as they are.
    context = "Let me know if you have any "
    decider.decide(context, "", 5)
    popup = [c.text for c in decider.decide(context, "questio", 5)]
    assert popup[0] == "questions" and popup[-1] == "question"
    # At a word start, one-letter words keep their places: "I" is the next word.
    decider.decide("Hi John, ", "", 5)
    assert "I" in [c.text for c in decider.decide("Hi John, ", "", 3)]


def test_the_context_ranks_the_corrections(default_engine: Any) -> None:
    """ "thw" is one key from "the" and from "thy"/"two": the sentence decides."""
    assert corrected(default_engine, "He walked into ", "thw")[0] == ("the", True)


def test_corrections_are_off_unless_asked(default_engine: Any) -> None:
    decider = default_engine.decider()
    decider.decide("I will ", "", 3)
    assert all(not c.correction for c in decider.decide("I will ", "recie", 5, spell=False))


def test_a_word_typed_right_is_not_corrected_away(default_engine: Any) -> None:
    # Rare words typed in full, each one edit from a far commoner word ("object",
    # "indicated"): the word as typed is likelier than that mistake. The pairs the
    # lexicon holds both words of (it is retrained now and then).
    lex = default_engine.lexicon
    pairs = [
        ("They lived in ", "abject", "object"),
        ("He was ", "indicted", "indicated"),
        ("The wind began to ", "bellow", "below"),
        ("She folded the ", "cloths", "clothes"),
        ("He walked along the ", "trail", "trial"),
        ("It was a ", "deceptively", "deceptive"),
    ]
    rare = [
        (context, word)
        for context, word, common in pairs
        if word in lex.index
        and common in lex.index
        and lex.counts[lex.index[common]] > 5 * lex.counts[lex.index[word]]
    ]
    assert len(rare) >= 2
    for context, typed in rare:
        found = corrected(default_engine, context, typed, k=5)
        assert not any(fix for _, fix in found), (typed, found)
    # A prefix typed right keeps its completions first.
    plain = default_engine.decider()
    plain.decide("The sun rose over the ", "", 3)
    expected = [c.text for c in plain.decide("The sun rose over the ", "mou", 3)]
    assert corrected(default_engine, "The sun rose over the ", "mou") == [
        (word, False) for word in expected
    ]


def test_known_misspellings_are_no_completions(default_engine: Any) -> None:
    """The emails write "definately": the word list keeps it out (training/tables.py)."""
    assert "definately" not in default_engine.lexicon.index
    assert "definitely" in default_engine.lexicon.index


def test_words_the_training_text_lacks_are_corrected_to_and_completed(default_engine: Any) -> None:
    """Everyday words beyond the lexicon (the training text's) come from wordfreq's list
    (models/spelling.txt), in prose only: those of these the lexicon lacks."""
    lex, spelling = default_engine.lexicon, default_engine.tables.corrector.spelling
    fixes = [
        ("I have a terrible ", "headahc", "headache"),
        ("She went to the ", "bedrom", "bedroom"),
        ("He lost a ", "toothbrsh", "toothbrush"),
        ("They sat by the ", "fireplcae", "fireplace"),
        ("She filled the ", "bathtbu", "bathtub"),
        ("He put on his ", "raincaot", "raincoat"),
        ("I need a new ", "hairbursh", "hairbrush"),
    ]
    lacking = [f for f in fixes if f[2] not in lex.index and spelling.frequency(f[2]) > 0]
    assert lacking
    for context, typo, word in lacking:
        assert corrected(default_engine, context, typo)[0] == (word, True), typo
    completions = [
        ("I left it ", "upstai", "upstairs"),
        ("Upstairs or ", "Downsta", "Downstairs"),
        ("He lost a ", "toothbr", "toothbrush"),
        ("She filled the ", "batht", "bathtub"),
        ("He put on his ", "rainco", "raincoat"),
    ]
    lacking = [f for f in completions if f[2].lower() not in lex.index]
    assert lacking
    for context, prefix, word in lacking:
        assert corrected(default_engine, context, prefix)[0] == (word, False), prefix
        # Without corrections (code), an unknown prefix is the token search's, as before.
        decider = default_engine.decider()
        decider.decide(context, "", 3)
        assert word not in [c.text for c in decider.decide(context, prefix, 5)]


def test_misspellings_common_on_the_web_are_not_offered(default_engine: Any) -> None:
    spelling = default_engine.tables.corrector.spelling
    assert spelling.words and spelling.frequency("recieved") == 0.0  # beside "received"
    offered = [text for text, _ in corrected(default_engine, "I have ", "recie", k=5)]
    assert "recieved" not in offered


# A passage of the State of the Union dev split (public domain), typed right.
CLEAN = FIXTURES / "corrections" / "clean.txt"
# Allowed codespell misspellings (data/misspellings.py) of the passage's words.
MISSPELT = {
    "therefore": "therfore",
    "certainly": "certaily",
    "mission": "misson",
    "individual": "indivdual",
    "destroy": "destory",
    "privilege": "privelege",
    "realize": "relize",
    "principle": "priciple",
    "authority": "autherity",
    "accomplish": "accomplis",
}


def test_no_prefix_of_a_word_typed_right_gets_a_correction(default_engine: Any) -> None:
    """Issue 35: a popup corrects what was typed wrong, and stays quiet while a likely
    word is being typed (the gate, corrections.py, fitted on dev text)."""
    text = CLEAN.read_text(encoding="utf-8")
    decider = default_engine.decider()
    shown = []
    for match in WORD_RE.finditer(text):
        context, word = text[: match.start()], match.group()
        for j in range(1, len(word) + 1):
            found = decider.decide(context, word[:j], 5, correct=True)
            # A name's capitals ("was": Washington) fix no mistake.
            shown += [(word[:j], c.text) for c in found if c.corrects(word[:j])]
    assert not shown


def test_real_misspellings_in_the_same_text_are_corrected(default_engine: Any) -> None:
    text = CLEAN.read_text(encoding="utf-8")
    decider = default_engine.decider()
    missed = []
    for right, wrong in MISSPELT.items():
        # In the case the text writes it ("Certainly" opens a sentence).
        found = re.search(rf"\b{right}\b", text, re.IGNORECASE)
        assert found is not None, right
        context, right = text[: found.start()], found.group()
        wrong = right[0] + wrong[1:]
        offered = [
            c.text
            for j in range(len(wrong) + 1)
            for c in decider.decide(context, wrong[:j], 3, correct=True)
        ]
        if right not in offered:
            missed.append(wrong)
    assert not missed


def test_a_misspelling_is_offered_only_where_the_user_wrote_it(default_engine: Any) -> None:
    """Issue 35: no word of models/misspellings.txt is offered, as a completion, a
    correction or a spelled word, unless the document before the cursor holds it."""
    assert "recieve" in default_engine.tables.misspelled.words
    decider = default_engine.decider()
    wrote = "I will recieve the parcel on Monday, and I will "
    assert "recieve" in [c.text for c in decider.decide(wrote, "reci", 5)]
    # Once the document says it right, a context that held it offers it no more.
    fixed = wrote.replace("recieve", "receive")
    for prefix in ("reci", "recie", "reciev"):
        for correct in (True, False):
            offered = [c.text for c in decider.decide(fixed, prefix, 5, correct=correct)]
            assert "recieve" not in offered, (prefix, correct, offered)
    # Nor does the token search spell one out where no known word starts the prefix.
    plain = default_engine.decider()
    assert "recieve" not in [c.text for c in plain.decide("Did you ", "recieve", 5)]


def test_a_letter_drawn_out_is_offered_only_once_written(default_engine: Any) -> None:
    """The chats draw letters out ("soooo", "wayyyy"): models/misspellings.txt has
    them since training/spelling.py's `drawn_out`, as it has their other misspellings."""
    drawn = {"sooo", "soooo", "sooooo", "wayyy", "wayyyy", "wayyyyy"}
    decider = default_engine.decider()
    for context, prefix in (("That is ", "so"), ("That is ", "soo"), ("It was ", "way")):
        decider.decide(context, "", 5)
        offered = {c.text for c in decider.decide(context, prefix, 50)}
        assert not offered & drawn, offered
    context = "I miss you soooo much. It is "
    decider.decide(context, "", 5)
    assert "soooo" in {c.text for c in decider.decide(context, "sooo", 50)}


def test_the_chats_misspellings_are_neither_completions_nor_in_the_way(
    default_engine: Any,
) -> None:
    """The chats write "seperate" and "tommorow" (models/misspellings.txt has them since
    training/spelling.py's `typed_misspellings`): "sepe" completed to seperate alone,
    and "tommorow", a word of the lexicon, was not corrected."""
    for context, prefix, misspelled, meant in (
        ("Put them in ", "sepe", "seperate", "separate"),
        ("See you ", "tommo", "tommorow", "tomorrow"),
    ):
        offered = [
            c.text for c in default_engine.decider().decide(context, prefix, 5, correct=True)
        ]
        assert misspelled not in offered, offered
        assert corrected(default_engine, context, misspelled)[0] == (meant, True)
    assert ("tomorrow", True) in corrected(default_engine, "See you ", "tommo")
    # A correction typed in lower case takes the standard spelling too (filtering.py).
    offered = [
        c.text for c in default_engine.decider().decide("Put them in ", "sepe", 5, correct=True)
    ]
    assert "September" in offered and "september" not in offered, offered


def test_a_word_the_user_wrote_or_learned_is_no_typo(default_engine: Any) -> None:
    """Issue 33: no correction for a word typed before in the document, or learned."""
    from nextword.engine import PersonalStore

    assert ("address", True) in corrected(default_engine, "Please send it to the ", "adress")
    wrote = "Our module is called adress, and the "
    assert not any(fix for _, fix in corrected(default_engine, wrote, "adress", k=5))
    store = PersonalStore.learned_from(["adress " * 3])
    decider = default_engine.decider(store=store)
    decider.decide("Please send it to the ", "", 5)
    found = decider.decide("Please send it to the ", "adress", 5, correct=True)
    assert not any(c.correction for c in found), found


def test_a_word_the_document_wrote_beyond_the_lexicon_is_corrected_to(
    default_engine: Any,
) -> None:
    """An identifier or a name the document wrote, which no word list holds, is the word
    a slip of it stands for ("ehxtab" after three of "hextab")."""
    wrote = "The hextab array maps each digit. We fill hextab once, then read hextab in "
    assert "hextab" not in default_engine.lexicon.index
    assert corrected(default_engine, wrote, "ehxtab")[0] == ("hextab", True)
    assert ("hextab", True) not in corrected(default_engine, "We fill the ", "ehxtab", k=5)
