"""Corrections: the word the user meant when the typed prefix holds a mistake.

A noisy channel, as a phone keyboard decides it:

    score(word) = P(word | context) * P(typed prefix | the word's prefix)

The first factor is the boundary's mixed distribution, already computed; the second
is the error model (errormodel.py), each kind of edit at its rate fitted on real
misspellings. A typed prefix is compared with the prefixes of known words up to two
edits away. Two edits are searched where the typed prefix starts no known word
(elsewhere one edit explains the typing at least as well, and two reach most of the
lexicon). Candidates come from the deletion index (deletions.py); longer prefixes are
looked up by their first INDEXED letters and the words found extended (SymSpell's
prefix length).

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
import heapq
import json
import re
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from nextword.engine.deletions import INDEXED, DeletionIndex, distances, written
from nextword.engine.errormodel import ErrorModel
from nextword.engine.words import starts_sentence

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


# -- the words offered ------------------------------------------------------------------

# spelling.txt's mark of a word of English that is most often a slip of a far commoner
# one when typed ("form", "decoded"): prose where the lexicon holds it, never offered
# beyond it (training/spelling.py).
SLIP = "slip"


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
        those in context), in lower case or capitalised, and less the words marked
        SLIP; empty where the file is missing or unreadable."""
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return cls()
        words, freqs, shared = [], [], set()
        for line in lines:
            word, _, rest = line.partition("\t")
            freq, _, mark = rest.partition("\t")
            try:
                value = float(freq)
            except ValueError:
                continue
            # A word the lexicon holds capitalised is a name ("london"): the model
            # ranks it in context, as it is written.
            if word in known or word.capitalize() in known:
                shared.add(word)
            elif word and mark != SLIP:
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


# How much more a correction weighs, in the ranking, where the typed text spells the
# whole word with its mistake ("surroud": surround) than a longer word its prefix starts
# (surrounding, surroundings): once a word is typed to its end, the mistake is what the
# user looks for. Ranking only: the gate weighs the words as they are. Chosen on the
# correction fit's misspellings (docs/CORRECTIONS.md).
WHOLE_WORD = 30.0

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
    correction. A capital typed inside a sentence is most often a name, and the names
    no list knows are many ("Hoffst", "Kasicha" in an email): there the floor is
    `name` (a prefix `reads_as_name`). All three fitted on dev text, clean typing
    against misspellings in the same contexts (training/correction_fit.py,
    corrections.json)."""

    threshold: float = DEFAULT_GATE
    unknown: float = 0.0
    name: float = 0.0

    @classmethod
    def read(cls, path: Path) -> CorrectionGate:
        """The fitted gate of a model directory; the default where it has none."""
        try:
            fit = json.loads(path.read_text(encoding="utf-8"))
            unknown = float(fit.get("unknown", 0.0))
            # A fit made before the name floor: names had the floor of every prefix.
            return cls(float(fit["threshold"]), unknown, float(fit.get("name", unknown)))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return cls()

    def floor(self, name: bool) -> float:
        """N: the unknown-word floor of a prefix that reads as a name or of another."""
        return self.name if name else self.unknown

    def share(self, typed_mass: float, error_mass: float, name: bool = False) -> float:
        """The mistake's share B / (A + N + B), 0 where there is no error mass."""
        total = typed_mass + self.floor(name) + error_mass
        return error_mass / total if error_mass > 0 else 0.0

    def opens(self, typed_mass: float, error_mass: float, name: bool = False) -> bool:
        return error_mass > 0 and error_mass >= self.threshold * (
            typed_mass + self.floor(name) + error_mass
        )


def reads_as_name(prefix: str, context: str) -> bool:
    """Whether a typed prefix reads as the start of a name: Capitalised (one capital,
    then lower case) where a sentence does not start (`CorrectionGate.name`)."""
    return typed_case(prefix) == "capital" and not starts_sentence(context)


def compared_thresholds(path: Path) -> tuple[float, ...]:
    """The gate thresholds a fit names for comparison with its own (corrections.json's
    `compare`: the trade-off `nextword eval --typos` reports); COMPARED without one."""
    try:
        return tuple(float(t) for t in json.loads(path.read_text(encoding="utf-8"))["compare"])
    except (OSError, ValueError, KeyError, TypeError):
        return COMPARED


class Found(NamedTuple):
    """What `Corrector.corrections` found: the words offered (none where the gate stays
    shut) with their weights, the error mass B, and the typed prefix's A, as the gate
    weighed them; `ranks`: what each word weighs in the ranking (`WHOLE_WORD`)."""

    words: dict[str, float]
    mass: float
    typed: float
    ranks: dict[str, float]


class Masses(NamedTuple):
    """What the gate weighs at one typed prefix: A, B, and whether it reads as a name."""

    typed: float
    mistake: float
    name: bool = False


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
        misspelled: Container[str] = frozenset(),
    ):
        self.model = model
        self.spelling = spelling or Spelling()
        self._spelling_mass = float(self.spelling.freqs.sum())
        self._words = words
        self._lengths = np.array([len(w) for w in words])
        shared = self.spelling.shared
        # The lexicon's prose words: in the general-English list, short, or a
        # contraction; the rest (identifiers: "hasname", "endswith") are never offered.
        # Without the list to tell, every word of letters is. A known misspelling
        # (`misspelled`, lower case) is none: "tommorow" typed is corrected, two edits
        # away, only where no word of the index starts with it.
        self.prose = np.array(
            [
                (
                    (w.lower() in shared if shared else w.isalpha())
                    or (len(w) <= SHORT_WORD and w.isalpha())
                    or ("'" in w and _CONTRACTION.fullmatch(w) is not None)
                )
                and w.lower() not in misspelled
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
        name: bool = False,
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
        own: a rare word typed right is not corrected into a common one. `name`: the
        prefix reads as a name (`reads_as_name`), which sets the gate's floor.
        """
        if typed != typed.lower():
            # "Auti" opening a sentence starts "autism" as much as any capitalised word.
            lo, hi = self._range(typed.lower())
            typed_mass += float(dense[lo:hi].sum())
        if not self.may_open(typed, typed_mass, gate, name):
            return Found({}, 0.0, typed_mass, {})
        words, ranks, mass = self._corrections(typed, dense, n, typed_word)
        if not gate.opens(typed_mass, mass, name):
            return Found({}, mass, typed_mass, {})
        return Found(words, mass, typed_mass, ranks)

    def written(
        self, typed: str, words: Iterable[tuple[str, float]], n: int, typed_word: float
    ) -> Found:
        """The words beyond the lexicon that the document or the user wrote ("hextab",
        a name) which `typed` misspells by one edit, each weighed P(word | context) *
        P(typed | its prefix), the best `n`; and their error mass. `words`: (word,
        P(word | context)). The gate is the caller's to weigh, with the lexicon's mass.

        A document's own words are few (tens to hundreds), so each is compared with the
        typed text directly rather than indexed; one edit only, the first letter typed
        or swapped with the second, which keeps the comparisons to a handful.
        """
        low = typed.lower()
        case = typed_case(typed)
        if case is None or not self.model.rates or len(low) < MIN_TYPED:
            return Found({}, 0.0, 0.0, {})
        if not _LETTERS.fullmatch(low):  # digits, `_`, an apostrophe: never corrected
            return Found({}, 0.0, 0.0, {})
        size = len(low)
        weights: dict[str, float] = {}
        ranks: dict[str, float] = {}
        mass = 0.0
        for word, p in words:
            letters = word.lower()
            if p <= 0 or letters[:1] not in (low[0], low[1]) or letters.startswith(low):
                continue
            if len(letters) < size - 1 or not _LETTERS.fullmatch(letters):
                continue  # one edit cannot make it the typed text
            lengths = range(max(1, size - 1), min(len(letters), size + 1) + 1)
            rate, whole = max(
                (self.model.weight(low, letters[:m]), m == len(letters)) for m in lengths
            )
            if rate <= 0:
                continue
            mass += rate * p
            if rate * p > typed_word:
                offered = cased(word, case)
                weights[offered] = rate * p
                ranks[offered] = rate * p * (WHOLE_WORD if whole else 1.0)
        best = heapq.nlargest(n, ranks, key=ranks.__getitem__)
        return Found({w: weights[w] for w in best}, mass, 0.0, {w: ranks[w] for w in best})

    def may_open(self, typed: str, typed_mass: float, gate: CorrectionGate, name: bool) -> bool:
        """Whether any mistake could outweigh `typed` (a likely prefix: none could)."""
        return gate.opens(typed_mass, self._error_bound(len(typed)), name)

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
    ) -> tuple[dict[str, float], dict[str, float], float]:
        """(weights, ranking weights, error mass) of the best `n` corrections."""
        case = typed_case(typed)
        if case is None:
            return {}, {}, 0.0
        low = typed.lower()
        spelling = self.spelling
        typed_word = max(typed_word, spelling.frequency(low))
        # (best weight, rate, the words' weights as ranked, each word by its place, the
        # explanation's length) per explanation and list; the mass sums them all (as
        # they are: the gate weighs those), the words are read best first.
        found: list[tuple[float, float, np.ndarray, Callable[[int], str], int]] = []
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
                    whole = self._lengths[rows] == len(prefix)
                    ranked = np.where(whole, probs * WHOLE_WORD, probs)
                    found.append((rate * float(ranked.max()), rate, ranked, at, len(prefix)))
            if len(typed) >= SPELLING_MIN_TYPED:
                lo, hi = spelling.prefix_range(prefix)
                if hi > lo:
                    freqs = spelling.freqs[lo:hi]
                    mass += rate * float(freqs.sum())
                    at = functools.partial(_spelled, spelling.words, lo, case)
                    if spelling.words[lo] == prefix:  # sorted: the whole word comes first
                        freqs = freqs.copy()
                        freqs[0] *= WHOLE_WORD
                    found.append((rate * float(freqs.max()), rate, freqs, at, len(prefix)))
        out: dict[str, float] = {}
        # What a word weighs without WHOLE_WORD, which the typed word read as a word of
        # its own must be outweighed by.
        plain: dict[str, float] = {}
        floor = typed_word
        for best, rate, weights, word_at, length in sorted(found, key=lambda f: -f[0]):
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
                    plain[word] = weight / WHOLE_WORD if len(word) == length else weight
            if len(out) >= n:
                floor = max(floor, heapq.nlargest(n, out.values())[-1])
        kept = [w for w in out if plain[w] > typed_word]
        return {w: plain[w] for w in kept}, {w: out[w] for w in kept}, mass

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
