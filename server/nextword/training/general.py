"""Convert CMU Sphinx's US English trigram into the tables engine/general.py reads.

    python -m nextword.training.general [--model DIR] [--cache DIR]

fetches Debian's `pocketsphinx-en-us` (once, into the cache), reads its `en-us.lm.bin`
and writes `general/` into the model directory (default: the bundled model). The
mixture's weight for it is fitted with the others (training/mixture.py): fit it again
after converting.

The model (72,547 words, 2.05M bigrams, 1.67M trigrams, lower case, BSD-2) is stored
as Sphinx's binary trie (src/lm/lm_trie.c in pocketsphinx): a header and the n-gram
counts, 16-bit quantisation bins, the unigrams as (log prob, log backoff, first child)
records, then bit-packed bigram and trigram entries, then the words. The trie runs
backwards, from the predicted word to its history: a unigram w's children are the
words v seen before it, each entry holding log P(w | v) and the backoff of "v w" as a
history; an entry (w, v)'s children are the words u before "v w", holding
log P(w | u v). Sphinx's own ARPA writers stop on this file (sphinxbase 0.8 asserts,
pocketsphinx 5.1.1 crashes, both at the trigrams), so it is read here.

Only the words the lexicon holds in some case are kept: the others could never be
offered, and 16-bit word ids hold what is left.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nextword.data.fetch import fetch_deb
from nextword.engine.general import ARRAYS, GENERAL_DIR, START
from nextword.engine.loader import MODELS_DIR
from nextword.errors import CommandError

PACKAGE = "pocketsphinx-en-us"
MODEL_FILE = "usr/share/pocketsphinx/model/en-us/en-us.lm.bin"
HEADER = b"Trie Language Model"
BINS = 1 << 16  # each quantised value is a 16-bit index into its table of bins
# Sphinx keeps log probabilities in its own base, 1.0001 (logmath.c).
TO_LOG10 = math.log10(1.0001)


@dataclass
class Trie:
    """The model's n-grams in forward order: each bigram (v, w) and trigram (u, v, w)
    by word id, with log10 P(w | history) and, for the bigrams, log10 backoff(v w)."""

    words: list[str]
    uni_logp: np.ndarray
    uni_bo: np.ndarray
    bi: np.ndarray  # (E2, 2): v, w
    bi_logp: np.ndarray
    bi_bo: np.ndarray
    tri: np.ndarray  # (E3, 3): u, v, w
    tri_logp: np.ndarray


def _bits(value: int) -> int:
    return int(value).bit_length()


def _fields(mem: np.ndarray, offsets: np.ndarray, width: int) -> np.ndarray:
    """The `width`-bit fields (width <= 32) at bit `offsets` of `mem`, least significant
    bit first, as Sphinx's bitarr.c packs them."""
    byte = offsets >> 3
    value = np.zeros(len(offsets), dtype=np.uint64)
    for k in range(5):  # 32 bits at a bit offset of up to 7 span 5 bytes
        value |= mem[byte + k].astype(np.uint64) << np.uint64(8 * k)
    shift = (offsets & 7).astype(np.uint64)
    return ((value >> shift) & np.uint64((1 << width) - 1)).astype(np.int64)


def read_trie(path: Path) -> Trie:
    """Sphinx's binary trie of a trigram model (see the module docstring).

    Raises:
        CommandError: the file is not a trigram in that format.
    """
    data = path.read_bytes()
    if not data.startswith(HEADER) or data[len(HEADER)] != 3:
        raise CommandError(f"{path} is not a Sphinx binary trigram")
    pos = len(HEADER) + 1
    n1, n2, n3 = (int(c) for c in np.frombuffer(data, "<u4", 3, pos))
    pos += 12 + 4  # the counts, then a field that once named the quantisation
    bins = np.frombuffer(data, "<f4", 3 * BINS, pos)
    pos += 4 * 3 * BINS
    bi_prob_bins, bi_bo_bins, tri_prob_bins = bins[:BINS], bins[BINS : 2 * BINS], bins[2 * BINS :]
    record = np.dtype([("prob", "<f4"), ("bo", "<f4"), ("next", "<u4")])
    uni = np.frombuffer(data, record, n1 + 1, pos)
    pos += record.itemsize * (n1 + 1)
    word_bits = _bits(n1)
    bi_bits = word_bits + 32 + _bits(n3)  # word, backoff and prob codes, first child
    tri_bits = word_bits + 16  # word, prob code
    bi_size = ((1 + n2) * bi_bits + 7) // 8 + 8  # one entry more for the last end, and slack
    tri_size = ((1 + n3) * tri_bits + 7) // 8 + 8
    mem = np.concatenate(
        [np.frombuffer(data, np.uint8, bi_size + tri_size, pos), np.zeros(8, np.uint8)]
    )
    pos += bi_size + tri_size
    size = int(np.frombuffer(data, "<u4", 1, pos)[0])
    words = [w.decode("utf-8", "replace") for w in data[pos + 4 : pos + 4 + size].split(b"\0")]
    words = words[:n1]
    if len(words) != n1:
        raise CommandError(f"{path}: {len(words)} words where the header says {n1}")
    # The header counts an entry or two the build left unused: the unigrams' last
    # pointer tells how many bigram entries there are.
    children: np.ndarray = np.asarray(uni["next"], dtype=np.int64)  # each unigram's first bigram
    m2 = int(children[n1])
    at = np.arange(m2 + 1, dtype=np.int64) * bi_bits
    before = _fields(mem, at[:-1], word_bits)
    codes = _fields(mem, at[:-1] + word_bits, 32)
    first_child = _fields(mem, at + word_bits + 32, _bits(n3))
    m3 = int(first_child[-1])
    last = np.repeat(np.arange(n1), np.diff(children))
    at3 = bi_size * 8 + np.arange(m3, dtype=np.int64) * tri_bits
    tri_before = _fields(mem, at3, word_bits)
    tri_codes = _fields(mem, at3 + word_bits, 16)
    parent = np.repeat(np.arange(m2), np.diff(first_child))
    return Trie(
        words=words,
        uni_logp=uni["prob"][:n1] * TO_LOG10,
        uni_bo=uni["bo"][:n1] * TO_LOG10,
        bi=np.stack([before, last], axis=1),
        bi_logp=bi_prob_bins[codes >> 16] * TO_LOG10,
        bi_bo=bi_bo_bins[codes & 0xFFFF] * TO_LOG10,
        tri=np.stack([tri_before, before[parent], last[parent]], axis=1),
        tri_logp=tri_prob_bins[tri_codes] * TO_LOG10,
    )


def general_tables(trie: Trie, known: set[str]) -> tuple[list[str], dict[str, np.ndarray]]:
    """The words and arrays of general/ (engine/general.py): the words of `trie` that
    are in `known` (the lexicon's words, lower-cased) and the sentence start."""
    keep = [i for i, w in enumerate(trie.words) if w in known or w == START]
    words = [trie.words[i] for i in keep]
    if len(words) > 1 << 16:
        raise CommandError(f"{len(words)} words do not fit the tables' 16-bit ids")
    new = np.full(len(trie.words), -1, dtype=np.int64)
    new[keep] = np.arange(len(keep))
    out: dict[str, np.ndarray] = {
        "uni_logp": trie.uni_logp[keep].astype(np.float16),
        "uni_bo": trie.uni_bo[keep].astype(np.float16),
    }
    n = len(words)
    bi = new[trie.bi]
    ok = (bi >= 0).all(axis=1)
    bi, logp = bi[ok], trie.bi_logp[ok]
    order = np.lexsort((bi[:, 1], bi[:, 0]))
    bi, logp = bi[order], logp[order]
    out["bi_ptr"] = np.searchsorted(bi[:, 0], np.arange(n + 1)).astype(np.uint32)
    out["bi_next"] = bi[:, 1].astype(np.uint16)
    out["bi_logp"] = logp.astype(np.float16)
    # A history "u v" needs its backoff only where it has trigrams: elsewhere its
    # distribution is P(w | v) times a constant, which normalising removes.
    bo_keys = bi[:, 0] * n + bi[:, 1]
    bo_values = trie.bi_bo[ok][order]
    tri = new[trie.tri]
    ok3 = (tri >= 0).all(axis=1)
    tri, logp3 = tri[ok3], trie.tri_logp[ok3]
    keys = tri[:, 0] * n + tri[:, 1]
    order = np.lexsort((tri[:, 2], keys))
    keys, nxt, logp3 = keys[order], tri[order, 2], logp3[order]
    rows, starts = np.unique(keys, return_index=True)
    out["tri_keys"] = rows.astype(np.uint32)
    out["tri_ptr"] = np.append(starts, len(keys)).astype(np.uint32)
    out["tri_next"] = nxt.astype(np.uint16)
    out["tri_logp"] = logp3.astype(np.float16)
    at = np.searchsorted(bo_keys, rows)
    found = (at < len(bo_keys)) & (bo_keys[np.minimum(at, len(bo_keys) - 1)] == rows)
    out["tri_bo"] = np.where(found, bo_values[np.minimum(at, len(bo_keys) - 1)], 0.0).astype(
        np.float16
    )
    return words, out


def build_general(model_dir: Path, cache: Path) -> Path:
    """Fetch the Sphinx model, convert it over the model's lexicon and write general/:
    words.txt, one .npy per array (engine/general.py maps them), and COPYRIGHT, the
    package's (BSD-2 asks that binaries carry the notice)."""
    origin, root = fetch_deb(cache, PACKAGE)
    trie = read_trie(root / MODEL_FILE)
    lexicon = (model_dir / "lexicon.txt").read_text(encoding="utf-8").split("\n")[:-1]
    words, tables = general_tables(trie, {w.lower() for w in lexicon})
    out = model_dir / GENERAL_DIR
    out.mkdir(exist_ok=True)
    (out / "words.txt").write_text("".join(w + "\n" for w in words), encoding="utf-8")
    for name in ARRAYS:
        np.save(out / f"{name}.npy", tables[name])
    notice = (root / "usr/share/doc" / PACKAGE / "copyright").read_text(encoding="utf-8")
    (out / "COPYRIGHT").write_text(
        f"Converted from {origin} ({MODEL_FILE}) by training/general.py.\n\n{notice}",
        encoding="utf-8",
    )
    print(
        f"{out}: {len(words):,} words, {len(tables['bi_next']):,} bigrams, "
        f"{len(tables['tri_next']):,} trigrams ({origin})"
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nextword.training.general")
    parser.add_argument("--model", type=Path, default=MODELS_DIR / "en")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path.home() / ".cache/nextword/sources",
        help="where the Debian package is fetched to",
    )
    args = parser.parse_args(argv)
    build_general(args.model, args.cache)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
