"""The evaluator's typing mistakes (docs/EVAL.md, "Typing mistakes"): a seeded generator.

Each word of four letters or more (letters only; lower case, Capitalized or UPPER) is
corrupted with probability `rate`:

- where codespell's dictionary (its allowed part, `data.misspellings.allowed_pairs`) has
  misspellings of the word, one of them, drawn uniformly; the match is on lower case and
  the word's case is put back ("Recieve" for "Receive");
- otherwise one synthetic edit, its kind drawn with the fixed shares of `SYNTHETIC`, at a
  position drawn uniformly among those where that kind can strike.

The shares are set by hand, not fitted: a generator fitted to the engine's own error
model (models/typos.json) would flatter it. Kinds are named as in engine/errormodel.py;
here `omit` is any letter left out, one of a double included. Words that hold a digit,
`_` or `'`, mixed-case words (identifiers) and Chinese documents are never corrupted.

The same seed gives the same mistakes: one `random.Random(seed)` per call of `corrupt`,
drawn word by word in document order.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from nextword.data.documents import is_han_document
from nextword.engine.errormodel import NEIGHBOURS
from nextword.engine.words import WORD_RE

MIN_LETTERS = 4
CODESPELL = "codespell"
# (kind, share) of the synthetic edits.
SYNTHETIC = (
    ("substitute_adjacent", 0.35),  # a neighbouring key struck instead: thw
    ("omit", 0.25),  # a letter left out: goverment
    ("transpose", 0.20),  # two neighbouring letters swapped: teh
    ("insert_double", 0.10),  # a letter struck twice: untill
    ("insert_adjacent", 0.10),  # an extra neighbouring key struck after one: thew
)


@dataclass(frozen=True)
class Typo:
    """One corrupted word: where it starts in the clean document, what was meant, what
    was typed, and how it was made ("codespell" or a kind of `SYNTHETIC`)."""

    start: int
    intended: str
    typed: str
    kind: str

    @property
    def mistake_at(self) -> int:
        """The number of letters typed before the first wrong one."""
        same = 0
        for a, b in zip(self.intended, self.typed, strict=False):
            if a != b:
                break
            same += 1
        return same


@dataclass(frozen=True)
class Corrupted:
    """A document and its typos; `eligible` counts the words that could have been hit."""

    clean: str
    typos: tuple[Typo, ...]
    eligible: int

    @property
    def text(self) -> str:
        """The document as typed, every corrupted word in its typed spelling."""
        parts, at = [], 0
        for typo in self.typos:
            parts += [self.clean[at : typo.start], typo.typed]
            at = typo.start + len(typo.intended)
        return "".join([*parts, self.clean[at:]])


def match_case(word: str, model: str) -> str:
    """`word` in the case of `model`: UPPER, Capitalized, or as it is."""
    if len(model) > 1 and model.isupper():
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def eligible(word: str) -> bool:
    """True for a word the generator may corrupt."""
    if len(word) < MIN_LETTERS or not word.isalpha():
        return False
    return word.islower() or word.isupper() or (word[0].isupper() and word[1:].islower())


class TypoGenerator:
    """Corrupts a share `rate` of the eligible words of documents, reproducibly.

    Args:
        rate: the probability that an eligible word is corrupted, in (0, 1].
        pairs: (misspelling, correction) pairs to prefer over synthetic edits.
    """

    def __init__(self, rate: float, *, pairs: Iterable[tuple[str, str]] = ()) -> None:
        if not 0 < rate <= 1:
            raise ValueError(f"the typo rate must be in (0, 1], not {rate}")
        self.rate = rate
        known: dict[str, set[str]] = {}
        for wrong, right in pairs:
            if wrong.lower() != right.lower():
                known.setdefault(right.lower(), set()).add(wrong.lower())
        self._misspellings = {word: sorted(found) for word, found in known.items()}

    def corrupt(self, docs: Sequence[str], *, seed: int) -> list[Corrupted]:
        """The documents' typos, drawn from `seed` (Chinese documents get none)."""
        rng = random.Random(seed)
        return [self._corrupt(doc, rng) for doc in docs]

    def _corrupt(self, doc: str, rng: random.Random) -> Corrupted:
        if is_han_document(doc):
            return Corrupted(doc, (), 0)
        typos, count = [], 0
        for match in WORD_RE.finditer(doc):
            word = match.group()
            if not eligible(word):
                continue
            count += 1
            if rng.random() < self.rate:
                typed, kind = self.misspell(word, rng)
                typos.append(Typo(match.start(), word, typed, kind))
        return Corrupted(doc, tuple(typos), count)

    def misspell(self, word: str, rng: random.Random) -> tuple[str, str]:
        """(typed spelling, kind) of one mistake in an eligible `word`."""
        if found := self._misspellings.get(word.lower()):
            return match_case(rng.choice(found), word), CODESPELL
        kinds = [kind for kind, _ in SYNTHETIC]
        first = rng.choices(range(len(kinds)), weights=[share for _, share in SYNTHETIC])[0]
        # A kind that cannot strike this word ("aaaa" has no swap) hands over to the next.
        for kind in kinds[first:] + kinds[:first]:
            if places := _places(word.lower(), kind):
                low = _edit(word.lower(), kind, rng.choice(places), rng)
                return match_case(low, word), kind
        raise AssertionError("omit can always strike")  # pragma: no cover


def _places(low: str, kind: str) -> list[int]:
    """The positions where an edit of `kind` can strike the lower-case word."""
    n = len(low)
    if kind == "transpose":
        return [i for i in range(n - 1) if low[i] != low[i + 1]]
    if kind in ("substitute_adjacent", "insert_adjacent"):
        return [i for i in range(n) if low[i] in NEIGHBOURS]
    return list(range(n))  # omit, insert_double


def _edit(low: str, kind: str, i: int, rng: random.Random) -> str:
    if kind == "transpose":
        return low[:i] + low[i + 1] + low[i] + low[i + 2 :]
    if kind == "substitute_adjacent":
        return low[:i] + rng.choice(NEIGHBOURS[low[i]]) + low[i + 1 :]
    if kind == "omit":
        return low[:i] + low[i + 1 :]
    if kind == "insert_double":
        return low[: i + 1] + low[i] + low[i + 1 :]
    return low[: i + 1] + rng.choice(NEIGHBOURS[low[i]]) + low[i + 1 :]  # insert_adjacent
