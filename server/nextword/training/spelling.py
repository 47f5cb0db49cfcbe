"""Build the words corrections may offer beyond the lexicon: models/spelling.txt.

    python -m nextword.training.spelling [--cache DIR] [--out FILE]

The corrections (engine/corrections.py) explain a typed prefix as a mistake in the
prefix of a word the engine knows. The lexicon holds the training text's words, a
third of them identifiers, so a mistyped "acquiese" had nothing to be corrected to.
This list holds the words of general English from wordfreq's list (data/wordfreq.py):
lower-case words of MIN_LETTERS letters a-z or more, at least MIN_FREQUENCY per word of
running text, less misspellings: web text writes "recieved" and "adress" often enough
for wordfreq to list them. Out go the misspellings in codespell's allowed part, and
any word one typing mistake (engine/corrections.py's kinds) from a word TYPO_RATIO
times as frequent: that it is written at all is most likely the mistake. The engine
drops the words its own lexicon holds when it loads the list (the model ranks those
in context).

Lines `word<TAB>frequency`, sorted by word.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from nextword.data.misspellings import allowed_pairs
from nextword.data.wordfreq import LICENSE, WORDFREQ, english_frequencies
from nextword.engine.corrections import SLIPS, edits
from nextword.engine.loader import MODELS_DIR

# One in ten million words: about the rarest a typist writes in a year of email,
# and where wordfreq's English list thins into typos and names.
MIN_FREQUENCY = 1e-7
MIN_LETTERS = 4  # the typos the evaluator makes and the corrector reads start at three
# "recieved" (4e-7) beside "received" (5e-5); "lose" and "loose" are within 3x.
TYPO_RATIO = 20.0
DEFAULT_OUT = MODELS_DIR / "spelling.txt"
_WORD = re.compile(r"[a-z]+")


def select(frequencies: dict[str, float], misspellings: set[str]) -> dict[str, float]:
    return {
        word: freq
        for word, freq in frequencies.items()
        if freq >= MIN_FREQUENCY
        and len(word) >= MIN_LETTERS
        and _WORD.fullmatch(word)
        and word not in misspellings
        and not looks_mistyped(word, freq, frequencies)
    }


def looks_mistyped(word: str, freq: float, frequencies: dict[str, float]) -> bool:
    """True when one typing mistake turns a word TYPO_RATIO times as frequent into `word`."""
    return any(
        frequencies.get(intended, 0.0) >= TYPO_RATIO * freq
        for intended, kind in edits(word)
        if kind in SLIPS
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nextword.training.spelling")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache/nextword/sources")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    cache = args.cache
    misspellings = {wrong for wrong, _ in allowed_pairs(cache)}
    chosen = select(english_frequencies(cache), misspellings)
    lines = [f"{word}\t{freq:.3g}" for word, freq in sorted(chosen.items())]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines):,} words from PyPI {WORDFREQ} ({LICENSE}) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
