"""The token search: words the tables do not know, spelled out token by token.

Only runs when the cached distribution has no word for the typed prefix (a new
identifier, a rare name), and not again for the next few letters (`spelled_before`),
as a few batched model calls on the decider's scorer; the decider keeps what it finds
with the boundary, so the next keystrokes filter it for free.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from nextword.engine.components import Candidate
from nextword.engine.words import is_word

if TYPE_CHECKING:
    from nextword.engine.boundary import Boundary
    from nextword.engine.scorer import Scorer
    from nextword.engine.vocabulary import Vocabulary

# Longest word the token search spells out, in tokens.
MAX_SPELL_TOKENS = 4
# Letters typed after a search before the next: what one search found is kept with the
# boundary and filtered by the keystrokes after it. Searched again at every letter, an
# identifier typed letter by letter cost a search (15 ms) at each; on 1,500 words of
# the Python standard library (cpu+openblas) searching again after 3 letters made 254
# searches instead of 552, kept 5 of the 6 that found the word, and KSR@3 0.3486 ->
# 0.3483 (email 0.3076 -> 0.3074, Python docs level); never again, 0.3475.
RESPELL_LETTERS = 3


def spelled_before(boundary: Boundary, prefix: str) -> bool:
    """Whether the token search ran at this boundary for a prefix of `prefix` fewer
    than RESPELL_LETTERS letters shorter (or for `prefix` itself)."""
    return any(
        prefix.startswith(p) and len(prefix) - len(p) < RESPELL_LETTERS for p in boundary.unspelled
    )


def spell_words(
    boundary: Boundary, prefix: str, k: int, *, scorer: Scorer, vocabulary: Vocabulary
) -> list[Candidate]:
    """Spell out words starting with `prefix` token by token with the model.

    Up to `k` paths start from the best first tokens consistent with the prefix; each
    follows the best consistent token until the prefix is covered, then the model's
    choice until it prefers to end the word. Each word's probability is its share of
    all the model gives the prefix's first tokens. The paths go on together, one
    batched forward per token (`Scorer.fork`), where the model's cache allows.
    """
    texts = vocabulary.token_texts()
    lead = boundary.lead
    target = lead + prefix
    first = np.array(vocabulary.consistent_tokens("", target, lead), dtype=np.int64)
    if not len(first):
        return []
    prefix_mass = float(np.exp(boundary.logprobs[first]).sum())
    order = [int(t) for t in first[np.argsort(-boundary.logprobs[first])][:k]]
    words = [texts[t] for t in order]
    logps = [float(boundary.logprobs[t]) for t in order]
    live = [True] * len(order)
    rows = scorer.fork(boundary.tokens, len(order), room=MAX_SPELL_TOKENS - 1)
    step = rows.step if rows is not None else _one_by_one(scorer, boundary.tokens, live)
    nexts = order
    for _ in range(MAX_SPELL_TOKENS - 1):
        logprobs = step(nexts)
        nexts = list(nexts)  # an ended path's row runs on, its output unread
        for i, word in enumerate(words):
            if live[i]:
                best = _next_token(logprobs[i], word, target, lead, texts, vocabulary)
                if best is None:
                    live[i] = False
                    continue
                words[i] += texts[best]
                logps[i] += float(logprobs[i][best])
                nexts[i] = best
        if not any(live):
            break
    found: dict[str, float] = {}
    for word, logp in zip(words, logps, strict=True):
        word = word[len(lead) :]
        if word.startswith(prefix) and len(word) > len(prefix):
            found[word] = max(found.get(word, -np.inf), logp)
    return [
        Candidate(word, min(1.0, float(np.exp(v)) / prefix_mass))
        for word, v in sorted(found.items(), key=lambda item: -item[1])
    ]


def _next_token(
    logprobs: np.ndarray,
    word: str,
    target: str,
    lead: str,
    texts: list[str],
    vocabulary: Vocabulary,
) -> int | None:
    """The token a path spelling `word` takes next: the likeliest that keeps to the
    prefix, or past it the model's choice; None where the word ends (no token fits,
    or the model's choice is no word's)."""
    if len(word) >= len(target):
        best = int(np.argmax(logprobs))
        return best if is_word(texts[best]) else None
    options = vocabulary.consistent_tokens(word, target, lead)
    return max(options, key=lambda t: logprobs[t]) if options else None


def _one_by_one(
    scorer: Scorer, tokens: list[int], live: list[bool]
) -> Callable[[Sequence[int]], np.ndarray]:
    """`Rows.step` for a model whose cache cannot be copied: each row's path run on
    the scorer's own cache in turn, the rows `live` marks ended not at all (zeros)."""
    paths: list[list[int]] = [[] for _ in live]

    def step(nexts: Sequence[int]) -> np.ndarray:
        out: list[np.ndarray | None] = [None] * len(paths)
        for i, (path, token) in enumerate(zip(paths, nexts, strict=True)):
            if live[i]:
                path.append(int(token))
                out[i] = scorer.logprobs([*tokens, *path])
        width = next(len(row) for row in out if row is not None)
        return np.stack([np.zeros(width, np.float32) if row is None else row for row in out])

    return step
