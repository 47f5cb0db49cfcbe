"""What the bundled model never offers: an offensive word the user has not written
(engine/blocklist.py), and an informal spelling where a standard one exists
(engine/variants.py)."""

from __future__ import annotations

from nextword.engine.engine import Engine
from nextword.engine.personal import PersonalStore

# Typed prefixes that words of the list start, after the words chat writes before them.
CONTEXTS = [("holy ", "sh"), ("what the ", "f"), ("that is ", "bulls"), ("you ", "bit")]


def blocked_offered(engine: Engine, context: tuple[str, str], **kw: object) -> set[str]:
    decider = engine.decider(**kw)  # type: ignore[arg-type]
    assert engine.tables.blocklist is not None
    words = {c.text for c in decider.decide(*context, 50)}
    return {w for w in words if engine.tables.blocklist.blocks(w)}


def test_offensive_words_are_offered_only_once_written(default_engine: Engine) -> None:
    unblocked = {c: blocked_offered(default_engine, c, block_offensive=False) for c in CONTEXTS}
    assert any(unblocked.values()), "the model offers no listed word: the test proves nothing"
    for context, words in unblocked.items():
        assert not blocked_offered(default_engine, context), context
        for word in words:
            # Written earlier in the document, the word is the user's own.
            written = (f"I said {word} once. {context[0]}", context[1])
            assert word in blocked_offered(default_engine, written), (context, word)


def test_a_document_reads_all_listed_words_at_once_as_it_reads_each(
    default_engine: Engine,
) -> None:
    """`wrote_listed` (every boundary's screen) is `wrote` for each listed word: the
    word as listed, in lower case or capitalised, a lexicon word or not."""
    tables = default_engine.tables
    for listed in (tables.blocklist, tables.misspelled):
        assert listed is not None and len(listed.listed) > 20
        sample = listed.listed[::5]
        cases = [f(w) for w in sample for f in (str, str.lower, str.capitalize, str.upper)]
        text = " ".join(cases[::3]) + " "
        doc = tables.document()
        doc.components(text, default_engine.mixture)  # counts the words, as a boundary does
        found = doc.wrote_listed(listed, text)
        assert 0 < found.sum() < len(found)
        assert found.tolist() == [doc.wrote(w, text) for w in listed.listed]


def test_a_learned_offensive_word_is_offered(default_engine: Engine) -> None:
    context, word = next(
        (c, sorted(w)[0])
        for c in CONTEXTS
        if (w := blocked_offered(default_engine, c, block_offensive=False))
    )
    store = PersonalStore.learned_from([f"well {word} happens"])
    assert word in blocked_offered(default_engine, context, store=store)


def test_informal_spellings_are_offered_the_standard_way(default_engine: Engine) -> None:
    decider = default_engine.decider()
    for context, typed, standard in [
        ("Yesterday after work ", "dont", "don't"),
        ("Yesterday after work ", "im", "I'm"),
        ("Yesterday after work ", "cant", "can't"),
        ("Thanks! ", "i", "I"),
        ("and then ", "i", "I"),
    ]:
        found = decider.decide(context, typed, 5, correct=True)
        fixes = [c.text for c in found if c.correction]
        assert standard in fixes, (typed, found)
    # Mid-sentence "i" is on its way to in, is, it far more often than it is the
    # pronoun typed in lower case: no "I" offered there.
    for context in ["The keys are ", "Put the book back "]:
        found = decider.decide(context, "i", 5, correct=True)
        assert "I" not in [c.text for c in found], (context, found)
    for context in ["so ", "yeah ", "and then ", "I think "]:
        words = {c.text for c in decider.decide(context, "", 50)}
        assert not words & {"im", "dont", "i", "thats", "cant", "didnt"}, (context, words)


def test_words_the_chats_write_in_lower_case_are_offered_with_their_capitals(
    default_engine: Engine,
) -> None:
    decider = default_engine.decider()
    for context, typed, standard in [
        ("Are you free on ", "sat", "Saturday"),
        ("We met in ", "lon", "London"),
        ("I bought a new ", "iph", "iPhone"),
        ("Merry ", "chr", "Christmas"),
        ("See you ", "mon", "Monday"),
    ]:
        # Whether or not corrections are on: no other spelling of the word is offered.
        for correct in (True, False):
            found = decider.decide(context, typed, 5, correct=correct)
            words = [c.text for c in found]
            assert standard in words and standard.lower() not in words, (typed, found)
            # It replaces what was typed, as a correction does (lsp/items.py).
            assert all(c.correction for c in found if c.text == standard), found
    words = {c.text for c in decider.decide("I'll see you on ", "", 200)}
    assert "Saturday" in words and "saturday" not in words, words


def test_code_keeps_its_names(default_engine: Engine) -> None:
    # In code `i` is a loop variable, not the pronoun.
    context = "for i in range(n):\n    x["
    code = default_engine.decider(standard_spelling=False)
    assert "i" in [c.text for c in code.decide(context, "", 10)]
    prose = default_engine.decider()
    assert "i" not in [c.text for c in prose.decide(context, "", 10)]
    # Nor are a name's capitals added there.
    found = [c.text for c in code.decide("day = ", "sat", 5)]
    assert "Saturday" not in found, found
