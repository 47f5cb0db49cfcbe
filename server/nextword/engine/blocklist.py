"""Block offensive words: never offer one the user has not written.

As Gboard's "Block offensive words" (on by default): a word of the list is not offered
as a completion, in a phrase or as a correction, unless the user wrote it in this
document or the personal store learned it; the `blockOffensiveWords` setting turns
the filter off. The list (models/offensive.txt) comes from data/offensive.py.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from pathlib import Path

import numpy as np

from nextword.engine.loader import MODELS_DIR

DEFAULT_LIST = MODELS_DIR / "offensive.txt"


class Blocklist:
    """The listed words, matched in lower case, and their place in a lexicon."""

    def __init__(self, words: frozenset[str], lexicon: Sequence[str], index: Mapping[str, int]):
        """`index`: each word of `lexicon` to its place."""
        self.words = words
        at = [i for i, w in enumerate(lexicon) if w.lower() in words]
        self.ids = np.array(at, dtype=np.int64)
        self.listed = [lexicon[i] for i in at]
        # A word counts as written in any of three cases (`Document.wrote`): as listed,
        # in lower case, capitalised. The two others' places in the lexicon (-1: none),
        # and each listed word's place here by its lower case (a case the lexicon lacks
        # is among the document's unknown words), so a document reads them all at once.
        self.cases = np.array(
            [[index.get(w.lower(), -1), index.get(w.capitalize(), -1)] for w in self.listed],
            dtype=np.int64,
        ).reshape(-1, 2)
        self.by_lower: dict[str, list[int]] = {}
        for j, word in enumerate(self.listed):
            self.by_lower.setdefault(word.lower(), []).append(j)

    @classmethod
    def load(cls, path: Path, lexicon: Sequence[str], index: Mapping[str, int]) -> Blocklist:
        """The list at `path`; an empty one where the file is missing."""
        words: frozenset[str] = frozenset()
        if path.exists():
            text = path.read_text(encoding="utf-8")
            words = frozenset(line.strip().lower() for line in text.splitlines() if line.strip())
        return cls(words, lexicon, index)

    def blocks(self, word: str) -> bool:
        return word.lower() in self.words

    def remove(self, mixed: np.ndarray, written: np.ndarray, learned: Container[str]) -> None:
        """Zero, in place, the listed words of a distribution over the lexicon that the
        document has not written (`written`: one truth per word of `listed`, as
        `Document.wrote_listed` reads them) nor the personal store learned."""
        live = np.flatnonzero((mixed[self.ids] > 0) & ~written)
        mixed[[self.ids[j] for j in live if self.listed[j] not in learned]] = 0.0
