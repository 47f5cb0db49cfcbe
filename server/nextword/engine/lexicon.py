"""The word list the decider ranks, and how each word maps onto the model's tokens.

The model predicts tokens, the user wants words. A word's probability is taken as

    P(word | context) = P(first token | context) * P(word | first token)

where the second factor is the word's share of the training-text words that begin
with that token. One forward pass then ranks every word, instead of a token search
per candidate. The first token depends on what precedes the word: " the" after a
space is one token, "the" after a newline or bracket another; both maps are kept.

Files in a model directory (written by training/tables.py):
    lexicon.txt   the words, one per line, sorted so that a prefix is a contiguous range
    lexicon.npz   counts, and the n-gram tables of ngram.py
"""

from __future__ import annotations

import bisect
import hashlib
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

    def __len__(self) -> int:
        return len(self.words)

    def prefix_range(self, prefix: str) -> tuple[int, int]:
        """[lo, hi) of the words that start with `prefix` (case-sensitive)."""
        lo = bisect.bisect_left(self.words, prefix)
        hi = bisect.bisect_left(self.words, prefix + "\U0010ffff", lo)
        return lo, hi

    @property
    def unigram(self) -> np.ndarray:
        return self.counts / self.counts.sum()


def first_tokens(tokenizer: Any, words: list[str], lead: str) -> np.ndarray:
    encodings = tokenizer.encode_batch([lead + w for w in words], add_special_tokens=False)
    return np.array([e.ids[0] if e.ids else 0 for e in encodings], dtype=np.int32)


def conditional(
    counts: np.ndarray, first: np.ndarray, all_first: np.ndarray, all_counts: np.ndarray, v: int
) -> np.ndarray:
    """count(word) / count(all training words sharing its first token)."""
    totals = np.bincount(all_first, weights=all_counts, minlength=v)
    return (counts / np.maximum(totals[first], 1)).astype(np.float32)


def tokenizer_digest(tokenizer: Any) -> str:
    return hashlib.sha256(tokenizer.to_str().encode()).hexdigest()[:16]


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
        arrays = {k: data[k] for k in data.files}
    counts = arrays["counts"]
    if str(arrays.get("tokenizer_digest", "")) != tokenizer_digest(tokenizer):
        # Without the full training counts, a word's share of its first token is
        # estimated from the listed words alone.
        v = tokenizer.get_vocab_size()
        for lead, name in ((" ", "space"), ("", "bare")):
            first = first_tokens(tokenizer, words, lead)
            arrays[f"first_{name}"] = first
            arrays[f"cond_{name}"] = conditional(counts, first, first, counts, v)
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
    )
    return lexicon, arrays


def is_shouted(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    return len(letters) >= 3 and all(c.isupper() for c in letters)
