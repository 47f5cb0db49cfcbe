"""The word list the decider ranks, and how each word maps onto the model's tokens.

The model predicts tokens, the user wants words. A word's probability is taken as

    P(word | context) = P(first token | context) * P(word | first token)

where the second factor is the word's share of the training-text words that begin
with that token. One forward pass then ranks every word, instead of a token search
per candidate. The first token depends on what precedes the word: " the" after a
space is one token, "the" after a newline or bracket another; both maps are kept.
Each word's second token (and its share of the listed words that begin with the same
two) is kept too: between keystrokes the decider asks the model for it (refine.py).

Files in a model directory (written by training/tables.py):
    lexicon.txt   the words, one per line, sorted so that a prefix is a contiguous range
    lexicon.npz   counts, and the n-gram tables of ngram.py
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


@dataclass
class Lexicon:
    """Sorted words with counts and their first-token maps for one tokenizer."""

    words: list[str]
    counts: np.ndarray  # (W,) int64
    first_space: np.ndarray  # (W,) int32: first token of " " + word
    first_bare: np.ndarray  # (W,) int32: first token of word
    cond_space: np.ndarray  # (W,) float32: P(word | its first token), after a space
    cond_bare: np.ndarray  # (W,) float32
    index: dict[str, int]
    capitalised: np.ndarray  # (W,) float32: 1.0 where the word starts with a capital
    # (W,) bool: words in capitals only, three letters or more (NAME, SPDX, TODO): the
    # headings and tags that open man pages and source files, not a written sentence.
    shouted: np.ndarray
    # (W,) int32: the token after the first, or NO_SECOND for a word of one token.
    second_space: np.ndarray | None = None
    second_bare: np.ndarray | None = None
    # (W,) float32: P(word | its first two tokens), among the listed words.
    pair_space: np.ndarray | None = None
    pair_bare: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.words)

    def prefix_range(self, prefix: str) -> tuple[int, int]:
        """[lo, hi) of the words that start with `prefix` (case-sensitive)."""
        lo = bisect.bisect_left(self.words, prefix)
        hi = bisect.bisect_left(self.words, prefix + "\U0010ffff", lo)
        return lo, hi

    def token_maps(
        self, lead: str
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """Each word's first token, its share of that token, its second token and its
        share of its first two, after `lead` (" " or ""); the last two may be None."""
        if lead:
            return self.first_space, self.cond_space, self.second_space, self.pair_space
        return self.first_bare, self.cond_bare, self.second_bare, self.pair_bare

    @property
    def unigram(self) -> np.ndarray:
        return self.counts / self.counts.sum()


# The second token of a word that is one token long.
NO_SECOND = -1


def first_tokens(tokenizer: Any, words: list[str], lead: str) -> np.ndarray:
    return leading_tokens(tokenizer, words, lead)[0]


def leading_tokens(tokenizer: Any, words: list[str], lead: str) -> tuple[np.ndarray, np.ndarray]:
    """Each word's first and second token after `lead` (NO_SECOND when it has one)."""
    encodings = tokenizer.encode_batch([lead + w for w in words], add_special_tokens=False)
    first = np.array([e.ids[0] if e.ids else 0 for e in encodings], dtype=np.int32)
    second = np.array(
        [e.ids[1] if len(e.ids) > 1 else NO_SECOND for e in encodings], dtype=np.int32
    )
    return first, second


def pair_share(counts: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """count(word) / count(the listed words that begin with the same two tokens)."""
    pairs = first.astype(np.int64) * (1 << 32) + (second.astype(np.int64) - NO_SECOND)
    _, group = np.unique(pairs, return_inverse=True)
    totals = np.bincount(group, weights=counts)
    return (counts / np.maximum(totals[group], 1)).astype(np.float32)


def second_token_arrays(tokenizer: Any, words: list[str], counts: np.ndarray) -> dict[str, Any]:
    """The second-token maps of lexicon.npz, for both leads."""
    arrays = {}
    for lead, name in ((" ", "space"), ("", "bare")):
        first, second = leading_tokens(tokenizer, words, lead)
        arrays[f"second_{name}"] = second
        arrays[f"pair_{name}"] = pair_share(counts, first, second)
    return arrays


def conditional(
    counts: np.ndarray, first: np.ndarray, all_first: np.ndarray, all_counts: np.ndarray, v: int
) -> np.ndarray:
    """count(word) / count(all training words sharing its first token)."""
    totals = np.bincount(all_first, weights=all_counts, minlength=v)
    return (counts / np.maximum(totals[first], 1)).astype(np.float32)


def tokenizer_digest(tokenizer: Any) -> str:
    return hashlib.sha256(tokenizer.to_str().encode()).hexdigest()[:16]


# The n-gram tables' word ids, counts, row pointers, context keys and each context's
# total and number of distinct continuations (engine/ngram.py, also per genre:
# "g3_tri_next"), stored as int32/int64 (the last two as float32) by training/tables.py,
# fit in fewer bytes: ids of a 60,000-word lexicon and counts under 65,536 in 16 bits,
# pointers and a trigram's two-word keys in 32. Read so, the bundled English tables
# (4-grams and all) take 55 MB of memory, not 102. They are searched with `find`.
_NARROWED = re.compile(r"(g\d+_)?(bi|tri|quad)_(next|count|ptr|total|types|keys)")


def find(keys: np.ndarray, key: int) -> int | None:
    """The index of `key` in the sorted (maybe narrowed) `keys`, None if it is not there.

    The key is cast to the array's type, after a check that it fits: np.searchsorted
    given a Python int converts a narrowed array whole on every call (160 us for a
    trigram table of 390,000 keys, against 1 us cast).
    """
    if not len(keys) or not int(keys[0]) <= key <= int(keys[-1]):
        return None
    at = int(np.searchsorted(keys, keys.dtype.type(key)))
    return at if int(keys[at]) == key else None


def narrowed(name: str, array: np.ndarray) -> np.ndarray:
    """`array` in the smallest integer type that holds its values, for the n-gram tables'
    ids, counts, pointers and continuation counts; any other array as it is."""
    if not _NARROWED.fullmatch(name) or not array.size:
        return array
    if array.dtype.kind == "f" and np.array_equal(array, np.round(array)):
        array = array.astype(np.int64)  # whole numbers kept as floats
    if array.dtype.kind not in "iu":
        return array
    low, high = int(array.min()), int(array.max())
    for kind in (np.uint16, np.int32, np.uint32) if low >= 0 else (np.int32,):
        if np.iinfo(kind).min <= low and high <= np.iinfo(kind).max:
            return array.astype(kind) if np.dtype(kind).itemsize < array.itemsize else array
    return array


def load_lexicon(
    model_dir: Path, tokenizer: Any, fallback_dir: Path
) -> tuple[Lexicon, dict[str, np.ndarray]]:
    """The lexicon for `tokenizer`, and the raw arrays (for the n-gram tables).

    A model directory without nextword's tables (any other mlx-lm model) borrows the
    bundled model's word list; its first-token maps are then computed for its own
    tokenizer, which takes a fraction of a second.
    """
    source = model_dir if (model_dir / "lexicon.txt").exists() else fallback_dir
    words = (source / "lexicon.txt").read_text(encoding="utf-8").split("\n")[:-1]
    with np.load(source / "lexicon.npz") as data:
        # One array at a time, narrowed as it is read: the largest never coexist wide.
        arrays = {k: narrowed(k, data[k]) for k in data.files}
    counts = arrays["counts"]
    if str(arrays.get("tokenizer_digest", "")) != tokenizer_digest(tokenizer):
        # Without the full training counts, a word's share of its first token is
        # estimated from the listed words alone.
        v = tokenizer.get_vocab_size()
        for lead, name in ((" ", "space"), ("", "bare")):
            first, second = leading_tokens(tokenizer, words, lead)
            arrays[f"first_{name}"] = first
            arrays[f"cond_{name}"] = conditional(counts, first, first, counts, v)
            arrays[f"second_{name}"] = second
            arrays[f"pair_{name}"] = pair_share(counts, first, second)
    elif "second_space" not in arrays:
        # Tables written before the second-token maps: made now, once per load.
        arrays.update(second_token_arrays(tokenizer, words, counts))
    lexicon = Lexicon(
        words=words,
        counts=counts,
        first_space=arrays["first_space"],
        first_bare=arrays["first_bare"],
        cond_space=arrays["cond_space"],
        cond_bare=arrays["cond_bare"],
        index={w: i for i, w in enumerate(words)},
        capitalised=np.array([w[0].isupper() for w in words], dtype=np.float32),
        shouted=np.array([is_shouted(w) for w in words], dtype=bool),
        second_space=arrays["second_space"],
        second_bare=arrays["second_bare"],
        pair_space=arrays["pair_space"],
        pair_bare=arrays["pair_bare"],
    )
    return lexicon, arrays


def is_shouted(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    return len(letters) >= 3 and all(c.isupper() for c in letters)
