"""Fit the phrase threshold: the least score a phrase needs to be shown as ghost text.

    python -m nextword.training.phrase_fit [--model DIR] [--max-words N] [--precision P]
                                           [--corpus DIR]

writes `phrases.json` into the model directory (default: the bundled model), which the
engine reads (`Engine.phrase_threshold`, `Decider.shown_phrase`). The scores are the
model's own: after exporting a new model, fit it again with
`python -m nextword.training.phrase_fit --model DIR` (about three minutes here).

At each word boundary of the last `--max-words` words of each dev file (email, wiki,
sotu; `data.documents.last_words`, so `nextword eval --max-words`, which reads from a
file's start, measures on other words), the decider's phrase (`Decider.phrase`, up to
PHRASE_WORDS words) is scored by its mean log-probability per word, as Smart Compose
does (Chen et al., KDD 2019). Phrases of two words or more are the candidates to show
(a single word is the completion list's job). A candidate is *correct* when every one
of its words is the text's next word, the words joined by single spaces
(`evaluation.phrases.following_words`): exactly what Tab on the whole ghost text would
insert. Precision at a threshold t is the share of correct candidates among those
scoring at least t, file by file, averaged over the files (`mean_precision`: each kind
of text weighs the same); the threshold fitted is the smallest whose precision reaches
the target (so coverage is the largest that keeps it), with at least MIN_SHOWN phrases
shown. The first-two-words precision (the share whose first two words are right, what
the word-by-word typist gains from) is reported beside it. When no threshold reaches
the target, `threshold` is null and no phrase is shown.

In a word the server shows the phrase searched with its guess of the word (at the
first prefix whose likeliest word is at least SPECULATE_MIN likely, lsp/ahead.py),
and the first word's probability there is given the typed prefix: scores run higher
than at a word start for phrases no more often right. The same fit at those prefixes
(the word being typed counts among the phrase's words) gives the in-word threshold,
`in_word` in phrases.json, for the same precision.

The target, DEFAULT_PRECISION, is explained where it is set.
"""

from __future__ import annotations

import argparse
import json
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

from nextword.data.documents import is_han_document, last_words, read_documents
from nextword.engine.decider import SPECULATE_MIN
from nextword.engine.words import WORD_RE
from nextword.evaluation.phrases import PHRASE_WORDS, following_words, guessed_at, matched

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
# phrases whose first two words are right. With each file weighing the same (since),
# one bundled model reached 0.5 in words only, and showed phrases there alone (the
# next reached it at word starts too, 0.513-0.518 on about 100 phrases): the target stays, as the
# phrases a lower one would add at word starts are right a quarter of the time or
# less on Wikipedia and State of the Union text, and add 0.3 points of KSR at most
# even when all are shown (README, Phrases).
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


Groups = Mapping[str, Sequence[Scored]]  # the candidates by fit file


def fit_threshold(groups: Groups, target: float, *, min_shown: int = MIN_SHOWN) -> float | None:
    """The smallest score t whose precision over `groups` (`mean_precision`) reaches
    `target`, with at least `min_shown` phrases shown in all; None when there is none."""
    # Each group's scores, highest first, and its correct phrases counted down them.
    ranked = []
    for group in groups.values():
        ordered = sorted(group, key=lambda s: -s.score)
        ranked.append(([-s.score for s in ordered], list(accumulate(s.correct for s in ordered))))
    best: float | None = None
    for t in sorted({s.score for group in groups.values() for s in group}, reverse=True):
        shares, shown = [], 0
        for negated, right in ranked:
            count = bisect_right(negated, -t)  # the phrases scoring at least t
            if not count:
                break
            shares.append(right[count - 1] / count)
            shown += count
        else:
            if shown >= min_shown and sum(shares) / len(shares) >= target:
                best = t
    return best


def mean_precision(
    groups: Groups, threshold: float, correct: Callable[[Scored], bool]
) -> tuple[float, int] | None:
    """(the mean over the groups of the share `correct` among their phrases scoring at
    least `threshold`, how many those are in all); None where a group shows none.

    Each kind of text weighs the same: pooled, the file with the most confident
    phrases would set the precision for all (on the bundled model's fit, the email
    dev split's mailing-list footers carried a pooled 0.5 while the Wikipedia and
    State of the Union phrases shown at that threshold were right 26% and 16% of the
    time).
    """
    shares, shown = [], 0
    for group in groups.values():
        share, count = precision(group, threshold, correct)
        if not count:
            return None
        shares.append(share)
        shown += count
    return sum(shares) / max(len(shares), 1), shown


def precision(
    scored: Sequence[Scored], threshold: float, correct: Callable[[Scored], bool]
) -> tuple[float, int]:
    """(share `correct`, count) of the phrases scoring at least `threshold`."""
    shown = [s for s in scored if s.score >= threshold]
    return sum(map(correct, shown)) / max(len(shown), 1), len(shown)


def first_two(phrase: Scored) -> bool:
    return phrase.matched >= 2


@dataclass
class Collected:
    """The candidate phrases of a fit's text, by file: at word starts, and in words."""

    boundaries: dict[str, list[Scored]] = field(default_factory=dict)
    in_word: dict[str, list[Scored]] = field(default_factory=dict)
    positions: int = 0  # word starts (each word of the text)


def collect(engine: Any, files: Sequence[Path], max_words: int) -> Collected:
    """The candidate phrases at every word start of the files' last `max_words` words,
    and in each word at the prefix the server guesses it at."""
    found = Collected()
    for path in files:
        at_starts = found.boundaries.setdefault(path.stem, [])
        in_words = found.in_word.setdefault(path.stem, [])
        for doc in last_words(read_documents(path)[0], max_words):
            if is_han_document(doc):
                continue
            decider = engine.decider()  # per-document state starts empty
            for match in WORD_RE.finditer(doc):
                found.positions += 1
                context, word = doc[: match.start()], match.group()
                following = following_words(doc, match.start(), PHRASE_WORDS)
                at_start = decider.phrase(context, "", PHRASE_WORDS)
                if at_start is not None and len(at_start.words) >= 2:
                    at_starts.append(_scored(at_start, following))
                prefix = guessed_at(decider, context, word)
                inside = prefix and decider.phrase(context, prefix, PHRASE_WORDS)
                if inside and len(inside.words) >= 2:
                    in_words.append(_scored(inside, following))
    return found


def _scored(found: Any, following: Sequence[str]) -> Scored:
    return Scored(found.score, len(found.words), matched(found.words, following))


def fitted(groups: Groups, positions: int, target: float) -> dict[str, Any]:
    """The threshold for `target` over one kind of candidates (at word starts or in
    words), what it achieved, on each file too, and the curve over CURVE."""
    threshold = fit_threshold(groups, target)
    out: dict[str, Any] = {"threshold": threshold}
    if threshold is not None:
        achieved = mean_precision(groups, threshold, lambda s: s.correct)
        two = mean_precision(groups, threshold, first_two)
        assert achieved is not None and two is not None
        out["precision"] = round(achieved[0], 4)
        out["precision_first_two"] = round(two[0], 4)
        out["coverage"] = round(achieved[1] / max(positions, 1), 4)
        out["shown"] = achieved[1]
        out["by_file"] = {}
        for name, group in groups.items():
            share, shown = precision(group, threshold, lambda s: s.correct)
            out["by_file"][name] = {"precision": round(share, 4), "shown": shown}
    out["positions"] = positions
    out["candidates"] = sum(len(group) for group in groups.values())
    curve = {}
    for p in CURVE:
        t = fit_threshold(groups, p)
        if t is not None:
            reached = mean_precision(groups, t, lambda s: s.correct)
            assert reached is not None
            curve[f"{p:g}"] = {
                "threshold": round(t, 4),
                "precision": round(reached[0], 4),
                "coverage": round(reached[1] / max(positions, 1), 4),
            }
    out["by_precision"] = curve
    return out


def record(
    found: Collected, target: float, files: Sequence[Path], max_words: int
) -> dict[str, Any]:
    """What phrases.json holds: the thresholds, what they achieved, and the curves."""
    out: dict[str, Any] = {
        "score": "mean natural log-probability per word of the phrase (Decider.phrase)",
        "correct": "every word of the phrase is the text's next word, joined by single spaces",
        "precision_is": "the mean over the fit's files of the share correct (each weighs the same)",
        "precision_target": target,
    }
    out.update(fitted(found.boundaries, found.positions, target))
    inside = fitted(found.in_word, found.positions, target)
    inside["where"] = (
        "in a word, at the first prefix whose likeliest word is at least "
        f"{SPECULATE_MIN} likely (the word typed counts among the phrase's words)"
    )
    out["in_word"] = inside
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
    found = collect(engine, files, args.max_words)
    fit = record(found, args.precision, files, args.max_words)
    (Path(args.model) / "phrases.json").write_text(json.dumps(fit, indent=2) + "\n")
    for where, part in (("at word starts", fit), ("in words", fit["in_word"])):
        if part["threshold"] is None:
            print(f"{where}: no threshold reaches precision {args.precision}: no phrases shown")
        else:
            print(
                f"{where}: threshold {part['threshold']}: precision {part['precision']} "
                f"(first two words {part['precision_first_two']}), coverage "
                f"{part['coverage']} of {found.positions} words"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
