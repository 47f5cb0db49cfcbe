"""A word trigram model with interpolated absolute discounting.

Counts are cheap where a small transformer trained on two cores is weak: frequent
phrases and fixed collocations. The decider mixes this distribution with the
model's (weights fitted on dev text, see mixture.py).

    P(w | u v) = max(c(uvw) - D, 0) / c(uv) + D * n(uv) / c(uv) * P(w | v)

with n(uv) the number of distinct words seen after uv, and the same one order down
to the unigram. N-grams seen once are pruned from the tables, their contexts' totals
kept, so the discounted mass still flows to the lower order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np

DISCOUNT = 0.75
MIN_NGRAM_COUNT = 2
# A sentence end or a blank line becomes the start symbol <s>; other punctuation is
# transparent, so "foo, bar" and "foo bar" share a bigram.
EVENT_RE = re.compile(r"[\w']+|[.!?](?=\s|\Z)|\n[ \t]*\n")


def events(text: str) -> list[str]:
    """Words and sentence starts ("<s>") in order."""
    return [e if e[0].isalnum() or e[0] in "_'" else "<s>" for e in EVENT_RE.findall(text)]


def history_ids(context: str, index: dict[str, int], n_words: int) -> tuple[int, int]:
    """The ids of the two events before the cursor; document start counts as <s>."""
    tail = events(context[-400:])
    start = n_words + 1
    ids = [start, start] + [index.get(e, n_words) if e != "<s>" else start for e in tail]
    return ids[-2], ids[-1]


def _ids(files: Iterable[Path], index: dict[str, int]) -> np.ndarray:
    unk, start = len(index), len(index) + 1
    from nextword.evaluation.evaluate import read_documents

    out: list[int] = []
    for file in files:
        docs, _ = read_documents(file, None)
        for doc in docs:
            out.append(start)
            out.extend(start if e == "<s>" else index.get(e, unk) for e in events(doc))
    return np.asarray(out, dtype=np.int64)


def _csr(ctx: np.ndarray, nxt: np.ndarray, cnt: np.ndarray, totals: np.ndarray, types: np.ndarray):
    """Context keys with their kept continuations, as compressed sparse rows."""
    keep = cnt >= MIN_NGRAM_COUNT
    kctx, knext, kcnt = ctx[keep], nxt[keep], cnt[keep]
    keys, starts = np.unique(kctx, return_index=True)
    ptr = np.append(starts, len(kctx)).astype(np.int64)
    all_keys = np.unique(ctx)
    pos = np.searchsorted(all_keys, keys)
    return keys, ptr, knext.astype(np.int32), kcnt.astype(np.int32), totals[pos], types[pos]


def build(files: list[Path], index: dict[str, int]) -> dict[str, np.ndarray]:
    """Bigram and trigram tables over the lexicon ids (unknown = W, <s> = W + 1)."""
    ids = _ids(files, index)
    base = len(index) + 2
    out: dict[str, np.ndarray] = {}
    for order, name in ((2, "bi"), (3, "tri")):
        ctx = ids[: len(ids) - order + 1].copy()
        for k in range(1, order - 1):
            ctx = ctx * base + ids[k : len(ids) - order + 1 + k]
        nxt = ids[order - 1 :]
        grams, counts = np.unique(ctx * base + nxt, return_counts=True)
        g_ctx, g_next = grams // base, grams % base
        ctx_keys, ctx_start = np.unique(g_ctx, return_index=True)
        totals = np.add.reduceat(counts, ctx_start)
        types = np.diff(np.append(ctx_start, len(g_ctx)))
        # Predicting "unknown" or "<s>" is of no use to the decider.
        wanted = g_next < len(index)
        keys, ptr, nx, cn, tot, ty = _csr(
            g_ctx[wanted], g_next[wanted], counts[wanted],
            np.repeat(totals, types)[wanted], np.repeat(types, types)[wanted],
        )  # fmt: skip
        del ctx_keys
        out.update(
            {
                f"{name}_keys": keys,
                f"{name}_ptr": ptr,
                f"{name}_next": nx,
                f"{name}_count": cn,
                f"{name}_total": tot.astype(np.float32),
                f"{name}_types": ty.astype(np.float32),
            }
        )
    return out


def describe(arrays: dict[str, np.ndarray]) -> str:
    return (
        f"{len(arrays['bi_next']):,} bigrams over {len(arrays['bi_keys']):,} contexts, "
        f"{len(arrays['tri_next']):,} trigrams over {len(arrays['tri_keys']):,} contexts"
    )


class NGram:
    """Dense next-word distributions over the lexicon from the stored tables."""

    def __init__(self, arrays: dict[str, np.ndarray], unigram: np.ndarray):
        self._a = arrays
        self._unigram = unigram.astype(np.float32)
        self._base = len(unigram) + 2

    def _apply(self, name: str, key: int, lower: np.ndarray) -> np.ndarray:
        keys = self._a[f"{name}_keys"]
        row = int(np.searchsorted(keys, key))
        if row == len(keys) or keys[row] != key:
            return lower
        lo, hi = self._a[f"{name}_ptr"][row], self._a[f"{name}_ptr"][row + 1]
        total = self._a[f"{name}_total"][row]
        out = lower * (DISCOUNT * self._a[f"{name}_types"][row] / total)
        out[self._a[f"{name}_next"][lo:hi]] += (self._a[f"{name}_count"][lo:hi] - DISCOUNT) / total
        return out

    def distribution(self, u: int, v: int) -> np.ndarray:
        """P(w | u v) for every lexicon word w, normalised."""
        p = self._apply("bi", v, self._unigram)
        p = self._apply("tri", u * self._base + v, p)
        return p / p.sum()
