"""Standard spellings of what people type informally: "im" -> "I'm", "dont" -> "don't".

Chat text writes contractions without their apostrophe and the pronoun "I" in lower
case. A completion offers the standard spelling, so the chat corpus is trained on in
it (data/corpus.py) and the engine maps a variant it would offer to the standard word.
The map is built from the registries' data by data/variants.py and shipped as
models/variants.txt: lines `variant<TAB>standard`, the variant in lower case.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

# A word as the map reads it: letters and apostrophes (straight or curly).
_WORD = re.compile(r"(?<![\w'’])[A-Za-z]+(?:['’][A-Za-z]+)*(?![\w'’])")
# "i.e." and "i.e" are not the pronoun.
_ABBREVIATION = re.compile(r"\.[A-Za-z]")


def _cased_like(standard: str, typed: str) -> str:
    """`standard` in the case the user typed `typed` in: "Dont" -> "Don't", "DONT" ->
    "DON'T"; a standard word with capitals of its own ("I'm", "iPhone") keeps them."""
    if typed.isupper() and len(typed) > 1:
        return standard.upper()
    if typed[:1].isupper() and standard.islower():
        return standard[:1].upper() + standard[1:]
    return standard


class Variants:
    """variant (lower case) -> standard spelling."""

    def __init__(self, table: dict[str, str]):
        self.table = table

    @classmethod
    def load(cls, path: Path) -> Variants:
        """The map from a variants.txt; an empty one where the file is missing."""
        table: dict[str, str] = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                variant, sep, standard = line.partition("\t")
                if sep and variant and standard:
                    table[variant] = standard
        return cls(table)

    def standard(self, word: str) -> str | None:
        """The standard spelling of `word` in its case, or None when `word` is standard."""
        found = self.table.get(word.replace("’", "'").lower())
        if found is None:
            return None
        standard = _cased_like(found, word)
        return None if standard == word else standard  # "SATURDAY" stands

    def standardise(self, text: str) -> str:
        """`text` with every variant spelled the standard way."""
        if not self.table:
            return text

        def fix(m: re.Match[str]) -> str:
            word = m.group(0)
            if _ABBREVIATION.match(text, m.end()):
                return word
            return self.standard(word) or word

        return _WORD.sub(fix, text)

    def __len__(self) -> int:
        return len(self.table)


class StandardSpelling:
    """A lexicon's variants, and where their probability goes: to the standard word in
    the lexicon, or beside it where the lexicon lacks it."""

    def __init__(self, variants: Variants, words: list[str], index: dict[str, int]):
        self.variants = variants
        self._index = index
        variant_ids, standard_ids = [], []
        self._outside: dict[int, str] = {}
        # The lower-case variants of words with capitals ("saturday" -> "Saturday"), in
        # lexicon order: a lower-case prefix ("sat") finds its words' standard spellings
        # through them (`capitals`), as those sort elsewhere.
        self._lower_case: list[tuple[str, str]] = []
        lower_case_ids, lower_case_targets = [], []
        for i, word in enumerate(words):
            standard = variants.standard(word)
            if standard is None:
                continue
            j = index.get(standard)
            if j is None:
                self._outside[i] = standard
            else:
                variant_ids.append(i)
                standard_ids.append(j)
            if word.islower() and standard.lower() == word:
                self._lower_case.append((word, standard))
                lower_case_ids.append(i)
                lower_case_targets.append(-1 if j is None else j)
        self._variant_ids = np.array(variant_ids, dtype=np.int64)
        self._standard_ids = np.array(standard_ids, dtype=np.int64)
        self._lower_case_ids = np.array(lower_case_ids, dtype=np.int64)
        self._lower_case_targets = np.array(lower_case_targets, dtype=np.int64)

    def capitals(
        self, lo: int, hi: int, dense: np.ndarray, extra: dict[str, float], n: int
    ) -> list[tuple[str, str, float]]:
        """(variant, standard spelling, its probability) for the `n` likeliest lower-case
        variants at lexicon positions [lo, hi) that differ from their standard spelling
        in capitals only, after `apply` moved the probability of `dense` and `extra`."""
        a, b = np.searchsorted(self._lower_case_ids, [lo, hi])
        if a == b:
            return []
        targets = self._lower_case_targets[a:b]
        probs = np.where(targets >= 0, dense[np.maximum(targets, 0)], 0.0)
        for k in np.flatnonzero(targets < 0):  # standard spellings beyond the lexicon
            probs[k] = extra.get(self._lower_case[a + k][1], 0.0)
        best = (np.argpartition(-probs, n)[:n] if b - a > n else np.arange(b - a)).tolist()
        named = self._lower_case[a:b]
        return [(*named[k], p) for k, p in zip(best, probs[best].tolist(), strict=True) if p > 0]

    def apply(self, mixed: np.ndarray, extra: dict[str, float]) -> None:
        """Move, in place, each variant's probability to its standard spelling."""
        if len(self._variant_ids):
            np.add.at(mixed, self._standard_ids, mixed[self._variant_ids])
            mixed[self._variant_ids] = 0.0
        for i, outside in self._outside.items():
            extra[outside] = extra.get(outside, 0.0) + float(mixed[i])
            mixed[i] = 0.0
        for word in list(extra):
            standard = self.variants.standard(word)
            if standard is not None:
                p = extra.pop(word)
                j = self._index.get(standard)
                if j is None:
                    extra[standard] = extra.get(standard, 0.0) + p
                else:
                    mixed[j] += p
