"""Block offensive words: never offer one the user has not written.

As Gboard's "Block offensive words" (on by default): a word of the list is not offered
as a completion, in a phrase or as a correction, unless the user wrote it in this
document or the personal store learned it; the `blockOffensiveWords` setting turns
the filter off. The list (models/offensive.txt) comes from data/offensive.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from nextword.engine.loader import MODELS_DIR

DEFAULT_LIST = MODELS_DIR / "offensive.txt"


class Blocklist:
    """The listed words, matched in lower case, and their mask over a lexicon."""

    def __init__(self, words: frozenset[str], lexicon: list[str]):
        self.words = words
        self.mask = np.array([w.lower() in words for w in lexicon], dtype=bool)

    @classmethod
    def load(cls, path: Path, lexicon: list[str]) -> Blocklist:
        """The list at `path`; an empty one where the file is missing."""
        words: frozenset[str] = frozenset()
        if path.exists():
            text = path.read_text(encoding="utf-8")
            words = frozenset(line.strip().lower() for line in text.splitlines() if line.strip())
        return cls(words, lexicon)

    def blocks(self, word: str) -> bool:
        return word.lower() in self.words

    def remove(
        self,
        mixed: np.ndarray,
        extra: dict[str, float],
        lexicon: list[str],
        allowed: Callable[[str], bool],
    ) -> None:
        """Zero, in place, the listed words of a distribution that `allowed` (the user
        wrote or learned them) does not let through."""
        for i in np.flatnonzero(self.mask & (mixed > 0)):
            if not allowed(lexicon[i]):
                mixed[i] = 0.0
        for word in [w for w in extra if self.blocks(w)]:
            if not allowed(word):
                del extra[word]
