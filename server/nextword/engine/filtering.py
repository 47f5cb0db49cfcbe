"""In-word filtering: the words of a boundary's distribution that start with the typed
prefix, and, with corrections on, the words a misspelled prefix stands for where the
gate (corrections.py) finds the prefix unlikely as typed.

Never a model call: a tenth of a millisecond of numpy over the cached distribution
(boundary.py), which is why the server answers keystrokes inside a word with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from nextword.engine.components import Candidate
from nextword.engine.corrections import (
    MIN_TYPED,
    CorrectionGate,
    Masses,
    cased,
    reads_as_name,
)
from nextword.engine.words import opens_in_capitals

if TYPE_CHECKING:
    from nextword.engine.boundary import Boundary
    from nextword.engine.lexicon import Lexicon
    from nextword.engine.wordtables import WordTables


def filter_words(
    boundary: Boundary,
    prefix: str,
    n: int,
    tables: WordTables,
    *,
    correct: CorrectionGate | None = None,
    typed: bool = False,
) -> list[Candidate]:
    """The `n` most probable words starting with `prefix`, from the cached distribution;
    with `correct`, and the words it misspells (corrections.py) among them where that
    gate opens; with `typed`, the prefix itself as a word among them (no completion,
    but a guess).

    The word start's candidates are kept with the boundary: every reader of a
    decision (the popup, the ghost text, the phrase search) asks for them.
    """
    if not prefix:
        starts = boundary.starts
        if starts is None or starts[0] < n:
            starts = n, _words(boundary, "", n, tables, None, False)
            boundary.starts = starts
        return starts[1][:n]
    return _words(boundary, prefix, n, tables, correct, typed)


def mistake_masses(boundary: Boundary, prefix: str, tables: WordTables) -> Masses:
    """What the correction gate weighs at `prefix` here (`CorrectionGate`): the known
    words' probability A, the error mass B (0 where the tables correct nothing), and
    whether the prefix reads as a name."""
    corrector = tables.corrector
    _, typed_word, _, known = _typed(boundary, prefix, 1, tables, True, False)
    name = reads_as_name(prefix, boundary.context)
    if corrector is None or not prefix:
        return Masses(known, 0.0, name)
    found = corrector.corrections(
        prefix, boundary.dense, 1, typed_word=typed_word, typed_mass=known, gate=CorrectionGate(0.0)
    )
    return Masses(found.typed, found.mass, name)


def _words(
    boundary: Boundary,
    prefix: str,
    n: int,
    tables: WordTables,
    correct: CorrectionGate | None,
    typed: bool,
) -> list[Candidate]:
    if not prefix:
        own = tables.start_candidates(boundary.dense, n, boundary.context)
        if own is not None:
            return own
    found, typed_word, mass, known = _typed(boundary, prefix, n, tables, correct is not None, typed)
    corrections: dict[str, float] = {}
    ranks: dict[str, float] = {}  # a correction's weight in the ranking, where not its own
    corrector = tables.corrector
    if correct is not None and corrector is not None and prefix:
        name = reads_as_name(prefix, boundary.context)
        fixed = corrector.corrections(
            prefix,
            boundary.dense,
            n,
            typed_word=typed_word,
            typed_mass=known,
            gate=correct,
            name=name,
        )
        corrections, ranks = dict(fixed.words), dict(fixed.ranks)
        error_mass = fixed.mass
        # The document's and the user's own words beyond the lexicon ("hextab"), under
        # the same gate, weighed with the lexicon's mistakes.
        mine = None
        if boundary.extra and corrector.may_open(prefix, fixed.typed, correct, name):
            written = [(w, p) for w, p in boundary.extra.items() if w not in boundary.spelled]
            mine = corrector.written(prefix, written, n, typed_word)
        if mine and mine.words and correct.opens(fixed.typed, fixed.mass + mine.mass, name):
            error_mass += mine.mass
            for word, p in mine.words.items():
                if p > corrections.get(word, 0.0):
                    corrections[word], ranks[word] = p, mine.ranks[word]
        if corrections:
            mass += error_mass
        if boundary.standardised:
            # Typed in lower case, a correction is the lexicon's lower-case form ("the"
            # for "The"): where that is a variant, its standard spelling ("sepe":
            # September, not the chats' september).
            respelt = [(w, s) for w in corrections if (s := tables.standard_spelling(w))]
            for word, respelled in respelt:
                p, rank = corrections.pop(word), ranks.pop(word)
                corrections[respelled] = max(corrections.get(respelled, 0.0), p)
                ranks[respelled] = max(ranks.get(respelled, 0.0), rank)
    # Standard spellings, each replacing the prefix at its own probability here.
    standards: list[tuple[str, float]] = []
    if boundary.standardised and prefix.islower():
        # "sat": the chats' saturday is offered as Saturday (its probability went there,
        # variants.py), with `correct` or without: no other spelling of it is offered.
        capitals = tables.capitals(prefix, boundary.dense, boundary.extra, n)
        standards += [(word, p) for variant, word, p in capitals if variant != prefix]
    if correct is not None and (standard := tables.standard_spelling(prefix)) is not None:
        # "dont" typed in full: its standard spelling.
        j = tables.lexicon.index.get(standard)
        p = float(boundary.dense[j]) if j is not None else boundary.extra.get(standard, 0.0)
        # Offered where the gate finds the variant a likely reading of what was typed,
        # as it does a mistake: "dont" starts almost nothing, but mid-sentence "i" is
        # on its way to in, is, it more often than it is the pronoun in lower case.
        if p > 0 and correct.opens(known - typed_word, p):
            standards.append((standard, p))
    for word, p in standards:
        if word not in found:
            corrections[word] = max(corrections.get(word, 0.0), p)
            ranks[word] = max(ranks.get(word, 0.0), p)
            mass += p
    mass = mass or 1.0
    merged = [(word, p, p, False) for word, p in found.items()]
    merged += [(word, p, ranks.get(word, p), True) for word, p in corrections.items()]
    merged.sort(key=lambda item: (-item[2], item[0]))
    return [Candidate(word, p / mass, fix) for word, p, _, fix in merged[:n]]


def _typed(
    boundary: Boundary, prefix: str, n: int, tables: WordTables, spelling: bool, typed: bool
) -> tuple[dict[str, float], float, float, float]:
    """The `n` likeliest words that start with `prefix`, the prefix's own probability
    as a word, and the probability of every word that starts with it: all of it, and
    that of the words known (A, what the correction gate weighs: the token search's
    guesses are not); with `spelling`, the words of general English complete a prefix
    the tables do not know."""
    lex = tables.lexicon
    lo, hi = lex.prefix_range(prefix)
    probs = boundary.dense[lo:hi]
    found = {lex.words[lo + i]: float(probs[i]) for i in top_indices(probs, n) if probs[i] > 0}
    extra = [(word, p) for word, p in boundary.extra.items() if word.startswith(prefix)]
    for word, p in extra:
        found[word] = found.get(word, 0.0) + p
    mass = float(probs.sum()) + sum(p for _, p in extra)
    known = mass - sum(p for word, p in extra if word in boundary.spelled)
    if _capital_of_lower_case(prefix) and opens_in_capitals(boundary.context):
        # Not in A: the corrector adds a capital's lower-case words to it itself.
        mass += _in_capitals(boundary, prefix, n, lex, found)
    # The word already typed in full is no completion.
    typed_word = found.get(prefix, 0.0) if typed else found.pop(prefix, 0.0)
    # What the token search found for a shorter prefix is only part of its mass.
    mass += sum(rest for p, rest in boundary.unspelled.items() if prefix.startswith(p))
    corrector = tables.corrector
    if spelling and mass == 0 and len(prefix) >= MIN_TYPED and corrector is not None:
        # Nothing the tables know starts so: the words of general English that do
        # ("upstai": upstairs), by their frequency in running text, before the
        # token search spells out a new word.
        completed, mass = corrector.spelling.completions(prefix, n)
        typed_word = max(typed_word, completed.get(prefix, 0.0))
        if not typed:
            completed.pop(prefix, None)  # typed in full: no completion
        found.update(completed)
        known = mass
    return found, typed_word, mass, known


# `top_indices` reads a long array in blocks of this many values.
_BLOCK = 64


def top_indices(probs: np.ndarray, n: int) -> np.ndarray:
    """The indices of the `n` largest of `probs`, in no order.

    At a word start that is the whole lexicon, where a partition costs 0.4-0.7 ms here.
    The n-th largest of the maxima of blocks of `_BLOCK` values is a floor the n
    largest values all reach (n blocks hold a value at or over it), and few others
    do: the partition runs over those (0.1 ms in all)."""
    if len(probs) <= n:
        return np.arange(len(probs))
    if len(probs) >= 4 * n * _BLOCK:
        whole = len(probs) // _BLOCK * _BLOCK
        maxima = probs[:whole].reshape(-1, _BLOCK).max(axis=1)
        if whole < len(probs):
            maxima = np.append(maxima, probs[whole:].max())
        floor = np.partition(maxima, len(maxima) - n)[len(maxima) - n]
        near = np.flatnonzero(probs >= floor)
        return near[np.argpartition(probs[near], len(near) - n)[len(near) - n :]]
    return np.argpartition(probs, len(probs) - n)[len(probs) - n :]


def _capital_of_lower_case(prefix: str) -> bool:
    """A prefix a lower-case word takes at a sentence's start: "Sal", "I" (not "SAL")."""
    return prefix[:1].isupper() and prefix[1:] == prefix[1:].lower()


def _in_capitals(
    boundary: Boundary, prefix: str, n: int, lex: Lexicon, found: dict[str, float]
) -> float:
    """Where a capital opens a sentence or a line, add to `found` the lower-case words
    that start with `prefix` in capitals, and return their probability.

    "Sal" there is as often "sale" as a name: the tables hold a word's capital form only
    where the training text opened enough sentences with it, and the model's P("Sale")
    there is the little its few such sentences taught it. So each capital form offered
    weighs its own probability and its lower-case word's. Words with capitals inside
    ("iPhone") keep their own spelling and are not offered so.
    """
    lower = prefix.lower()
    lo, hi = lex.prefix_range(lower)
    probs = boundary.dense[lo:hi]
    for i in top_indices(probs, n):
        word = lex.words[lo + i]
        if probs[i] > 0 and word == word.lower() and (form := cased(word, "capital")) not in found:
            j = lex.index.get(form)
            found[form] = float(boundary.dense[j]) if j is not None else 0.0
    for form in list(found):
        j = lex.index.get(form.lower())
        if j is not None and lo <= j < hi and form[1:] == form[1:].lower():
            found[form] += float(boundary.dense[j])
    extra = [
        (word, p)
        for word, p in boundary.extra.items()
        if word.startswith(lower) and word == word.lower()
    ]
    for word, p in extra:
        form = cased(word, "capital")
        found[form] = found.get(form, 0.0) + p
    return float(probs.sum()) + sum(p for _, p in extra)
