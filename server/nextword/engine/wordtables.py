"""A language's word tables: what the decider ranks, and how its documents count.

English and Chinese differ in what a candidate is and what a document teaches:

- English (`EnglishTables`): whole words, a word trigram, the document's own words
  and word pairs (doclocal.py), the personal store; a document or paragraph does not
  open with a heading in capitals or the start of a URL.
- Chinese (`ChineseTables`): continuations of one to four Han characters; no word
  trigram and no personal store (no spaces to count words by); the document cache
  is what followed the last two characters before (hancache.py); at a word start
  each likely next character offers its best continuation.

The decider (decider.py) sees only the interface of `WordTables` and `Document`; the
Chinese tables are in hantables.py, and engine.py's `load_tables` picks the language.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Container
from dataclasses import replace

import numpy as np

from nextword.engine.blocklist import Blocklist
from nextword.engine.components import Candidate, Component, following, repeat_rate
from nextword.engine.corrections import Corrector, Spelling
from nextword.engine.deletions import cache_dir
from nextword.engine.doclocal import DocumentWords
from nextword.engine.errormodel import ErrorModel
from nextword.engine.general import GeneralTrigram
from nextword.engine.genres import GenreNGram, GenreWeights
from nextword.engine.lexicon import Lexicon
from nextword.engine.ngram import NGram, events_before, history_ids, read_inside
from nextword.engine.systemlm import SystemLM
from nextword.engine.variants import StandardSpelling, Variants
from nextword.engine.weights import DOC, DOCBIGRAM, GENERAL, NGRAM, Mixture
from nextword.engine.words import starts_paragraph, starts_sentence

URL_STARTS = ["http", "https", "www", "ftp", "mailto"]
# The genres (data/corpus.py) the general-English trigram does not speak.
NOT_PROSE = frozenset({"code", "technical"})
# The document cache's repeat rate before the document has repeated a word
# (`components.repeat_rate`'s `young`): small, so that four words in, the model's
# words still lead at a word start (at 1, "The history of the" offered history and
# of), yet not 0, so that a name written once is offered when its first letters come
# again (at 0, "Marg" offered Margaret, never the Marguerite of the line before).
DOC_YOUNG = 0.1
# What the general trigram's word keeps after a word typed in lower case where it
# completes the name that word opens when capitalised (`EnglishTables.name_ends`).
NAME_AFTER_LOWER = 0.1
# Only the names the general trigram gives at least this probability are looked up:
# below it none would reach the popup.
NAME_FLOOR = 1e-3


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

    def wrote_listed(self, listed: Blocklist, context: str) -> np.ndarray:
        """`wrote` for each word of `listed` (`Blocklist.listed`), as one array."""
        return np.array([self.wrote(word, context) for word in listed.listed], dtype=bool)


class WordTables(ABC):
    """The lexicon a decider ranks and what is special about its language."""

    lexicon: Lexicon
    ngram: NGram | GenreNGram | None = None
    corrector: Corrector | None = None  # typing mistakes (English)
    system: SystemLM | None = None  # the system's language model (Chinese, where installed)
    general: GeneralTrigram | None = None  # general English trained elsewhere (general.py)
    learns = False  # whether the personal store takes part
    refines = False  # whether decisions are refined by the model's second token (refine.py)
    blocklist: Blocklist | None = None  # words offered only once written (blocklist.py)
    # Known misspellings (models/misspellings.txt, codespell's allowed part): offered only
    # once written too, whatever the blocklist setting.
    misspelled: Blocklist | None = None

    def standard_spelling(self, word: str) -> str | None:
        """The standard spelling of a variant (`dont` -> `don't`); None for the others."""
        return None

    def standardise(self, text: str) -> str:
        """`text` with each variant in its standard spelling (`standard_spelling`)."""
        return text

    def capitals(
        self, prefix: str, dense: np.ndarray, extra: dict[str, float], n: int
    ) -> list[tuple[str, str, float]]:
        """(variant, standard spelling, probability) for the `n` likeliest lower-case
        variants starting with `prefix` whose standard spelling has capitals ("sat":
        saturday, Saturday), in a standardised distribution (`screen`)."""
        return []

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
            listed.remove(mixed, doc.wrote_listed(listed, context), learned)
        unoffered = [
            w for w in extra if not self.offers(w, context, doc, block=block, learned=learned)
        ]
        for word in unoffered:
            del extra[word]

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

    def ngram_component(
        self, context: str, doc: Document | None = None, *, standardise: bool = False
    ) -> Component | None:
        """The n-gram's distribution after `context`, following the genre of `doc` where
        the tables have one per genre; None where the tables have none. With
        `standardise` (prose), the words before the cursor are read in their standard
        spelling ("i dont" as "I don't"; English)."""
        return None

    def start_candidates(self, dense: np.ndarray, n: int, context: str) -> list[Candidate] | None:
        """The candidates at a word start where the language ranks them its own way;
        None to rank the distribution's words as they are."""
        return None

    def general_component(
        self, context: str, doc: Document | None = None, *, standardise: bool = False
    ) -> Component | None:
        """The general-English trigram's distribution after `context` (general.py),
        where the model directory has one; `standardise` as `ngram_component` reads it."""
        if self.general is None:
            return None
        spell = self.standard_spelling if standardise else None
        return Component(GENERAL, self.general.distribution(context, spell), {})

    def system_component(self, neural: np.ndarray, context: str) -> Component | None:
        """The system language model's reordering of the model's distribution `neural`;
        None where there is none."""
        return None


class EnglishDocument(Document):
    """The document's words and word pairs (doclocal.py), as two components, and its
    weights over the trigram's genres (genres.py) where it has them."""

    def __init__(
        self,
        lexicon: Lexicon,
        counts: DocumentWords | None = None,
        genres: GenreWeights | None = None,
        openers: tuple[np.ndarray, np.ndarray] | None = None,
    ):
        self._lexicon = lexicon
        self.counts = counts or DocumentWords(lexicon.index)
        self.genres = genres
        # (capitalised words, the n-gram's `start_fold`): the capitals that open a
        # sentence for a lower-case word, and the id of each id read inside one.
        self._openers = openers

    @property
    def words(self) -> int:
        return self.counts.total

    def fork(self) -> EnglishDocument:
        genres = self.genres.fork() if self.genres is not None else None
        return EnglishDocument(self._lexicon, self.counts.fork(), genres, self._openers)

    def wrote(self, word: str, context: str) -> bool:
        """In the word counts (brought up to the boundary), in any of its cases."""
        # A lexicon word is only ever counted in `known`, any other only in `unknown`.
        index, known, unknown = self._lexicon.index, self.counts.known, self.counts.unknown
        for form in (word, word.lower(), word.capitalize()):
            i = index.get(form)
            if (known[i] if i is not None else unknown.get(form, 0)) > 0:
                return True
        return False

    def wrote_listed(self, listed: Blocklist, context: str) -> np.ndarray:
        """`wrote` for every listed word at once: asked at every boundary (`screen`),
        for the hundreds of words of the blocklist and the misspellings."""
        known = self.counts.known
        found = known[listed.ids] > 0
        cases = listed.cases
        found |= ((cases >= 0) & (known[cases] > 0)).any(axis=1)
        # A case the lexicon lacks ("Sooo" beside the lexicon's sooo) is counted among
        # the document's few unknown words.
        for word, count in self.counts.unknown.items():
            if count <= 0:
                continue
            for j in listed.by_lower.get(word.lower(), ()):
                if word in (listed.listed[j].lower(), listed.listed[j].capitalize()):
                    found[j] = True
        return found

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
        # can match, and the model and the trigram know which ones are likely. Inside a
        # sentence, a capital that opened one is its word in lower case: "How are"
        # offers "how", if anything, not "How".
        sentence_start = starts_sentence(context)
        doc_known = doc.known * lex.capitalised if sentence_start else self._inside(doc.known)
        scale = mixture.evidence(doc.total)
        if DOC in computed:
            # A word is seldom written twice running ("Happy Happy"), yet it is the
            # document's most recent word: the counts offer the others, over their own
            # total (the model and the trigram still offer "bye bye" where it is likely).
            last = doc.last_word or ""
            i = lex.index.get(last)
            if i is not None and not sentence_start and self._openers is not None:
                i = int(self._openers[1][i])  # "How" just written: not "how" either
            seen = float(doc_known[i]) if i is not None else doc.unknown.get(last, 0)
            total = doc.total - seen
            known_total = float(doc_known.sum()) - (seen if i is not None else 0.0)
            unknown = {
                word: c / total
                for word, c in doc.unknown.items()
                if (not sentence_start or word[0].isupper()) and word != last
            }
            if known_total or unknown:
                dense = doc_known / total
                if i is not None:
                    dense[i] = 0.0
                # A document that has not repeated a word yet has little evidence
                # that it will (DOC_YOUNG).
                confidence = repeat_rate(doc.total, doc.singletons, young=DOC_YOUNG) * scale
                parts.append(Component(DOC, dense, unknown, confidence))
        pairs = doc.following()
        if pairs and not sentence_start and DOCBIGRAM in computed:
            part = following(DOCBIGRAM, pairs, lex.index)
            parts.append(replace(part, confidence=part.confidence * scale))
        return parts

    def _inside(self, known: np.ndarray) -> np.ndarray:
        """The document's word counts as read inside a sentence (`_openers`)."""
        return known if self._openers is None else read_inside(known, self._openers)


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
        misspelled: Blocklist | None = None,
    ):
        self.lexicon = lexicon
        self.ngram = ngram
        self.misspelled = misspelled
        known = misspelled.words if misspelled is not None else frozenset()
        self.corrector = Corrector(
            lexicon.words, errors, spelling, index_dir=cache_dir(), misspelled=known
        )
        # Informal spellings ("dont") and where their probability goes.
        self.variants = variants or Variants({})
        self._standard = StandardSpelling(self.variants, lexicon.words, lexicon.index)
        # What never opens a document or paragraph unless the document writes it:
        # headings and tags in capitals (NAME, SPDX), and the start of a URL (emails
        # from feeds begin with one).
        self.no_opening = lexicon.shouted | np.isin(np.array(lexicon.words), URL_STARTS)
        self._capitalised = np.array([w[:1].isupper() for w in lexicon.words])
        # The capitals that open a sentence for a lower-case word (the n-gram's fold:
        # "How", "The"; not names), and the fold itself.
        self.openers: tuple[np.ndarray, np.ndarray] | None = None
        fold = ngram.fold if ngram is not None else None
        if fold is not None:
            ids = np.arange(len(lexicon))
            self.openers = (ids[fold[: len(lexicon)] != ids], fold)

    def document(self) -> EnglishDocument:
        genres = None
        if isinstance(self.ngram, GenreNGram):
            genres = GenreWeights(self.ngram, self.lexicon.index)
        return EnglishDocument(self.lexicon, genres=genres, openers=self.openers)

    def ngram_component(
        self, context: str, doc: Document | None = None, *, standardise: bool = False
    ) -> Component | None:
        if self.ngram is None:
            return None
        spell = self.standard_spelling if standardise else None
        index, fold = self.lexicon.index, self.ngram.fold
        history = history_ids(context, index, len(self.lexicon), fold, spell)
        if isinstance(self.ngram, GenreNGram):
            weights = None
            if isinstance(doc, EnglishDocument) and doc.genres is not None:
                doc.genres.update(context)
                weights = doc.genres.weights
            return Component(NGRAM, self.ngram.distribution(history, weights), {})
        return Component(NGRAM, self.ngram.distribution(history), {})

    def general_component(
        self, context: str, doc: Document | None = None, *, standardise: bool = False
    ) -> Component | None:
        """The general-English trigram, as confident as the document is prose: CMU's
        model knows what people write, not code or its documentation (on those dev
        splits it cost 0.5-1 KSR points and 2-4 top-3 points at one weight for all), so
        its confidence is the share of the document's genre weights (genres.py) that is
        not NOT_PROSE; the weight was fitted with that scaling (training/mixture.py),
        then set by hand (mixture.json's general_chosen_by_hand). The names it would
        complete after a word typed in lower case are damped (`name_ends`)."""
        found = super().general_component(context, doc, standardise=standardise)
        if found is None:
            return None
        # The names worth a look: those the popup could show.
        looked_at = np.flatnonzero(self._capitalised & (found.dense > NAME_FLOOR))
        ends = self.name_ends(context, looked_at, standardise=standardise)
        if len(ends):
            found.dense[ends] *= NAME_AFTER_LOWER
            found.dense /= found.dense.sum()
        genres = doc.genres if isinstance(doc, EnglishDocument) else None
        if genres is None or not isinstance(self.ngram, GenreNGram):
            return found
        genres.update(context)  # read already for the trigram: nothing new to read
        names = self.ngram.names
        prose = 1.0 - sum(
            w for name, w in zip(names, genres.weights, strict=True) if name in NOT_PROSE
        )
        return replace(found, confidence=max(0.0, float(prose)))

    def name_ends(
        self, context: str, names: np.ndarray, *, standardise: bool = False
    ) -> np.ndarray:
        """The ids among `names` (capitalised words) that the training text writes after
        the last word before the cursor, typed in lower case, more often when that word
        is capitalised: "York" after "new", "States" after "united".

        The general trigram is blind to case: from its news text "the new" leads to
        "york" (a listed trigram), and "York" then led the popup after "what do you think
        about the new". The project's own tables keep case and know the name.
        """
        none = np.zeros(0, np.int64)
        if self.ngram is None or not len(names):
            return none
        spell = self.standard_spelling if standardise else None
        last = events_before(context, 200, 1, spell)
        word = last[0] if last else ""
        if not word[:1].islower():
            return none
        index = self.lexicon.index
        capital = index.get(word[0].upper() + word[1:])
        if capital is None:
            return none
        counts = self.ngram.counts_after(capital, names)
        lower = index.get(word)
        if lower is not None:
            counts -= self.ngram.counts_after(lower, names)
        return names[counts > 0]

    def standard_spelling(self, word: str) -> str | None:
        return self.variants.standard(word)

    def standardise(self, text: str) -> str:
        return self.variants.standardise(text)

    def capitals(
        self, prefix: str, dense: np.ndarray, extra: dict[str, float], n: int
    ) -> list[tuple[str, str, float]]:
        lo, hi = self.lexicon.prefix_range(prefix)
        return self._standard.capitals(lo, hi, dense, extra, n)

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
