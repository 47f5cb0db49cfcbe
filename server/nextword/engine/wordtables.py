"""A language's word tables: what the decider ranks, and how its documents count.

English and Chinese differ in what a candidate is and what a document teaches:

- English (`EnglishTables`): whole words, a word trigram, the document's own words
  and word pairs (doclocal.py), the personal store; a document or paragraph does not
  open with a heading in capitals or the start of a URL.
- Chinese (`ChineseTables`): continuations of one to four Han characters; no word
  trigram and no personal store (no spaces to count words by); the document cache
  is what followed the last two characters before (hancache.py); at a word start
  each likely next character offers its best continuation.

The decider (decider.py) sees only the interface of `WordTables` and `Document`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import replace

import numpy as np

from nextword.engine.components import Candidate, Component, following, repeat_rate, spread
from nextword.engine.corrections import Corrector, ErrorModel
from nextword.engine.doclocal import DocumentWords
from nextword.engine.hancache import following as seen_after
from nextword.engine.lexicon import Lexicon
from nextword.engine.ngram import NGram
from nextword.engine.weights import DOC, DOCBIGRAM, Mixture
from nextword.engine.words import is_han_text, starts_paragraph, starts_sentence

URL_STARTS = ["http", "https", "www", "ftp", "mailto"]


class Document(ABC):
    """What one document has taught so far, for its decider."""

    @property
    @abstractmethod
    def words(self) -> int:
        """Words the document has had so far (0 where it counts none)."""

    @abstractmethod
    def components(self, context: str, mixture: Mixture, *, update: bool = True) -> list[Component]:
        """The document caches' distributions at the end of `context`; with `update`
        False, the counts stay those of the text already counted (a look ahead)."""


class WordTables(ABC):
    """The lexicon a decider ranks and what is special about its language."""

    lexicon: Lexicon
    ngram: NGram | None = None
    corrector: Corrector | None = None  # typing mistakes (English)
    learns = False  # whether the personal store takes part

    @abstractmethod
    def document(self) -> Document:
        """Fresh document caches, for a new decider or a reset one."""

    @abstractmethod
    def opening(self, mixed: np.ndarray, context: str, doc: Document) -> None:
        """Remove, in place, what must not open the text after `context`."""

    def start_candidates(self, dense: np.ndarray, n: int) -> list[Candidate] | None:
        """The candidates at a word start where the language ranks them its own way;
        None to rank the distribution's words as they are."""
        return None

    @staticmethod
    def load(lexicon: Lexicon, ngram: NGram | None, errors: ErrorModel) -> WordTables:
        """The tables for this lexicon: Chinese when its words are Han continuations."""
        chinese = bool(lexicon.words) and all(is_han_text(w) for w in lexicon.words[:100])
        return ChineseTables(lexicon) if chinese else EnglishTables(lexicon, ngram, errors)


class EnglishDocument(Document):
    """The document's words and word pairs (doclocal.py), as two components."""

    def __init__(self, lexicon: Lexicon):
        self._lexicon = lexicon
        self.counts = DocumentWords(lexicon.index)

    @property
    def words(self) -> int:
        return self.counts.total

    def components(self, context: str, mixture: Mixture, *, update: bool = True) -> list[Component]:
        computed = mixture.computed()
        if not computed & {DOC, DOCBIGRAM}:
            return []
        doc, lex = self.counts, self._lexicon
        if update:
            doc.update(context)
        else:
            # Looking ahead over words not written: what followed the last written word
            # says nothing about what follows a guessed one.
            computed = computed - {DOCBIGRAM}
        parts = []
        # Document counts are blind to case; at a sentence start only capitalised words
        # can match, and the model and the trigram know which ones are likely.
        sentence_start = starts_sentence(context)
        doc_known = doc.known * lex.capitalised if sentence_start else doc.known
        known_total = float(doc_known.sum())
        scale = mixture.evidence(doc.total)
        if DOC in computed and (known_total or doc.unknown):
            total = float(doc.total)
            unknown = {
                word: c / total
                for word, c in doc.unknown.items()
                if not sentence_start or word[0].isupper()
            }
            if known_total or unknown:
                confidence = repeat_rate(doc.total, doc.singletons) * scale
                parts.append(Component(DOC, doc_known / total, unknown, confidence))
        pairs = doc.following()
        if pairs and not sentence_start and DOCBIGRAM in computed:
            part = following(DOCBIGRAM, pairs, lex.index)
            parts.append(replace(part, confidence=part.confidence * scale))
        return parts


class EnglishTables(WordTables):
    learns = True

    def __init__(self, lexicon: Lexicon, ngram: NGram | None, errors: ErrorModel):
        self.lexicon = lexicon
        self.ngram = ngram
        self.corrector = Corrector(lexicon.words, errors)
        # What never opens a document or paragraph unless the document writes it:
        # headings and tags in capitals (NAME, SPDX), and the start of a URL (emails
        # from feeds begin with one).
        self.no_opening = lexicon.shouted | np.isin(np.array(lexicon.words), URL_STARTS)

    def document(self) -> EnglishDocument:
        return EnglishDocument(self.lexicon)

    def opening(self, mixed: np.ndarray, context: str, doc: Document) -> None:
        if starts_paragraph(context.rstrip(" ")):
            # A document or paragraph opens with a written word, not a heading or tag
            # in capitals (NAME, SPDX) from man pages and source files, unless this
            # document writes it.
            assert isinstance(doc, EnglishDocument)
            mixed[self.no_opening & (doc.counts.known == 0)] = 0.0


class ChineseDocument(Document):
    """What followed the last two characters earlier in the document (hancache.py)."""

    def __init__(self, lexicon: Lexicon):
        self._index = lexicon.index

    @property
    def words(self) -> int:
        return 0  # no spaces to count words by

    def components(self, context: str, mixture: Mixture, *, update: bool = True) -> list[Component]:
        if DOC not in mixture.computed():
            return []
        seen = seen_after(context, self._index)
        return [Component(DOC, *spread(seen, self._index))] if seen else []


class ChineseTables(WordTables):
    def __init__(self, lexicon: Lexicon):
        self.lexicon = lexicon
        # For each entry, the range of entries it begins ("中" begins "中国",
        # "中国人"): sorted words make each a contiguous [lo, hi).
        ranges = [lexicon.prefix_range(w) for w in lexicon.words]
        self._begins_lo = np.array([lo for lo, _ in ranges])
        self._begins_hi = np.array([hi for _, hi in ranges])
        self._lengths = np.array([len(w) for w in lexicon.words])

    def document(self) -> ChineseDocument:
        return ChineseDocument(self.lexicon)

    def opening(self, mixed: np.ndarray, context: str, doc: Document) -> None:
        """Nothing to remove: Chinese text has no headings in capitals or URL starts."""

    def start_candidates(self, dense: np.ndarray, n: int) -> list[Candidate]:
        """One continuation for each of the `n` likeliest next characters.

        A continuation is offered when the text goes on with it, so its probability is
        that of every word it begins: P("中国") counts "中国人民" too. The characters
        are ranked by that probability; for each, the continuation shown is the one
        that most characters are expected from (probability x length): a long word
        when the model is sure of it, the character alone when it is not. Distinct
        first characters make the short list cover more of what may come next. The
        list is then ordered by the continuations' own probabilities, the ones shown.
        """
        sums = np.concatenate([[0.0], np.cumsum(dense)])
        mass = sums[self._begins_hi] - sums[self._begins_lo]
        singles = np.flatnonzero(self._lengths == 1)
        top = singles[np.argsort(-mass[singles])[:n]]
        total = float(mass[singles].sum()) or 1.0
        out = []
        for i in top:
            if mass[i] <= 0:
                break
            lo, hi = self._begins_lo[i], self._begins_hi[i]
            best = lo + int(np.argmax(mass[lo:hi] * self._lengths[lo:hi]))
            out.append(Candidate(self.lexicon.words[best], float(mass[best]) / total))
        return sorted(out, key=lambda c: -c.prob)
