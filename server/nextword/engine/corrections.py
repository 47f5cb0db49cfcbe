"""Corrections: the word the user meant when the typed prefix holds a mistake.

A noisy channel, as a phone keyboard decides it:

    score(word) = P(word | context) * P(typed prefix | the word's prefix)

The first factor is the boundary's mixed distribution, already computed; the second
is the error model below. A typed prefix is compared with the prefixes of known
words one edit away: a neighbouring key or another vowel struck ("definately"), two
letters swapped ("recie" for "recei-ve", "teh"), a letter left out or one of a double
("adress"), a letter struck twice or an extra key, and, rarer, any other letter for
one ("sould") or a stray letter ("slibling"). Each kind of edit has its own
rate per opportunity, fitted on real misspellings (codespell's dictionary, the
entries CORPORA.md allows: training/typo_fit.py writes models/typos.json). Where the
typed prefix starts no known word at all, two edits are searched too ("recorev":
recover), each pair at the product of its rates times a factor fitted on the same
pairs (13% of them are two edits from their correction, against 83% one).

Candidates come from edits of the typed prefix checked against the sorted lexicon
(a bisection each, no scan), so a keystroke costs well under a millisecond; the
two-edit search walks the sorted list as a trie, 3-5 ms, and only at a prefix that
is certainly wrong. Beyond the lexicon, the words of general English the training
text lacks (`Spelling`, models/spelling.txt from wordfreq's list, training/spelling.py)
may be corrected to, weighed by their frequency in running text: "acquiese" means
acquiesce even where the model never saw it.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import json
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# QWERTY rows, each offset by its stagger; keys are neighbours when they touch.
ROWS = (("qwertyuiop", 0.0), ("asdfghjkl", 0.25), ("zxcvbnm", 0.75))
VOWELS = "aeiouy"
# The kinds of edit, named by what the typist did to the intended letters: first the
# slips of a keyboard...
SLIPS = (
    "transpose",  # two neighbouring letters swapped: teh
    "substitute_adjacent",  # a neighbouring key struck instead: thw
    "substitute_vowel",  # another vowel written: definately
    "omit_double",  # one letter of a double left out: adress
    "omit",  # a letter left out: goverment
    "insert_double",  # a letter struck twice: untill
    "insert_adjacent",  # an extra neighbouring key struck: thew
)
# ...then the rarer mistakes that fit none of them (a letter misremembered, a stray
# key): 7,500 of codespell's allowed pairs, at a fifth to a half of the rate per
# chance of the nearest slip. A word this far from a far commoner one is still taken
# for a word of its own (training/spelling.py: only slips make it a misspelling).
KINDS = (
    *SLIPS,
    "substitute_other",  # another letter, neither beside the key nor a vowel: sould
    "insert_other",  # an extra letter, neither a repeat nor beside a neighbour: slibling
)
# Prefixes shorter than this are not corrected: two letters are too little to
# tell a mistake from the start of another word.
MIN_TYPED = 3
# Nor corrected to words beyond the lexicon (`Spelling`) under this: three or four
# letters start thousands of words in each list, and the lexicon's, ranked in context,
# win there; searching both doubled the in-word p95 (0.43 -> 0.85 ms, typing.txt).
SPELLING_MIN_TYPED = 5
# Two mistakes are searched for only in a prefix this long that starts no known word
# (a certain mistake): shorter, two edits reach most of the lexicon.
TWO_EDITS_MIN_TYPED = 5


def _neighbours() -> dict[str, str]:
    where = {c: (row, col + offset) for row, (keys, offset) in enumerate(ROWS)
             for col, c in enumerate(keys)}  # fmt: skip
    out = {}
    for c, (row, x) in where.items():
        out[c] = "".join(
            d for d, (r, y) in where.items() if d != c and abs(r - row) <= 1 and abs(x - y) <= 1
        )
    return out


NEIGHBOURS = _neighbours()


@dataclass(frozen=True)
class ErrorModel:
    """P(typed | intended) for one edit of each kind, per opportunity to make it, and
    for two: rates[a] * rates[b] * pair_factor (0 where the fit did not measure it)."""

    rates: dict[str, float] = field(default_factory=dict)
    pair_factor: float = 0.0

    @classmethod
    def read(cls, path: Path) -> ErrorModel:
        """The fitted rates; an empty model (no corrections) where the file is unreadable."""
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            rates = record["rates"]
            return cls({k: float(rates[k]) for k in KINDS}, float(record.get("pair_factor", 0)))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return cls()


def _case_like(letter: str, model: str) -> str:
    return letter.upper() if model.isupper() else letter


ALPHABET = "abcdefghijklmnopqrstuvwxyz"
Edit = tuple[str, str, int]  # (intended, kind, end): see placed_edits


def edits(typed: str) -> Iterator[tuple[str, str]]:
    """(intended prefix, kind) for every one-edit explanation of `typed` the model knows.

    The last typed letter may be the start of a longer intended word, so an edit
    there is read as a prefix: "recie" is explained by "recei" (a swap).
    """
    for intended, kind, _ in placed_edits(typed):
        yield intended, kind


def placed_edits(
    typed: str,
    start: int = 0,
    stop: int | None = None,
    letters: Callable[[str], Iterable[str]] | None = None,
) -> Iterator[Edit]:
    """`edits`, each with where it ends, for edits that begin at a typed position in
    [start, stop]: `intended[:end]` is what the edit made, and `intended[end:]` is
    the typed text after it, unchanged. A letter written or restored after a head
    `h` is one of `letters(h)` (all of the alphabet by default): a search passes the
    letters that follow `h` in some word."""
    n = len(typed)
    last = n - 1 if stop is None else min(stop, n - 1)
    low = typed.lower()
    for i in range(start, min(last + 1, n - 1)):
        if low[i] != low[i + 1]:
            yield typed[:i] + typed[i + 1] + typed[i] + typed[i + 2 :], "transpose", i + 2
    for i in range(start, last + 1):
        c = low[i]
        near = NEIGHBOURS.get(c, "")
        for d in ALPHABET if letters is None else letters(typed[:i]):
            if d == c:
                continue
            if d in near:
                kind = "substitute_adjacent"
            elif c in VOWELS and d in VOWELS:
                kind = "substitute_vowel"
            else:
                kind = "substitute_other"
            yield typed[:i] + _case_like(d, typed[i]) + typed[i + 1 :], kind, i + 1
    for i in range(start, last + 1):
        # A letter the typist left out, before typed[i]: one of a double, or any. (After
        # the last typed letter it is only the next letter, not yet typed.)
        before = low[i - 1] if i else ""
        if i:
            yield typed[:i] + typed[i - 1] + typed[i:], "omit_double", i + 1
        for d in ALPHABET if letters is None else letters(typed[:i]):
            if d != before:
                yield typed[:i] + _case_like(d, typed[i]) + typed[i:], "omit", i + 1
    for i in range(start, last + 1):
        # A letter struck too many: a repeat, or a key beside the one before or after.
        c = low[i]
        if i > 0 and c == low[i - 1]:
            kind = "insert_double"
        elif (i > 0 and c in NEIGHBOURS.get(low[i - 1], "")) or (
            i + 1 < n and c in NEIGHBOURS.get(low[i + 1], "")
        ):
            kind = "insert_adjacent"
        else:
            kind = "insert_other"
        yield typed[:i] + typed[i + 1 :], kind, i


class WordList:
    """A sorted list of words, asked as a trie: does a text start a word, and which
    letters follow a head. A bisection each, no scan."""

    def __init__(self, words: list[str]):
        self.words = words

    def starts_word(self, prefix: str) -> bool:
        i = bisect.bisect_left(self.words, prefix)
        return i < len(self.words) and self.words[i].startswith(prefix)

    def next_letters(self, head: str) -> list[str]:
        """The lower-case letters that follow `head` in some word, one bisection each."""
        words, n = self.words, len(head)
        i = bisect.bisect_left(words, head)
        out = []
        while i < len(words) and words[i].startswith(head):
            word = words[i]
            if len(word) == n:
                i += 1  # the head is a word itself
                continue
            c = word[n]
            if c in ALPHABET:
                out.append(c)
            i = bisect.bisect_left(words, head + chr(ord(c) + 1), i)
        return out


def two_edits(typed: str, words: WordList) -> Iterator[tuple[str, str, str]]:
    """(intended, first kind, second kind) for explanations of `typed` by two edits
    after its first letter, the second at or after the first, whose intended text
    starts one of `words`.

    The first letter stays: it is wrong in 2.6% of codespell's two-edit misspellings,
    and edits there would be 60% of the search (any letter starts some word).
    Then a walk down the trie the sorted list is: after the first edit its head must
    start a word, the second edit can only begin where the text before it still
    starts one, and a letter is only ever written where some word has it.
    """
    letters = functools.cache(words.next_letters)  # a third of the heads come back
    for middle, first, end in placed_edits(typed, 1, letters=letters):
        if end and not words.starts_word(middle[:end]):
            continue
        reach = end  # the second edit begins at or before the longest head that starts a word
        while reach < len(middle) and words.starts_word(middle[: reach + 1]):
            reach += 1
        for intended, second, _ in placed_edits(middle, end, reach, letters):
            if words.starts_word(intended):
                yield intended, first, second


@dataclass(frozen=True)
class Spelling:
    """Words a correction may offer beyond the lexicon, sorted, each with its frequency
    per word of running English text."""

    words: list[str] = field(default_factory=list)
    freqs: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @classmethod
    def read(cls, path: Path, known: Container[str]) -> Spelling:
        """The list in `path` less the words in `known` (the lexicon's: the model ranks
        those in context), in lower case or capitalised; empty where the file is
        missing or unreadable."""
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return cls()
        words, freqs = [], []
        for line in lines:
            word, _, freq = line.partition("\t")
            try:
                value = float(freq)
            except ValueError:
                continue
            # A word the lexicon holds capitalised is a name ("london"): the model
            # ranks it in context, as it is written.
            if word and word not in known and word.capitalize() not in known:
                words.append(word)
                freqs.append(value)
        order = sorted(range(len(words)), key=words.__getitem__)
        return cls([words[i] for i in order], np.array([freqs[i] for i in order]))

    def prefix_range(self, prefix: str) -> tuple[int, int]:
        """[lo, hi) of the words starting with `prefix`."""
        lo = bisect.bisect_left(self.words, prefix)
        return lo, bisect.bisect_left(self.words, prefix + "\U0010ffff", lo)

    def completions(self, prefix: str, n: int) -> tuple[dict[str, float], float]:
        """The `n` most frequent words starting with `prefix` (a capitalised prefix
        finds lower-case words, capitalised), and the frequency of all that do."""
        capital = prefix[:1].isupper() and prefix[1:].islower()
        lo, hi = self.prefix_range(prefix.lower() if capital else prefix)
        freqs = self.freqs[lo:hi]
        top = np.argsort(-freqs, kind="stable")[:n]
        words = [self.words[lo + i] for i in top]
        if capital:
            words = [w[:1].upper() + w[1:] for w in words]
        return dict(zip(words, freqs[top].tolist(), strict=True)), float(freqs.sum())

    def frequency(self, word: str) -> float:
        i = bisect.bisect_left(self.words, word)
        return float(self.freqs[i]) if i < len(self.words) and self.words[i] == word else 0.0


class Corrector:
    """Words one or two edits from a typed prefix, with their channel weight."""

    def __init__(self, words: list[str], model: ErrorModel, spelling: Spelling | None = None):
        self.model = model
        self.spelling = spelling or Spelling()
        # Both lists (each sorted) in one, so an explanation costs one bisection.
        self._words = WordList(list(heapq.merge(words, self.spelling.words)))
        # The popup, the decision and the evaluator ask about the same typed text again.
        self.intended = functools.lru_cache(maxsize=1024)(self._intended)

    def _intended(self, typed: str) -> dict[str, float]:
        """The known prefixes one edit from `typed`, and two where `typed` starts no
        known word, each with P(typed | prefix) (the returned dict is shared by later
        calls: read it, do not change it)."""
        if not self.model.rates or len(typed) < MIN_TYPED or not typed.isalpha():
            return {}
        out: dict[str, float] = {}
        for prefix, kind in edits(typed):
            rate = self.model.rates[kind]
            if rate > out.get(prefix, 0.0) and self._words.starts_word(prefix):
                out[prefix] = rate
        if typed[0].isupper() and typed[1:].islower():
            # A capital the sentence asked for, on a word the lexicon holds in lower case.
            for prefix, kind in edits(typed.lower()):
                rate = self.model.rates[kind]
                upper = prefix[:1].upper() + prefix[1:]
                if rate > out.get(upper, 0.0) and self._words.starts_word(prefix):
                    out[prefix] = max(rate, out.get(prefix, 0.0))
        if (
            self.model.pair_factor
            and len(typed) >= TWO_EDITS_MIN_TYPED
            and not self._words.starts_word(typed)
            and not self._words.starts_word(typed.lower())
        ):
            self._add_two_edits(typed, out)
        out.pop(typed, None)
        out.pop(typed.lower(), None)
        return out

    def _add_two_edits(self, typed: str, out: dict[str, float]) -> None:
        """Two-edit explanations into `out` ("moteu" for "moto-r"), for a capitalised
        prefix in lower case (the decider capitalises the words it finds)."""
        low = typed.lower() if typed[0].isupper() and typed[1:].islower() else typed
        rates, factor = self.model.rates, self.model.pair_factor
        for prefix, first, second in two_edits(low, self._words):
            rate = rates[first] * rates[second] * factor
            if rate > out.get(prefix, 0.0):
                out[prefix] = rate


def prefix_opportunities(word: str) -> dict[str, int]:
    """How many ways each kind of edit could strike `word` (the fit's denominators)."""
    low = word.lower()
    n = len(low)
    doubles = sum(1 for i in range(n - 1) if low[i] == low[i + 1])
    near = [len(NEIGHBOURS.get(c, "")) for c in low]
    vowels = [_other_vowels(c) for c in low]
    return {
        "transpose": sum(1 for i in range(n - 1) if low[i] != low[i + 1]),
        "substitute_adjacent": sum(near),
        "substitute_vowel": sum(vowels),
        "omit_double": doubles,
        "omit": n - doubles,
        "insert_double": n,
        "insert_adjacent": sum(near),
        # Any of the 25 other letters that is neither a neighbour nor, for a vowel,
        # another vowel.
        "substitute_other": sum(25 - a - v for a, v in zip(near, vowels, strict=True)),
        "insert_other": sum(25 - a for a in near),
    }


def _other_vowels(c: str) -> int:
    """The vowels a vowel may be mistaken for that are not beside it on the keyboard."""
    if c not in VOWELS:
        return 0
    return sum(1 for d in VOWELS if d != c and d not in NEIGHBOURS.get(c, ""))


def classify(typed: str, intended: str) -> str | None:
    """The kind of the one edit that turns `intended` into `typed`; None if not one."""
    t, w = typed.lower(), intended.lower()
    if len(t) == len(w):
        diff = [i for i in range(len(t)) if t[i] != w[i]]
        if len(diff) == 2 and diff[1] == diff[0] + 1:
            i = diff[0]
            if t[i] == w[i + 1] and t[i + 1] == w[i]:
                return "transpose"
        if len(diff) == 1:
            c, d = w[diff[0]], t[diff[0]]
            if d in NEIGHBOURS.get(c, ""):
                return "substitute_adjacent"
            if c in VOWELS and d in VOWELS:
                return "substitute_vowel"
            return "substitute_other"
        return None
    if len(t) == len(w) - 1:  # a letter left out
        for i in range(len(w)):
            if w[:i] + w[i + 1 :] == t:
                doubled = (i > 0 and w[i - 1] == w[i]) or (i + 1 < len(w) and w[i + 1] == w[i])
                return "omit_double" if doubled else "omit"
        return None
    if len(t) == len(w) + 1:  # a letter too many
        for i in range(len(t)):
            if t[:i] + t[i + 1 :] == w:
                c = t[i]
                if (i > 0 and t[i - 1] == c) or (i + 1 < len(t) and t[i + 1] == c):
                    return "insert_double"
                near = (i > 0 and c in NEIGHBOURS.get(t[i - 1], "")) or (
                    i + 1 < len(t) and c in NEIGHBOURS.get(t[i + 1], "")
                )
                return "insert_adjacent" if near else "insert_other"
        return None
    return None
