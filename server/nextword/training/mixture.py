"""Fit the decider's mixture weights on dev text.

At each word start of the dev text, each of the decider's components
(engine/components.py) ranks the words, with a confidence that scales its weight there.
A weight vector is scored by how often the mix puts the word actually typed among its
first three (top-3, what a user sees), at the word start and once its first letter
is typed (keystroke savings come from both), ties broken by the mean log-probability
of that word. The candidates a mix can rank
first are, in practice, among some component's own top few, so each position keeps
only the union of the components' top `TOP` words plus the true word. A grid over
the simplex is exact enough for four weights and needs no solver. Components absent
at a position (no document words yet) are left out and the others renormalised,
exactly as the decider mixes them.
"""

from __future__ import annotations

import argparse
import itertools
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from nextword.data.documents import last_words, read_documents
from nextword.engine.weights import (
    BASE,
    DOC,
    DOCBIGRAM,
    DOCUMENT,
    GENERAL,
    NEURAL,
    NGRAM,
    PERSONAL,
    SYSTEM,
    Mixture,
)
from nextword.engine.words import WORD_RE, is_han

NAMES = BASE
# With the general-English trigram (engine/general.py), where the model has one.
WITH_GENERAL = (*BASE, GENERAL)
# The document caches, whose weight grows with the document's length (Mixture.evidence).
DOC_COLUMNS = [NAMES.index(name) for name in DOCUMENT]
# Candidate half-weight lengths, in words; 0 is the fixed weights of the first models.
EVIDENCE_GRID = (0.0, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0)
# The length is chosen on the positions it is for: the first words of each document.
SHORT_WORDS = 50
# Lengths within this much top-3 of the best tie (the grid's spread is a few tenths of a
# point on about 5,000 short-document positions); the shortest of them is taken, since a
# short document's own words (its identifiers) are what its writer expects back.
EVIDENCE_TIE = 0.001
GRID_STEP = 0.05
TOP = 12  # each component's best words kept per position
FLOOR = 1e-9  # a word no component offers: counted as a miss, not as minus infinity
# Weight vectors scored in one matrix product (score_many): (N x R) x this many floats.
SCORED_AT_ONCE = 16


def position(
    parts: list[Any], word: str, lexicon: Any, prefix: str = "", names: tuple[str, ...] = NAMES
) -> np.ndarray:
    """(R + 1, C): the components' confidences, then the candidates' probabilities.

    Candidates are the words starting with `prefix`: each component's best `TOP`, and
    the word typed in row 1. NaN marks an absent component. Columns follow `names`.
    """
    lo, hi = lexicon.prefix_range(prefix)
    candidates = {word}
    for part in parts:
        dense = part.dense[lo:hi]
        top = np.argpartition(-dense, TOP)[:TOP] if len(dense) > TOP else range(len(dense))
        candidates.update(lexicon.words[lo + i] for i in top)
        extra = [w for w in part.extra if w.startswith(prefix)]
        candidates.update(sorted(extra, key=part.extra.get, reverse=True)[:TOP])
    ordered = [word, *sorted(candidates - {word})]
    rows = np.full((len(ordered) + 1, len(names)), np.nan)
    for part in parts:
        column = names.index(part.name)
        rows[0, column] = part.confidence
        rows[1:, column] = [part.prob(w, lexicon.index) for w in ordered]
    return rows


def fitted_names(engine: Any) -> tuple[str, ...]:
    """The components whose weights are fitted for `engine`, in column order."""
    return WITH_GENERAL if engine.tables.general is not None else NAMES


def collect(
    engine: Any, files: list[Path], max_words: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per position, (N, R + 1, C) confidences and candidate probabilities (zero-padded,
    columns `fitted_names`), and (N,) the words of the document before it.

    Two sets: at the word start, and after its first letter is typed (where the
    candidates are the words with that letter), since keystroke savings come from both.
    The positions are collected with the document caches at full weight; the length
    scaling is applied by `scaled`, so one collection serves every grid value.
    """
    names = fitted_names(engine)
    # Every component fitted is computed, whatever weight it has now (a decider skips
    # a component weighted 0, as one added since the last fit is).
    unweighted = {name: 1.0 for name in names if engine.mixture.weight(name) <= 0}
    full_weight = replace(engine.mixture, doc_evidence_words=0.0).with_weights(**unweighted)
    starts, letters, start_words, letter_words = [], [], [], []
    for path in files:
        for doc in last_words(read_documents(path)[0], max_words):
            decider = engine.decider(mixture=full_weight)
            for match in WORD_RE.finditer(doc):
                found = decider.components(doc[: match.start()])
                parts, words, word = found.parts, found.document_words, match.group()
                starts.append(position(parts, word, engine.lexicon, names=names))
                start_words.append(words)
                if len(word) > 1:
                    letters.append(position(parts, word, engine.lexicon, word[0], names))
                    letter_words.append(words)
    return pad(starts), pad(letters), np.array(start_words), np.array(letter_words)


def scaled(positions: np.ndarray, words: np.ndarray, half: float) -> np.ndarray:
    """The positions with the document caches' confidence scaled by Mixture.evidence."""
    if half <= 0:
        return positions
    out = positions.copy()
    out[:, 0, DOC_COLUMNS] *= (words / (words + half))[:, None]
    return out


def pad(positions: list[np.ndarray]) -> np.ndarray:
    width = max(len(p) for p in positions)
    out = np.zeros((len(positions), width, positions[0].shape[1]))
    for i, rows in enumerate(positions):
        out[i, : len(rows)] = rows
        out[i, len(rows) :] = np.where(np.isnan(rows[1]), np.nan, 0.0)
    return out


def score(positions: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """(top-3 rate, mean log-probability of the word typed) of one weight vector."""
    confidence, probs = np.nan_to_num(positions[:, 0, :]), positions[:, 1:, :]
    effective = confidence * weights  # (N, C): absent components weigh nothing
    norm = effective.sum(axis=1)  # (N,)
    mixed = (np.nan_to_num(probs) * effective[:, None, :]).sum(axis=2) / norm[:, None]  # (N, R)
    true = mixed[:, 0]
    rank = (mixed[:, 1:] > true[:, None]).sum(axis=1)
    top3 = float(((rank < 3) & (true > 0)).mean())
    return top3, float(np.log(np.maximum(true, FLOOR)).mean())


def score_many(positions: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`score` of each row of `weights` (K, C) at once: (K,) top-3 rates and mean
    log-probabilities. The candidates' probabilities times their component's confidence
    are computed once, so each weight vector costs one matrix product and a comparison."""
    confidence = np.nan_to_num(positions[:, 0, :])  # (N, C)
    scaled = np.nan_to_num(positions[:, 1:, :]) * confidence[:, None, :]  # (N, R, C)
    n, r, c = scaled.shape
    flat = scaled.reshape(n * r, c)
    top3, ll = np.empty(len(weights)), np.empty(len(weights))
    for lo in range(0, len(weights), SCORED_AT_ONCE):
        w = weights[lo : lo + SCORED_AT_ONCE].T  # (C, k)
        mixed = (flat @ w).reshape(n, r, -1)  # (N, R, k), unnormalised: ranks are the same
        norm = confidence @ w  # (N, k)
        true = mixed[:, 0, :]
        rank = (mixed[:, 1:, :] > true[:, None, :]).sum(axis=1)
        top3[lo : lo + len(w.T)] = ((rank < 3) & (true > 0)).mean(axis=0)
        p = true / np.where(norm > 0, norm, 1.0)
        ll[lo : lo + len(w.T)] = np.log(np.maximum(p, FLOOR)).mean(axis=0)
    return top3, ll


def fit(
    starts: np.ndarray, letters: np.ndarray, names: tuple[str, ...] = NAMES
) -> tuple[dict[str, float], float, float]:
    """The grid point with the best top-3 rate (word starts and first letters, averaged;
    then the word-start likelihood; the first in grid order on a tie), with that rate
    and likelihood."""
    steps = int(round(1 / GRID_STEP))
    combos = [
        combo
        for combo in itertools.product(range(steps + 1), repeat=len(names))
        if sum(combo) == steps and combo[0] + combo[1] > 0
    ]
    grid = np.array(combos, dtype=np.float64) * GRID_STEP
    top3_start, ll = score_many(starts, grid)
    top3_letter, _ = score_many(letters, grid)
    objective = (top3_start + top3_letter) / 2
    best = max(range(len(grid)), key=lambda i: (objective[i], ll[i], -i))
    weights = {n: round(float(x), 3) for n, x in zip(names, grid[best], strict=True)}
    return weights, float(objective[best]), float(ll[best])


def fit_evidence(
    starts: np.ndarray,
    letters: np.ndarray,
    start_words: np.ndarray,
    letter_words: np.ndarray,
    names: tuple[str, ...] = NAMES,
) -> tuple[dict[str, float], float, float, float, dict[str, float]]:
    """The weights and the caches' half-weight length: the weights at fixed cache weight
    first, then the length by the same objective on the first SHORT_WORDS words of each
    document (where it matters), then the weights again at that length, on everything.

    Returns (weights, half length, top-3, likelihood, short-document top-3 per length).
    """
    weights, _, _ = fit(starts, letters, names)
    vector = np.array([weights[n] for n in names])
    early_starts, early_letters = start_words < SHORT_WORDS, letter_words < SHORT_WORDS
    by_half = {}
    for half in EVIDENCE_GRID:
        top3_start, ll = score(scaled(starts, start_words, half)[early_starts], vector)
        top3_letter, _ = score(scaled(letters, letter_words, half)[early_letters], vector)
        by_half[half] = ((top3_start + top3_letter) / 2, ll)
    top = max(by_half[h][0] for h in EVIDENCE_GRID)
    tied = [h for h in EVIDENCE_GRID if by_half[h][0] >= top - EVIDENCE_TIE]
    best = min((h for h in tied if h > 0), default=tied[0])  # 0: fixed, not the shortest
    weights, top3, ll = fit(
        scaled(starts, start_words, best), scaled(letters, letter_words, best), names
    )
    grid = {f"{h:g}": round(by_half[h][0], 4) for h in EVIDENCE_GRID}
    return weights, best, top3, ll, grid


def fit_and_save(model_dir: Path, files: list[Path], max_words: int) -> dict[str, float]:
    from nextword.engine.engine import Engine

    engine = Engine.load(model_dir, warmup=False)
    positions = collect(engine, files, max_words)
    weights, half, top3, ll, grid = fit_evidence(*positions, fitted_names(engine))
    # The personal store's weights (personal_fit.py) are fitted separately: keep them.
    old = _read(model_dir / "mixture.json")
    personal = {k: v for k, v in old.get("weights", {}).items() if k in PERSONAL}
    record: dict[str, Any] = {
        "weights": {**weights, **personal},
        "doc_evidence_words": half,
        "objective": "top-3 rate at word starts and after one letter, then log-likelihood",
        "top3": round(top3, 4),
        "mean_log_likelihood": round(ll, 4),
        "doc_evidence_grid_top3": grid,
        "doc_evidence_fitted_on": f"the first {SHORT_WORDS} words of each document",
        "positions": len(positions[0]),
        "fitted_on": [str(f) for f in files],
        "max_words_per_file": max_words,
    }
    # As are the genres' prior weight (genre_fit.py) and the personal fit's record.
    for key in ("genre_evidence_words", "genre_fit", "user_fit"):
        if key in old:
            record[key] = old[key]
    (model_dir / "mixture.json").write_text(json.dumps(record, indent=2) + "\n")
    print(
        f"mixture weights {weights}, document caches at half weight after {half:g} words: "
        f"top-3 {top3:.3f}, log-likelihood {ll:.3f}"
    )
    return weights


def main(argv: list[str] | None = None) -> int:
    """Refit an exported English model's mixture on the dev splits of its training
    sources (training.json), as the export does: after a component is added to it."""
    from nextword.data.corpus import default_corpus
    from nextword.engine.loader import DEFAULT_MODEL

    parser = argparse.ArgumentParser(prog="python -m nextword.training.mixture")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="model directory")
    parser.add_argument("--corpus", type=Path, help="the prepared corpus (default: as eval)")
    parser.add_argument("--max-words", type=int, default=1500, help="words per dev file")
    args = parser.parse_args(argv)
    sources = _read(args.model / "training.json").get("sources")
    if not sources:
        parser.error(f"{args.model / 'training.json'} names no training sources")
    corpus = args.corpus or default_corpus()
    files = [corpus / "dev" / f"{source}.txt" for source in sources]
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        parser.error(f"no dev text at {missing[0]}: run `nextword prepare-corpus` or pass --corpus")
    fit_and_save(args.model, files, args.max_words)
    return 0


def _read(path: Path) -> dict[str, Any]:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


HAN_DOC_GRID = (0.0, 0.15, 0.3, 0.5, 0.8)
HAN_NGRAM_GRID = (0.0, 0.15, 0.3, 0.5, 0.8)
HAN_SYSTEM_GRID = (0.0, 0.25, 0.5, 1.0, 2.0)
HAN_FIT_CHARS = 1500  # per dev file, from its last documents


def fit_han_and_save(model_dir: Path, files: list[Path]) -> dict[str, float]:
    """A Chinese model's mixture: its distribution, the character trigram, the
    document cache (engine/hantables.py, engine/hancache.py) and, where installed, the
    system's language model (engine/systemlm.py).

    The word caches count space-separated words, which Chinese does not have: they are
    off. The trigram's weight is chosen first (the cache at 0.3, the system model off),
    then the cache's, then the system model's, each the grid value with the best
    next-character top-3 at every Han position of the last HAN_FIT_CHARS characters of
    each dev file (documents an evaluation of the first dev characters never reads),
    ties broken by the characters accepted beyond the first. Without the system model
    its weight is 0 and not searched.
    """
    from nextword.engine.engine import Engine

    engine = Engine.load(model_dir, warmup=False)
    docs = [d for f in files for d in _last_characters(read_documents(f)[0], HAN_FIT_CHARS)]

    def score(weights: dict[str, float]) -> tuple[float, float]:
        mixture = Mixture({NEURAL: 1.0, DOCBIGRAM: 0.0, **weights})
        positions = hits = saved = 0
        for doc in docs:
            decider = engine.decider(mixture=mixture)
            for i, char in enumerate(doc):
                if not is_han(char):
                    continue
                top = [c.text for c in decider.decide(doc[:i], "", 3)]
                matched = [len(c) for c in top if doc.startswith(c, i)]
                positions += 1
                hits += char in [c[0] for c in top]
                saved += max(matched, default=1) - 1
        return hits / max(positions, 1), saved / max(positions, 1)

    stages = [(NGRAM, HAN_NGRAM_GRID), (DOC, HAN_DOC_GRID)]
    if engine.tables.system is not None:
        stages.append((SYSTEM, HAN_SYSTEM_GRID))
    best = {NGRAM: 0.0, DOC: 0.3, SYSTEM: 0.0}
    grid: dict[str, float] = {}
    top3 = 0.0
    for name, values in stages:
        results = []
        for w in values:
            tried = {**best, name: w}
            top3, chars = score(tried)
            label = ", ".join(f"{n} {v}" for n, v in tried.items())
            grid[label] = round(top3, 4)
            results.append((top3, chars, w))
            print(f"{label}: next-character top-3 {top3:.4f}", flush=True)
        top3, _, chosen = max(results)
        best[name] = chosen
    weights = {NEURAL: 1.0, **best, DOCBIGRAM: 0.0}
    record = {
        "weights": weights,
        "objective": "the character trigram's weight, then the document cache's, then the "
        "system language model's (where installed), by next-character top-3 at each Han "
        "position (then characters accepted); the word caches off",
        "grid": grid,
        "top3": round(top3, 4),
        "fitted_on": [f"{f} (the last {HAN_FIT_CHARS} characters)" for f in files],
    }
    if engine.tables.system is not None:
        record["system_lm"] = str(engine.tables.system.path)
    (model_dir / "mixture.json").write_text(json.dumps(record, indent=2) + "\n")
    return weights


def _last_characters(docs: list[str], n: int) -> list[str]:
    """The last documents, cut so that they hold `n` characters in all (the earliest of
    them loses its beginning)."""
    out: list[str] = []
    for doc in reversed(docs):
        if n <= 0:
            break
        out.insert(0, doc[-n:])
        n -= len(doc)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
