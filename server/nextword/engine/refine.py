"""Sharper word probabilities from the model's second token, worked out between keys.

A boundary decision ranks a word by P(first token | context) * P(word | first token).
Most words are two or three tokens long: " dis" stands for discuss, display, distance
and a thousand more. The lexicon's share for the second factor (lexicon.py), fixed by
the training counts, is blind to the context; the decision splits each first token's
mass as the word trigram ranks its words instead (`TokenGroups.follow`), which sees
the last two words: after "In recent years, scientific" the popup now opens with
research, where the counts' share put "and" first; after "be able", where the model
is sure of " to", today and took get a fifth of what they had. A fifth of the mass
keeps the counts' share: the trigram's rare contexts are sure of words a single
sentence used.

Refining asks the model for the token after each of the likeliest first tokens that
begin several words, in one batched forward over copies of the KV cache (scorer.py),
and splits each such token's mass among its words by

    P(second token | context, first token) * P(word | its first two tokens)

where a word of one token takes the mass of every token that does not go on a word.
Each first token keeps its total, so the mixture's other parts are untouched.

The split costs about one and a half one-token forwards. The server runs it on the
worker's background lane after a boundary decision and after the word's first letter
(a guess decided ahead is refined with it), so that the letters typed next filter
the refined distribution; the word start is shown as decided.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nextword.engine.lexicon import NO_SECOND

# First tokens refined per boundary: the likeliest this many that begin two words or
# more. On the mixture fit's dev positions (16,500 word starts and first letters)
# the 8 likeliest took the fit's top-3 from 0.4770 to 0.4840.
REFINED_TOKENS = 8
# Refined at the word start (the likeliest first tokens of all) and again once this
# many letters are typed (the likeliest that fit them): on the first 1,500 words of
# the email dev text KSR@3 rose 0.260 -> 0.261 refining at the start alone, 0.263
# after the first letter alone, 0.264 at both (Wikipedia, both: 0.365 -> 0.368).
REFINED_LETTERS = 1
# The share of each first token's mass split as the word trigram ranks its words
# (`TokenGroups.follow`), the rest as the training counts do. On 1,500 words of dev
# email / chat, KSR@3 0.3441 / 0.3898 with the counts alone, 0.3448 / 0.3911 at 0.8,
# 0.3453 / 0.3911 at 1; on 60 everyday openings of my own, an acceptable word in the
# top 5 in 53 at 0.8 and 51 at 1 (a rare trigram's word then takes the token's
# whole mass: "Wishing you a" -> freshman, from "are you a freshman" in the chats).
FOLLOWED_SHARE = 0.8


@dataclass(frozen=True)
class TokenGroups:
    """The lexicon's words grouped by their first token, after one kind of lead."""

    first: np.ndarray  # (W,) each word's first token
    second: np.ndarray  # (W,) its second, NO_SECOND for a word of one token
    pair: np.ndarray  # (W,) P(word | its first two tokens)
    order: np.ndarray  # word indices sorted by first token
    bounds: np.ndarray  # (V + 1,): token t's words are order[bounds[t]:bounds[t + 1]]
    listed: np.ndarray  # (V,) the share of token t's words the lexicon lists; 0 unless 2+
    enders: np.ndarray  # the tokens that do not go on a word (a space, punctuation, ...)
    # The words of the tokens that begin two words or more, by first token, and where
    # each token's run of them starts and how long it is.
    grouped: np.ndarray
    runs: np.ndarray
    sizes: np.ndarray

    @classmethod
    def build(
        cls,
        first: np.ndarray,
        cond: np.ndarray,
        second: np.ndarray,
        pair: np.ndarray,
        token_texts: list[str],
    ) -> TokenGroups:
        v = len(token_texts)
        order = np.argsort(first, kind="stable")
        bounds = np.searchsorted(first[order], np.arange(v + 1))
        sizes = np.diff(bounds)
        listed = np.bincount(first, weights=cond, minlength=v)
        listed[sizes < 2] = 0.0
        goes_on = np.array([bool(t) and (t[0].isalnum() or t[0] in "_'") for t in token_texts])
        several = sizes >= 2
        grouped = order[np.repeat(several, sizes)]
        runs = np.concatenate(([0], np.cumsum(sizes[several])[:-1]))
        return cls(
            *(first, second, pair, order, bounds, listed, np.flatnonzero(~goes_on)),
            *(grouped, runs, sizes[several]),
        )

    def pick(
        self, logprobs: np.ndarray, n: int = REFINED_TOKENS, among: np.ndarray | None = None
    ) -> list[int]:
        """The `n` first tokens that begin several words with the most mass, likeliest
        first; `among`: only the tokens it marks (V,)."""
        mass = np.exp(logprobs) * self.listed
        if among is not None:
            mass = mass * among
        n = min(n, int(np.count_nonzero(mass)))
        if n == 0:
            return []
        top = np.argpartition(-mass, n - 1)[:n]
        return [int(t) for t in top[np.argsort(-mass[top])]]

    def follow(
        self, neural: np.ndarray, words: np.ndarray, share: float = FOLLOWED_SHARE
    ) -> np.ndarray:
        """`neural` with `share` of each first token's mass split among its words as
        `words` (a distribution over the lexicon that sees the context: the word
        trigram's) ranks them, the rest as the training counts' share does; a token
        none of whose words `words` has keeps the counts' share."""
        mine, theirs = neural[self.grouped], words[self.grouped]
        mass = np.add.reduceat(mine, self.runs)
        seen = np.add.reduceat(theirs, self.runs)
        scale = np.divide(share * mass, seen, out=np.zeros_like(mass), where=seen > 0)
        kept = np.where(seen > 0, 1.0 - share, 1.0).astype(neural.dtype)
        split = np.repeat(kept, self.sizes) * mine
        split += np.repeat(scale, self.sizes) * theirs
        out = neural.copy()
        out[self.grouped] = split
        return out

    def split(self, neural: np.ndarray, tokens: list[int], logprobs: np.ndarray) -> np.ndarray:
        """`neural` with the mass of each of `tokens` split among its words by the model's
        next token there (`logprobs[i]` after `tokens[i]`)."""
        out = neural.copy()
        for token, row in zip(tokens, logprobs, strict=True):
            words = self.order[self.bounds[token] : self.bounds[token + 1]]
            p = np.exp(row)
            second = self.second[words]
            ends = float(p[self.enders].sum())
            q = np.where(second == NO_SECOND, ends, p[np.maximum(second, 0)]) * self.pair[words]
            total, z = float(out[words].sum()), float(q.sum())
            if z > 0:
                out[words] = total * q / z
        return out
