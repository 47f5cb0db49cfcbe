"""Build the word lists corrections read: models/spelling.txt and models/misspellings.txt.

    python -m nextword.training.spelling [--cache DIR] [--out FILE] [--misspellings FILE]

The corrections (engine/corrections.py) explain a typed prefix as a mistake in the
prefix of a word the engine knows. The lexicon holds the training text's words, a
third of them identifiers, so a mistyped "acquiese" had nothing to be corrected to.
spelling.txt holds the words of general English from wordfreq's list (data/wordfreq.py):
lower-case words of MIN_LETTERS letters a-z or more, at least MIN_FREQUENCY per word of
running text, less misspellings: web text writes "recieved" and "adress" often enough
for wordfreq to list them. Out go the misspellings in codespell's allowed part, any
word one typing mistake (engine/errormodel.py's slips) from a word TYPO_RATIO times as
frequent, and any that a doubled letter struck where none is and one left out where
one is turn a word TWO_TYPO_RATIO times as frequent into ("tommorow", "sooo"): that it
is written at all is most likely the mistake. The engine drops the words its
own lexicon holds when it loads the list (the model ranks those in context), and
takes the lexicon's words the list holds for its prose (the rest are identifiers,
never corrections). Lines `word<TAB>frequency`, sorted by word.

misspellings.txt holds codespell's allowed misspellings (data/misspellings.py), the
lexicon's words that people misspell (`typed_misspellings`: "seperate", "tommorow",
"sooo") and those that draw a letter out (`drawn_out`: "soooo", "wayyyy"), lower case,
one a line, sorted: no completion, correction or phrase ever offers one unless the
user wrote it (engine/blocklist.py).
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from collections.abc import Iterable
from itertools import product
from pathlib import Path

import numpy as np

from nextword.data import casing
from nextword.data.misspellings import CODESPELL, allowed_pairs
from nextword.data.misspellings import LICENSE as CODESPELL_LICENSE
from nextword.data.wordfreq import LICENSE, WORDFREQ, english_frequencies
from nextword.engine.corrections import SLIP
from nextword.engine.deletions import deletes
from nextword.engine.errormodel import SLIPS, edits, pair_kinds
from nextword.engine.loader import MODELS_DIR

# One in ten million words: about the rarest a typist writes in a year of email,
# and where wordfreq's English list thins into typos and names.
MIN_FREQUENCY = 1e-7
MIN_LETTERS = 4  # the typos the evaluator makes and the corrector reads start at three
# "recieved" (4e-7) beside "received" (5e-5); "lose" and "loose" are within 3x.
TYPO_RATIO = 20.0
# "tommorow" (2e-7) beside "tomorrow" (7e-5). Any two slips, at this ratio, took out
# 5,000 of the list's words ("abode", "furthest", "inedible"); the doubled letters
# alone take out 29, most of them drawn-out words ("sooo", "yesss").
TWO_TYPO_RATIO = 100.0
DOUBLES = ("insert_double", "omit_double")
# A word of the lexicon is typed text's where the chats and emails write this share of
# it or more: a misspelling there is a person's ("seperate" 1.0), where the code and
# its documentation's names are not ("args" 0.0, "struct" 0.0, "eval" 0.29).
TYPED_GENRES = ("chat", "email")
TYPED_SHARE = 0.8
DEFAULT_OUT = MODELS_DIR / "spelling.txt"
DEFAULT_MISSPELLINGS = MODELS_DIR / "misspellings.txt"
_WORD = re.compile(r"[a-z]+")
_DRAWN = re.compile(r"([a-z])\1{2,}")


def select(
    frequencies: dict[str, float], misspellings: set[str]
) -> tuple[dict[str, float], dict[str, float]]:
    """(offered, slips): the list's words of general English, and those of them that
    one or two slips make of a far commoner word (`looks_mistyped`,
    `two_slips_from_commoner`): words all the same, never offered beyond the lexicon."""
    english = {
        word: freq
        for word, freq in frequencies.items()
        if freq >= MIN_FREQUENCY
        and len(word) >= MIN_LETTERS
        and _WORD.fullmatch(word)
        and word not in misspellings
    }
    once = {word for word, freq in english.items() if looks_mistyped(word, freq, frequencies)}
    listed = {word: freq for word, freq in english.items() if word not in once}
    slipped = once | two_slips_from_commoner(listed, frequencies)
    offered = {word: freq for word, freq in english.items() if word not in slipped}
    return offered, {word: english[word] for word in slipped}


def looks_mistyped(word: str, freq: float, frequencies: dict[str, float]) -> bool:
    """True when one typing mistake turns a word TYPO_RATIO times as frequent into `word`."""
    return any(
        frequencies.get(intended, 0.0) >= TYPO_RATIO * freq
        for intended, kind in edits(word)
        if kind in SLIPS
    )


def two_slips_from_commoner(words: dict[str, float], frequencies: dict[str, float]) -> set[str]:
    """The words of `words` that two slips of doubled letters turn a word TWO_TYPO_RATIO
    times as frequent into, found SymSpell's way: the commoner words filed under their
    deletes of up to two letters, each word looked up by its own."""
    floor = TWO_TYPO_RATIO * min(words.values(), default=1.0)
    filed: dict[str, list[str]] = defaultdict(list)
    for word, freq in frequencies.items():
        if freq >= floor and _WORD.fullmatch(word):
            for rest, _ in deletes(word, 2):
                filed[rest].append(word)
    out = set()
    for word, freq in words.items():
        near = {w for rest, _ in deletes(word, 2) for w in filed.get(rest, ())}
        for intended in near:
            if frequencies[intended] >= TWO_TYPO_RATIO * freq and any(
                a in DOUBLES and b in DOUBLES for a, b in pair_kinds(word, intended)
            ):
                out.add(word)
                break
    return out


def typed_misspellings(model: Path, slips: Iterable[str], dic: Path) -> set[str]:
    """The words of `model`'s lexicon that people misspell: marked as slips of a far
    commoner word (`select`), rejected by Hunspell's en_US dictionary `dic` in lower
    case and capitalised (not a name), and written mostly in the chats and emails
    (TYPED_SHARE). The chats write "seperate", "tommorow" and "sooo", and the lexicon
    offered them: "sepe" completed to seperate alone."""
    words, per_genre = casing.genre_counts(model)
    index = {word: i for i, word in enumerate(words)}
    typed = np.sum([per_genre[genre] for genre in TYPED_GENRES], axis=0)
    every = np.sum(list(per_genre.values()), axis=0)
    found = sorted(word for word in slips if word in index)
    rejected = casing.rejected(found, dic)
    names_rejected = casing.rejected([word.capitalize() for word in rejected], dic)
    return {
        word
        for word in rejected
        if word.capitalize() in names_rejected
        and typed[index[word]] >= TYPED_SHARE * every[index[word]]
    }


def drawn_out(model: Path, dic: Path) -> set[str]:
    """The words of `model`'s lexicon with a letter drawn out (three or more running:
    "soooo", "wayyyy", "niceeee", "hmmm"), in lower case, where the runs cut to one or
    two letters spell a word Hunspell's en_US dictionary `dic` accepts and the lexicon
    counts more often ("so", "way", "nice", "hmm"): the chats' stress, not a spelling to
    offer. Only words the chats and emails write (TYPED_SHARE: not "pppd"), not one
    Hunspell accepts, nor one written mostly in capitals ("IEEE", "VIII"), nor one
    letter repeated ("www", "zzz")."""
    words, per_genre = casing.genre_counts(model)
    every = np.sum(list(per_genre.values()), axis=0)
    typed_counts = np.sum([per_genre[genre] for genre in TYPED_GENRES], axis=0)
    # Each word's counts over its cases, as the misspellings are matched (lower case).
    total: dict[str, float] = defaultdict(float)
    typed: dict[str, float] = defaultdict(float)
    shouted: dict[str, float] = defaultdict(float)
    for word, count, by_typists in zip(words, every, typed_counts, strict=True):
        total[word.lower()] += count
        typed[word.lower()] += by_typists
        if word.isupper() and len(word) > 1:
            shouted[word.lower()] += count
    shorter: dict[str, set[str]] = {}
    for low, count in total.items():
        runs = _DRAWN.findall(low)
        if not low.isalpha() or not runs or len(set(low)) == 1 or shouted[low] > count / 2:
            continue
        if typed[low] < TYPED_SHARE * count:
            continue
        parts = _DRAWN.split(low)  # text, a run's letter, text, ...
        cut = {
            "".join(part * lengths[i // 2] if i % 2 else part for i, part in enumerate(parts))
            for lengths in product((1, 2), repeat=len(runs))
        }
        common = {w for w in cut if total.get(w, 0.0) > count}
        if common:
            shorter[low] = common
    if not shorter:
        return set()
    cuts = set().union(*shorter.values())
    accepted = cuts - casing.rejected(cuts, dic)
    drawn = {low for low, cut in shorter.items() if cut & accepted}
    return drawn & casing.rejected(drawn, dic)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nextword.training.spelling")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache/nextword/sources")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--misspellings", type=Path, default=DEFAULT_MISSPELLINGS)
    parser.add_argument(
        "--model", type=Path, default=MODELS_DIR / "en", help="whose lexicon's misspellings"
    )
    args = parser.parse_args(argv)
    cache = args.cache
    misspellings = {wrong.lower() for wrong, _ in allowed_pairs(cache)}
    offered, slips = select(english_frequencies(cache), misspellings)
    dic = casing.dictionary(cache)
    typed = typed_misspellings(args.model, slips, dic) - misspellings
    drawn = drawn_out(args.model, dic) - misspellings - typed
    lines = sorted(
        [(word, f"{word}\t{freq:.3g}") for word, freq in offered.items()]
        + [(word, f"{word}\t{freq:.3g}\t{SLIP}") for word, freq in slips.items()]
    )
    args.out.write_text("\n".join(line for _, line in lines) + "\n", encoding="utf-8")
    print(
        f"{len(offered):,} words (and {len(slips):,} marked {SLIP}) from PyPI {WORDFREQ} "
        f"({LICENSE}) -> {args.out}"
    )
    listed = misspellings | typed | drawn
    args.misspellings.write_text("\n".join(sorted(listed)) + "\n", encoding="utf-8")
    print(
        f"{len(misspellings):,} misspellings from PyPI {CODESPELL} ({CODESPELL_LICENSE}, the "
        f"allowed entries), {len(typed):,} of {args.model}'s lexicon, typed, and "
        f"{len(drawn):,} drawn out (Debian {casing.PACKAGE}, {casing.LICENSE}) -> "
        f"{args.misspellings}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
