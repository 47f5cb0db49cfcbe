"""Phrases: the words after the next, decided ahead (Decider.phrase), on the bundled model."""

from __future__ import annotations

from typing import Any

import pytest


def test_a_set_phrase_is_completed(default_engine: Any) -> None:
    decider = default_engine.decider()
    phrase = decider.phrase("If you have any questions, please ", "le")
    assert phrase is not None and phrase.words[0] == "let"
    assert len(phrase.words) >= 2
    assert phrase.score == sum(phrase.logprobs) / len(phrase.logprobs)


def test_reaching_a_boundary_seen_ahead_decides_as_if_typed(default_engine: Any) -> None:
    """The look ahead only spares the forward: the words the user then writes count in
    the document caches as they would have without it."""
    text = "The zorblax ate. The zorblax slept. The zorblax ran. The "
    plain = default_engine.decider()
    plain.decide(text, "", 5)
    expected = plain.decide(text + "zorblax ", "", 5)
    ahead = default_engine.decider()
    ahead.decide(text, "", 5)
    phrase = ahead.phrase(text, "zor", max_words=3)
    assert phrase is not None and phrase.words[0] == "zorblax"
    assert ahead.has_ahead(text + "zorblax ")
    forwards = ahead.stats.forwards
    found = ahead.decide(text + "zorblax ", "", 5)
    assert [c.text for c in found] == [c.text for c in expected]
    assert [c.prob for c in found] == pytest.approx([c.prob for c in expected], rel=1e-4)
    assert ahead.stats.forwards == forwards


def test_typing_through_a_phrase_needs_no_model_call(default_engine: Any) -> None:
    decider = default_engine.decider()
    context = "It was the best of times, it was the "
    phrase = decider.phrase(context, max_words=4)
    assert phrase is not None and len(phrase.words) >= 3
    forwards = decider.stats.forwards
    text = context
    for word in phrase.words[:-1]:
        text += word + " "
        ranked = decider.decide(text, "", 3)
        assert ranked  # decided ahead: a boundary ready for the next word
    assert decider.stats.forwards == forwards
    assert decider.stats.ahead_hits == len(phrase.words) - 1


def test_typing_elsewhere_drops_what_was_decided_ahead(default_engine: Any) -> None:
    decider = default_engine.decider()
    context = "It was the best of times, it was the "
    phrase = decider.phrase(context, max_words=3)
    assert phrase is not None
    assert decider.has_ahead(context + phrase.words[0] + " ")
    decider.decide(context + "zebra ", "", 3)  # the user wrote something else
    assert not decider.has_ahead(context + phrase.words[0] + " ")


def test_a_phrase_stops_where_the_words_stop(default_engine: Any) -> None:
    """After "for example" a comma is far likelier than any word: the phrase ends there."""
    decider = default_engine.decider()
    context = "There are many ways to do it, for "
    phrase = decider.phrase(context, "exa", max_words=4)
    assert phrase is not None and phrase.words == ("example",)
    step = decider._ahead.get(context + "example ")
    assert step is not None and step.word_mass < 0.5


def test_the_limit_holds(default_engine: Any) -> None:
    decider = default_engine.decider()
    for n in (1, 2):
        phrase = decider.phrase("The United States of ", max_words=n)
        assert phrase is not None and len(phrase.words) <= n


def test_the_next_boundary_is_decided_before_the_space(default_engine: Any) -> None:
    decider = default_engine.decider()
    context = "Thank you for your "
    decider.decide(context, "", 3)
    decider.decide(context, "hel", 3)
    assert decider.speculate(context, "hel")
    assert not decider.speculate(context, "help")  # one guess per word
    forwards = decider.stats.forwards
    ranked = decider.decide(context + "help ", "", 3)
    assert ranked and decider.stats.forwards == forwards and decider.stats.ahead_hits == 1


def test_a_short_word_is_guessed_once_typed_in_full(default_engine: Any) -> None:
    decider = default_engine.decider()
    context = "I would like "
    decider.decide(context, "", 3)
    guess = decider.guess(context, "to")
    assert guess is not None and guess.text == "to"  # no completion, the word itself
    assert decider.speculate(context, "to")
    decider.decide(context + "to ", "", 3)
    assert decider.stats.adopted == 1


def unguessed(engine: Any, context: str, reached: str, k: int) -> tuple[Any, list[Any]]:
    """A decider that made no guess on the way, and its candidates at `reached`."""
    plain = engine.decider()
    plain.decide(context, "", 3)
    return plain, plain.decide(reached, "", k)


def guessing(engine: Any, context: str) -> Any:
    decider = engine.decider()
    decider.decide(context, "", 3)
    return decider


def assert_same(found: list[Any], expected: list[Any]) -> None:
    assert [c.text for c in found] == [c.text for c in expected]
    assert [c.prob for c in found] == pytest.approx([c.prob for c in expected], rel=1e-6)


def test_a_guessed_boundary_is_decided_as_if_typed(default_engine: Any) -> None:
    """Reaching a speculated boundary takes it as decided, neither model nor mixture
    again, and it is what deciding there without a guess gives: the document counted
    the guessed word (in a copy) as it counts a written one."""
    context = "The zorblax ate. The zorblax slept. Please let me know as soon as "
    plain, expected = unguessed(default_engine, context, context + "possible ", 20)
    decider = guessing(default_engine, context)
    assert decider.speculate(context, "poss")
    forwards = decider.stats.forwards
    found = decider.decide(context + "possible ", "", 20)
    assert decider.stats.adopted == 1 and decider.stats.forwards == forwards
    assert_same(found, expected)
    # The document counted "possible" once, as the plain decider's did.
    assert decider._doc.words == plain._doc.words


def test_a_wrong_guess_leaves_the_document_as_written(default_engine: Any) -> None:
    context = "Please let me know as soon as "
    _, expected = unguessed(default_engine, context, context + "possums ", 10)
    decider = guessing(default_engine, context)
    assert decider.speculate(context, "poss")  # guessed "possible", wrote "possums"
    found = decider.decide(context + "possums ", "", 10)
    assert decider.stats.adopted == 0
    assert_same(found, expected)


def test_the_boundary_after_a_comma_is_decided_before_the_space(default_engine: Any) -> None:
    context = "When the train finally arrived,"
    _, expected = unguessed(default_engine, context, context + " ", 10)
    decider = guessing(default_engine, context)
    assert decider.speculate_space(context)
    assert not decider.speculate_space(context)  # once
    forwards = decider.stats.forwards
    found = decider.decide(context + " ", "", 10)
    assert decider.stats.adopted == 1 and decider.stats.forwards == forwards
    assert_same(found, expected)


def test_no_space_is_guessed_where_a_word_follows_directly(default_engine: Any) -> None:
    decider = default_engine.decider()
    code = "import os\n\nclass Reader:\n    def read(self):\n        return self."
    decider.decide(code, "", 3)
    assert not decider.speculate_space(code)  # the model expects an attribute name
    decider.decide("Call the function(", "", 3)
    assert not decider.speculate_space("Call the function(")  # not a space's place


def test_no_guess_while_the_word_is_open(default_engine: Any) -> None:
    decider = default_engine.decider()
    context = "I went to the "
    decider.decide(context, "", 3)
    assert not decider.speculate(context, "s")  # many words start with s
    assert not decider.speculate("never decided ", "wor")  # no boundary to guess from


@pytest.mark.parametrize(
    ("context", "prefix"),
    [
        ("It was the best of times, it was the ", ""),
        ("Let me know if you have any ", "ques"),
        ("The United States of ", ""),
        ("I walked into the kitchen and ", ""),
        ("Thank you for your ", ""),
    ],
)
def test_a_floor_drops_only_phrases_that_could_not_reach_it(
    default_engine: Any, context: str, prefix: str
) -> None:
    """The search gives up once the phrase cannot score the floor whatever follows: it
    returns the full search's phrase wherever that scores the floor, and never runs
    more forwards than the full search."""
    full = default_engine.decider()
    whole = full.phrase(context, prefix, 4)
    assert whole is not None
    for floor in (whole.score - 0.01, whole.score + 0.01, -0.3, -2.0):
        pruned = default_engine.decider()
        found = pruned.phrase(context, prefix, 4, floor=floor)
        if whole.score >= floor:
            assert found == whole
        else:
            assert found is None or found.score < floor
        assert pruned.stats.forwards <= full.stats.forwards
        if whole.logprobs[0] / 4 < floor:  # ruled out by its first word: no step run
            assert found is None and pruned.stats.forwards < full.stats.forwards


def test_a_word_typed_in_full_starts_the_phrase_it_is_guessed_as(default_engine: Any) -> None:
    """ "to" typed in full is the guess (the prefix as a whole word): the phrase the
    server searches with that guess starts with it, not with a longer word."""
    decider = default_engine.decider()
    context = "I want "
    decider.decide(context, "", 5)
    guess = decider.guess(context, "to")
    phrase = decider.phrase(context, "to", 4)
    assert guess is not None and guess.text == "to"
    assert phrase is not None and phrase.words[0] == "to" and len(phrase.words) >= 2
