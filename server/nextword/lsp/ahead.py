"""Work ahead of the user, on the worker's background lane, after any request.

- a phrase for the ghost text, searched after each boundary decision in a document
  whose client asks for ghost text; typing that leaves the phrase drops it, typing
  through it uses it up, and its boundaries, decided ahead, need no model call;
- a refinement of the decision by the model's second token (engine/refine.py), after
  the decision and again after the word's first letter, for the letters typed next;
- a speculation: while a word is typed, once one word is likely enough, the boundary
  after it is decided (one guess per word), with the phrase that follows it; after
  punctuation that a space likely follows, the boundary after the space;
- a slide of a nearly full token window, while the user reads the candidates.

Reaching a guessed boundary takes the decision as made (the engine counted the guess
into a copy of the document's caches), so the answer needs neither model nor mixture.
A new boundary drops whatever of this still waits for the worker (`drop`). Each job
is keyed per document and kind, so a newer one replaces the one still waiting; what
a job finds comes back here, to the document's session, and goes no further.
"""

from __future__ import annotations

import asyncio
import math
from typing import TYPE_CHECKING, Any

from nextword.engine import REFINED_LETTERS
from nextword.lsp.session import HeldPhrase, PhraseSearch, Session

if TYPE_CHECKING:
    from nextword.engine import Phrase
    from nextword.lsp.settings import Settings
    from nextword.lsp.stats import ServerStats
    from nextword.lsp.worker import InferenceWorker


def _slide_key(uri: str) -> str:
    """The worker key of a document's idle window slide (apart from its decisions)."""
    return uri + "#slide"


def _phrase_key(uri: str) -> str:
    """The worker key of a document's phrase search at a boundary."""
    return uri + "#phrase"


def _refine_key(uri: str) -> str:
    """The worker key of a document's refinement of its decision (engine/refine.py)."""
    return uri + "#refine"


def _speculate_key(uri: str) -> str:
    """The worker key of a document's speculation on the word being typed."""
    return uri + "#speculate"


class WorkAhead:
    """The background jobs of every document: phrases, refinements, guesses, slides."""

    def __init__(self, worker: InferenceWorker, stats: ServerStats, settings: Settings):
        self.worker = worker
        self.stats = stats
        self.settings = settings

    def phrases_on(self, s: Session) -> bool:
        """Whether phrases are searched for `s`: its client shows ghost text, and the
        settings allow phrases."""
        return s.wants_phrases and self.settings.inline and self.settings.phraseWords >= 2

    # -- what starts the work -----------------------------------------------------------

    def after_decision(self, s: Session, context: str) -> None:
        """Between keystrokes, after the decision at `context` landed: the decision
        refined for the letters to come; the phrase for the ghost text, unless the one
        held goes on for two words or more from here (typing through it); a window
        slide; and, after punctuation, the boundary after the space."""
        decider = s.decider
        assert decider is not None
        held = None if s.phrase is None else s.phrase.rest(context, "")
        going_on = held is not None and " " in held
        self._refine(s, context, "")
        if self.phrases_on(s) and s.phrase_searched != context and not going_on:
            self.search(s)
        # While the user reads the candidates, slide a nearly full token window, so
        # the next decision does not pay for it; new typing drops this job.
        self.worker.submit(
            lambda: decider.slide_ahead(context), key=_slide_key(s.uri), background=True
        )
        if self.settings.speculate:
            self._speculate_space(s, context)

    def typed_in_word(self, s: Session, context: str, prefix: str) -> None:
        """A letter typed in the word at `context`: refine for the next letters while
        the prefix is short, and guess the word once (a speculation)."""
        if len(prefix) <= REFINED_LETTERS:
            self._refine(s, context, prefix)
        if self.settings.speculate and s.guessed != context:
            self._speculate(s, context, prefix)

    def search(self, s: Session) -> PhraseSearch | None:
        """Search the phrase at the boundary decided in `s`, in the background, when its
        first word is at least as likely as the threshold's mean per word.

        A search costs up to three boundary decisions (~10 ms here), and the phrases that
        clear the fitted threshold start with a likely word: a first word less likely
        than exp(threshold) needs the words after it likelier still. On 3,600 boundaries
        of dev text (the first 1,200 words of email, wiki and sotu), 42 of the 44 phrases
        an earlier bundled model showed there passed (the other two began at 0.354 and
        0.379, under exp(-0.962) = 0.382), and 8% of the boundaries did. A model with no
        word-start threshold (the bundled one now) searches none here. In a word, a
        phrase is searched only with a speculation (a word at least SPECULATE_MIN likely
        given the prefix), against the in-word threshold.
        """
        context, decider, words = s.decided, s.decider, self.settings.phraseWords
        assert context is not None and decider is not None
        s.phrase_searched = context
        threshold = decider.phrase_threshold(context)
        top = decider.filter_cached(context, "", 1)
        if threshold is None or not top or math.log(max(top[0].prob, 1e-12)) < threshold:
            return None

        def search() -> Phrase | None:
            if not s.still_at(decider, context):
                return None
            return decider.shown_phrase(context, "", words)

        key = _phrase_key(s.uri)
        job = asyncio.wrap_future(self.worker.submit(search, key=key, background=True))
        s.search = PhraseSearch(context, "", job, key)
        job.add_done_callback(lambda f: self._searched(s, context, f))
        return s.search

    # -- what stops it ------------------------------------------------------------------

    def leave_phrase(self, s: Session, context: str, prefix: str) -> None:
        """Typing that leaves the phrase drops it, and the search for one it cannot match."""
        if s.phrase is not None and s.phrase.rest(context, prefix) is None:
            s.phrase = None
            self.stats.count(s.uri, "phrases_dropped")
        if s.search is not None and not s.search.may_match(context, prefix):
            self._drop_search(s)

    def drop(self, s: Session) -> None:
        """A new boundary: drop the work still waiting for the old one."""
        self._drop_search(s)
        keys = (_slide_key, _phrase_key, _refine_key, _speculate_key)
        for key in (k(s.uri) for k in keys):
            self.worker.drop(key)

    def _drop_search(self, s: Session) -> None:
        """The phrase search in flight is of no use: drop it if it has not started."""
        search, s.search = s.search, None
        if search is not None and self.worker.drop(search.key):
            self.stats.count(s.uri, "phrases_dropped")

    # -- the jobs -----------------------------------------------------------------------

    def _refine(self, s: Session, context: str, prefix: str) -> None:
        """Refine the decision at `context` for the words starting with `prefix`, in the
        background: the letters typed next filter the refined distribution."""
        decider = s.decider
        if decider is None:
            return

        def refine() -> bool:
            return s.still_at(decider, context) and decider.refine(context, prefix)

        job = asyncio.wrap_future(
            self.worker.submit(refine, key=_refine_key(s.uri), background=True)
        )
        job.add_done_callback(lambda f: self._refined(s, f))

    def _refined(self, s: Session, future: asyncio.Future[Any]) -> None:
        if not future.cancelled() and future.exception() is None and future.result():
            self.stats.count(s.uri, "refinements")

    def _speculate(self, s: Session, context: str, prefix: str) -> None:
        """Guess the word being typed, in the background: once one word is likely
        enough, the engine decides the boundary after it and a space (one guess per
        word), and, for ghost text, the phrase it starts."""
        decider = s.decider
        if decider is None:
            return
        held = None if s.phrase is None else s.phrase.rest(context, prefix)
        words = self.settings.phraseWords if self.phrases_on(s) and held is None else 0

        def guess() -> tuple[bool, Phrase | None]:
            """(whether the model ran for a guess, the phrase it starts)."""
            if not s.still_at(decider, context):
                return False, None
            if not decider.speculate(context, prefix):
                return False, None
            return True, decider.shown_phrase(context, prefix, words) if words >= 2 else None

        key = _speculate_key(s.uri)
        job = asyncio.wrap_future(self.worker.submit(guess, key=key, background=True))
        search = None
        if words >= 2:  # the phrase search rides on the guess
            search = s.search = PhraseSearch(context, prefix, job, key)
        job.add_done_callback(lambda f: self._guessed(s, context, search, f))

    def _speculate_space(self, s: Session, context: str) -> None:
        """At a boundary after punctuation ("questions."), decide the boundary after the
        space that likely comes next, in the background (the engine checks the model
        expects one; it costs the mixture and a refinement, no forward over new text)."""
        decider = s.decider
        if decider is None or not context or context[-1].isspace():
            return  # after a space or a newline the next key starts a word

        def guess() -> tuple[bool, None]:
            return s.still_at(decider, context) and decider.speculate_space(context), None

        key = _speculate_key(s.uri)
        job = asyncio.wrap_future(self.worker.submit(guess, key=key, background=True))
        job.add_done_callback(lambda f: self._guessed(s, context, None, f))

    # -- what the jobs found ------------------------------------------------------------

    def _searched(self, s: Session, context: str, future: asyncio.Future[Any]) -> None:
        if s.search is not None and s.search.future is future:
            s.search = None
        if future.cancelled() or future.exception() is not None:
            return
        self.stats.count(s.uri, "phrase_searches")
        self._hold(s, context, future.result())

    def _guessed(
        self, s: Session, context: str, search: PhraseSearch | None, future: asyncio.Future[Any]
    ) -> None:
        if s.search is not None and s.search.future is future:
            s.search = None
        if future.cancelled() or future.exception() is not None:
            return
        ran, phrase = future.result()
        if ran:
            s.guessed = context
            self.stats.count(s.uri, "speculations")
            if search is not None:
                self.stats.count(s.uri, "phrase_searches")
        self._hold(s, context, phrase)

    @staticmethod
    def _hold(s: Session, context: str, phrase: Phrase | None) -> None:
        if phrase is not None:
            s.phrase = HeldPhrase(context, phrase.text)
