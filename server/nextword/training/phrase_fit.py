"""Fit the phrase threshold: the least score a phrase needs to be shown as ghost text.

    python -m nextword.training.phrase_fit [--model DIR] [--max-words N] [--precision P]
                                           [--corpus DIR]

writes `phrases.json` into the model directory (default: the bundled model), which the
engine reads (`Engine.phrase_threshold`, `Decider.shown_phrase`). The scores are the
model's own: after exporting a new model, fit it again with
`python -m nextword.training.phrase_fit --model DIR` (about two minutes here).

At each word boundary of the last `--max-words` words of each dev file (email, wiki,
sotu; `data.documents.last_words`, so `nextword eval --max-words`, which reads from a
file's start, measures on other words), the decider's phrase (`Decider.phrase`, up to
PHRASE_WORDS words) is scored by its mean log-probability per word, as Smart Compose
does (Chen et al., KDD 2019). Phrases of two words or more are the candidates to show
(a single word is the completion list's job). A candidate is *correct* when every one
of its words is the text's next word, the words joined by single spaces
(`evaluation.phrases.following_words`): exactly what Tab on the whole ghost text would
insert. Precision at a threshold t is the share of correct candidates among those
scoring at least t; the threshold fitted is the smallest whose precision reaches the
target (so coverage is the largest that keeps it), with at least MIN_SHOWN phrases
shown. The first-two-words precision (the share whose first two words are right, what
the word-by-word typist gains from) is reported beside it. When no threshold reaches
the target, `threshold` is null and no phrase is shown.

The target, DEFAULT_PRECISION, is explained where it is set.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nextword.data.documents import is_han_document, last_words, read_documents
from nextword.engine.words import WORD_RE
from nextword.evaluation.phrases import PHRASE_WORDS, following_words, matched

# Half the phrases shown right as a whole. In keys a wrong phrase costs little: blind
# Tab on whole phrases pays when P (c L - 1) > (1 - P)(L + 1) (a right phrase of L words
# saves c L - 1 keys, c about 5.5 characters a word with its space; a wrong one costs the
# Tab and L deletes), P > 0.23 for two words. What remains is the glance: every phrase
# shown is read, and a phrase's later words are also the first candidates at the next
# boundaries, so a right one adds less over the completion list than its length says.
# On the fit this was chosen with (the bundled model of issue 17, `by_precision`), 0.5
# instead of 0.3 kept two thirds of the right phrases and dropped nearly three quarters
# of the wrong ones; beyond 0.5 each right phrase lost bought fewer wrong ones dropped,
# and coverage fell under one boundary in a hundred. Ghost text right less often can
# still help (27% of GitHub Copilot's shown completions are accepted: Ziegler et al.,
# MAPS 2022), so 0.5 is on the cautious side; the word-by-word typist also gains from
# phrases whose first two words are right.
DEFAULT_PRECISION = 0.5
FIT_FILES = ("email", "wiki", "sotu")
DEFAULT_WORDS = 3000  # per file, from its end (the README evaluates the first 4,000)
# A threshold must keep this many phrases shown on the fit's text: one lucky phrase at
# the very top does not make a precision.
MIN_SHOWN = 30
CURVE = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


@dataclass(frozen=True)
class Scored:
    """A candidate phrase at one boundary: its score, length and how much of it was right."""

    score: float
    words: int
    matched: int

    @property
    def correct(self) -> bool:
        return self.matched == self.words


def fit_threshold(
    scored: Sequence[Scored], target: float, *, min_shown: int = MIN_SHOWN
) -> float | None:
    """The smallest score t with precision(t) >= `target` over at least `min_shown`
    phrases; None when there is none."""
    ordered = sorted(scored, key=lambda s: -s.score)
    best: float | None = None
    right = 0
    for i, phrase in enumerate(ordered):
        right += phrase.correct
        shown = i + 1
        # A threshold keeps every phrase scoring at least it: cut only after the last tie.
        if shown < len(ordered) and ordered[shown].score == phrase.score:
            continue
        if shown >= min_shown and right / shown >= target:
            best = phrase.score
    return best


def precision(
    scored: Sequence[Scored], threshold: float, correct: Callable[[Scored], bool]
) -> tuple[float, int]:
    """(share `correct`, count) of the phrases scoring at least `threshold`."""
    shown = [s for s in scored if s.score >= threshold]
    return sum(map(correct, shown)) / max(len(shown), 1), len(shown)


def first_two(phrase: Scored) -> bool:
    return phrase.matched >= 2


def collect(engine: Any, files: Sequence[Path], max_words: int) -> tuple[list[Scored], int]:
    """The candidate phrases at every word boundary of the files' last `max_words`
    words, and the number of boundaries."""
    scored: list[Scored] = []
    boundaries = 0
    for path in files:
        for doc in last_words(read_documents(path)[0], max_words):
            if is_han_document(doc):
                continue
            decider = engine.decider()  # per-document state starts empty
            for match in WORD_RE.finditer(doc):
                boundaries += 1
                found = decider.phrase(doc[: match.start()], "", PHRASE_WORDS)
                if found is None or len(found.words) < 2:
                    continue
                following = following_words(doc, match.start(), len(found.words))
                scored.append(
                    Scored(found.score, len(found.words), matched(found.words, following))
                )
    return scored, boundaries


def record(
    scored: Sequence[Scored], boundaries: int, target: float, files: Sequence[Path], max_words: int
) -> dict[str, Any]:
    """What phrases.json holds: the threshold, what it achieved, and the curve."""
    threshold = fit_threshold(scored, target)
    out: dict[str, Any] = {
        "threshold": threshold,
        "score": "mean natural log-probability per word of the phrase (Decider.phrase)",
        "correct": "every word of the phrase is the text's next word, joined by single spaces",
        "precision_target": target,
    }
    if threshold is not None:
        achieved, shown = precision(scored, threshold, lambda s: s.correct)
        out["precision"] = round(achieved, 4)
        out["precision_first_two"] = round(precision(scored, threshold, first_two)[0], 4)
        out["coverage"] = round(shown / max(boundaries, 1), 4)
        out["shown"] = shown
    out["positions"] = boundaries
    out["candidates"] = len(scored)
    curve = {}
    for p in CURVE:
        t = fit_threshold(scored, p)
        if t is not None:
            achieved, shown = precision(scored, t, lambda s: s.correct)
            curve[f"{p:g}"] = {
                "threshold": round(t, 4),
                "precision": round(achieved, 4),
                "coverage": round(shown / max(boundaries, 1), 4),
            }
    out["by_precision"] = curve
    out["max_words"] = PHRASE_WORDS
    out["max_words_per_file"] = max_words
    out["files"] = [str(f) for f in files]
    out["method"] = "python -m nextword.training.phrase_fit (training/phrase_fit.py)"
    return out


def fit_parser(prog: str, default_words: int) -> argparse.ArgumentParser:
    """The arguments of a fit on the last words of the FIT_FILES dev splits (this one,
    training/speculation_fit.py): --model, --corpus, --max-words."""
    from nextword.engine.loader import DEFAULT_MODEL

    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="model directory")
    parser.add_argument("--corpus", type=Path, help="the prepared corpus (default: as eval)")
    parser.add_argument(
        "--max-words", type=int, default=default_words, help="words per dev file, from its end"
    )
    return parser


def fit_files(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[Path]:
    """The FIT_FILES dev splits of the corpus `args` names; a usage error where
    --max-words is not positive or a file is missing."""
    from nextword.data.corpus import default_corpus

    if args.max_words < 1:
        parser.error("--max-words takes a positive count")
    corpus = args.corpus or default_corpus()
    files = [corpus / "dev" / f"{name}.txt" for name in FIT_FILES]
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        parser.error(f"no dev text at {missing[0]}: run `nextword prepare-corpus` or pass --corpus")
    return files


def main(argv: list[str] | None = None) -> int:
    from nextword.engine.engine import Engine

    parser = fit_parser("python -m nextword.training.phrase_fit", DEFAULT_WORDS)
    parser.add_argument(
        "--precision",
        type=float,
        default=DEFAULT_PRECISION,
        help=f"the share of shown phrases right as a whole (default {DEFAULT_PRECISION})",
    )
    args = parser.parse_args(argv)
    if not 0 < args.precision <= 1:
        parser.error("--precision takes a share in (0, 1]")
    files = fit_files(parser, args)
    engine = Engine.load(args.model, warmup=False)
    scored, boundaries = collect(engine, files, args.max_words)
    fitted = record(scored, boundaries, args.precision, files, args.max_words)
    (Path(args.model) / "phrases.json").write_text(json.dumps(fitted, indent=2) + "\n")
    if fitted["threshold"] is None:
        print(f"no threshold reaches precision {args.precision}: no phrases will be shown")
    else:
        print(
            f"threshold {fitted['threshold']}: precision {fitted['precision']} "
            f"(first two words {fitted['precision_first_two']}), coverage {fitted['coverage']} "
            f"of {boundaries} boundaries"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
