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
from collections.abc import Container
from dataclasses import replace
from pathlib import Path

import numpy as np

from nextword.engine.blocklist import Blocklist
from nextword.engine.components import Candidate, Component, following, repeat_rate, spread
from nextword.engine.corrections import Corrector, Spelling
from nextword.engine.deletions import cache_dir
from nextword.engine.doclocal import DocumentWords
from nextword.engine.errormodel import ErrorModel
from nextword.engine.genres import GenreNGram, GenreWeights
from nextword.engine.hancache import following as seen_after
from nextword.engine.lexicon import Lexicon
from nextword.engine.ngram import NGram, history_ids
from nextword.engine.systemlm import SystemLM
from nextword.engine.variants import StandardSpelling, Variants
from nextword.engine.weights import DOC, DOCBIGRAM, NGRAM, SYSTEM, Mixture
from nextword.engine.words import is_han, is_han_text, starts_paragraph, starts_sentence

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

    @abstractmethod
    def fork(self) -> Document:
        """Caches that may count guessed text, leaving these as they are."""

    def wrote(self, word: str, context: str) -> bool:
        """Whether the document before the cursor (`context`) has `word`."""
        return word in context


class WordTables(ABC):
    """The lexicon a decider ranks and what is special about its language."""

    lexicon: Lexicon
    ngram: NGram | GenreNGram | None = None
    corrector: Corrector | None = None  # typing mistakes (English)
    system: SystemLM | None = None  # the system's language model (Chinese, where installed)
    learns = False  # whether the personal store takes part
    refines = False  # whether decisions are refined by the model's second token (refine.py)
    blocklist: Blocklist | None = None  # words offered only once written (blocklist.py)
    # Known misspellings (models/misspellings.txt, codespell's allowed part): offered only
    # once written too, whatever the blocklist setting.
    misspelled: Blocklist | None = None

    def standard_spelling(self, word: str) -> str | None:
        """The standard spelling of a variant (`dont` -> `don't`); None for the others."""
        return None

    def screen(
        self,
        mixed: np.ndarray,
        extra: dict[str, float],
        context: str,
        doc: Document,
        *,
        block: bool,
        standardise: bool = False,
        learned: Container[str] = (),
    ) -> None:
        """Remove, in place, what is never offered: a known misspelling, and with
        `block` a word of the blocklist, that neither the document before the cursor nor
        `learned` (the personal store's words) has; with `standardise`, a variant
        spelling (English)."""
        for listed in self._screened(block):
            listed.remove(
                mixed, extra, self.lexicon.words, lambda w: w in learned or doc.wrote(w, context)
            )

    def offers(
        self, word: str, context: str, doc: Document, *, block: bool, learned: Container[str] = ()
    ) -> bool:
        """Whether `screen` lets `word` through (for a word found outside the mixed
        distribution: the token search's)."""
        listed = any(b.blocks(word) for b in self._screened(block))
        return not listed or word in learned or doc.wrote(word, context)

    def _screened(self, block: bool) -> list[Blocklist]:
        lists = [self.misspelled, self.blocklist if block else None]
        return [b for b in lists if b is not None]

    @abstractmethod
    def document(self) -> Document:
        """Fresh document caches, for a new decider or a reset one."""

    @abstractmethod
    def opening(self, mixed: np.ndarray, context: str, doc: Document) -> None:
        """Remove, in place, what must not open the text after `context`."""

    def ngram_component(self, context: str, doc: Document | None = None) -> Component | None:
        """The n-gram's distribution after `context`, following the genre of `doc` where
        the tables have one per genre; None where the tables have none."""
        return None

    def start_candidates(self, dense: np.ndarray, n: int, context: str) -> list[Candidate] | None:
        """The candidates at a word start where the language ranks them its own way;
        None to rank the distribution's words as they are."""
        return None

    def system_component(self, neural: np.ndarray, context: str) -> Component | None:
        """The system language model's reordering of the model's distribution `neural`;
        None where there is none."""
        return None

    @staticmethod
    def load(
        lexicon: Lexicon,
        ngram: NGram | GenreNGram | None,
        errors: ErrorModel,
        arrays: dict[str, np.ndarray],
        spelling: Path | None = None,
        *,
        blocklist: Path | None = None,
        variants: Path | None = None,
        misspellings: Path | None = None,
    ) -> WordTables:
        """The tables for this lexicon: Chinese when its words are Han continuations.
        `spelling`: the words corrections may offer beyond the lexicon (English);
        `blocklist`: the offensive words (blocklist.py); `variants`: the informal
        spellings and their standard ones (variants.py; English); `misspellings`: the
        words never offered unless written (English)."""
        chinese = bool(lexicon.words) and all(is_han_text(w) for w in lexicon.words[:100])
        tables: WordTables
        if chinese:
            chars = CharTrigram.from_arrays(arrays, lexicon)
            after = AfterChar.from_arrays(arrays, len(lexicon))
            tables = ChineseTables(lexicon, after, chars, SystemLM.find())
        else:
            extra = Spelling.read(spelling, lexicon.index) if spelling is not None else None
            spellings = Variants.load(variants) if variants is not None else Variants({})
            tables = EnglishTables(lexicon, ngram, errors, extra, spellings)
            if misspellings is not None:
                tables.misspelled = Blocklist.load(misspellings, lexicon.words)
        if blocklist is not None:
            tables.blocklist = Blocklist.load(blocklist, lexicon.words)
        return tables


class EnglishDocument(Document):
    """The document's words and word pairs (doclocal.py), as two components, and its
    weights over the trigram's genres (genres.py) where it has them."""

    def __init__(
        self,
        lexicon: Lexicon,
        counts: DocumentWords | None = None,
        genres: GenreWeights | None = None,
    ):
        self._lexicon = lexicon
        self.counts = counts or DocumentWords(lexicon.index)
        self.genres = genres

    @property
    def words(self) -> int:
        return self.counts.total

    def fork(self) -> EnglishDocument:
        genres = self.genres.fork() if self.genres is not None else None
        return EnglishDocument(self._lexicon, self.counts.fork(), genres)

    def wrote(self, word: str, context: str) -> bool:
        """In the word counts (brought up to the boundary), in any of its cases."""
        counts, index = self.counts, self._lexicon.index
        for form in {word, word.lower(), word.capitalize()}:
            i = index.get(form)
            if (i is not None and counts.known[i] > 0) or counts.unknown.get(form):
                return True
        return False

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
    refines = True

    def __init__(
        self,
        lexicon: Lexicon,
        ngram: NGram | GenreNGram | None,
        errors: ErrorModel,
        spelling: Spelling | None = None,
        variants: Variants | None = None,
    ):
        self.lexicon = lexicon
        self.ngram = ngram
        self.corrector = Corrector(lexicon.words, errors, spelling, index_dir=cache_dir())
        # Informal spellings ("dont") and where their probability goes.
        self.variants = variants or Variants({})
        self._standard = StandardSpelling(self.variants, lexicon.words, lexicon.index)
        # What never opens a document or paragraph unless the document writes it:
        # headings and tags in capitals (NAME, SPDX), and the start of a URL (emails
        # from feeds begin with one).
        self.no_opening = lexicon.shouted | np.isin(np.array(lexicon.words), URL_STARTS)

    def document(self) -> EnglishDocument:
        genres = None
        if isinstance(self.ngram, GenreNGram):
            genres = GenreWeights(self.ngram, self.lexicon.index)
        return EnglishDocument(self.lexicon, genres=genres)

    def ngram_component(self, context: str, doc: Document | None = None) -> Component | None:
        if self.ngram is None:
            return None
        u, v = history_ids(context, self.lexicon.index, len(self.lexicon), self.ngram.fold)
        if isinstance(self.ngram, GenreNGram):
            weights = None
            if isinstance(doc, EnglishDocument) and doc.genres is not None:
                doc.genres.update(context)
                weights = doc.genres.weights
            return Component(NGRAM, self.ngram.distribution(u, v, weights), {})
        return Component(NGRAM, self.ngram.distribution(u, v), {})

    def standard_spelling(self, word: str) -> str | None:
        return self.variants.standard(word)

    def screen(
        self,
        mixed: np.ndarray,
        extra: dict[str, float],
        context: str,
        doc: Document,
        *,
        block: bool,
        standardise: bool = False,
        learned: Container[str] = (),
    ) -> None:
        """With `standardise` (prose: in code `i` is a name, not "I"), a variant
        spelling's probability goes to its standard one ("dont" to "don't"), so only the
        standard spelling is offered."""
        super().screen(mixed, extra, context, doc, block=block, learned=learned)
        if standardise:
            self._standard.apply(mixed, extra)

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

    def fork(self) -> ChineseDocument:
        return self  # it keeps no counts: what it offers is read from the context

    def components(self, context: str, mixture: Mixture, *, update: bool = True) -> list[Component]:
        if DOC not in mixture.computed():
            return []
        seen = seen_after(context, self._index)
        return [Component(DOC, *spread(seen, self._index))] if seen else []


# Which continuation a likely next character shows: the one with the most characters
# to save, P(continuation) x (length - 1 + LENGTH_BONUS). Accepting one character saves
# no keystroke, so the bonus is what a lone character earns for being right more often.
# On the People's Daily dev split (first 3,000 characters, the bundled model), KSR@3 was
# 0.132 at 0.5, 0.126 at 0.75 and 0.117 at 1.0 (the expected length, the earlier rule),
# next-character top-3 0.672-0.673 at all three; at 0 a character never shows alone.
LENGTH_BONUS = 0.5
# How many corpus occurrences the context-free shares of a character's words count as,
# beside what followed the same character before in the training text (`AfterChar`).
AFTER_CHAR_PRIOR = 4.0


class AfterChar:
    """Which continuations followed each character in the training text, and how often.

    The lexicon's P(word | first character) is one share for every context: after 很
    and after 天 alike, 好 is mostly 好 alone. What followed the character before the
    cursor in the corpus (after 很: 多, 大, 好 alone; after 真, as in 认真, 贯彻 and
    学习) sharpens it where the corpus has seen that pair. Built by training/tables.py
    (`after_*` arrays in lexicon.npz).
    """

    def __init__(self, rows: dict[str, tuple[np.ndarray, np.ndarray]]):
        self._rows = rows  # character -> (lexicon indices, counts), indices sorted

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], size: int) -> AfterChar:
        if "after_char" not in arrays:
            return cls({})  # a lexicon exported before the table existed
        chars, words, counts = arrays["after_char"], arrays["after_word"], arrays["after_count"]
        if not (len(chars) == len(words) == len(counts)) or (len(words) and words.max() >= size):
            raise ValueError("lexicon.npz: the after_* arrays do not match the word list")
        order = np.lexsort((words, chars))
        chars, words, counts = chars[order], words[order], counts[order].astype(np.float64)
        cuts = np.flatnonzero(np.diff(chars)) + 1
        rows = {}
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(chars)], strict=True):
            if hi > lo:
                rows[chr(int(chars[lo]))] = (words[lo:hi], counts[lo:hi])
        return cls(rows)

    def counts(self, char: str, lo: int, hi: int) -> np.ndarray | None:
        """Counts of the entries [lo, hi) after `char`; None where the corpus has none."""
        row = self._rows.get(char)
        if row is None:
            return None
        words, counts = row
        a, b = np.searchsorted(words, [lo, hi])
        if a == b:
            return None
        out = np.zeros(hi - lo)
        out[words[a:b] - lo] = counts[a:b]
        return out


def char_id(char: str, index: dict[str, int]) -> int:
    """A character as the character trigram counts it: a Han character its lexicon
    entry (unknown: W), anything else (punctuation, a space, Latin) the start symbol
    W + 1, which also stands for the document and line start. training/tables.py counts
    the training text with it, `CharTrigram.history` reads a context with it."""
    if is_han(char):
        return index.get(char, len(index))
    return len(index) + 1


class CharTrigram:
    """A character trigram (ngram.py's tables over the single-character entries), its
    P(next character) spread over the continuations each character begins, as the
    model's P(next token) is: P(entry) = P(first character) x P(entry | character).

    Counts keep what a small model trained for an hour blurs: with the earlier model,
    mixing it in at 0.3 lifted next-character top-3 on the HSK dev split from 0.305 to
    0.352 (training/mixture.py fits its weight).
    """

    def __init__(self, ngram: NGram, lexicon: Lexicon):
        self.ngram = ngram
        self._index = lexicon.index
        self._size = len(lexicon)
        self._first = np.array([lexicon.index.get(w[0], 0) for w in lexicon.words])
        self._cond = lexicon.cond_bare.astype(np.float64)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], lexicon: Lexicon) -> CharTrigram | None:
        if "bi_keys" not in arrays or "char_counts" not in arrays:
            return None  # a lexicon exported before the trigram existed
        counts = arrays["char_counts"].astype(np.float64)
        if len(counts) != len(lexicon) or counts.sum() <= 0:
            raise ValueError("lexicon.npz: char_counts does not match the word list")
        return cls(NGram(arrays, counts / counts.sum()), lexicon)

    def history(self, context: str) -> tuple[int, int]:
        """The ids (`char_id`) of the two characters before the cursor; the document
        start counts as the start symbol."""
        start = self._size + 1
        ids = [start, start] + [char_id(c, self._index) for c in context[-2:]]
        return ids[-2], ids[-1]

    def component(self, context: str) -> Component:
        chars = self.ngram.distribution(*self.history(context))
        dense = chars[self._first] * self._cond
        return Component(NGRAM, dense / (dense.sum() or 1.0), {})


class ChineseTables(WordTables):
    def __init__(
        self,
        lexicon: Lexicon,
        after: AfterChar | None = None,
        chars: CharTrigram | None = None,
        system: SystemLM | None = None,
    ):
        self.lexicon = lexicon
        self.after = after or AfterChar({})
        self.chars = chars
        self.system = system
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

    def ngram_component(self, context: str, doc: Document | None = None) -> Component | None:
        return None if self.chars is None else self.chars.component(context)

    def system_component(self, neural: np.ndarray, context: str) -> Component | None:
        if self.system is None:
            return None
        return Component(SYSTEM, self.system.reorder(neural, self.lexicon.words, context), {})

    def start_candidates(self, dense: np.ndarray, n: int, context: str) -> list[Candidate]:
        """One continuation for each of the `n` likeliest next characters.

        A continuation is offered when the text goes on with it, so its probability is
        that of every word it begins: P("中国") counts "中国人民" too. The `n` likeliest
        characters are chosen by that probability. For each, the continuation shown is
        the one with the most characters to save (LENGTH_BONUS): a long word when it is
        likely after this context (`AfterChar`), the character alone when not. Distinct
        first characters make the short list cover more of what may come next. The
        list is ordered by the shown continuations' own probabilities, the figures the
        user sees (ordering by the characters' kept next-character top-3 0.5 points
        higher on People's Daily dev, but printed 9.2% above 9.8%).
        """
        sums = np.concatenate([[0.0], np.cumsum(dense)])
        mass = sums[self._begins_hi] - sums[self._begins_lo]
        singles = np.flatnonzero(self._lengths == 1)
        top = singles[np.argsort(-mass[singles], kind="stable")[:n]]
        total = float(mass[singles].sum()) or 1.0
        before = context[-1:]
        out = []
        for i in top:
            if mass[i] <= 0:
                break
            lo, hi = int(self._begins_lo[i]), int(self._begins_hi[i])
            words_mass = self._after_context(dense, mass[i], before, lo, hi)
            if words_mass is None:
                words_mass = mass[lo:hi]
            score = words_mass * (self._lengths[lo:hi] - 1 + LENGTH_BONUS)
            best = int(np.argmax(score))
            out.append(Candidate(self.lexicon.words[lo + best], float(words_mass[best]) / total))
        return sorted(out, key=lambda c: -c.prob)

    def _after_context(
        self, dense: np.ndarray, char_mass: float, before: str, lo: int, hi: int
    ) -> np.ndarray | None:
        """P(each entry [lo, hi) begins the text) with the words' shares sharpened by what
        followed `before` in the corpus: (seen + prior x share) / (seen in all + prior)."""
        seen = self.after.counts(before, lo, hi) if before else None
        if seen is None:
            return None
        own = dense[lo:hi]
        share = own / (float(own.sum()) or 1.0)
        entry = char_mass * (seen + AFTER_CHAR_PRIOR * share) / (seen.sum() + AFTER_CHAR_PRIOR)
        # Each entry's probability counts the entries it begins, as `mass` does.
        sums = np.concatenate([[0.0], np.cumsum(entry)])
        return sums[self._begins_hi[lo:hi] - lo] - sums[self._begins_lo[lo:hi] - lo]
