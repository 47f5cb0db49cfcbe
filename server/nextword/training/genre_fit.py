"""Fit how fast the trigram follows the document's genre: mixture.json's
`genre_evidence_words` (engine/genres.py).

    python -m nextword.training.genre_fit [--model DIR] [--corpus DIR] [--words N]

Each dev file's documents are read in order, and at each word the genres' trigrams,
mixed by the document's weights so far, give the word its probability; the weights
are then updated by it, as in the server. The prior's weight c is the grid value with
the best mean log-probability of the words, each file weighing the same (so the chat
and the speeches count as much as the kernel docs). c = infinity is the fixed prior:
the genres mixed by their shares of the training mix, whatever the document. The
per-file figures of every grid value go into mixture.json's `genre_fit`, the model
card's comparison.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from nextword.data.documents import last_words, read_documents
from nextword.engine.genres import GenreNGram, GenreWeights
from nextword.engine.ngram import NGram, events
from nextword.engine.weights import DEFAULT_WEIGHTS

GRID = (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 200.0, math.inf)
FIT_FILES = ("chat", "email", "sotu", "wiki", "moby", "pydocs", "relnotes", "kernel", "pystdlib")
DEFAULT_WORDS = 3000
FLOOR = 1e-12


def file_log_likelihood(
    model: GenreNGram, index: dict[str, int], docs: list[str], evidence: float
) -> float:
    """Mean log-probability of the documents' lexicon words under the genre mixture
    that follows each document (the fixed prior where `evidence` is infinite)."""
    total, n = 0.0, 0
    for doc in docs:
        tracker = GenreWeights(model, index, evidence=1e30 if math.isinf(evidence) else evidence)
        text = ""
        for event in events(doc):
            w = index.get(event)
            if event != "<s>" and w is not None:
                tracker.update(text)
                p = float(tracker.weights @ model.probs(tracker.history, w))
                total += math.log(max(p, FLOOR))
                n += 1
            text += event + " " if event != "<s>" else ". "
    return total / max(1, n)


def score(
    model: GenreNGram, index: dict[str, int], texts: dict[str, list[str]], evidence: float
) -> dict[str, float]:
    """Each file's mean log-probability, and their mean."""
    row = {name: file_log_likelihood(model, index, docs, evidence) for name, docs in texts.items()}
    row["mean"] = float(np.mean(list(row.values())))
    return {k: round(v, 4) for k, v in row.items()}


def fit(
    model: GenreNGram,
    index: dict[str, int],
    files: list[Path],
    words: int,
    pooled: NGram | None = None,
) -> tuple[float, dict[str, dict[str, float]]]:
    """(the best c, per grid value the mean log-probability of each file and their mean);
    with `pooled`, one trigram over all the training text, its figures as "pooled"."""
    table: dict[str, dict[str, float]] = {}
    texts = {f.stem: last_words(read_documents(f)[0], words) for f in files}
    for c in GRID:
        row = score(model, index, texts, c)
        table["inf" if math.isinf(c) else f"{c:g}"] = row
        print(f"genre evidence {c:g} words: mean log-probability {row['mean']:.4f}", flush=True)
    if pooled is not None:
        table["pooled"] = score(
            GenreNGram([pooled], ["all"], np.ones(1), 1.0, pooled.fold), index, texts, 1.0
        )
        print(f"one trigram for all: mean log-probability {table['pooled']['mean']:.4f}")
    finite = {k: v for k, v in table.items() if k not in ("inf", "pooled")}
    best = max(finite, key=lambda k: finite[k]["mean"])
    return float(best), table


def fit_and_save(
    model_dir: Path, files: list[Path], words: int = DEFAULT_WORDS, pooled: Path | None = None
) -> float:
    """Fit c for the model in `model_dir` and write it into its mixture.json; `pooled`:
    a model directory of the same lexicon with one trigram, measured beside it."""
    from nextword.engine.engine import Engine

    engine = Engine.load(model_dir, warmup=False)
    model = engine.tables.ngram
    if not isinstance(model, GenreNGram):
        print(f"{model_dir}: one trigram for all genres, nothing to fit")
        return 0.0
    one = Engine.load(pooled, warmup=False).tables.ngram if pooled is not None else None
    if one is not None and not isinstance(one, NGram):
        raise SystemExit(f"{pooled}: not a model with one trigram")
    best, table = fit(model, engine.lexicon.index, files, words, one)
    path = model_dir / "mixture.json"
    record: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    # A fresh export has no mixture yet: the defaults stand until mixture.py fits it.
    record.setdefault("weights", dict(DEFAULT_WEIGHTS))
    record["genre_evidence_words"] = best
    record["genre_fit"] = {
        "objective": "mean log-probability of the trigram alone, per dev file, files weighing "
        "the same; 'inf' is the fixed prior (the genres' shares of the training mix)",
        "genres": model.names,
        "prior": [round(float(p), 4) for p in model.prior],
        "words_per_file": words,
        "grid": table,
    }
    path.write_text(json.dumps(record, indent=2) + "\n")
    print(f"genre_evidence_words {best:g} -> {path}")
    return best


def main(argv: list[str] | None = None) -> int:
    from nextword.engine.loader import DEFAULT_MODEL

    parser = argparse.ArgumentParser(prog="python -m nextword.training.genre_fit")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--corpus", type=Path, default=Path("data/corpus"))
    parser.add_argument("--words", type=int, default=DEFAULT_WORDS)
    parser.add_argument(
        "--pooled", type=Path, help="a model directory of the same lexicon with one trigram"
    )
    args = parser.parse_args(argv)
    files = [args.corpus / "dev" / f"{name}.txt" for name in FIT_FILES]
    fit_and_save(args.model, [f for f in files if f.exists()], args.words, args.pooled)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
