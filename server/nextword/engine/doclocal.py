"""Words the document already uses: editors repeat names, so the decider does too.

Counts are kept incrementally: while the user types forward, the new context extends
the old one and only the new words are counted. Any other change recounts. A fork
counts guessed words (a boundary decided ahead) without touching the counts it came from.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from nextword.engine.words import WORD_RE, is_candidate

# A huge document is counted from its last megabyte only: recent words matter most,
# and a recount must stay cheap.
MAX_CHARS = 1_000_000


class DocumentWords:
    """Unigram and bigram counts of the words before the cursor.

    Words in the lexicon are counted in a dense vector (cheap to mix); other words,
    such as the document's own identifiers, in a Counter.
    """

    def __init__(self, index: dict[str, int]):
        self._index = index
        self._reset()

    def _reset(self) -> None:
        self._text = ""
        self.known = np.zeros(len(self._index), dtype=np.float32)
        self.unknown: Counter[str] = Counter()
        self.bigrams: dict[str, Counter[str]] = {}
        self.last_word: str | None = None
        self.total = 0
        self.singletons = 0  # words seen exactly once so far
        # Words whose pair counter this object may change in place: after a fork the
        # counters are shared, and each side copies one before it first counts into it.
        self._owned: set[str] = set()

    def fork(self) -> DocumentWords:
        """A copy to count words into that were not written yet (a guess).

        Costs a copy of the dense counts and of the dicts, not of every pair counter.
        """
        twin = DocumentWords.__new__(DocumentWords)
        twin._index = self._index
        twin._text = self._text
        twin.known = self.known.copy()
        twin.unknown = self.unknown.copy()
        twin.bigrams = dict(self.bigrams)
        twin.last_word, twin.total, twin.singletons = self.last_word, self.total, self.singletons
        twin._owned = set()
        self._owned = set()
        return twin

    def update(self, context: str) -> None:
        """Bring the counts up to `context` (text that ends before a word)."""
        context = context[-MAX_CHARS:]
        if self._text and context.startswith(self._text):
            new = context[len(self._text) :]
        else:
            self._reset()
            new = context
        for word in WORD_RE.findall(new):
            i = self._index.get(word)
            if i is None and not is_candidate(word):
                continue  # a stray quote: never offered, so not counted either
            if i is None:
                seen = self.unknown[word]
                self.unknown[word] += 1
            else:
                seen = int(self.known[i])
                self.known[i] += 1
            self.singletons += 1 if seen == 0 else -1 if seen == 1 else 0
            if self.last_word is not None:
                self._pairs(self.last_word)[word] += 1
            self.last_word = word
            self.total += 1
        self._text = context

    def _pairs(self, word: str) -> Counter[str]:
        """The counter of what followed `word`, this object's own to change."""
        if word not in self._owned:
            self.bigrams[word] = Counter(self.bigrams.get(word, ()))
            self._owned.add(word)
        return self.bigrams[word]

    def following(self) -> Counter[str]:
        """How often each word followed the last word, in this document."""
        return self.bigrams.get(self.last_word or "", Counter())
