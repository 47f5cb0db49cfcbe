"""The deletion index corrections search: known prefixes within two edits of a typed one.

SymSpell's symmetric deletes (Garbe 2012): every prefix of up to INDEXED letters of the
words corrections may offer, filed under what is left of it once one or two of its
letters are deleted. The typed prefix's own deletes looked up there give every known
prefix within two edits, in one vectorised search (`DeletionIndex.near`), and many
further, which `distances` turns away. The index is built once per word list and
cached on disk (`cache_dir()`), then memory-mapped: a load reads none of it until a
key is looked up.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

# The deletion index holds prefixes of up to this many letters: 2.2M entries (18 MB on
# disk) for the 76,000 words of the bundled lists; 6 letters would be 1.4M, 8 about 3.4M.
INDEXED = 7
# Bumped when the index's file format changes: the cached files are named by it.
INDEX_VERSION = 2
CACHE_DIR_ENV = "NEXTWORD_CACHE_DIR"  # overrides the cache directory (tests, portable setups)
# Index files kept in the cache directory: the newest few word lists (a retrained model
# and the one before it), not one per build ever made.
CACHED_INDEXES = 3


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
