"""The token search: words the tables do not know, spelled out token by token.

Only runs when the cached distribution has no word for the typed prefix (a new
identifier, a rare name), as a few model calls on the decider's scorer; the decider
keeps what it finds with the boundary, so the next keystrokes filter it for free.
"""

from __future__ import annotations

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


def spell_words(
    boundary: Boundary, prefix: str, k: int, *, scorer: Scorer, vocabulary: Vocabulary
) -> list[Candidate]:
    """Spell out words starting with `prefix` token by token with the model.

    Up to `k` paths start from the best first tokens consistent with the prefix; each
    follows the best consistent token until the prefix is covered, then the model's
    choice until it prefers to end the word. Each word's probability is its share of
    all the model gives the prefix's first tokens.
    """
    texts = vocabulary.token_texts()
    lead = boundary.lead
    target = lead + prefix
    first = np.array(vocabulary.consistent_tokens("", target, lead), dtype=np.int64)
    if not len(first):
        return []
    prefix_mass = float(np.exp(boundary.logprobs[first]).sum())
    order = first[np.argsort(-boundary.logprobs[first])][:k]
    found: dict[str, float] = {}
    for token in order:
        word, logp = texts[token], float(boundary.logprobs[token])
        path = [*boundary.tokens, int(token)]
        for _ in range(MAX_SPELL_TOKENS - 1):
            logprobs = scorer.logprobs(path)
            if len(word) >= len(target):
                # Past the prefix the model is free; a non-word token ends the word.
                best = int(np.argmax(logprobs))
                if not is_word(texts[best]):
                    break
            else:
                options = vocabulary.consistent_tokens(word, target, lead)
                if not options:
                    break
                best = max(options, key=lambda t: logprobs[t])
            word += texts[best]
            logp += float(logprobs[best])
            path.append(best)
        word = word[len(lead) :]
        if word.startswith(prefix) and len(word) > len(prefix):
            found[word] = max(found.get(word, -np.inf), logp)
    if not found:
        return []
    return [
        Candidate(word, min(1.0, float(np.exp(v)) / prefix_mass))
        for word, v in sorted(found.items(), key=lambda item: -item[1])
    ]
