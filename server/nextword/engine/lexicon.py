"""The word list the decider ranks, and how each word maps onto the model's tokens.

The model predicts tokens, the user wants words. A word's probability is taken as

    P(word | context) = P(first token | context) * P(word | first token)

where the second factor is the word's share of the training-text words that begin
with that token. One forward pass then ranks every word, instead of a token search
per candidate. The first token depends on what precedes the word: " the" after a
space is one token, "the" after a newline or bracket another; both maps are kept.

Files in a model directory (written by `build_tables`):
    lexicon.txt   the words, one per line, sorted so that a prefix is a contiguous range
    lexicon.npz   counts, and the n-gram tables of ngram.py
"""

from __future__ import annotations

import bisect
import hashlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nextword.engine.words import WORD_RE, is_candidate, is_han, is_han_text

MAX_WORDS = 60_000
MIN_COUNT = 3
# Chinese continuations: words of the corpus's own segmentation, up to four characters.
MAX_HAN_WORD = 4
MIN_HAN_COUNT = 2


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


def count_words(files: list[Path]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for file in files:
        with file.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                counts.update(WORD_RE.findall(line))
    return counts


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


def mixed_counts(
    files: list[Path], shares: list[float] | None
) -> tuple[Counter[str], Counter[str]]:
    """(raw, mixed) word counts of the training files.

    Mixed counts weigh each file by its share of the training mix over its share of
    the words, so the word tables see the sources as the model did: with the kernel
    documentation a third of the words but 5% of the batches, P(word | first token)
    after " time" would otherwise favour "timeout" over "times". Rounded to integers,
    the least weighted file counting 1 per occurrence.
    """
    per_file = [count_words([f]) for f in files]
    raw: Counter[str] = Counter()
    for counts in per_file:
        raw.update(counts)
    if shares is None:
        return raw, raw
    sizes = [max(1, sum(c.values())) for c in per_file]
    total = sum(sizes)
    weights = [share / (size / total) for share, size in zip(shares, sizes, strict=True)]
    least = min(weights)
    mixed: Counter[str] = Counter()
    for counts, w in zip(per_file, weights, strict=True):
        factor = w / least
        mixed.update({word: max(1, round(c * factor)) for word, c in counts.items()})
    return raw, mixed


def build_tables(
    train_files: list[Path], model_dir: Path, shares: list[float] | None = None
) -> None:
    """Count the training text and write lexicon.txt and lexicon.npz into `model_dir`.

    Args:
        shares: each file's share of the training mix (see `mixed_counts`); None
            counts the files as they are.
    """
    from tokenizers import Tokenizer

    from nextword.engine import ngram

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    raw_counts, all_counts = mixed_counts(train_files, shares)
    # A word enters the lexicon by how often it was written; it ranks by the mix.
    ranked = [
        w for w, _ in all_counts.most_common() if raw_counts[w] >= MIN_COUNT and is_candidate(w)
    ]
    kept = ranked[:MAX_WORDS]
    words = sorted(kept)
    counts = np.array([all_counts[w] for w in words], dtype=np.int64)
    # Z per first token counts every training word, so rare words keep their share.
    every = list(all_counts)
    every_counts = np.array([all_counts[w] for w in every], dtype=np.float64)
    v = tokenizer.get_vocab_size()
    arrays: dict[str, np.ndarray] = {"counts": counts}
    for lead, name in ((" ", "space"), ("", "bare")):
        first = first_tokens(tokenizer, words, lead)
        all_first = first_tokens(tokenizer, every, lead)
        arrays[f"first_{name}"] = first
        arrays[f"cond_{name}"] = conditional(counts, first, all_first, every_counts, v)
    index = {w: i for i, w in enumerate(words)}
    arrays.update(ngram.build(train_files, index))
    arrays["tokenizer_digest"] = np.array(tokenizer_digest(tokenizer))
    (model_dir / "lexicon.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    np.savez_compressed(model_dir / "lexicon.npz", **arrays)  # type: ignore[arg-type]
    print(f"lexicon: {len(words):,} words; n-gram tables: {ngram.describe(arrays)}")


def build_han_tables(segmented_files: list[Path], model_dir: Path) -> None:
    """The Chinese lexicon: continuations of 1-4 characters, from word-segmented text.

    The words are the corpus's own segmentation (People's Daily is segmented by
    hand), so a multi-character candidate is a real word, not a fixed-length chunk.
    Every Han character the tokenizer holds as one token is a candidate too, so any
    next character can be offered. With one token per character, the first token of
    a word is its first character, and P(word) = P(first character) x the word's
    share of the corpus words that start with that character.
    """
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    every: Counter[str] = Counter()
    for file in segmented_files:
        with file.open(encoding="utf-8") as f:
            for line in f:
                every.update(w for w in line.split() if is_han_text(w))
    for token_id in tokenizer.get_vocab().values():
        char = tokenizer.decode([token_id])
        if len(char) == 1 and is_han(char):
            every[char] += 0  # present, with the count the corpus gives it (maybe 0)
    single = {c for c in every if len(c) == 1 and len(tokenizer.encode(c).ids) == 1}
    words = sorted(
        w
        for w, c in every.items()
        if w[0] in single and (len(w) == 1 or (len(w) <= MAX_HAN_WORD and c >= MIN_HAN_COUNT))
    )
    # A character seen only inside words still gets a little mass as a continuation.
    counts = np.array([max(every[w], 1) for w in words], dtype=np.int64)
    first = first_tokens(tokenizer, words, "")
    eligible = [w for w in every if w[0] in single]
    all_counts = np.array([max(every[w], 1) for w in eligible], dtype=np.float64)
    all_first = first_tokens(tokenizer, eligible, "")
    cond = conditional(counts, first, all_first, all_counts, tokenizer.get_vocab_size())
    arrays: dict[str, np.ndarray] = {
        "counts": counts,
        # No spaces in Chinese: the same first token with or without one before.
        "first_space": first,
        "first_bare": first,
        "cond_space": cond,
        "cond_bare": cond,
        "tokenizer_digest": np.array(tokenizer_digest(tokenizer)),
    }
    (model_dir / "lexicon.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    np.savez_compressed(model_dir / "lexicon.npz", **arrays)  # type: ignore[arg-type]
    multi = sum(1 for w in words if len(w) > 1)
    print(f"lexicon: {len(words):,} continuations ({multi:,} of 2-{MAX_HAN_WORD} characters)")


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
