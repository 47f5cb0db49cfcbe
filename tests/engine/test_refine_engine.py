"""Refining a decision by the model's second token, on the bundled model
(engine/refine.py, `Decider.refine`)."""

from __future__ import annotations

from typing import Any

import numpy as np


def words(decider: Any, context: str, prefix: str, k: int = 5) -> list[str]:
    return [c.text for c in decider.decide(context, prefix, k)]


def test_a_batched_branch_is_the_forward_it_stands_for(default_engine: Any) -> None:
    decider = default_engine.decider()
    decider.decide("He was born in ", "")
    scorer = decider._scorer
    tokens = scorer.tokens
    nexts = [int(t) for t in np.argsort(-scorer.logprobs(tokens))[:3]]
    branches = scorer.branches(tokens, nexts)
    assert scorer.tokens == tokens  # the cache stays where it was
    for row, token in zip(branches, nexts, strict=True):
        np.testing.assert_allclose(row, scorer.logprobs([*tokens, token]), atol=1e-4)


def test_the_first_letter_is_refined_to_the_words_the_sentence_wants(default_engine: Any) -> None:
    decider = default_engine.decider()
    context = "He was born in "
    decider.decide(context, "")
    shown = words(decider, context, "")
    assert decider.refine(context) and decider.refine(context, "L")
    # " L" begins Linux and London alike; the model's next token tells them apart.
    ranked = words(decider, context, "L")
    assert "London" in ranked[:3]
    assert "Linux" not in ranked or ranked.index("London") < ranked.index("Linux")
    assert words(decider, context, "") == shown  # the word start shows what it showed
    assert decider.stats.refined == 2


def test_the_trigram_splits_a_first_tokens_words_as_the_context_wants(
    default_engine: Any,
) -> None:
    decider = default_engine.decider()
    # With the training counts' share, "and" came first and "talking" was not in the
    # top 3 (their first tokens' other words took the mass).
    assert words(decider, "In recent years, scientific ", "", 1) == ["research"]
    decider.reset()
    assert "talking" in words(decider, "I don't know who we're ", "", 3)
    # After "be able" the model is sure of " to": the counts' share gave today as much
    # as a word of its own; four fifths of it now go as the trigram says, to "to".
    decider.reset()
    lexicon = decider.lexicon
    neural = decider.components("I will be able ").parts[0].dense
    to, today = lexicon.index["to"], lexicon.index["today"]
    counts = lexicon.cond_space[today] / lexicon.cond_space[to]
    assert neural[today] / neural[to] < 0.25 * counts


def test_refining_twice_adds_only_new_first_tokens(default_engine: Any) -> None:
    decider = default_engine.decider()
    context = "The meeting is on "
    decider.decide(context, "")
    assert decider.refine(context, "T")
    assert "Tuesday" in words(decider, context, "T", 3)
    assert decider.refine(context, "T")  # the next likeliest first tokens for "T"
    refined, _ = decider._boundary.branches
    assert len(refined) == len(set(refined)) > 8


def test_no_decision_no_refinement(default_engine: Any) -> None:
    decider = default_engine.decider()
    assert not decider.refine("Nothing decided here ")


def test_a_guess_is_refined_as_it_is_decided_ahead(default_engine: Any) -> None:
    decider = default_engine.decider()
    context = "Thank you for your "
    decider.decide(context, "")
    assert decider.speculate(context, "hel")  # "help", decided ahead with the space
    decider.decide(context + "help ", "")  # the text reaches it: taken as decided
    assert decider.stats.adopted == 1 and decider.stats.refined == 1
    assert not decider.refine(context + "help ")  # nothing is left to run after the space
