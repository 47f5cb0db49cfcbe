"""The error model of corrections: how likely each kind of typing mistake is.

P(typed | intended) for a typed prefix and the prefix of a word meant, by the
likeliest explanation: a neighbouring key or another vowel struck ("definately"), two
letters swapped ("teh"), a letter left out or one of a double ("adress"), a letter
struck twice or an extra key, and, rarer, any other letter for one ("sould") or a
stray letter ("slibling"). Each kind has its own rate per opportunity to make it,
fitted on codespell's allowed misspellings (training/typo_fit.py writes
models/typos.json); two edits in one word weigh the product of their rates times a
factor fitted on the same pairs. corrections.py uses it to score candidates.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

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
