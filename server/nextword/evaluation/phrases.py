"""Phrases as ghost text (docs/EVAL.md, "Phrases"): how often the words shown at a word
boundary are the words the text goes on with, and what a typist accepting them saves.

At every word boundary of a held-out document (each word start, with the document
before it as context) the engine is asked for the phrase it would show there
(`PhraseTypist.show`: the router's `shown_phrase`, two words or more scoring at least
the model's fitted threshold). The text's next words are the words after the boundary
as long as each follows the one before after exactly one space: the ghost text joins
its words so, and a comma or a line break between two words is a character the phrase
does not offer.

- `exact_match@N`: among the shown phrases of at least N words, the share whose first
  N words are the text's next N words (null when no phrase that long was shown).
- `coverage`: the share of boundaries with a phrase shown.
- The phrase-accepting typist types as the typist of evaluation/typist.py, except that
  at a boundary where the phrase's first words are the text's next words it accepts
  them one at a time (one keystroke per word; the space between two accepted words
  comes with the ghost text, the separator after the last is typed). Its `ksr@k`
  sits beside the word-only typist's (`word_ksr@k`, the main run, same text).
- `latency_ms`: wall time of the shown-phrase call at each boundary, from the boundary
  (its decision, unless made ahead) to the full phrase, p50/p95/p99.
- `in_word`: the phrases the server shows while a word is typed (beyond EVAL.md's
  boundaries, which the threshold is fitted on): at each word the typist types, the
  phrase at the prefix where the server would guess the word (`PhraseTypist.
  show_in_word`), when the typist reaches that prefix before accepting the word.
  `coverage` is the share of those words with a phrase shown, `precision` the share
  of shown phrases right as a whole (the word being typed included), `exact_match@2`
  the share whose first two words are right. The typist does not accept them.

The training side (training/phrase_fit.py) scores the same boundaries to fit the
threshold, with `following_words` and `matched` from here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nextword.data.documents import is_han_document
from nextword.engine.decider import SPECULATE_MIN
from nextword.engine.words import WORD_RE, is_han
from nextword.evaluation.typist import KS, Predict, Tally, Tick, charge, progress_bar, walk
from nextword.evaluation.typist import type_document_cjk as type_chinese
from nextword.percentiles import summary

# The longest phrase shown: Decider.shown_phrase's default, which the server asks for.
PHRASE_WORDS = 4
EXACT_N = (1, 2, 3, 4, 5)
# The words of the phrase shown after a context (a word boundary); None: none shown.
ShowPhrase = Callable[[str], Sequence[str] | None]
# The words of the phrase shown while `word` is typed after `context`, at a prefix of at
# most `typed` letters; None: none shown there.
ShowInWord = Callable[[str, str, int], Sequence[str] | None]


@dataclass(frozen=True)
class PhraseTypist:
    """One document's engine as the phrase typist asks it: the candidates for a typed
    prefix (the word typist's `Predict`) and the phrase shown at a boundary."""

    predict: Predict
    show: ShowPhrase
    show_in_word: ShowInWord | None = None


def following_words(doc: str, start: int, n: int) -> list[str]:
    """Up to `n` words of `doc` from the word starting at `start`, each joined to the
    one before by exactly one space (as a phrase's words are in the ghost text)."""
    out: list[str] = []
    pos = start
    while len(out) < n:
        match = WORD_RE.match(doc, pos)
        if match is None:
            break
        out.append(match.group())
        pos = match.end()
        if doc[pos : pos + 1] != " ":
            break
        pos += 1
    return out


def guessed_at(decider: Any, context: str, word: str, typed: int | None = None) -> str | None:
    """The prefix of `word` (of at most `typed` letters) at which the server guesses it
    and searches the phrase the guess starts (lsp/ahead.py): the first whose
    likeliest word (`guess`: a completion, or the prefix as a whole word) is at least
    SPECULATE_MIN likely; None when none is."""
    for j in range(1, min(len(word) if typed is None else typed, len(word)) + 1):
        guess = decider.guess(context, word[:j])
        if guess is not None and guess.prob >= SPECULATE_MIN:
            return word[:j]
    return None


def matched(words: Sequence[str], following: Sequence[str]) -> int:
    """How many of the phrase's first words are the text's next words, in order."""
    count = 0
    for word, actual in zip(words, following, strict=False):
        if word != actual:
            break
        count += 1
    return count


@dataclass
class PhraseTally:
    """Running sums of the phrase measurement over one file."""

    boundaries: int = 0
    shown: int = 0
    shown_words: int = 0
    at_least: dict[int, int] = field(default_factory=lambda: {n: 0 for n in EXACT_N})
    exact: dict[int, int] = field(default_factory=lambda: {n: 0 for n in EXACT_N})
    accepted: int = 0  # words the typist accepted from phrases
    ms: list[float] = field(default_factory=list)
    typist: Tally = field(default_factory=Tally)  # the phrase-accepting typist's keystrokes
    in_word_words: int = 0  # words typed with the in-word phrase asked for
    in_word_shown: int = 0
    in_word_right: int = 0  # shown and right as a whole
    in_word_first_two: int = 0  # shown and its first two words right

    def boundary(self, words: Sequence[str] | None, following: Sequence[str]) -> int:
        """Count one boundary and the phrase shown there (None: none). Returns how many
        of its first words the text goes on with."""
        self.boundaries += 1
        if not words:
            return 0
        self.shown += 1
        self.shown_words += len(words)
        run = matched(words, following)
        for n in EXACT_N:
            if len(words) >= n:
                self.at_least[n] += 1
                self.exact[n] += run >= n
        return run

    def in_word(self, words: Sequence[str] | None, following: Sequence[str]) -> None:
        """Count one typed word and the phrase shown while it was typed (None: none)."""
        self.in_word_words += 1
        if not words:
            return
        run = matched(words, following)
        self.in_word_shown += 1
        self.in_word_right += run == len(words)
        self.in_word_first_two += run >= 2

    def figures(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "max_words": PHRASE_WORDS,
            "boundaries": self.boundaries,
            "shown": self.shown,
            "coverage": round(self.shown / max(self.boundaries, 1), 4),
            "mean_words": round(self.shown_words / max(self.shown, 1), 4),
        }
        for n in EXACT_N:
            hits, total = self.exact[n], self.at_least[n]
            out[f"exact_match@{n}"] = round(hits / total, 4) if total else None
        out["shown_at_least"] = {str(n): self.at_least[n] for n in EXACT_N}
        quality = self.typist.quality()
        out.update({f"ksr@{k}": quality[f"ksr@{k}"] for k in KS})
        out["accepted_words"] = self.accepted
        out["latency_ms"] = summary(self.ms)
        if self.in_word_words:
            shown = max(self.in_word_shown, 1)
            out["in_word"] = {
                "words": self.in_word_words,
                "shown": self.in_word_shown,
                "coverage": round(self.in_word_shown / self.in_word_words, 4),
                "precision": round(self.in_word_right / shown, 4),
                "exact_match@2": round(self.in_word_first_two / shown, 4),
            }
        return out


def type_document_phrases(
    doc: str, typist: PhraseTypist, tally: PhraseTally, *, tick: Tick | None = None
) -> None:
    """Type one document as the phrase-accepting typist; add its costs to `tally`, and
    `tick` after each word."""
    keys = tally.typist
    keys.chars += len(doc)
    keys.word_docs += 1
    word_chars = free_spaces = 0
    ahead = 0  # words of an accepted phrase still to come
    for match in WORD_RE.finditer(doc):
        word, start = match.group(), match.start()
        context = doc[:start]
        word_chars += len(word)
        keys.words += 1
        if tick is not None:
            tick()
        began = time.perf_counter()
        shown = typist.show(context)
        tally.ms.append((time.perf_counter() - began) * 1000)
        run = tally.boundary(shown, following_words(doc, start, max(EXACT_N)))
        if ahead:
            # The accepted phrase's next word: its space came with the ghost text.
            ahead -= 1
            free_spaces += 1
        elif run:
            ahead = run - 1
            tally.accepted += run
        else:
            ranks = walk(context, word, word, len(word), typist.predict, keys)
            charge(keys, ranks, len(word))
            if typist.show_in_word is not None:
                # Typed up to the accept key (the last prefix asked), or in full.
                typed = len(ranks) - 1 if ranks and ranks[-1] == 1 else len(word)
                shown_in_word = typist.show_in_word(context, word, typed)
                tally.in_word(shown_in_word, following_words(doc, start, max(EXACT_N)))
            continue
        for k in KS:  # one accept key, whatever the list's length
            keys.keystrokes[k] += 1
            keys.ranked_keystrokes[k] += 1
    separators = len(doc) - word_chars - free_spaces
    for k in KS:
        keys.keystrokes[k] += separators
        keys.ranked_keystrokes[k] += separators


def measure_phrases(
    docs: list[str], name: str, *, make: Callable[[], PhraseTypist], progress: bool
) -> dict[str, Any]:
    """The phrase figures of one file's documents, a fresh typist per document.

    Chinese documents get no phrases: they are typed as the word typist types them, so
    the phrase typist's KSR covers the same text as the word-only KSR.
    """
    tally = PhraseTally()
    chinese = [is_han_document(doc) for doc in docs]
    words = sum(
        sum(map(is_han, doc)) if han else sum(1 for _ in WORD_RE.finditer(doc))
        for doc, han in zip(docs, chinese, strict=True)
    )
    bar = progress_bar(words, f"{name} [phrases]", progress)
    for doc, han in zip(docs, chinese, strict=True):
        typist = make()
        if han:
            type_chinese(doc, typist.predict, tally.typist, tick=bar.update)
        else:
            type_document_phrases(doc, typist, tally, tick=bar.update)
    bar.close()
    return tally.figures()
