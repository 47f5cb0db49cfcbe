"""Per-document typing state, and when to ask the engine for a decision.

Each open document has a `Session`: its engine `Decider` (token window, KV cache),
where the cursor is, the context of the decision the decider holds, the decision in
flight, and a generation counter bumped by every edit at or before the cursor, so a
request overtaken by newer typing is answered empty rather than stale.

A change of context at the cursor (a word boundary: space, punctuation, newline,
deletion, paste, undo) starts a decision at once on the worker, through the per-
document throttle; keystrokes inside a word only filter the decision already made.
With learning on, each word the user finishes typing goes to the personal store
(learner.py), which every document's decider reads.

Work ahead of the user runs on the worker's background lane, after any request:

- a phrase for the ghost text (`phrase`), searched after each boundary decision in a
  document whose client asks for ghost text; typing that leaves the phrase drops it,
  typing through it uses it up, and its boundaries, decided ahead, need no model call;
- a refinement of the decision by the model's second token (engine/refine.py), after
  the decision and again after the word's first letter, for the letters typed next;
- a speculation: while a word is typed, once one word is likely enough, the boundary
  after it is decided (one guess per word), with the phrase that follows it; after
  punctuation that a space likely follows, the boundary after the space.
Reaching a guessed boundary takes the decision as made (the engine counted the guess
into a copy of the document's caches), so the answer needs neither model nor mixture.
A new boundary drops whatever of this still waits for the worker.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from nextword.engine import REFINED_LETTERS, WORD_RE, Phrase, RoutingDecider, split_prefix
from nextword.lsp.backlog import no_backlog
from nextword.lsp.learner import Learner
from nextword.lsp.settings import Settings
from nextword.lsp.stats import ServerStats
from nextword.lsp.throttle import Throttle
from nextword.lsp.worker import InferenceWorker

if TYPE_CHECKING:
    from pygls.workspace import TextDocument

    from nextword.engine import Candidate, Router

log = logging.getLogger(__name__)
_LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")


def _after(start: types.Position, text: str, units: Callable[[str], int]) -> types.Position:
    """The position just after `text` inserted at `start` (in the client's units)."""
    lines = _LINE_BREAK_RE.split(text)
    if len(lines) == 1:
        return types.Position(start.line, start.character + units(text))
    return types.Position(start.line + len(lines) - 1, units(lines[-1]))


def _settle(target: asyncio.Future[Any], source: asyncio.Future[Any]) -> None:
    """Pass a finished job's outcome on to the decision future requests await."""
    if target.done():
        return
    if source.cancelled():
        target.cancel()
    elif source.exception() is not None:
        target.set_exception(source.exception())  # type: ignore[arg-type]
    else:
        target.set_result(source.result())


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


# How a boundary decision was made: by the model now, or ahead of the text (by a
# speculation on the word typed, or by a phrase), needing no model call when reached.
Source = str  # "model", "speculation" or "phrase"


@dataclass(frozen=True)
class HeldPhrase:
    """A phrase found at `context`: its first word completes what was typed there."""

    context: str
    text: str  # the words, one space apart

    def rest(self, context: str, prefix: str) -> str | None:
        """The phrase from the start of `prefix` on, while the text typed since
        `context` is the phrase's beginning; None once the typing left it or used it up.
        """
        if not context.startswith(self.context):
            return None
        typed = context[len(self.context) :] + prefix
        if len(typed) >= len(self.text) or not self.text.startswith(typed):
            return None
        return self.text[len(typed) - len(prefix) :]


def follows_guess(guessed: str | None, context: str) -> bool:
    """True when `context` is `guessed` plus one word and a space, or plus a space: the
    boundary a speculation at `guessed` decided ahead (on the word typed there, or on
    the space after punctuation)."""
    if guessed is None or not context.endswith(" ") or not context.startswith(guessed):
        return False
    if guessed and not guessed[-1].isspace() and context == guessed + " ":
        return True
    return WORD_RE.fullmatch(context[len(guessed) : -1]) is not None


@dataclass(frozen=True)
class Answer:
    """A request's words: the typed prefix and the candidates for it."""

    prefix: str
    candidates: list[Candidate]
    # For the first completion answered from a new boundary decision: how it was made.
    boundary: Source | None = None


@dataclass(frozen=True)
class _Search:
    """A phrase search on the worker: for the word at `context` completing `prefix`."""

    context: str
    prefix: str
    future: asyncio.Future[Any]
    key: str  # its worker key

    def may_match(self, context: str, prefix: str) -> bool:
        """Whether its phrase could still be the one for this position."""
        return context == self.context and prefix.startswith(self.prefix)


@dataclass(frozen=True)
class _Decided:
    """What a decision job hands back to the loop."""

    decider: RoutingDecider
    ahead: bool  # the model ran for this boundary ahead of the text: the mixture alone now
    ms: float  # time on the worker


def _key(p: types.Position) -> tuple[int, int]:
    return (p.line, p.character)


def track_cursor(
    cursor: types.Position | None,
    changes: Sequence[types.TextDocumentContentChangeEvent],
    units: Callable[[str], int],
) -> tuple[types.Position | None, bool, bool]:
    """Follow the cursor through one didChange.

    A change that touches the cursor is typing (an insert, a backspace, a paste over
    a selection, an undo there): the cursor moves to the end of the inserted text. A
    change before the cursor shifts it; one after it leaves it alone.

    Returns:
        (the new cursor or None when unknown, typed at the cursor, text before the
        cursor changed).
    """
    typed = before = False
    for change in changes:
        if not isinstance(change, types.TextDocumentContentChangePartial):
            # A whole-document replacement: the cursor is unknown until the next request.
            cursor, before = None, True
            continue
        start, end = change.range.start, change.range.end
        new_end = _after(start, change.text, units)
        if cursor is None or _key(start) <= _key(cursor) <= _key(end):
            cursor, typed, before = new_end, True, True
        elif _key(end) < _key(cursor):
            before = True
            if cursor.line == end.line:
                cursor = types.Position(
                    new_end.line, new_end.character + cursor.character - end.character
                )
            else:
                cursor = types.Position(cursor.line + new_end.line - end.line, cursor.character)
    return cursor, typed, before


# The context handed to the engine: the last 256-320k characters before the cursor
# (the model reads ~600 of them, the document caches all), cut on a fixed 64k grid.
# The engine's caches follow the context as it grows; a cut that moved with every
# keystroke would restart them each time, one on a grid restarts them once per 64k
# characters typed. So a key in a 10 MB document costs what it costs in a 300 KB one.
CONTEXT_CHARS = 256 * 1024
CONTEXT_STEP = 64 * 1024


def text_before(doc: TextDocument, position: types.Position) -> str:
    """The text the engine sees before a client position (clamped to the document)."""
    offset = doc.offset_at_position(position)
    start = 0
    if offset > CONTEXT_CHARS:
        start = (offset - CONTEXT_CHARS) // CONTEXT_STEP * CONTEXT_STEP
    return doc.source[start:offset]


# Documents whose engine state (decider: KV cache, document caches, the cached
# distribution over 60,000 words, a few MB each) is kept. An editor keeps dozens to
# hundreds of files open but types in a few; the least recently typed-in documents
# beyond this give their decider back and get a new one when typed in again (one
# window forward, about what a window slide costs).
MAX_LIVE_DECIDERS = 8

# The longest a request waits for queued input to be read before it is answered.
READ_AHEAD_S = 0.05
# The longest a ghost-text request waits for the phrase search in flight at its
# position (a few forwards, ~10-40 ms here); past it the single word is the answer,
# and nothing asks again until the next key. 50 ms was too short on a slow day of
# this machine: the Neovim e2e test waited 30 s for a phrase in one fresh-clone run.
PHRASE_WAIT_S = 0.15

# How often a request still current asks again for a decision that did not land.
DECISION_TRIES = 3

# Longer inserts are pastes (or a formatter's edits): not words the user wrote here.
MAX_TYPED = 100
# The word before an insert that a separator finishes is searched this far back.
_WORD_SPAN = 64


@dataclass
class Session:
    """One open document's typing state."""

    uri: str
    language_id: str
    decider: RoutingDecider | None = None  # made on the worker thread, on first use
    cursor: types.Position | None = None  # best guess until a request says where it is
    generation: int = 0  # bumped by each edit at or before the cursor
    decided: str | None = None  # the context the decider's decision is for
    pending_context: str | None = None  # the context of the decision in flight or held
    pending: asyncio.Future[Any] | None = None  # None while the throttle holds it
    shown_context: str | None = None
    shown: set[str] = field(default_factory=set)  # words offered at shown_context
    # The latest request per kind ("completion", "inline"): a request still waiting
    # for a decision when a newer one of its kind arrives is answered empty.
    tickets: dict[str, int] = field(default_factory=dict)
    # The last word learned (its offset in the context and the word): typing a space
    # again after deleting one does not count the word twice.
    learned: tuple[int, str] | None = None
    # Typing was read ahead over (input was queued): the next decision catches up.
    behind: bool = False
    # How the decision at `decided` was made, and whether a completion was answered
    # from it yet (the first one is that boundary's answer, for the stats).
    decided_by: Source = "model"
    fresh: bool = False
    # The client asks this document for ghost text: phrases are searched for it.
    wants_phrases: bool = False
    phrase: HeldPhrase | None = None  # the phrase found last, while typing stays on it
    search: _Search | None = None  # the phrase search in flight
    phrase_searched: str | None = None  # the boundary whose phrase was searched last
    guessed: str | None = None  # the context of the word last guessed (a speculation)

    def ticket(self, kind: str) -> int:
        self.tickets[kind] = self.tickets.get(kind, 0) + 1
        return self.tickets[kind]

    def typing_through(self, context: str, prefix: str) -> bool:
        """True when the prefix is the start of (or all of) a word already offered here."""
        return context == self.shown_context and any(w.startswith(prefix) for w in self.shown)

    def remember(self, context: str, words: Sequence[str]) -> None:
        if context != self.shown_context:
            self.shown_context, self.shown = context, set()
        self.shown.update(words)


class Sessions:
    """All open documents, the engine they share, the worker and the throttle."""

    def __init__(self, worker: InferenceWorker, stats: ServerStats, settings: Settings):
        self.worker = worker
        self.stats = stats
        self.settings = settings
        self.engine: Router | None = None
        self.throttle = Throttle(
            settings.throttleMs / 1000.0,
            on_skip=lambda uri: stats.count(uri, "decisions_skipped"),
        )
        self._docs: dict[str, Session] = {}
        # Documents holding a decider, least recently decided first.
        self._live: OrderedDict[str, None] = OrderedDict()
        self.learner = Learner()
        # True while client input waits to be read (backlog.py); the server sets it.
        self.backlog: Callable[[], bool] = no_backlog

    # -- engine and settings --------------------------------------------------------

    def set_engine(self, engine: Router | None) -> None:
        self.engine = engine
        self.reset()

    def reset(self) -> None:
        """Forget every decider (a new model, window or temperature)."""
        self._live.clear()
        for s in self._docs.values():
            self._drop_pending(s)
            s.decider, s.decided = None, None
            s.shown_context, s.shown = None, set()
            s.phrase, s.phrase_searched, s.guessed = None, None, None
            s.generation += 1

    def configure(self, settings: Settings) -> None:
        old, self.settings = self.settings, settings
        self.throttle.interval_s = settings.throttleMs / 1000.0
        # Deciders hold the store they read: a new one (or none) means new deciders.
        new_store = self.learner.configure(settings.learning, settings.learningScope)
        if new_store or (old.windowTokens, old.temperature) != (
            settings.windowTokens,
            settings.temperature,
        ):
            self.reset()
        if (old.phraseWords, old.inline) != (settings.phraseWords, settings.inline):
            for s in self._docs.values():
                s.phrase, s.phrase_searched = None, None

    def phrases_on(self, s: Session) -> bool:
        """Whether phrases are searched for `s`: its client shows ghost text, and the
        settings allow phrases."""
        return s.wants_phrases and self.settings.inline and self.settings.phraseWords >= 2

    def serves(self, s: Session) -> bool:
        return self.engine is not None and s.language_id in self.settings.languages

    # -- document lifecycle -----------------------------------------------------------

    def open(self, uri: str, language_id: str) -> None:
        # A second didOpen replaces the document: the old session's held or waiting
        # decision goes first, or a request awaiting it would never be answered.
        self.close(uri)
        self._docs[uri] = Session(uri, language_id)

    def close(self, uri: str) -> None:
        s = self._docs.pop(uri, None)
        if s is not None:
            self._drop_pending(s)
            self._release(s)
        self._live.pop(uri, None)
        self.throttle.forget(uri)
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
            self._learn(s, text, changes[-1])
        if self.engine is None:
            return
        context, prefix = split_prefix(text)
        self._leave_phrase(s, context, prefix)
        if context != s.decided:
            if self.backlog():
                # Newer keys are queued: drop the stale work; the newest state is
                # decided, cheaply, when a request asks for it.
                self._drop_pending(s)
                s.behind = True
            else:
                # A word boundary: decide now, so the candidates are ready for the next key.
                self._decision(s, context)
        elif prefix:
            # Even with input queued (a request sent with the key): a newer key replaces
            # the work while it waits, and it runs only on an idle worker.
            if len(prefix) <= REFINED_LETTERS:
                self._refine(s, context, prefix)
            if self.settings.speculate and s.guessed != context:
                self._speculate(s, context, prefix)

    def _leave_phrase(self, s: Session, context: str, prefix: str) -> None:
        """Typing that leaves the phrase drops it, and the search for one it cannot match."""
        if s.phrase is not None and s.phrase.rest(context, prefix) is None:
            s.phrase = None
            self.stats.count(s.uri, "phrases_dropped")
        if s.search is not None and not s.search.may_match(context, prefix):
            self._drop_search(s)

    def _drop_search(self, s: Session) -> None:
        """The phrase search in flight is of no use: drop it if it has not started."""
        search, s.search = s.search, None
        if search is not None and self.worker.drop(search.key):
            self.stats.count(s.uri, "phrases_dropped")

    def _learn(self, s: Session, text: str, change: types.TextDocumentContentChangeEvent) -> None:
        """Learn the words this change finished: those it ends with a separator.

        A change is a keystroke, a few keys an editor sent together, or an accepted
        candidate; a word counts once a separator follows it, whatever the chunking.
        """
        if not isinstance(change, types.TextDocumentContentChangePartial):
            return
        inserted = change.text
        if not inserted or len(inserted) > MAX_TYPED or not text.endswith(inserted):
            return
        start = len(text) - len(inserted)  # where the insert begins in `text`
        base = max(0, start - _WORD_SPAN)
        for match in WORD_RE.finditer(text, base):
            end = match.end()
            if end < start:
                continue  # finished before this change
            if end >= len(text):
                break  # still being typed
            key = (match.start(), match.group())
            if key == s.learned:
                continue
            s.learned = key
            context = text[: match.start()]
            offered = context == s.shown_context and match.group() in s.shown
            self.learner.learn(context, match.group(), accepted=offered)

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
            why = await self._await_decision(s, context, generation, kind, ticket)
            if why is not None:
                return self._unanswered(s, kind, position, prefix, why)
        # Filtering the cached decision is a tenth of a millisecond of numpy and never
        # runs the model: it is answered here, without a hop to the worker thread.
        found = self._filter(s, context, prefix, k, correct)
        if generation != s.generation:
            return self._unanswered(s, kind, position, prefix, "typing came while it waited")
        if not found and prefix and not s.typing_through(context, prefix):
            self._spell(s, context, prefix, k, correct)
        s.remember(context, [c.text for c in found])
        boundary = None
        if kind == "completion" and s.fresh and not prefix:
            s.fresh, boundary = False, s.decided_by
        return Answer(prefix, found, boundary)

    async def _await_decision(
        self, s: Session, context: str, generation: int, kind: str, ticket: int
    ) -> str | None:
        """Wait until the decision at `context` is made; None then, else why the request
        is to be answered empty (newer typing, or a newer request of its kind).

        While the request is still the newest at the document's current state, a
        decision that did not land for its context (dropped, or followed by another
        one before the request woke) is asked for again, a few times at most.
        """
        for _ in range(DECISION_TRIES):
            pending = self._decision(s, context)
            if self.throttle.held(s.uri):
                self.stats.count(s.uri, "throttle_waits")
            try:
                # Shielded: a cancelled request must not cancel a decision others await.
                await asyncio.shield(pending)
            except asyncio.CancelledError:
                if not pending.cancelled():
                    raise  # this request was cancelled
            # A decision's own callback (`_decided`, which records it) runs on the loop's
            # next turn after it finishes. A request that came in that same turn found
            # it finished, did not wait, and read the state before it: it answered
            # empty now and then, at a space after a word, under load. One turn lets
            # the callback run first (the loop runs its callbacks in order).
            await asyncio.sleep(0)
            if self._docs.get(s.uri) is not s:
                return "the document closed"
            if generation != s.generation:
                return "typing came while it waited"
            if s.tickets[kind] != ticket:
                return "a newer request came"
            if s.decided == context:
                return None
            held = -1 if s.decided is None else len(s.decided)
            log.debug(
                "the decision for %d characters did not land (%s; held: %d): asked again",
                len(context),
                "dropped" if pending.cancelled() else "another came after it",
                held,
            )
        return "its decision did not land"

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
        if not self.phrases_on(s) or (generation is not None and generation != s.generation):
            return None
        context, prefix = split_prefix(text_before(doc, position))
        if s.decided != context:
            return None
        rest = None if s.phrase is None else s.phrase.rest(context, prefix)
        if rest is None:
            search = s.search
            if search is None or not search.may_match(context, prefix):
                # At a boundary the search follows the decision (`_decided`); this is
                # the document's first ghost-text request, or its search was dropped.
                search = None if prefix or s.phrase_searched == context else self._search(s)
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
            return s.generation == generation and self._docs.get(s.uri) is s

        while self.backlog() and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0)
            if not current():
                return False
        return current()

    # -- model work, through the throttle and the worker --------------------------------

    def _decision(self, s: Session, context: str) -> asyncio.Future[Any]:
        """The decision for `context`, in flight or held by the throttle.

        A request may await it either way: a held decision runs when the interval
        ends (at most `throttleMs`), and newer typing cancels it.
        """
        if s.pending_context == context and s.pending is not None:
            return s.pending
        self._drop_pending(s)
        self._keep_live(s)
        s.pending_context = context
        decision: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        s.pending = decision
        decision.add_done_callback(lambda f: self._decided(s, context, f))

        def fire() -> None:
            k = self.settings.k
            job = asyncio.wrap_future(
                self.worker.submit(lambda: self._decide(s, context, k), key=s.uri)
            )
            job.add_done_callback(lambda f: _settle(decision, f))

        if s.decider is not None and s.decider.has_ahead(context):
            # Decided ahead (a guess or a phrase): no forward is left to run, and the
            # throttle bounds the model's work, so it does not hold this one. Flat out,
            # it held such boundaries for most of `throttleMs` (42 ms p50).
            fire()
        else:
            self.throttle.call(s.uri, fire)
        return decision

    def _keep_live(self, s: Session) -> None:
        """Mark `s` as the latest document to decide in; release the least recent ones'
        deciders beyond MAX_LIVE_DECIDERS (never one with a decision in flight)."""
        if self._docs.get(s.uri) is not s:
            return  # a closed document's session: it holds nothing for long
        self._live[s.uri] = None
        self._live.move_to_end(s.uri)
        while len(self._live) > MAX_LIVE_DECIDERS:
            idle = next(
                (u for u in self._live if u != s.uri and self._docs[u].pending is None), None
            )
            if idle is None:
                break
            del self._live[idle]
            self._release(self._docs[idle])
            self.stats.count(idle, "deciders_released")

    def _release(self, s: Session) -> None:
        """Give back a document's decider; its next decision makes a new one."""
        s.decided = None
        s.shown_context, s.shown = None, set()
        s.phrase, s.phrase_searched, s.guessed = None, None, None
        decider, s.decider = s.decider, None
        if decider is not None:
            # The last reference goes on the worker: MLX arrays are freed where they
            # were made, never under a forward running there.
            self.worker.submit(decider.reset)

    def live_deciders(self) -> int:
        return sum(1 for s in self._docs.values() if s.decider is not None)

    def _decided(self, s: Session, context: str, future: asyncio.Future[Any]) -> None:
        if s.pending is future:
            s.pending, s.pending_context = None, None
        if future.cancelled():
            self.stats.count(s.uri, "decisions_skipped")
            return
        if future.exception() is not None:
            log.error("decision failed: %s", future.exception())
            return
        done: _Decided = future.result()
        decider = done.decider
        # A reset may have replaced the decider while this one was deciding.
        if decider is not s.decider:
            log.debug("a decision at %d characters was for a replaced decider", len(context))
            return
        s.decided, s.fresh = context, True
        self.stats.count(s.uri, "decisions_run")
        self.stats.count(s.uri, "boundaries")
        if done.ahead:
            s.decided_by = "speculation" if follows_guess(s.guessed, context) else "phrase"
            self.stats.count(s.uri, "decided_ahead")
            if s.decided_by == "speculation":
                self.stats.count(s.uri, "speculation_hits")
        else:
            s.decided_by = "model"
            self.stats.decision(s.uri, done.ms)
        # Between keystrokes, after any request: the decision refined for the letters
        # to come; the phrase for the ghost text, unless
        # the one held goes on for two words or more from here (typing through it).
        held = None if s.phrase is None else s.phrase.rest(context, "")
        going_on = held is not None and " " in held
        self._refine(s, context, "")
        if self.phrases_on(s) and s.phrase_searched != context and not going_on:
            self._search(s)
        # While the user reads the candidates, slide a nearly full token window, so
        # the next decision does not pay for it; new typing drops this job.
        self.worker.submit(
            lambda: decider.slide_ahead(context), key=_slide_key(s.uri), background=True
        )
        if self.settings.speculate:
            self._speculate_space(s, context)

    def _search(self, s: Session) -> _Search | None:
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
            if not self._current(s, decider, context):
                return None
            return decider.shown_phrase(context, "", words)

        key = _phrase_key(s.uri)
        job = asyncio.wrap_future(self.worker.submit(search, key=key, background=True))
        s.search = _Search(context, "", job, key)
        job.add_done_callback(lambda f: self._searched(s, context, f))
        return s.search

    def _refine(self, s: Session, context: str, prefix: str) -> None:
        """Refine the decision at `context` for the words starting with `prefix`, in the
        background: the letters typed next filter the refined distribution."""
        decider = s.decider
        if decider is None:
            return

        def refine() -> bool:
            return self._current(s, decider, context) and decider.refine(context, prefix)

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
            if not self._current(s, decider, context):
                return False, None
            if not decider.speculate(context, prefix):
                return False, None
            return True, decider.shown_phrase(context, prefix, words) if words >= 2 else None

        key = _speculate_key(s.uri)
        job = asyncio.wrap_future(self.worker.submit(guess, key=key, background=True))
        search = None
        if words >= 2:  # the phrase search rides on the guess
            search = s.search = _Search(context, prefix, job, key)
        job.add_done_callback(lambda f: self._guessed(s, context, search, f))

    def _speculate_space(self, s: Session, context: str) -> None:
        """At a boundary after punctuation ("questions."), decide the boundary after the
        space that likely comes next, in the background (the engine checks the model
        expects one; it costs the mixture and a refinement, no forward over new text)."""
        decider = s.decider
        if decider is None or not context or context[-1].isspace():
            return  # after a space or a newline the next key starts a word

        def guess() -> tuple[bool, None]:
            return self._current(s, decider, context) and decider.speculate_space(context), None

        key = _speculate_key(s.uri)
        job = asyncio.wrap_future(self.worker.submit(guess, key=key, background=True))
        job.add_done_callback(lambda f: self._guessed(s, context, None, f))

    @staticmethod
    def _current(s: Session, decider: RoutingDecider, context: str) -> bool:
        """On the worker: `decider` still serves `s`, at `context`, with no newer
        decision on its way (work for an older boundary would move it back)."""
        return s.decider is decider and s.decided == context and s.pending is None

    def _searched(self, s: Session, context: str, future: asyncio.Future[Any]) -> None:
        if s.search is not None and s.search.future is future:
            s.search = None
        if future.cancelled() or future.exception() is not None:
            return
        self.stats.count(s.uri, "phrase_searches")
        self._hold(s, context, future.result())

    def _guessed(
        self, s: Session, context: str, search: _Search | None, future: asyncio.Future[Any]
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

    def _spell(self, s: Session, context: str, prefix: str, k: int, correct: bool) -> None:
        """Spell out words for an unknown prefix in the background, for the next keys.

        The engine keeps spelled words with the decision, so the following keystrokes
        filter them for free; the request at hand is not kept waiting for the model.
        """
        self._drop_pending(s)

        def fire() -> None:
            job = asyncio.wrap_future(
                self.worker.submit(
                    lambda: self._spell_now(s, context, prefix, k, correct), key=s.uri
                )
            )
            job.add_done_callback(lambda f: self._spelled(s, f))

        self.throttle.call(s.uri, fire)

    def _spelled(self, s: Session, future: asyncio.Future[Any]) -> None:
        if not future.cancelled():
            self.stats.count(s.uri, "decisions_run")

    def _drop_pending(self, s: Session) -> None:
        """Stale work is dropped: a held call is cancelled, a waiting job removed."""
        self._drop_search(s)
        keys = (_slide_key, _phrase_key, _refine_key, _speculate_key)
        for key in (k(s.uri) for k in keys):
            self.worker.drop(key)
        self.throttle.cancel(s.uri)
        if s.pending is not None:
            self.worker.drop(s.uri)
            s.pending.cancel()  # requests awaiting it answer empty
        s.pending, s.pending_context = None, None

    # -- on the worker thread -----------------------------------------------------------

    def _decide(self, s: Session, context: str, k: int) -> _Decided:
        """Make the decision at `context` (a model forward unless already cached)."""
        if s.decider is None:
            assert self.engine is not None
            s.decider = self.engine.decider(
                window_tokens=self.settings.windowTokens,
                temperature=self.settings.temperature,
                store=self.learner.store,
            )
        decider = s.decider
        if s.behind:
            s.behind = False
            decider.catch_up()
        started = time.perf_counter()
        ahead = decider.has_ahead(context)
        decider.decide(context, "", k, spell=False)
        return _Decided(decider, ahead, (time.perf_counter() - started) * 1000)

    def _filter(
        self, s: Session, context: str, prefix: str, k: int, correct: bool
    ) -> list[Candidate]:
        """The decision at `context` filtered by `prefix`; never a model call."""
        decider = s.decider
        if decider is None:
            return []
        return decider.filter_cached(context, prefix, k, correct=correct) or []

    def _spell_now(
        self, s: Session, context: str, prefix: str, k: int, correct: bool
    ) -> list[Candidate]:
        """On the worker: spell words for `prefix` at the decision held for `context`."""
        decider = s.decider
        if decider is None or not decider.has_cached(context):
            return []
        return decider.decide(context, prefix, k, spell=True, correct=correct)
