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
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from nextword.engine import WORD_RE, split_prefix
from nextword.lsp.backlog import no_backlog
from nextword.lsp.learner import Learner
from nextword.lsp.settings import Settings
from nextword.lsp.stats import ServerStats
from nextword.lsp.throttle import Throttle
from nextword.lsp.worker import InferenceWorker

if TYPE_CHECKING:
    from pygls.workspace import TextDocument

    from nextword.engine import Candidate, Decider, Engine

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

# Longer inserts are pastes (or a formatter's edits): not words the user wrote here.
MAX_TYPED = 100
# The word before an insert that a separator finishes is searched this far back.
_WORD_SPAN = 64


@dataclass
class Session:
    """One open document's typing state."""

    uri: str
    language_id: str
    decider: Decider | None = None  # made on the worker thread, on first use
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
        self.engine: Engine | None = None
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

    def set_engine(self, engine: Engine | None) -> None:
        self.engine = engine
        self.reset()

    def reset(self) -> None:
        """Forget every decider (a new model, window or temperature)."""
        self._live.clear()
        for s in self._docs.values():
            self._drop_pending(s)
            s.decider, s.decided = None, None
            s.shown_context, s.shown = None, set()
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
        context, _ = split_prefix(text)
        if context != s.decided:
            if self.backlog():
                # Newer keys are queued: drop the stale work; the newest state is
                # decided, cheaply, when a request asks for it.
                self._drop_pending(s)
                s.behind = True
            else:
                # A word boundary: decide now, so the candidates are ready for the next key.
                self._decision(s, context)

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
    ) -> tuple[str, list[Candidate]]:
        """(prefix, candidates) at a position; no candidates when not ready or stale.

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
            return "", []
        if generation is None:
            generation = s.generation
        elif generation != s.generation:
            self.stats.count(uri, "superseded")
            return "", []
        s.cursor = position
        ticket = s.ticket(kind)
        if self.backlog() and not await self._read_ahead(s, generation):
            self.stats.count(uri, "superseded")
            return "", []
        context, prefix = split_prefix(text_before(doc, position))
        if context == s.decided:
            self.stats.count(uri, "cache_hits")
        else:
            pending = self._decision(s, context)
            if self.throttle.held(uri):
                self.stats.count(uri, "throttle_waits")
            try:
                # Shielded: a cancelled request must not cancel a decision others await.
                await asyncio.shield(pending)
            except asyncio.CancelledError:
                if not pending.cancelled():
                    raise  # this request was cancelled
                return prefix, []  # the decision was superseded
            if s.decided != context:
                return prefix, []
            if s.tickets[kind] != ticket:
                self.stats.count(uri, "superseded")
                return prefix, []
        # Filtering the cached decision is a tenth of a millisecond of numpy and never
        # runs the model: it is answered here, without a hop to the worker thread.
        found = self._filter(s, context, prefix, k, correct)
        if generation != s.generation:
            self.stats.count(uri, "superseded")
            return prefix, []
        if not found and prefix and not s.typing_through(context, prefix):
            self._spell(s, context, prefix, k, correct)
        s.remember(context, [c.text for c in found])
        return prefix, found

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
        decider: Decider = future.result()
        # A reset may have replaced the decider while this one was deciding.
        if decider is s.decider:
            s.decided = context
            self.stats.count(s.uri, "decisions_run")
            # While the user reads the candidates, slide a nearly full token window, so
            # the next decision does not pay for it; new typing drops this job.
            self.worker.submit(lambda: decider.slide_ahead(context), key=_slide_key(s.uri))

    def _spell(self, s: Session, context: str, prefix: str, k: int, correct: bool) -> None:
        """Spell out words for an unknown prefix in the background, for the next keys.

        The engine keeps spelled words with the decision, so the following keystrokes
        filter them for free; the request at hand is not kept waiting for the model.
        """
        self._drop_pending(s)

        def fire() -> None:
            job = self.worker.submit(
                lambda: self._spell_now(s, context, prefix, k, correct), key=s.uri
            )
            job.add_done_callback(lambda f: self._spelled(s, f))

        self.throttle.call(s.uri, fire)

    def _spelled(self, s: Session, future: Any) -> None:
        if not future.cancelled():
            self.stats.count(s.uri, "decisions_run")

    def _drop_pending(self, s: Session) -> None:
        """Stale work is dropped: a held call is cancelled, a waiting job removed."""
        self.worker.drop(_slide_key(s.uri))
        self.throttle.cancel(s.uri)
        if s.pending is not None:
            self.worker.drop(s.uri)
            s.pending.cancel()  # requests awaiting it answer empty
        s.pending, s.pending_context = None, None

    # -- on the worker thread -----------------------------------------------------------

    def _decide(self, s: Session, context: str, k: int) -> Decider:
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
        decider.decide(context, "", k, spell=False)
        return decider

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
