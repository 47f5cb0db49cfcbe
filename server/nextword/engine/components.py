"""The word distributions a decision mixes, and what a decision returns.

Each component is dense over the lexicon, plus the words outside it it can offer
(a document's identifiers, the user's names), with a confidence that scales its
fitted weight at this position.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from nextword.engine.words import is_candidate


@dataclass(frozen=True)
class Candidate:
    """A whole word and its probability given the context and the typed prefix."""

    text: str
    prob: float
    # True when the word does not start with the typed prefix but is what it probably
    # misspells (corrections.py), or its standard spelling with capitals ("sat":
    # Saturday, variants.py): accepting it replaces the prefix.
    correction: bool = False

    def recased(self, prefix: str) -> bool:
        """Whether the word only gives `prefix` its capitals (no misspelling fixed)."""
        return self.correction and bool(prefix) and self.text.lower().startswith(prefix.lower())

    def is_typed(self, prefix: str) -> bool:
        """Whether the word is `prefix` typed in full (no completion, no correction)."""
        return bool(prefix) and self.text == prefix and not self.correction

    def saves(self, prefix: str) -> bool:
        """Whether accepting the word saves a keystroke over typing the rest of it: an
        editor's accept key inserts no space, so a word one letter past the prefix
        ("the" after "th") costs the same either way. A correction replaces the prefix,
        so it always does."""
        return self.correction or len(self.text) - len(prefix) > 1

    def corrects(self, prefix: str) -> bool:
        """Whether the word fixes a misspelling of `prefix`: what a popup calls a
        correction, and the evaluation counts as one."""
        return self.correction and not self.recased(prefix)


@dataclass
class Component:
    """One word distribution: dense over the lexicon, plus words outside it."""

    name: str  # one of weights.COMPONENTS
    dense: np.ndarray  # (W,)
    extra: dict[str, float]
    # Scales the fitted weight at this position: how often such evidence has proved
    # right before (for the document caches, their repeat rate), 1 for the others.
    confidence: float = 1.0

    def prob(self, word: str, index: dict[str, int]) -> float:
        i = index.get(word)
        return float(self.dense[i]) if i is not None else self.extra.get(word, 0.0)


@dataclass(frozen=True)
class Components:
    """Everything `Decider.components` computed at one word boundary."""

    parts: list[Component]  # the distributions to mix, each named by its weight
    tokens: list[int]  # the model's token window
    logprobs: np.ndarray  # the model's next-token log-probabilities
    lead: str  # " " when the word follows a space, else ""
    document_words: int  # words of the document before the boundary (English)
    # The model's probability that a lexicon word comes next at all (not a full stop,
    # a comma, a line end): where a phrase should stop.
    word_mass: float = 1.0


def spread(counts: Mapping[str, int], index: dict[str, int]) -> tuple[np.ndarray, dict[str, float]]:
    """Counts as probabilities: dense over the lexicon, and the other words worth
    offering beside it."""
    total = float(sum(counts.values()))
    dense = np.zeros(len(index), dtype=np.float32)
    extra: dict[str, float] = {}
    for word, c in counts.items():
        i = index.get(word)
        if i is not None:
            dense[i] = c / total
        elif is_candidate(word):
            extra[word] = c / total
    return dense, extra


def following(name: str, counts: Mapping[str, int], index: dict[str, int]) -> Component:
    """What followed the last word (in the document, or in what the user wrote), weighed
    by how often such pairs have repeated."""
    singletons = sum(1 for c in counts.values() if c == 1)
    confidence = repeat_rate(sum(counts.values()), singletons)
    return Component(name, *spread(counts, index), confidence)


def repeat_rate(seen: int, singletons: int, young: float = 1.0) -> float:
    """How often a cache's next word is one it holds, estimated from its own history.

    Words seen only once are the cache's misses so far (Good-Turing); adding `young`
    (one) keeps a young cache (one follower, seen once) at one half. After "the" a
    document's followers rarely repeat; after a name they nearly always do.
    """
    return (seen - singletons + young) / (seen + 1)
