"""Fit the speculation thresholds (SPECULATE_MIN, SPACE_MIN in engine/decider.py).

    python -m nextword.training.speculation_fit [--model DIR] [--max-words N] [--corpus DIR]

prints, for each threshold, how many boundaries a speculation would have decided
right on the last `--max-words` words of each dev file (email, wiki, sotu; the same
words the phrase threshold is fitted on, not those `nextword eval` reads).

- A word: at each of its prefixes the decider's guess (`Decider.guess`: the likeliest
  completion, or the prefix as a whole word) is read. The one guess per word is made
  at the first prefix whose guess reaches the threshold; it is right when it is the
  word and a space follows. A low threshold guesses early and often wrongly, a high
  one too late or never: the fit takes the threshold with the most right guesses.
- Punctuation that a space may follow ("questions."): the guess is the space, made
  when the model gives a space-led token at least the threshold. It costs a mixture,
  not a forward, so the fit takes the threshold with the most right guesses less
  wrong ones.

Each guess costs the server a forward (~5 ms here) whether right or wrong, so the table
shows the guesses made beside the right ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nextword.data.documents import is_han_document, last_words, read_documents
from nextword.engine.words import WORD_RE
from nextword.training.phrase_fit import fit_files, fit_parser

DEFAULT_WORDS = 2000
GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


@dataclass
class Guesses:
    """What the guesses would have been at every word and punctuation boundary."""

    # Per word: the guess and its probability at each prefix, and the word (with the
    # space after it, or "" when no space followed).
    words: list[tuple[list[tuple[float, str]], str]] = field(default_factory=list)
    # Per boundary after punctuation: the model's P(space), and whether a space came.
    spaces: list[tuple[float, bool]] = field(default_factory=list)


def collect(engine: Any, files: Sequence[Path], max_words: int) -> Guesses:
    found = Guesses()
    for path in files:
        for doc in last_words(read_documents(path)[0], max_words):
            if is_han_document(doc):
                continue
            decider = engine.decider()
            for match in WORD_RE.finditer(doc):
                context, word, end = doc[: match.start()], match.group(), match.end()
                decider.decide(context, "", 1)
                guesses = []
                for n in range(1, len(word) + 1):
                    guess = decider.guess(context, word[:n])
                    guesses.append((guess.prob, guess.text) if guess else (0.0, ""))
                following = doc[end : end + 1]
                found.words.append((guesses, word if following == " " else ""))
                if following and not following.isspace():
                    decider.decide(doc[: end + 1], "", 1)
                    space = decider.space_probability(doc[: end + 1])
                    if space is not None:
                        found.spaces.append((space, doc[end + 1 : end + 2] == " "))
    return found


def word_hits(found: Guesses, threshold: float) -> tuple[int, int]:
    """(guesses made, right) with this threshold, one guess per word at most."""
    made = right = 0
    for path, written in found.words:
        for prob, text in path:
            if prob >= threshold and text:
                made += 1
                right += text == written
                break
    return made, right


def space_hits(found: Guesses, threshold: float) -> tuple[int, int]:
    made = [came for prob, came in found.spaces if prob >= threshold]
    return len(made), sum(made)


def space_misses(found: Guesses, threshold: float) -> int:
    made, right = space_hits(found, threshold)
    return made - right


def main(argv: list[str] | None = None) -> int:
    from nextword.engine.engine import Engine

    parser = fit_parser("python -m nextword.training.speculation_fit", DEFAULT_WORDS)
    args = parser.parse_args(argv)
    files = fit_files(parser, args)
    found = collect(Engine.load(args.model, warmup=False), files, args.max_words)
    words, spaces = len(found.words), len(found.spaces)
    print(f"{words} words, {spaces} boundaries after punctuation")
    print("threshold | words: guesses, right (of all words) | spaces: guesses, right")
    best = max(GRID, key=lambda t: word_hits(found, t)[1])
    best_space = max(GRID, key=lambda t: space_hits(found, t)[1] - space_misses(found, t))
    for t in GRID:
        made, right = word_hits(found, t)
        s_made, s_right = space_hits(found, t)
        print(
            f"{t:.1f} | {made}, {right} ({right / max(words, 1):.1%}) | {s_made}, {s_right}"
            + ("  <- words" if t == best else "")
            + ("  <- spaces" if t == best_space else "")
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
