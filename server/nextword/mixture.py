"""Fit the decider's mixture weights on dev text.

At each word start of the dev text, each of the decider's components
(engine.Component) ranks the words. A weight vector is scored by how often the mix
puts the word actually typed among its first three (top-3, what a user sees), ties
broken by the mean log-probability of that word. The candidates a mix can rank
first are, in practice, among some component's own top few, so each position keeps
only the union of the components' top `TOP` words plus the true word. A grid over
the simplex is exact enough for four weights and needs no solver. Components absent
at a position (no document words yet) are left out and the others renormalised,
exactly as the decider mixes them.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np

from nextword.evaluate import read_documents
from nextword.words import WORD_RE

NAMES = ("neural", "ngram", "doc", "docbigram")
GRID_STEP = 0.05
TOP = 12  # each component's best words kept per position
FLOOR = 1e-9  # a word no component offers: counted as a miss, not as minus infinity


def _position(parts: list[Any], word: str, index: dict[str, int]) -> np.ndarray:
    """(R, C) probabilities of the candidate words; row 0 is the word typed. NaN: absent."""
    candidates = {word}
    words = list(index)
    for part in parts:
        dense = part.dense
        top = np.argpartition(-dense, TOP)[:TOP] if len(dense) > TOP else range(len(dense))
        candidates.update(words[i] for i in top)
        candidates.update(sorted(part.extra, key=part.extra.get, reverse=True)[:TOP])
    ordered = [word, *sorted(candidates - {word})]
    rows = np.full((len(ordered), len(NAMES)), np.nan)
    for part in parts:
        column = NAMES.index(part.name)
        rows[:, column] = [part.prob(w, index) for w in ordered]
    return rows


def collect(engine: Any, files: list[Path], max_words: int) -> np.ndarray:
    """(N, R, C) candidate probabilities per position, padded with zero rows."""
    positions = []
    for path in files:
        docs, _ = read_documents(path, max_words)
        for doc in docs:
            decider = engine.decider()
            for match in WORD_RE.finditer(doc):
                parts, *_ = decider.components(doc[: match.start()])
                positions.append(_position(parts, match.group(), engine.lexicon.index))
    width = max(len(p) for p in positions)
    out = np.zeros((len(positions), width, len(NAMES)))
    for i, rows in enumerate(positions):
        out[i, : len(rows)] = rows
        out[i, len(rows) :] = np.where(np.isnan(rows[0]), np.nan, 0.0)
    return out


def score(probs: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """(top-3 rate, mean log-probability of the word typed) of one weight vector."""
    present = ~np.isnan(probs[:, 0, :])  # (N, C)
    norm = (present * weights).sum(axis=1)  # (N,)
    mixed = (np.nan_to_num(probs) * weights).sum(axis=2) / norm[:, None]  # (N, R)
    true = mixed[:, 0]
    rank = (mixed[:, 1:] > true[:, None]).sum(axis=1)
    top3 = float(((rank < 3) & (true > 0)).mean())
    return top3, float(np.log(np.maximum(true, FLOOR)).mean())


def fit(probs: np.ndarray) -> tuple[dict[str, float], float, float]:
    """The grid point with the best top-3 rate (then likelihood), and both figures."""
    steps = int(round(1 / GRID_STEP))
    best: tuple[float, float] = (-1.0, -np.inf)
    best_w = None
    for combo in itertools.product(range(steps + 1), repeat=len(NAMES)):
        if sum(combo) != steps or combo[0] + combo[1] == 0:
            continue
        w = np.array(combo, dtype=np.float64) * GRID_STEP
        result = score(probs, w)
        if result > best:
            best, best_w = result, w
    assert best_w is not None
    weights = {n: round(float(x), 3) for n, x in zip(NAMES, best_w, strict=True)}
    return weights, best[0], best[1]


def fit_and_save(model_dir: Path, files: list[Path], max_words: int) -> dict[str, float]:
    from nextword.engine import Engine

    engine = Engine.load(model_dir, warmup=False)
    probs = collect(engine, files, max_words)
    weights, top3, ll = fit(probs)
    record = {
        "weights": weights,
        "objective": "top-3 rate at word starts, then mean log-likelihood",
        "top3": round(top3, 4),
        "mean_log_likelihood": round(ll, 4),
        "positions": len(probs),
        "fitted_on": [str(f) for f in files],
        "max_words_per_file": max_words,
    }
    (model_dir / "mixture.json").write_text(json.dumps(record, indent=2) + "\n")
    print(
        f"mixture weights {weights}: top-3 {top3:.3f}, log-likelihood {ll:.3f}, {len(probs)} words"
    )
    return weights
