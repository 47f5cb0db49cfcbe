"""All open documents: each one's typing, and the answers to its requests.

The request path goes one way down: `Sessions` (this module) takes each typing event
and request; the decisions (decisions.py) schedule the model's work on the worker
(worker.py) and record each decision that lands in the document's session
(session.py); the work ahead of the user (ahead.py) starts from there, on the
worker's background lane. A request waits for its decision, then is answered here
by filtering it, without a hop to the worker.

With learning on, each word the user finishes typing goes to the personal store
(learner.py), which every document's decider reads.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

from nextword.engine import split_prefix
from nextword.lsp.ahead import WorkAhead
from nextword.lsp.backlog import no_backlog
from nextword.lsp.cursor import text_before, track_cursor
from nextword.lsp.decisions import Decisions
from nextword.lsp.learner import Learner
from nextword.lsp.session import Session, Source
from nextword.lsp.settings import Settings
from nextword.lsp.stats import ServerStats
from nextword.lsp.worker import InferenceWorker

if TYPE_CHECKING:
    from pygls.workspace import TextDocument

    from nextword.engine import Candidate, Router, RoutingDecider

log = logging.getLogger(__name__)

# The longest a request waits for queued input to be read before it is answered.
READ_AHEAD_S = 0.05
# The longest a ghost-text request waits for the phrase search in flight at its
# position (a few forwards, ~10-40 ms here); past it the single word is the answer,
# and nothing asks again until the next key. 50 ms was too short on a slow day of
# this machine: the Neovim e2e test waited 30 s for a phrase in one fresh-clone run.
PHRASE_WAIT_S = 0.15


@dataclass(frozen=True)
class Answer:
    """A request's words: the typed prefix and the candidates for it."""

    prefix: str
    # Best first; the prefix itself among them where it is a word (`Sessions._filter`).
    candidates: list[Candidate]
    # For the first completion answered from a new boundary decision: how it was made.
    boundary: Source | None = None


class Sessions:
    """All open documents, the engine they share, and the work scheduled for them."""

    def __init__(self, worker: InferenceWorker, stats: ServerStats, settings: Settings):
        self.worker = worker
        self.stats = stats
        self.settings = settings
        self.engine: Router | None = None
        self._docs: dict[str, Session] = {}
        self.learner = Learner()
        self.ahead = WorkAhead(worker, stats, settings)
        self.decisions = Decisions(
            worker, stats, settings, ahead=self.ahead, make_decider=self._make_decider
        )
        # True while client input waits to be read (backlog.py); the server sets it.
        self.backlog: Callable[[], bool] = no_backlog

    # -- engine and settings --------------------------------------------------------

    def set_engine(self, engine: Router | None) -> None:
        self.engine = engine
        self.reset()

    def reset(self) -> None:
        """Forget every decider (a new model, window or temperature)."""
        self.decisions.reset()
        for s in self._docs.values():
            self.decisions.drop(s)
            s.decider = None
            s.forget_decision()
            s.generation += 1

    def configure(self, settings: Settings) -> None:
        old, self.settings = self.settings, settings
        self.decisions.configure(settings)
        self.ahead.settings = settings
        # Deciders hold the store they read: a new one (or none) means new deciders.
        new_store = self.learner.configure(settings.learning, settings.learningScope)
        # (A document keeps the standard spelling its decider was made with: following a
        # change of `corrections` would cost every document its decision.)
        made_with = ("windowTokens", "temperature", "blockOffensiveWords")
        if new_store or any(getattr(old, n) != getattr(settings, n) for n in made_with):
            self.reset()
        if (old.phraseWords, old.inline) != (settings.phraseWords, settings.inline):
            for s in self._docs.values():
                s.phrase, s.phrase_searched = None, None

    def serves(self, s: Session) -> bool:
        return self.engine is not None and s.language_id in self.settings.languages

    def _make_decider(self, language_id: str) -> RoutingDecider:
        """On the worker: a new decider for a document, with the settings of now. Prose
        is offered in the standard spelling ("don't" for "dont") where it is corrected."""
        assert self.engine is not None
        return self.engine.decider(
            window_tokens=self.settings.windowTokens,
            temperature=self.settings.temperature,
            store=self.learner.store,
            block_offensive=self.settings.blockOffensiveWords,
            standard_spelling=self.settings.corrects(language_id),
        )

    def live_deciders(self) -> int:
        return sum(1 for s in self._docs.values() if s.decider is not None)

    # -- document lifecycle -----------------------------------------------------------

    def open(self, uri: str, language_id: str) -> None:
        # A second didOpen replaces the document: the old session's held or waiting
        # decision goes first, or a request awaiting it would never be answered.
        self.close(uri)
        self._docs[uri] = Session(uri, language_id)

    def close(self, uri: str) -> None:
        s = self._docs.pop(uri, None)
        if s is not None:
            s.closed = True
            self.decisions.close(s)
        self.stats.forget(uri)

    def get(self, uri: str) -> Session | None:
        return self._docs.get(uri)

    def changed(
        self,
        uri: str,
        doc: TextDocument,
        changes: Sequence[types.TextDocumentContentChangeEvent],
    ) -> None:
        """A typing event: move the cursor, supersede older requests, speculate at a boundary."""
        s = self._docs.get(uri)
        if s is None:
            return
        units = doc.position_codec.client_num_units
        s.cursor, typed, before = track_cursor(s.cursor, changes, units)
        if before:
            s.generation += 1
        if not typed or s.cursor is None or s.language_id not in self.settings.languages:
            return
        text = text_before(doc, s.cursor)
        if self.learner.store is not None and changes:
            self.learner.learn_typed(s, text, changes[-1])
        if self.engine is None:
            return
        context, prefix = split_prefix(text)
        self.ahead.leave_phrase(s, context, prefix)
        if context != s.decided:
            if self.backlog():
                # Newer keys are queued: drop the stale work; the newest state is
                # decided, cheaply, when a request asks for it.
                self.decisions.drop(s)
                s.behind = True
            else:
                # A word boundary: decide now, so the candidates are ready for the next key.
                self.decisions.decision(s, context)
        elif prefix:
            # Even with input queued (a request sent with the key): a newer key replaces
            # the work while it waits, and it runs only on an idle worker.
            self.ahead.typed_in_word(s, context, prefix)

    # -- answering requests -------------------------------------------------------------

    def generation(self, uri: str) -> int | None:
        """The document's generation now: a request stamps it when it arrives."""
        s = self._docs.get(uri)
        return None if s is None else s.generation

    async def candidates(
        self,
        uri: str,
        doc: TextDocument,
        position: types.Position,
        k: int,
        *,
        generation: int | None = None,
        kind: str = "completion",
        correct: bool = False,
    ) -> Answer:
        """The prefix and candidates at a position; no candidates when not ready or stale.

        Args:
            generation: the document's generation when the request arrived; typing
                since then supersedes the request (its position is out of date).
            kind: the request's kind; a newer request of the same kind supersedes
                this one while it waits (a client asking flat out gets one answer
                per decision, not a queue).
            correct: offer the words a misspelled prefix stands for too
                (`Candidate.correction`), among the others by probability.
        """
        s = self._docs.get(uri)
        if s is None or not self.serves(s):
            return Answer("", [])
        if generation is None:
            generation = s.generation
        elif generation != s.generation:
            return self._unanswered(s, kind, position, "", "typing came after it")
        s.cursor = position
        ticket = s.ticket(kind)
        if self.backlog() and not await self._read_ahead(s, generation):
            return self._unanswered(s, kind, position, "", "queued typing came after it")
        context, prefix = split_prefix(text_before(doc, position))
        if context == s.decided:
            self.stats.count(uri, "cache_hits")
        else:
            why = await self.decisions.await_decision(s, context, generation, kind, ticket)
            if why is not None:
                return self._unanswered(s, kind, position, prefix, why)
        # Filtering the cached decision is a tenth of a millisecond of numpy and never
        # runs the model: it is answered here, without a hop to the worker thread.
        found = self._filter(s, context, prefix, k, correct)
        if generation != s.generation:
            return self._unanswered(s, kind, position, prefix, "typing came while it waited")
        if not found and prefix and not s.typing_through(context, prefix):
            self.decisions.spell(s, context, prefix, k, correct)
        s.remember(context, [c.text for c in found])
        boundary = None
        if kind == "completion" and s.fresh and not prefix:
            s.fresh, boundary = False, s.decided_by
        return Answer(prefix, found, boundary)

    def _unanswered(
        self, s: Session, kind: str, position: types.Position, prefix: str, why: str
    ) -> Answer:
        """A request answered without words: newer typing or a newer request took over."""
        self.stats.count(s.uri, "superseded")
        log.debug("%s at %d:%d answered empty: %s", kind, position.line, position.character, why)
        return Answer(prefix, [])

    async def phrase(
        self, uri: str, doc: TextDocument, position: types.Position, *, generation: int | None
    ) -> str | None:
        """The ghost text's phrase at a position, from the start of the typed prefix
        (its first word completes the prefix); None when no phrase is held for it.

        A phrase search in flight for this position is awaited at most PHRASE_WAIT_S:
        the popup's words never wait for it, and the ghost text only this long.
        """
        s = self._docs.get(uri)
        if s is None or not self.serves(s):
            return None
        s.wants_phrases = True
        if not self.ahead.phrases_on(s) or (generation is not None and generation != s.generation):
            return None
        context, prefix = split_prefix(text_before(doc, position))
        if s.decided != context:
            return None
        rest = None if s.phrase is None else s.phrase.rest(context, prefix)
        if rest is None:
            search = s.search
            if search is None or not search.may_match(context, prefix):
                # At a boundary the search follows the decision (ahead.py); this is
                # the document's first ghost-text request, or its search was dropped.
                search = None if prefix or s.phrase_searched == context else self.ahead.search(s)
            if search is None:
                return None
            await asyncio.wait([search.future], timeout=PHRASE_WAIT_S)
            if s.decided != context or (generation is not None and generation != s.generation):
                return None
            rest = None if s.phrase is None else s.phrase.rest(context, prefix)
        if rest is not None:
            self.stats.count(uri, "phrases_shown")
        return rest

    async def _read_ahead(self, s: Session, generation: int) -> bool:
        """Let the reader take in queued input; False when it superseded this request:
        newer typing, or the document closed (or reopened) meanwhile.

        Bounded, so a client that never stops sending still gets answers.
        """
        deadline = asyncio.get_running_loop().time() + READ_AHEAD_S

        def current() -> bool:
            return s.generation == generation and not s.closed

        while self.backlog() and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0)
            if not current():
                return False
        return current()

    def _filter(
        self, s: Session, context: str, prefix: str, k: int, correct: bool
    ) -> list[Candidate]:
        """The decision at `context` filtered by `prefix`, the prefix typed in full among
        the words where it ranks (items.py shows no completion less likely than it);
        never a model call."""
        decider = s.decider
        if decider is None:
            return []
        return decider.filter_cached(context, prefix, k, correct=correct, typed=True) or []
