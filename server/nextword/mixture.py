"""Fit the decider's mixture weights on dev text, by likelihood of the words typed.

At each word start of the dev text the decider's components (engine.Component) give
the true word a probability each; the weights maximise the mean log-probability of
the mix. A grid over the simplex is exact enough for four weights and needs no
solver. Components absent at a position (no document words yet) are left out and
the others renormalised, exactly as the decider mixes them.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np

from nextword.evaluate import read_documents
from nextword.words import WORD_RE

NAMES = ("neural", "ngram", "doc", "docbigram")
GRID_STEP = 0.05
FLOOR = 1e-9  # a word no component offers: counted as a miss, not as minus infinity


def collect(engine, files: list[Path], max_words: int) -> np.ndarray:
    """(N, C) probability of the true word per component; NaN where a component is absent."""
    rows = []
    for path in files:
        docs, _ = read_documents(path, max_words)
        for doc in docs:
            decider = engine.decider()
            for match in WORD_RE.finditer(doc):
                parts, *_ = decider.components(doc[: match.start()])
                row = [np.nan] * len(NAMES)
                for part in parts:
                    row[NAMES.index(part.name)] = part.prob(match.group(), engine.lexicon.index)
                rows.append(row)
    return np.array(rows, dtype=np.float64)


def fit(probs: np.ndarray) -> tuple[dict[str, float], float]:
    """The grid point of highest mean log-likelihood, and that likelihood."""
    present = ~np.isnan(probs)
    p = np.nan_to_num(probs)
    steps = int(round(1 / GRID_STEP))
    best, best_ll = None, -np.inf
    for combo in itertools.product(range(1, steps + 1), repeat=len(NAMES)):
        if sum(combo) != steps:
            continue
        w = np.array(combo, dtype=np.float64) * GRID_STEP
        mixed = (p * w).sum(axis=1) / (present * w).sum(axis=1)
        ll = float(np.log(np.maximum(mixed, FLOOR)).mean())
        if ll > best_ll:
            best, best_ll = w, ll
    assert best is not None
    return {n: round(float(x), 3) for n, x in zip(NAMES, best, strict=True)}, best_ll


def fit_and_save(model_dir: Path, files: list[Path], max_words: int) -> dict[str, float]:
    from nextword.engine import Engine

    engine = Engine.load(model_dir, warmup=False)
    probs = collect(engine, files, max_words)
    weights, ll = fit(probs)
    record = {
        "weights": weights,
        "mean_log_likelihood": round(ll, 4),
        "positions": len(probs),
        "fitted_on": [str(f) for f in files],
        "max_words_per_file": max_words,
    }
    (model_dir / "mixture.json").write_text(json.dumps(record, indent=2) + "\n")
    print(f"mixture weights {weights} (mean log-likelihood {ll:.3f} over {len(probs)} words)")
    return weights
