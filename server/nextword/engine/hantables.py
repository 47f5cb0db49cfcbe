"""The Chinese word tables: continuations of one to four Han characters.

No word trigram and no personal store (no spaces to count words by); the document
cache is what followed the last two characters before (hancache.py); at a word start
each likely next character offers its best continuation (`ChineseTables.start_candidates`),
and the system's language model, where installed, reorders the model's distribution
(systemlm.py). The interface is wordtables.py's.
"""

from __future__ import annotations

import numpy as np

from nextword.engine.components import Candidate, Component, spread
from nextword.engine.hancache import following as seen_after
from nextword.engine.lexicon import Lexicon
from nextword.engine.ngram import NGram
from nextword.engine.systemlm import SystemLM
from nextword.engine.weights import DOC, NGRAM, SYSTEM, Mixture
from nextword.engine.words import is_han
from nextword.engine.wordtables import Document, WordTables


class ChineseDocument(Document):
    """What followed the last two characters earlier in the document (hancache.py)."""

    def __init__(self, lexicon: Lexicon):
        self._index = lexicon.index

    @property
    def words(self) -> int:
        return 0  # no spaces to count words by

    def fork(self) -> ChineseDocument:
        return self  # it keeps no counts: what it offers is read from the context

    def components(self, context: str, mixture: Mixture, *, update: bool = True) -> list[Component]:
        if DOC not in mixture.computed():
            return []
        seen = seen_after(context, self._index)
        return [Component(DOC, *spread(seen, self._index))] if seen else []


# Which continuation a likely next character shows: the one with the most characters
# to save, P(continuation) x (length - 1 + LENGTH_BONUS). Accepting one character saves
# no keystroke, so the bonus is what a lone character earns for being right more often.
# On the People's Daily dev split (first 3,000 characters, the bundled model), KSR@3 was
# 0.132 at 0.5, 0.126 at 0.75 and 0.117 at 1.0 (the expected length, the earlier rule),
# next-character top-3 0.672-0.673 at all three; at 0 a character never shows alone.
LENGTH_BONUS = 0.5
# How many corpus occurrences the context-free shares of a character's words count as,
# beside what followed the same character before in the training text (`AfterChar`).
AFTER_CHAR_PRIOR = 4.0


class AfterChar:
    """Which continuations followed each character in the training text, and how often.

    The lexicon's P(word | first character) is one share for every context: after 很
    and after 天 alike, 好 is mostly 好 alone. What followed the character before the
    cursor in the corpus (after 很: 多, 大, 好 alone; after 真, as in 认真, 贯彻 and
    学习) sharpens it where the corpus has seen that pair. Built by training/tables.py
    (`after_*` arrays in lexicon.npz).
    """

    def __init__(self, rows: dict[str, tuple[np.ndarray, np.ndarray]]):
        self._rows = rows  # character -> (lexicon indices, counts), indices sorted

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], size: int) -> AfterChar:
        if "after_char" not in arrays:
            return cls({})  # a lexicon exported before the table existed
        chars, words, counts = arrays["after_char"], arrays["after_word"], arrays["after_count"]
        if not (len(chars) == len(words) == len(counts)) or (len(words) and words.max() >= size):
            raise ValueError("lexicon.npz: the after_* arrays do not match the word list")
        order = np.lexsort((words, chars))
        chars, words, counts = chars[order], words[order], counts[order].astype(np.float64)
        cuts = np.flatnonzero(np.diff(chars)) + 1
        rows = {}
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(chars)], strict=True):
            if hi > lo:
                rows[chr(int(chars[lo]))] = (words[lo:hi], counts[lo:hi])
        return cls(rows)

    def counts(self, char: str, lo: int, hi: int) -> np.ndarray | None:
        """Counts of the entries [lo, hi) after `char`; None where the corpus has none."""
        row = self._rows.get(char)
        if row is None:
            return None
        words, counts = row
        a, b = np.searchsorted(words, [lo, hi])
        if a == b:
            return None
        out = np.zeros(hi - lo)
        out[words[a:b] - lo] = counts[a:b]
        return out


def char_id(char: str, index: dict[str, int]) -> int:
    """A character as the character trigram counts it: a Han character its lexicon
    entry (unknown: W), anything else (punctuation, a space, Latin) the start symbol
    W + 1, which also stands for the document and line start. training/tables.py counts
    the training text with it, `CharTrigram.history` reads a context with it."""
    if is_han(char):
        return index.get(char, len(index))
    return len(index) + 1


class CharTrigram:
    """A character trigram (ngram.py's tables over the single-character entries), its
    P(next character) spread over the continuations each character begins, as the
    model's P(next token) is: P(entry) = P(first character) x P(entry | character).

    Counts keep what a small model trained for an hour blurs: with the earlier model,
    mixing it in at 0.3 lifted next-character top-3 on the HSK dev split from 0.305 to
    0.352 (training/mixture.py fits its weight).
    """

    def __init__(self, ngram: NGram, lexicon: Lexicon):
        self.ngram = ngram
        self._index = lexicon.index
        self._size = len(lexicon)
        self._first = np.array([lexicon.index.get(w[0], 0) for w in lexicon.words])
        self._cond = lexicon.cond_bare.astype(np.float64)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], lexicon: Lexicon) -> CharTrigram | None:
        if "bi_keys" not in arrays or "char_counts" not in arrays:
            return None  # a lexicon exported before the trigram existed
        counts = arrays["char_counts"].astype(np.float64)
        if len(counts) != len(lexicon) or counts.sum() <= 0:
            raise ValueError("lexicon.npz: char_counts does not match the word list")
        return cls(NGram(arrays, counts / counts.sum()), lexicon)

    def history(self, context: str) -> tuple[int, int]:
        """The ids (`char_id`) of the two characters before the cursor; the document
        start counts as the start symbol."""
        start = self._size + 1
        ids = [start, start] + [char_id(c, self._index) for c in context[-2:]]
        return ids[-2], ids[-1]

    def component(self, context: str) -> Component:
        chars = self.ngram.distribution(self.history(context))
        dense = chars[self._first] * self._cond
        return Component(NGRAM, dense / (dense.sum() or 1.0), {})


class ChineseTables(WordTables):
    def __init__(
        self,
        lexicon: Lexicon,
        after: AfterChar | None = None,
        chars: CharTrigram | None = None,
        system: SystemLM | None = None,
    ):
        self.lexicon = lexicon
        self.after = after or AfterChar({})
        self.chars = chars
        self.system = system
        # For each entry, the range of entries it begins ("中" begins "中国",
        # "中国人"): sorted words make each a contiguous [lo, hi).
        ranges = [lexicon.prefix_range(w) for w in lexicon.words]
        self._begins_lo = np.array([lo for lo, _ in ranges])
        self._begins_hi = np.array([hi for _, hi in ranges])
        self._lengths = np.array([len(w) for w in lexicon.words])

    def document(self) -> ChineseDocument:
        return ChineseDocument(self.lexicon)

    def opening(self, mixed: np.ndarray, context: str, doc: Document) -> None:
        """Nothing to remove: Chinese text has no headings in capitals or URL starts."""

    def ngram_component(
        self, context: str, doc: Document | None = None, *, standardise: bool = False
    ) -> Component | None:
        return None if self.chars is None else self.chars.component(context)

    def system_component(self, neural: np.ndarray, context: str) -> Component | None:
        if self.system is None:
            return None
        return Component(SYSTEM, self.system.reorder(neural, self.lexicon.words, context), {})

    def start_candidates(self, dense: np.ndarray, n: int, context: str) -> list[Candidate]:
        """One continuation for each of the `n` likeliest next characters.

        A continuation is offered when the text goes on with it, so its probability is
        that of every word it begins: P("中国") counts "中国人民" too. The `n` likeliest
        characters are chosen by that probability. For each, the continuation shown is
        the one with the most characters to save (LENGTH_BONUS): a long word when it is
        likely after this context (`AfterChar`), the character alone when not. Distinct
        first characters make the short list cover more of what may come next. The
        list is ordered by the shown continuations' own probabilities, the figures the
        user sees (ordering by the characters' kept next-character top-3 0.5 points
        higher on People's Daily dev, but printed 9.2% above 9.8%).
        """
        sums = np.concatenate([[0.0], np.cumsum(dense)])
        mass = sums[self._begins_hi] - sums[self._begins_lo]
        singles = np.flatnonzero(self._lengths == 1)
        top = singles[np.argsort(-mass[singles], kind="stable")[:n]]
        total = float(mass[singles].sum()) or 1.0
        before = context[-1:]
        out = []
        for i in top:
            if mass[i] <= 0:
                break
            lo, hi = int(self._begins_lo[i]), int(self._begins_hi[i])
            words_mass = self._after_context(dense, mass[i], before, lo, hi)
            if words_mass is None:
                words_mass = mass[lo:hi]
            score = words_mass * (self._lengths[lo:hi] - 1 + LENGTH_BONUS)
            best = int(np.argmax(score))
            out.append(Candidate(self.lexicon.words[lo + best], float(words_mass[best]) / total))
        return sorted(out, key=lambda c: -c.prob)

    def _after_context(
        self, dense: np.ndarray, char_mass: float, before: str, lo: int, hi: int
    ) -> np.ndarray | None:
        """P(each entry [lo, hi) begins the text) with the words' shares sharpened by what
        followed `before` in the corpus: (seen + prior x share) / (seen in all + prior)."""
        seen = self.after.counts(before, lo, hi) if before else None
        if seen is None:
            return None
        own = dense[lo:hi]
        share = own / (float(own.sum()) or 1.0)
        entry = char_mass * (seen + AFTER_CHAR_PRIOR * share) / (seen.sum() + AFTER_CHAR_PRIOR)
        # Each entry's probability counts the entries it begins, as `mass` does.
        sums = np.concatenate([[0.0], np.cumsum(entry)])
        return sums[self._begins_hi[lo:hi] - lo] - sums[self._begins_lo[lo:hi] - lo]
