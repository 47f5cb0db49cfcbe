"""In-word filtering: the words of a boundary's distribution that start with the typed
prefix, and, with corrections on, the words a misspelled prefix stands for.

Never a model call: a tenth of a millisecond of numpy over the cached distribution
(boundary.py), which is why the server answers keystrokes inside a word with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from nextword.engine.components import Candidate
from nextword.engine.corrections import MIN_TYPED, SPELLING_MIN_TYPED

if TYPE_CHECKING:
    from nextword.engine.boundary import Boundary
    from nextword.engine.wordtables import WordTables


def filter_words(
    boundary: Boundary,
    prefix: str,
    n: int,
    tables: WordTables,
    *,
    correct: bool = False,
    typed: bool = False,
) -> list[Candidate]:
    """The `n` most probable words starting with `prefix`, from the cached distribution;
    with `correct`, and words one typing mistake away (corrections.py) among them;
    with `typed`, the prefix itself as a word among them (no completion, but a guess).

    The word start's candidates are kept with the boundary: every reader of a
    decision (the popup, the ghost text, the phrase search) asks for them.
    """
    if not prefix:
        starts = boundary.starts
        if starts is None or starts[0] < n:
            starts = n, _words(boundary, "", n, tables, False, False)
            boundary.starts = starts
        return starts[1][:n]
    return _words(boundary, prefix, n, tables, correct, typed)


def _words(
    boundary: Boundary, prefix: str, n: int, tables: WordTables, correct: bool, typed: bool
) -> list[Candidate]:
    if not prefix:
        own = tables.start_candidates(boundary.dense, n, boundary.context)
        if own is not None:
            return own
    lex = tables.lexicon
    lo, hi = lex.prefix_range(prefix)
    probs = boundary.dense[lo:hi]
    if len(probs) > n:
        top = np.argpartition(-probs, n)[:n]
    else:
        top = np.arange(len(probs))
    found = {lex.words[lo + i]: float(probs[i]) for i in top if probs[i] > 0}
    for word, p in boundary.extra.items():
        if word.startswith(prefix):
            found[word] = found.get(word, 0.0) + p
    # The word already typed in full is no completion.
    typed_word = found.get(prefix, 0.0) if typed else found.pop(prefix, 0.0)
    mass = float(probs.sum()) + sum(
        p for word, p in boundary.extra.items() if word.startswith(prefix)
    )
    # What the token search found for a shorter prefix is only part of its mass.
    mass += sum(rest for p, rest in boundary.unspelled.items() if prefix.startswith(p))
    corrector = tables.corrector
    if correct and mass == 0 and len(prefix) >= MIN_TYPED and corrector is not None:
        # Nothing the tables know starts so: the words of general English that do
        # ("upstai": upstairs), by their frequency in running text, before the
        # token search spells out a new word.
        known, mass = corrector.spelling.completions(prefix, n)
        typed_word = max(typed_word, known.get(prefix, 0.0))
        if not typed:
            known.pop(prefix, None)  # typed in full: no completion
        found.update(known)
    corrections: dict[str, float] = {}
    if correct:
        corrections, corrected_mass = _corrections(boundary, prefix, n, tables, typed_word)
        mass += corrected_mass
    mass = mass or 1.0
    merged = [(word, p, False) for word, p in found.items()]
    merged += [(word, p, True) for word, p in corrections.items()]
    merged.sort(key=lambda item: (-item[1], item[0]))
    return [Candidate(word, p / mass, fix) for word, p, fix in merged[:n]]


def _corrections(
    boundary: Boundary, typed: str, n: int, tables: WordTables, typed_word: float
) -> tuple[dict[str, float], float]:
    """Words one edit (or two) from `typed`, weighed P(word | context) * P(typed | word), and
    the weight of all the words their prefixes hold (for the normalisation).

    A correction must outweigh the typed text read as a word of its own: a rare
    word typed right is not corrected into a common one. Words beyond the lexicon
    (`Spelling`) have no probability in context: their frequency in running text
    stands in for it, so they win only where no word the model knows explains
    the typing as well.
    """
    corrector = tables.corrector
    if corrector is None:
        return {}, 0.0
    lex, spelling = tables.lexicon, corrector.spelling
    typed_word = max(typed_word, spelling.frequency(typed.lower()))
    sources = [(lex.words, lex.prefix_range, boundary.dense)]
    if len(typed) >= SPELLING_MIN_TYPED:
        sources.append((spelling.words, spelling.prefix_range, spelling.freqs))
    out: dict[str, float] = {}
    mass = 0.0
    for prefix, rate in corrector.intended(typed).items():
        for words, prefix_range, weights in sources:
            lo, hi = prefix_range(prefix)
            if lo == hi:
                continue  # most explanations start words in one list, not both
            probs = weights[lo:hi]
            mass += rate * float(probs.sum())
            top = np.argpartition(-probs, n)[:n] if len(probs) > n else range(len(probs))
            for i in top:
                word, weight = words[lo + i], rate * float(probs[i])
                if typed[0].isupper() and word[0].islower():
                    word = word[0].upper() + word[1:]  # as the user wrote it: capitalised
                if weight > max(typed_word, out.get(word, 0.0)) and not word.startswith(typed):
                    out[word] = weight
    return out, mass
