"""Corrections: the word the user meant when the typed prefix holds a mistake.

A noisy channel, as a phone keyboard decides it:

    score(word) = P(word | context) * P(typed prefix | the word's prefix)

The first factor is the boundary's mixed distribution, already computed; the second
is the error model below. A typed prefix is compared with the prefixes of known
words up to two edits away: a neighbouring key or another vowel struck ("definately"),
two letters swapped ("recie" for "recei-ve", "teh"), a letter left out or one of a
double ("adress"), a letter struck twice or an extra key, and, rarer, any other
letter for one ("sould") or a stray letter ("slibling"). Each kind of edit has its own
rate per opportunity, fitted on real misspellings (codespell's dictionary, the
entries CORPORA.md allows: training/typo_fit.py writes models/typos.json). Two edits
in one word weigh the product of their rates times a factor fitted on the same pairs
(13% of them are two edits from their correction, against 83% one), and are searched
where the typed prefix starts no known word (elsewhere one edit explains the typing
at least as well, and two reach most of the lexicon).

Candidates come from a deletion index (SymSpell's symmetric deletes, Garbe 2012): every
prefix of up to INDEXED letters of the words corrections may offer, filed under what
is left of it once one or two of its letters are deleted. The typed prefix's own
deletes looked up there give every known prefix within two edits, in one vectorised
search; the error model then scores each (`ErrorModel.weight`). Longer prefixes are
looked up by their first INDEXED letters and the words found extended (SymSpell's
prefix length). The index is built once per word list and cached on disk
(`cache_dir()`), then memory-mapped: a load reads none of it until a key is looked up.

Case is read once, here: the typed prefix is lower-cased, and the case it was typed
in (lower, Capitalised, UPPER) is put back on the words offered (`cased`). Beyond the
lexicon, the words of general English the training text lacks (`Spelling`,
models/spelling.txt from wordfreq's list, training/spelling.py) may be corrected to,
weighed by their frequency in running text: "acquiese" means acquiesce even where the
model never saw it. The lexicon's words that only code writes ("hasname": not in that
list) are never corrections: a mistyped prose word is not an identifier.

Whether to correct at all is `CorrectionGate`'s: only where the typed prefix is
unlikely as the start of a word meant here.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import heapq
import itertools
import json
import os
import re
from collections.abc import Callable, Container, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

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
# The deletion index holds prefixes of up to this many letters: 2.2M entries (18 MB on
# disk) for the 76,000 words of the bundled lists; 6 letters would be 1.4M, 8 about 3.4M.
INDEXED = 7
# Bumped when the index's file format changes: the cached files are named by it.
INDEX_VERSION = 2
CACHE_DIR_ENV = "NEXTWORD_CACHE_DIR"  # overrides the cache directory (tests, portable setups)
# Index files kept in the cache directory: the newest few word lists (a retrained model
# and the one before it), not one per build ever made.
CACHED_INDEXES = 3
# A longer prefix looked up by its first INDEXED letters is compared with at most this
# many words that start so ("interna-": international, internally, ...).
EXTENDED_WORDS = 400
# The words corrections offer: letters only (a prefix with a digit, `_` or `'` is
# not corrected), and contractions of them ("wasn't": the letters before the
# apostrophe index it).
_LETTERS = re.compile(r"[a-z]+")
_CONTRACTION = re.compile(r"[A-Za-z]+'[a-z]{1,2}")
# Words this short are prose words wherever the lexicon has them: the general-English
# list starts at four letters (training/spelling.py).
SHORT_WORD = 3


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
ALPHABET = "abcdefghijklmnopqrstuvwxyz"


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

    def weight(self, typed: str, intended: str, *, two: bool = False) -> float:
        """P(typed | intended) for a typed prefix and an intended one (lower case), by
        the likeliest explanation of one edit, or with `two` of two; 0 where none.

        The typed prefix may end before the intended one goes on: an intended prefix
        that starts with it is a completion, not a mistake (0), and one that is the
        typed text with its next letter is that letter not typed yet.
        """
        if not self.rates or intended.startswith(typed):
            return 0.0
        kind = classify(typed, intended)
        if kind is not None:
            return self.rates[kind]
        if not two or not self.pair_factor:
            return 0.0
        return max(
            (
                self.rates[a] * self.rates[b] * self.pair_factor
                for a, b in pair_kinds(typed, intended)
            ),
            default=0.0,
        )


def edits(typed: str) -> Iterator[tuple[str, str]]:
    """(intended prefix, kind) for every one-edit explanation of `typed` the model knows
    (the tools' search: training/spelling.py; the engine looks them up in the index).

    The last typed letter may be the start of a longer intended word, so an edit
    there is read as a prefix: "recie" is explained by "recei" (a swap).
    """
    n = len(typed)
    low = typed.lower()
    for i in range(n - 1):
        if low[i] != low[i + 1]:
            yield typed[:i] + typed[i + 1] + typed[i] + typed[i + 2 :], "transpose"
    for i in range(n):
        for d in ALPHABET:
            if d != low[i]:
                intended = typed[:i] + _case_like(d, typed[i]) + typed[i + 1 :]
                yield intended, _substitution(d, low[i])
    for i in range(n):
        # A letter the typist left out, before typed[i]: one of a double, or any. (After
        # the last typed letter it is only the next letter, not yet typed.)
        before = low[i - 1] if i else ""
        if i:
            yield typed[:i] + typed[i - 1] + typed[i:], "omit_double"
        for d in ALPHABET:
            if d != before:
                yield typed[:i] + _case_like(d, typed[i]) + typed[i:], "omit"
    for i in range(n):
        yield typed[:i] + typed[i + 1 :], _insertion(low, i)


def _case_like(letter: str, model: str) -> str:
    return letter.upper() if model.isupper() else letter


def _substitution(intended: str, typed: str) -> str:
    """The kind of striking `typed` for the letter `intended`."""
    if typed in NEIGHBOURS.get(intended, ""):
        return "substitute_adjacent"
    if intended in VOWELS and typed in VOWELS:
        return "substitute_vowel"
    return "substitute_other"


def _insertion(typed: str, i: int) -> str:
    """The kind of the extra letter typed[i] (lower case): a repeat, or a key beside the
    one before or after it, or another."""
    c = typed[i]
    if (i > 0 and typed[i - 1] == c) or (i + 1 < len(typed) and typed[i + 1] == c):
        return "insert_double"
    near = (i > 0 and c in NEIGHBOURS.get(typed[i - 1], "")) or (
        i + 1 < len(typed) and c in NEIGHBOURS.get(typed[i + 1], "")
    )
    return "insert_adjacent" if near else "insert_other"


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
            return _substitution(w[diff[0]], t[diff[0]])
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
                return _insertion(t, i)
        return None
    return None


def pair_kinds(typed: str, intended: str) -> list[tuple[str, str]]:
    """(first kind, second kind) of each explanation of `typed` by two edits of
    `intended` (lower case) after its first letter (a swap is also two substitutions:
    `ErrorModel.weight` reads one edit first).

    The first letter stays: it is wrong in 2.6% of codespell's two-edit misspellings,
    and two edits with it free reach far more words. An alignment can always make its
    first edit where the texts first differ, so each edit possible there is undone
    and the rest read as one edit (`classify`); an intended prefix that starts with
    the text left after the first is a completion of a one-edit explanation.
    """
    if abs(len(typed) - len(intended)) > 2:
        return []
    p = next((i for i, (a, b) in enumerate(zip(typed, intended, strict=False)) if a != b), None)
    if p is None:
        p = min(len(typed), len(intended))
    if p == 0:
        return []
    # (the text with the first edit undone, its kind)
    undone = []
    if p < len(typed) and p < len(intended):
        undone.append(
            (typed[:p] + intended[p] + typed[p + 1 :], _substitution(intended[p], typed[p]))
        )
        swapped = p + 1 < min(len(typed), len(intended))
        if swapped and typed[p] == intended[p + 1] and typed[p + 1] == intended[p]:
            undone.append((typed[:p] + typed[p + 1] + typed[p] + typed[p + 2 :], "transpose"))
    if p < len(typed):
        undone.append((typed[:p] + typed[p + 1 :], _insertion(typed, p)))
    if p < len(intended):
        middle = typed[:p] + intended[p] + typed[p:]
        doubled = middle[p - 1] == middle[p] or (p + 1 < len(middle) and middle[p + 1] == middle[p])
        undone.append((middle, "omit_double" if doubled else "omit"))
    out = []
    for middle, first in undone:
        if intended.startswith(middle):
            continue  # one edit and a completion
        second = classify(middle, intended)
        if second is not None:
            out.append((first, second))
    return out


# -- the deletion index -----------------------------------------------------------------


def pack(text: str) -> int:
    """Letters a-z as the digits 1-26 of a number in base 32: up to INDEXED of them fit
    35 bits, and no two texts (of any length) share a number."""
    value = 0
    for c in text:
        value = value * 32 + ord(c) - 96
    return value


def deletes(text: str, most: int) -> set[tuple[str, int]]:
    """(what is left, how many deleted) for every deletion of up to `most` letters."""
    out = {(text, 0)}
    for n in range(1, min(most, len(text)) + 1):
        for drop in itertools.combinations(range(len(text)), n):
            out.add(("".join(c for i, c in enumerate(text) if i not in drop), n))
    return out


class DeletionIndex:
    """Word prefixes of up to INDEXED letters, filed under their deletes of up to two
    letters: `keys` (sorted) hashes what is left and says how many letters went, `ids`
    names the prefix, a row of `letters` (its character codes, 0 after its end).

    What is left is hashed to 30 bits (`filed`): two texts may share a key, which only
    adds a candidate the edit distance then turns away, and the keys take 4 bytes,
    not 8 (18 MB in all for the bundled lists, not 27).
    """

    def __init__(self, keys: np.ndarray, ids: np.ndarray, letters: np.ndarray):
        # Plain arrays over the mapped files: numpy's memmap type costs per access.
        self.keys, self.ids, self.letters = np.asarray(keys), np.asarray(ids), np.asarray(letters)
        self.lengths = np.count_nonzero(self.letters, axis=1)

    @classmethod
    def build(cls, words: Sequence[str]) -> DeletionIndex:
        """The index of the prefixes of `words` (lower-case letters a-z), in numpy: a
        second for the bundled lists."""
        prefixes = sorted({w[:n] for w in words for n in range(1, min(len(w), INDEXED) + 1)})
        letters, lengths = written(prefixes, INDEXED)
        digits = np.where(letters > 0, letters - 96, 0).astype(np.uint64)
        keys, ids = [], []
        for n in range(1, INDEXED + 1):
            members = np.flatnonzero(lengths == n).astype(np.uint32)
            for gone in range(min(2, n - 1) + 1):
                for drop in itertools.combinations(range(n), gone):
                    left = np.zeros(len(members), dtype=np.uint64)
                    for i in range(n):
                        if i not in drop:
                            left = left * np.uint64(32) + digits[members, i]
                    keys.append(filed(left, gone))
                    ids.append(members)
        key, pid = np.concatenate(keys), np.concatenate(ids)
        order = np.lexsort((pid, key))
        key, pid = key[order], pid[order]
        # "aab" less either "a" is one entry.
        keep = np.ones(len(key), dtype=bool)
        keep[1:] = (key[1:] != key[:-1]) | (pid[1:] != pid[:-1])
        return cls(key[keep], pid[keep], letters)

    @classmethod
    def cached(cls, words: Sequence[str], directory: Path | None) -> DeletionIndex:
        """The index of `words`, read from `directory` (memory-mapped) where it was built
        before, else built and written there for the next load; built in memory alone
        where there is no directory or it cannot be written."""
        if directory is None:
            return cls.build(words)
        digest = hashlib.sha256(
            f"{INDEX_VERSION} {INDEXED}\n".encode() + "\n".join(words).encode()
        ).hexdigest()[:16]
        paths = [directory / f"deletes-{digest}.{part}.npy" for part in ("keys", "ids", "letters")]
        try:
            return cls(*(np.load(path, mmap_mode="r") for path in paths))
        except (OSError, ValueError):
            pass
        index = cls.build(words)
        try:
            directory.mkdir(parents=True, exist_ok=True)
            for path, array in zip(paths, (index.keys, index.ids, index.letters), strict=True):
                part = path.with_suffix(f".{os.getpid()}.tmp")
                with part.open("wb") as out:
                    np.save(out, array)
                os.replace(part, path)
            _prune(directory)
        except OSError:
            pass  # a read-only cache: this load keeps its index in memory
        return index

    def near(self, typed: str, most: int) -> np.ndarray:
        """The ids of the indexed prefixes that share a delete of up to `most` letters
        with `typed`'s first INDEXED letters (lower case a-z): every prefix within `most`
        edits of them, and many further (`distances` tells)."""
        head = typed[:INDEXED]
        left = np.array([pack(s) for s in {s for s, _ in deletes(head, most)}], dtype=np.uint64)
        queries = filed(left, 0)
        lo = np.searchsorted(self.keys, queries)
        hi = np.searchsorted(self.keys, queries + np.uint32(most + 1))
        found = [self.ids[a:b] for a, b in zip(lo.tolist(), hi.tolist(), strict=True) if b > a]
        return np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.uint32)

    def prefix(self, i: int) -> str:
        return self.letters[i].tobytes().rstrip(b"\0").decode("ascii")


# Fibonacci hashing: the packed text times 2^64 / phi, its top 30 bits.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def filed(left: np.ndarray, gone: int) -> np.ndarray:
    """The index's keys for packed texts (uint64) with `gone` letters deleted: the text
    hashed to 30 bits, then the count in the last two, so that one text's entries lie
    together, fewest deletes first."""
    with np.errstate(over="ignore"):
        hashed = (left * _GOLDEN) >> np.uint64(34)
    return (hashed.astype(np.uint32) << np.uint32(2)) | np.uint32(gone)


def written(texts: Sequence[str], width: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Texts (lower-case a-z) as rows of character codes, 0 after each one's end (`width`
    columns, or as many as the longest has), and their lengths."""
    width = width or max(len(t) for t in texts)
    raw = "".join(t.ljust(width, "\0") for t in texts).encode("ascii")
    letters = np.frombuffer(raw, dtype=np.uint8).reshape(len(texts), width)
    return letters, np.array([len(t) for t in texts])


def distances(typed: str, letters: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """(len(typed) + 1, N): the edit distance (restricted Damerau-Levenshtein: a swap of
    two neighbours is one edit) between each prefix of `typed` and each text (as
    `written` gives them), all texts at once, one row of the table per typed letter."""
    n, (count, width) = len(typed), letters.shape
    cols = np.arange(width + 1, dtype=np.int16)
    prev = np.broadcast_to(cols, (count, width + 1)).copy()
    before = prev
    ends = np.arange(count)
    out = [prev[ends, lengths]]
    codes = np.frombuffer(typed.encode("ascii"), dtype=np.uint8)
    for i in range(1, n + 1):
        cost = (letters != codes[i - 1]).astype(np.int16)
        row = np.empty_like(prev)
        row[:, 0] = i
        row[:, 1:] = np.minimum(prev[:, 1:] + 1, prev[:, :-1] + cost)
        if i > 1 and width > 1:
            swap = (letters[:, :-1] == codes[i - 1]) & (letters[:, 1:] == codes[i - 2])
            row[:, 2:] = np.where(swap, np.minimum(row[:, 2:], before[:, :-2] + 1), row[:, 2:])
        # A letter written in the text but not typed, left to right: a running minimum.
        row = np.minimum.accumulate(row - cols, axis=1) + cols
        before, prev = prev, row
        out.append(row[ends, lengths])
    return np.stack(out)


def _prune(directory: Path) -> None:
    """Keep the CACHED_INDEXES newest indexes in `directory`."""
    builds: dict[str, float] = {}
    for path in directory.glob("deletes-*.keys.npy"):
        builds[path.name.split(".")[0]] = path.stat().st_mtime
    for name in sorted(builds, key=builds.__getitem__)[:-CACHED_INDEXES]:
        for path in directory.glob(f"{name}.*"):
            path.unlink(missing_ok=True)


def cache_dir() -> Path:
    """Where the deletion index is cached (platformdirs), or $NEXTWORD_CACHE_DIR."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override) / "corrections"
    import platformdirs

    return Path(platformdirs.user_cache_dir("nextword", appauthor=False)) / "corrections"


# -- the words offered ------------------------------------------------------------------


@dataclass(frozen=True)
class Spelling:
    """Words a correction may offer beyond the lexicon, sorted, each with its frequency
    per word of running English text; `shared`: the list's words the lexicon holds
    too (lower case), which tell the lexicon's prose words from its identifiers."""

    words: list[str] = field(default_factory=list)
    freqs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    shared: frozenset[str] = frozenset()

    @classmethod
    def read(cls, path: Path, known: Container[str]) -> Spelling:
        """The list in `path` less the words in `known` (the lexicon's: the model ranks
        those in context), in lower case or capitalised; empty where the file is
        missing or unreadable."""
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return cls()
        words, freqs, shared = [], [], set()
        for line in lines:
            word, _, freq = line.partition("\t")
            try:
                value = float(freq)
            except ValueError:
                continue
            # A word the lexicon holds capitalised is a name ("london"): the model
            # ranks it in context, as it is written.
            if word in known or word.capitalize() in known:
                shared.add(word)
            elif word:
                words.append(word)
                freqs.append(value)
        order = sorted(range(len(words)), key=words.__getitem__)
        return cls(
            [words[i] for i in order], np.array([freqs[i] for i in order]), frozenset(shared)
        )

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


def typed_case(typed: str) -> str | None:
    """How a prefix was typed: "lower", "capital" (Capitalised), "upper" (two letters or
    more, all capitals); None for mixed case (an identifier: iPhone, McD), never
    corrected."""
    if typed.islower():
        return "lower"
    if len(typed) > 1 and typed.isupper():
        return "upper"
    if typed[:1].isupper() and (len(typed) == 1 or typed[1:].islower()):
        return "capital"
    return None


def cased(word: str, case: str) -> str:
    """`word` in the case a prefix was typed in: UPPER, Capitalised (its own capitals
    kept: "McDonald"), or as the word list writes it (a name keeps its capital)."""
    if case == "upper":
        return word.upper()
    if case == "capital":
        return word.capitalize() if word.isupper() else word[:1].upper() + word[1:]
    return word


# The least P(mistake | typed, context) at which corrections are offered, where a model
# directory has no fitted corrections.json (training/correction_fit.py).
DEFAULT_GATE = 0.5
# The thresholds `nextword eval --typos` sets beside the fitted one where the fit names
# none: far more corrections offered, and only the surest.
COMPARED = (0.002, 0.9)


@dataclass(frozen=True)
class CorrectionGate:
    """Whether to correct a typed prefix at all: only where it is unlikely as the start
    of a word meant here. Of the three ways to have typed it, a known word that starts
    so (A: their probability in context), a word no list knows (N: `unknown`, a floor
    for A: a name, a term, an identifier typed right) or a mistake in another's prefix
    (B: the error mass of `Corrector.corrections`), the mistake must have at least
    `threshold` of the probability: B / (A + N + B) >= threshold. Without N a prefix
    that starts no known word (A = 0) is always corrected, however far-fetched the
    correction. Both fitted on dev text, clean typing against misspellings in the same
    contexts (training/correction_fit.py, corrections.json)."""

    threshold: float = DEFAULT_GATE
    unknown: float = 0.0

    @classmethod
    def read(cls, path: Path) -> CorrectionGate:
        """The fitted gate of a model directory; the default where it has none."""
        try:
            fit = json.loads(path.read_text(encoding="utf-8"))
            return cls(float(fit["threshold"]), float(fit.get("unknown", 0.0)))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return cls()

    def share(self, typed_mass: float, error_mass: float) -> float:
        """The mistake's share B / (A + N + B), 0 where there is no error mass."""
        total = typed_mass + self.unknown + error_mass
        return error_mass / total if error_mass > 0 else 0.0

    def opens(self, typed_mass: float, error_mass: float) -> bool:
        return error_mass > 0 and error_mass >= self.threshold * (
            typed_mass + self.unknown + error_mass
        )


def compared_thresholds(path: Path) -> tuple[float, ...]:
    """The gate thresholds a fit names for comparison with its own (corrections.json's
    `compare`: the trade-off `nextword eval --typos` reports); COMPARED without one."""
    try:
        return tuple(float(t) for t in json.loads(path.read_text(encoding="utf-8"))["compare"])
    except (OSError, ValueError, KeyError, TypeError):
        return COMPARED


class Found(NamedTuple):
    """What `Corrector.corrections` found: the words offered (none where the gate stays
    shut), the error mass B, and the typed prefix's A, as the gate weighed them."""

    words: dict[str, float]
    mass: float
    typed: float


class Intended(NamedTuple):
    """A known prefix a typed one may stand for, and P(typed | it)."""

    prefix: str
    rate: float


class Corrector:
    """Words up to two edits from a typed prefix, with their channel weight.

    Args:
        words: the lexicon's words, sorted (as `Lexicon.words`).
        model: the error model.
        spelling: the words of general English beyond the lexicon.
        index_dir: where the deletion index is cached (None: built in memory).
    """

    def __init__(
        self,
        words: Sequence[str],
        model: ErrorModel,
        spelling: Spelling | None = None,
        *,
        index_dir: Path | None = None,
    ):
        self.model = model
        self.spelling = spelling or Spelling()
        self._spelling_mass = float(self.spelling.freqs.sum())
        self._words = words
        shared = self.spelling.shared
        # The lexicon's prose words: in the general-English list, short, or a
        # contraction; the rest (identifiers: "hasname", "endswith") are never offered.
        # Without the list to tell, every word of letters is.
        self.prose = np.array(
            [
                (w.lower() in shared if shared else w.isalpha())
                or (len(w) <= SHORT_WORD and w.isalpha())
                or ("'" in w and _CONTRACTION.fullmatch(w) is not None)
                for w in words
            ],
            dtype=bool,
        )
        # What the index holds: the prose words' letters (up to an apostrophe), lower
        # case, and the list's.
        heads = {_letters(w.lower()) for w, prose in zip(words, self.prose, strict=True) if prose}
        heads.discard("")
        self._indexed = sorted(heads.union(self.spelling.words))
        self._index = DeletionIndex.cached(self._indexed, index_dir)
        # The popup, the decision and the evaluator ask about the same typed text again.
        self.intended = functools.lru_cache(maxsize=1024)(self._intended)

    def starts_word(self, prefix: str) -> bool:
        """Whether some word corrections may offer starts with `prefix` (lower case)."""
        i = bisect.bisect_left(self._indexed, prefix)
        return i < len(self._indexed) and self._indexed[i].startswith(prefix)

    def _intended(self, typed: str) -> tuple[Intended, ...]:
        """The known prefixes one edit from `typed` (lower case), and two where `typed`
        starts no known word, each with P(typed | prefix), likeliest first."""
        n = len(typed)
        if not self.model.rates or n < MIN_TYPED or not _LETTERS.fullmatch(typed):
            return ()
        two = bool(self.model.pair_factor) and n >= TWO_EDITS_MIN_TYPED
        two = two and not self.starts_word(typed)
        most = 2 if two else 1
        index = self._index
        ids = index.near(typed, most)
        if not len(ids):
            return ()
        letters, lengths = index.letters[ids], index.lengths[ids]
        table = distances(typed, letters, lengths)
        found = self._within(typed, table[n], letters, lengths, most)
        candidates = [index.prefix(i) for i in ids[found]]
        if n + most > INDEXED:
            # The typed prefix goes on past the index's letters: the words whose first
            # INDEXED letters are within reach of what was typed, read further.
            rows = table[max(0, INDEXED - most) : min(n, INDEXED + most) + 1]
            heads = (lengths == INDEXED) & (rows.min(axis=0) <= most)
            longer = self._extended([index.prefix(i) for i in ids[heads]], n, most)
            if longer:
                letters, lengths = written(longer)
                table = distances(typed, letters, lengths)
                found = self._within(typed, table[n], letters, lengths, most)
                candidates += [longer[i] for i in np.flatnonzero(found)]
        out: dict[str, float] = {}
        for prefix in candidates:
            rate = self.model.weight(typed, prefix, two=two)
            if rate > 0:
                out[prefix] = rate
        return tuple(Intended(p, r) for p, r in sorted(out.items(), key=lambda item: -item[1]))

    @staticmethod
    def _within(
        typed: str, distance: np.ndarray, letters: np.ndarray, lengths: np.ndarray, most: int
    ) -> np.ndarray:
        """Which texts are within `most` edits of `typed` as the error model reads them:
        one edit anywhere, a second only after the first letter (`pair_kinds`)."""
        ok = (distance >= 1) & (distance <= most) & (np.abs(lengths - len(typed)) <= most)
        return ok & ((distance <= 1) | (letters[:, 0] == ord(typed[0])))

    def _extended(self, heads: list[str], n: int, most: int) -> list[str]:
        """The prefixes of INDEXED + 1 letters or more, within `most` letters of `n`, of
        the words that start with one of `heads` (each of INDEXED letters)."""
        words, out = self._indexed, set()
        for head in heads:
            lo = bisect.bisect_left(words, head)
            hi = bisect.bisect_left(words, head + "{", lo)  # "{" follows "z"
            for word in words[lo : min(hi, lo + EXTENDED_WORDS)]:
                for m in range(max(INDEXED + 1, n - most), min(len(word), n + most) + 1):
                    out.add(word[:m])
        return sorted(out)

    def corrections(
        self,
        typed: str,
        dense: np.ndarray,
        n: int,
        *,
        typed_word: float,
        typed_mass: float,
        gate: CorrectionGate,
    ) -> Found:
        """The words `typed` may misspell, each weighed P(word | context) * P(typed |
        word), the best `n` in the case it was typed in, where `gate` opens for them;
        and the error mass: that weight summed over every word each explanation
        starts (what the gate and the normalisation read).

        `dense` is P(word | context) over the lexicon, `typed_mass` the probability of
        the words that start with `typed` (A; in a capital typed, those the lexicon
        holds in lower case too). Words beyond the lexicon (`Spelling`)
        have no probability in context: their frequency in running text stands in for
        it, so they win only where no word the model knows explains the typing as well.
        A correction must outweigh `typed_word`, the typed text read as a word of its
        own: a rare word typed right is not corrected into a common one.
        """
        if typed != typed.lower():
            # "Auti" opening a sentence starts "autism" as much as any capitalised word.
            lo, hi = self._range(typed.lower())
            typed_mass += float(dense[lo:hi].sum())
        if not gate.opens(typed_mass, self._error_bound(len(typed))):
            # A likely prefix: no mistake could outweigh it.
            return Found({}, 0.0, typed_mass)
        words, mass = self._corrections(typed, dense, n, typed_word)
        return Found(words if gate.opens(typed_mass, mass) else {}, mass, typed_mass)

    def _error_bound(self, n: int) -> float:
        """The most error mass a typed prefix of `n` letters can have: each explanation
        weighs at most the likeliest edit's rate, and the prefixes of one length share
        at most all the lexicon's probability (and all the spelling list's frequency)."""
        if not self.model.rates or n < MIN_TYPED:
            return 0.0
        most = 2 if self.model.pair_factor and n >= TWO_EDITS_MIN_TYPED else 1
        spelled = self._spelling_mass if n >= SPELLING_MIN_TYPED else 0.0
        return (2 * most + 1) * max(self.model.rates.values()) * (1.0 + spelled)

    def _corrections(
        self, typed: str, dense: np.ndarray, n: int, typed_word: float
    ) -> tuple[dict[str, float], float]:
        case = typed_case(typed)
        if case is None:
            return {}, 0.0
        low = typed.lower()
        spelling = self.spelling
        typed_word = max(typed_word, spelling.frequency(low))
        # (best weight, rate, the words' weights, each word by its place) per explanation
        # and list; the mass sums them all, the words are read best first.
        found: list[tuple[float, float, np.ndarray, Callable[[int], str]]] = []
        mass = 0.0
        for prefix, rate in self.intended(low):
            # The prefix in each case the lexicon may hold it in: "the", "The" (a
            # sentence start, a name), "THE" where it was typed so.
            forms = {prefix, prefix.capitalize()} | ({prefix.upper()} if case == "upper" else set())
            spans = [self._range(form) for form in forms]
            if any(hi > lo for lo, hi in spans):
                rows = np.concatenate([np.arange(lo, hi) for lo, hi in spans])
                probs = dense[rows] * self.prose[rows]
                total = float(probs.sum())
                if total > 0:
                    mass += rate * total
                    at = functools.partial(self._offered, rows, case)
                    found.append((rate * float(probs.max()), rate, probs, at))
            if len(typed) >= SPELLING_MIN_TYPED:
                lo, hi = spelling.prefix_range(prefix)
                if hi > lo:
                    freqs = spelling.freqs[lo:hi]
                    mass += rate * float(freqs.sum())
                    at = functools.partial(_spelled, spelling.words, lo, case)
                    found.append((rate * float(freqs.max()), rate, freqs, at))
        out: dict[str, float] = {}
        floor = typed_word
        for best, rate, weights, word_at in sorted(found, key=lambda f: -f[0]):
            if best <= floor:
                break  # no word of this explanation, nor of the rest, makes the `n` best
            # A word in the lexicon in several cases is offered once, in the case typed,
            # with all their weight; of two explanations, the likelier one counts.
            offered: dict[str, float] = {}
            for i in _top(weights, n):
                word = word_at(i)
                offered[word] = offered.get(word, 0.0) + rate * float(weights[i])
            for word, weight in offered.items():
                if weight > out.get(word, 0.0) and not word.startswith(typed):
                    out[word] = weight
            if len(out) >= n:
                floor = max(floor, heapq.nlargest(n, out.values())[-1])
        return {w: p for w, p in out.items() if p > typed_word}, mass

    def _range(self, prefix: str) -> tuple[int, int]:
        """[lo, hi) of the lexicon's words that start with `prefix` (case-sensitive)."""
        lo = bisect.bisect_left(self._words, prefix)
        return lo, bisect.bisect_left(self._words, prefix + "\U0010ffff", lo)

    def _offered(self, rows: np.ndarray, case: str, i: int) -> str:
        return self._lexicon_word(int(rows[i]), case)

    def _lexicon_word(self, row: int, case: str) -> str:
        """The lexicon's word `row` as offered for a prefix typed in `case`. Typed in lower
        case, a word the lexicon holds in lower case too is offered so ("The" is "the"
        in a sentence); a name keeps its capital."""
        word = self._words[row]
        if case == "lower" and not word.islower():
            low = word.lower()
            i = bisect.bisect_left(self._words, low)
            if i < len(self._words) and self._words[i] == low:
                word = low
        return cased(word, case)


def _spelled(words: list[str], lo: int, case: str, i: int) -> str:
    return cased(words[lo + i], case)


def _letters(word: str) -> str:
    """A word's letters up to its first other character ("wasn't": "wasn")."""
    match = _LETTERS.match(word)
    return match.group() if match else ""


def _top(weights: np.ndarray, n: int) -> Iterator[int]:
    """The indices of the `n` largest positive `weights`."""
    top = np.argpartition(-weights, n)[:n] if len(weights) > n else range(len(weights))
    for i in top:
        if weights[i] > 0:
            yield int(i)


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
