"""Fit the weights of the personal store's components ("user", "userbigram") on dev text.

    python -m nextword.training.personal_fit [FILE ...] [--max-words N] [--model DIR] [--dry-run]

Each file stands for one user's writing, split by document: the store learns the
earlier half of its documents (by words), then the later documents are typed word by
word, the store learning each word once it is written, as the server does. At every
word start, and once its first and second letters are typed, the decider's components
are kept (mixture.py's positions); the model's fitted weights stay fixed and a grid
over the two personal weights picks the best top-3 rate (mixture.py's objective, one
more letter deep: see MAX_PREFIX). The result goes into the model's mixture.json
("weights" and a "user_fit" record).

The figures the README reports are measured by evaluation/learning.py on other files.
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np

from nextword.data.documents import first_words, split_documents
from nextword.engine.personal import PersonalStore
from nextword.engine.weights import BASE, GENERAL, PERSONAL, USER, USERBIGRAM
from nextword.engine.words import WORD_RE
from nextword.training.mixture import pad, position, score

NAMES = (*BASE, *PERSONAL, GENERAL)
# Two kinds of user: one who writes like the model's training text (git release notes,
# a training source), one who does not (the King James Bible, not one).
FIT_FILES = [Path("data/corpus/dev/relnotes.txt"), Path("data/corpus/dev/kjv.txt")]
GRID = [round(float(x), 2) for x in np.arange(0, 0.51, 0.05)]
MAX_WORDS = 3000  # typed per file, from its later documents
# The objective counts top-3 hits at word starts and after 1 and 2 letters: mixture.py
# stops at one letter, but a personal word (a name, an identifier) is rare and most
# often offered once a letter or two narrow the field; that is where the store helps.
MAX_PREFIX = 2
PREFIXES = range(MAX_PREFIX + 1)


# Per file, per prefix length typed (0, 1, ... MAX_PREFIX), the positions.
Positions = dict[Path, list[list[np.ndarray]]]


def collect(engine: Any, files: list[Path], max_words: int) -> Positions:
    """Per file, positions (mixture.collect's) with the personal components, learning
    online: at word starts, and after each of the first MAX_PREFIX letters."""
    out: Positions = {}
    # The personal components computed whatever their weight now.
    every = engine.mixture.with_weights(**{USER: 1.0, USERBIGRAM: 1.0})
    for path in files:
        typed: list[list[np.ndarray]] = [[] for _ in range(MAX_PREFIX + 1)]
        out[path] = typed
        earlier, later = split_documents(path)
        store = PersonalStore.learned_from(earlier)
        for doc in first_words(later, max_words):
            decider = engine.decider(store=store, mixture=every)
            for match in WORD_RE.finditer(doc):
                context, word = doc[: match.start()], match.group()
                parts = decider.components(context).parts
                for n in range(min(len(word) - 1, MAX_PREFIX) + 1):
                    typed[n].append(position(parts, word, engine.lexicon, word[:n], names=NAMES))
                store.learn_word(context, word)
    return out


def objective(typed: list[np.ndarray], weights: list[float]) -> tuple[float, float]:
    """The top-3 rate averaged over the prefix lengths, then the word-start log-likelihood."""
    w = np.array(weights)
    rates = [score(positions, w) for positions in typed]
    return float(np.mean([top3 for top3, _ in rates])), rates[0][1]


def fit(positions: Positions, base: dict[str, float]) -> tuple[dict[str, float], dict[str, Any]]:
    """The best (user, userbigram) on the grid over all files, and the objective with
    and without them, over all and per file."""
    fixed = [base[name] for name in BASE]
    general = base.get(GENERAL, 0.0)
    every = [pad([p for typed in positions.values() for p in typed[n]]) for n in PREFIXES]
    best = max(
        itertools.product(GRID, GRID), key=lambda uw: objective(every, [*fixed, *uw, general])
    )

    def summary(typed: list[np.ndarray]) -> dict[str, float]:
        (off, ll_off), (on, ll_on) = (
            objective(typed, [*fixed, 0.0, 0.0, general]),
            objective(typed, [*fixed, *best, general]),
        )
        return {
            "top3_without": round(off, 4),
            "top3_with": round(on, 4),
            "mean_log_likelihood_without": round(ll_off, 4),
            "mean_log_likelihood_with": round(ll_on, 4),
        }

    result: dict[str, Any] = summary(every)
    result["per_file"] = {
        str(path): summary([pad(typed[n]) for n in PREFIXES]) for path, typed in positions.items()
    }
    result["positions"] = len(every[0])
    return {USER: best[0], USERBIGRAM: best[1]}, result


def main(argv: list[str] | None = None) -> int:
    from nextword.engine.engine import Engine
    from nextword.engine.loader import DEFAULT_MODEL

    parser = argparse.ArgumentParser(
        prog="python -m nextword.training.personal_fit", description=__doc__
    )
    parser.add_argument("files", nargs="*", type=Path, default=FIT_FILES)
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--max-words", type=int, default=MAX_WORDS)
    parser.add_argument("--dry-run", action="store_true", help="print, do not write")
    args = parser.parse_args(argv)

    engine = Engine.load(args.model, warmup=False)
    weights, summary = fit(collect(engine, args.files, args.max_words), engine.mixture.weights)
    print(f"personal weights {weights}: {json.dumps(summary, indent=2)}")
    if args.dry_run:
        return 0
    path = args.model / "mixture.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record["weights"].update(weights)
    record["user_fit"] = {
        "objective": "top-3 rate at word starts and after 1 and 2 letters (averaged), then "
        "log-likelihood; other weights fixed",
        "method": "the store learns the earlier half of each file's documents (by words), "
        "then the later documents are typed, each word learned once written",
        "grid": GRID,
        **summary,
        "fitted_on": [str(f) for f in args.files],
        "max_words_per_file": args.max_words,
    }
    path.write_text(json.dumps(record, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
