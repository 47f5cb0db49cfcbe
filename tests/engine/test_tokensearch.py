"""The token search (engine/tokensearch.py) on the bundled model: words the tables do
not know, spelled out by paths that go on together as one batch."""

from __future__ import annotations

from typing import Any

import numpy as np

from nextword.engine import tokensearch
from nextword.engine.tokensearch import spell_words


def test_rows_that_go_on_are_the_forwards_they_stand_for(default_engine: Any) -> None:
    decider = default_engine.decider()
    decider.decide("Status of the ", "")
    scorer = decider._scorer
    tokens = scorer.tokens
    a, b = (int(t) for t in np.argsort(-scorer.logprobs(tokens))[:2])
    rows = scorer.fork(tokens, 2, room=2)
    first = rows.step([a, b])
    c, d = (int(np.argmax(row)) for row in first)
    second = rows.step([c, d])
    assert scorer.tokens == tokens  # the scorer's own cache stays where it was
    for row, path in zip([*first, *second], [[a], [b], [a, c], [b, d]], strict=True):
        np.testing.assert_allclose(row, scorer.logprobs([*tokens, *path]), atol=1e-4)


def test_a_batch_spells_what_one_path_at_a_time_spells(default_engine: Any, monkeypatch) -> None:
    decider = default_engine.decider()
    cases = [("Status of the ", "Zeph"), ("Just tried ", "smartg"), ("def ", "parse_conf")]
    batched, forwards = [], []
    for context, prefix in cases:
        boundary = decider._advance(context)
        before = decider._scorer.forwards
        found = spell_words(
            boundary, prefix, 5, scorer=decider._scorer, vocabulary=decider.vocabulary
        )
        forwards.append(decider._scorer.forwards - before)
        batched.append([(c.text, round(c.prob, 4)) for c in found])
    assert any(batched)
    for (_, prefix), found in zip(cases, batched, strict=True):
        assert all(word.startswith(prefix) for word, _ in found)
    # At most one forward per token spelled, for all the paths together.
    assert max(forwards) <= tokensearch.MAX_SPELL_TOKENS - 1
    # A model whose cache cannot be copied runs the paths one by one, to the same words.
    monkeypatch.setattr(type(decider._scorer), "fork", lambda *args, **kwargs: None)
    for (context, prefix), expected in zip(cases, batched, strict=True):
        boundary = decider._advance(context)
        found = spell_words(
            boundary, prefix, 5, scorer=decider._scorer, vocabulary=decider.vocabulary
        )
        assert [(c.text, round(c.prob, 4)) for c in found] == expected


def test_a_word_is_not_spelled_again_at_every_letter(default_engine: Any) -> None:
    decider = default_engine.decider()
    context, word = "def ", "parse_conf_xq"
    spelled, forwards = [], []
    for i in range(len("parse_conf"), len(word) + 1):
        before = decider.stats.spelled, decider._scorer.forwards
        decider.decide(context, word[:i], 5)
        spelled.append(decider.stats.spelled - before[0])
        forwards.append(decider._scorer.forwards - before[1])
    # The first letter no table knows spells (model calls); the next letters filter
    # what that found and call the model no more, until RESPELL_LETTERS more are typed.
    again = tokensearch.RESPELL_LETTERS
    assert spelled[0] == 1 and forwards[0] > 0
    assert spelled[1:again] == [0] * (again - 1) and forwards[1:again] == [0] * (again - 1)
    assert spelled[again] == 1
    # Another boundary spells from the start.
    decider.decide("class ", "Parse_conf", 5)
    assert decider.stats.spelled == 3
