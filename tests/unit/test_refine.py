"""Splitting a first token's mass among its words by the model's second token
(engine/refine.py), on a hand-made vocabulary: no model, the distributions given."""

from __future__ import annotations

import numpy as np

from nextword.engine.lexicon import NO_SECOND
from nextword.engine.refine import TokenGroups

# Tokens: 0 " ", 1 " lo", 2 "ndon", 3 "s", 4 " go", 5 ",".
TEXTS = [" ", " lo", "ndon", "s", " go", ","]
# Words (sorted as a lexicon is): go (one token), lo (one token), london, los.
FIRST = np.array([4, 1, 1, 1], dtype=np.int32)
SECOND = np.array([NO_SECOND, NO_SECOND, 2, 3], dtype=np.int32)
COND = np.array([1.0, 0.5, 0.3, 0.2], dtype=np.float32)
PAIR = np.ones(4, dtype=np.float32)


def groups() -> TokenGroups:
    return TokenGroups.build(FIRST, COND, SECOND, PAIR, TEXTS)


def logprobs(**p: float) -> np.ndarray:
    """A next-token distribution from {token index as "t<i>": probability}."""
    out = np.full(len(TEXTS), 1e-9)
    for name, value in p.items():
        out[int(name[1:])] = value
    return np.log(out / out.sum())


def test_only_first_tokens_of_several_words_are_picked_likeliest_first() -> None:
    g = groups()
    # " go" begins one word: nothing to split there, however likely it is.
    assert g.pick(logprobs(t4=0.9, t1=0.1)) == [1]
    assert g.pick(logprobs(t4=1.0)) == [1]  # " lo" still has a little mass
    among = np.zeros(len(TEXTS), dtype=bool)
    assert g.pick(logprobs(t1=0.5), among=among) == []


def test_the_split_follows_the_second_token_and_keeps_the_first_tokens_total() -> None:
    g = groups()
    neural = np.array([0.4, 0.3, 0.18, 0.12])
    # After " lo" the model expects "ndon" (London) far more than "s" or a word end.
    out = g.split(neural, [1], logprobs(t2=0.8, t3=0.1, t5=0.1)[None])
    assert out[0] == neural[0]  # another first token's word is untouched
    assert np.isclose(out[1:].sum(), neural[1:].sum())
    assert out[2] > out[3] and out[2] > out[1]
    # A word of one token takes the mass of what ends a word (",", " ").
    assert np.isclose(out[1] / out[2], 0.1 / 0.8, rtol=1e-3)


def test_follow_splits_each_first_token_as_the_trigram_ranks_its_words() -> None:
    g = groups()
    neural = np.array([0.4, 0.3, 0.18, 0.12])  # the counts' share: lo > london > los
    trigram = np.array([0.5, 0.01, 0.04, 0.2])  # after "in Los ...": los, then london
    out = g.follow(neural, trigram, share=1.0)
    assert out[0] == neural[0]  # " go" begins one word: nothing to split
    assert np.isclose(out[1:].sum(), neural[1:].sum())  # " lo" keeps its total
    np.testing.assert_allclose(out[1:] / out[1:].sum(), trigram[1:] / trigram[1:].sum())
    # At a share below 1, the rest of the mass goes as the counts' share does.
    half = g.follow(neural, trigram, share=0.5)
    np.testing.assert_allclose(half, (out + neural) / 2, rtol=1e-6)


def test_a_first_token_whose_words_the_trigram_lacks_keeps_the_counts_share() -> None:
    g = groups()
    neural = np.array([0.4, 0.3, 0.18, 0.12])
    out = g.follow(neural, np.array([1.0, 0.0, 0.0, 0.0]))
    np.testing.assert_array_equal(out, neural)
