"""When to ask the engine for a decision, and how a request waits for one.

A change of context at the cursor (a word boundary: space, punctuation, newline,
deletion, paste, undo) starts a decision at once on the worker, through the per-
document throttle; keystrokes inside a word only filter the decision already made.
A decision runs on the worker under the document's key, so a newer one replaces the
one still waiting; when it lands it is recorded in the document's session and the
work ahead of the user (ahead.py) starts from it. A word the decision does not know
is spelled out by the model the same way (`spell`), for the next keystrokes.

Only the few documents typed in last keep their engine state (MAX_LIVE_DECIDERS).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nextword.lsp.session import follows_guess
from nextword.lsp.throttle import Throttle

if TYPE_CHECKING:
    from nextword.engine import Candidate, RoutingDecider
    from nextword.lsp.ahead import WorkAhead
    from nextword.lsp.session import Session
    from nextword.lsp.settings import Settings
    from nextword.lsp.stats import ServerStats
    from nextword.lsp.worker import InferenceWorker

log = logging.getLogger(__name__)

# Documents whose engine state (decider: KV cache, document caches, the cached
# distribution over 60,000 words, a few MB each) is kept. An editor keeps dozens to
# hundreds of files open but types in a few; the least recently typed-in documents
# beyond this give their decider back and get a new one when typed in again (one
# window forward, about what a window slide costs).
MAX_LIVE_DECIDERS = 8

# How often a request still current asks again for a decision that did not land.
DECISION_TRIES = 3


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


@dataclass(frozen=True)
class _Decided:
    """What a decision job hands back to the loop."""

    decider: RoutingDecider
    ahead: bool  # the model ran for this boundary ahead of the text: the mixture alone now
    ms: float  # time on the worker


class Decisions:
    """Every document's decisions: the throttle, the worker's decision jobs, the
    documents that keep a decider."""

    def __init__(
        self,
        worker: InferenceWorker,
        stats: ServerStats,
        settings: Settings,
        *,
        ahead: WorkAhead,
        make_decider: Callable[[str], RoutingDecider],
    ):
        """Args:
        ahead: the work that starts from each decision landed.
        make_decider: a new decider for a document of this language id (on the
            worker thread).
        """
        self.worker = worker
        self.stats = stats
        self.settings = settings
        self.ahead = ahead
        self._make_decider = make_decider
        self.throttle = Throttle(
            settings.throttleMs / 1000.0,
            on_skip=lambda uri: stats.count(uri, "decisions_skipped"),
        )
        # Documents holding a decider, least recently decided first.
        self._live: OrderedDict[str, Session] = OrderedDict()

    def configure(self, settings: Settings) -> None:
        self.settings = settings
        self.throttle.interval_s = settings.throttleMs / 1000.0

    def reset(self) -> None:
        """Every document is to make a new decider (the caller drops them)."""
        self._live.clear()

    def close(self, s: Session) -> None:
        """A closed document: its work dropped, its decider given back."""
        self.drop(s)
        self._release(s)
        self._live.pop(s.uri, None)
        self.throttle.forget(s.uri)

    # -- asking for a decision ----------------------------------------------------------

    def decision(self, s: Session, context: str) -> asyncio.Future[Any]:
        """The decision for `context`, in flight or held by the throttle.

        A request may await it either way: a held decision runs when the interval
        ends (at most `throttleMs`), and newer typing cancels it.
        """
        if s.pending_context == context and s.pending is not None:
            return s.pending
        self.drop(s)
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

    async def await_decision(
        self, s: Session, context: str, generation: int, kind: str, ticket: int
    ) -> str | None:
        """Wait until the decision at `context` is made; None then, else why the request
        is to be answered empty (newer typing, or a newer request of its kind).

        While the request is still the newest at the document's current state, a
        decision that did not land for its context (dropped, or followed by another
        one before the request woke) is asked for again, a few times at most.
        """
        for _ in range(DECISION_TRIES):
            pending = self.decision(s, context)
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
            if s.closed:
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

    def spell(self, s: Session, context: str, prefix: str, k: int, correct: bool) -> None:
        """Spell out words for an unknown prefix in the background, for the next keys.

        The engine keeps spelled words with the decision, so the following keystrokes
        filter them for free; the request at hand is not kept waiting for the model.
        """
        self.drop(s)

        def fire() -> None:
            job = asyncio.wrap_future(
                self.worker.submit(
                    lambda: self._spell_now(s, context, prefix, k, correct), key=s.uri
                )
            )
            job.add_done_callback(lambda f: self._spelled(s, f))

        self.throttle.call(s.uri, fire)

    def drop(self, s: Session) -> None:
        """Stale work is dropped: a held call is cancelled, a waiting job removed."""
        self.ahead.drop(s)
        self.throttle.cancel(s.uri)
        if s.pending is not None:
            self.worker.drop(s.uri)
            s.pending.cancel()  # requests awaiting it answer empty
        s.pending, s.pending_context = None, None

    # -- when one lands -----------------------------------------------------------------

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
        # A reset may have replaced the decider while this one was deciding.
        if done.decider is not s.decider:
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
        self.ahead.after_decision(s, context)

    def _spelled(self, s: Session, future: asyncio.Future[Any]) -> None:
        if not future.cancelled():
            self.stats.count(s.uri, "decisions_run")

    def _keep_live(self, s: Session) -> None:
        """Mark `s` as the latest document to decide in; release the least recent ones'
        deciders beyond MAX_LIVE_DECIDERS (never one with a decision in flight)."""
        if s.closed:
            return  # a closed document's session: it holds nothing for long
        self._live[s.uri] = s
        self._live.move_to_end(s.uri)
        while len(self._live) > MAX_LIVE_DECIDERS:
            idle = next(
                (u for u, d in self._live.items() if u != s.uri and d.pending is None), None
            )
            if idle is None:
                break
            self._release(self._live.pop(idle))
            self.stats.count(idle, "deciders_released")

    def _release(self, s: Session) -> None:
        """Give back a document's decider; its next decision makes a new one."""
        s.forget_decision()
        decider, s.decider = s.decider, None
        if decider is not None:
            # The last reference goes on the worker: MLX arrays are freed where they
            # were made, never under a forward running there.
            self.worker.submit(decider.reset)

    # -- on the worker thread -----------------------------------------------------------

    def _decide(self, s: Session, context: str, k: int) -> _Decided:
        """Make the decision at `context` (a model forward unless already cached)."""
        if s.decider is None:
            s.decider = self._make_decider(s.language_id)
        decider = s.decider
        if s.behind:
            s.behind = False
            decider.catch_up()
        started = time.perf_counter()
        ahead = decider.has_ahead(context)
        decider.decide(context, "", k, spell=False)
        return _Decided(decider, ahead, (time.perf_counter() - started) * 1000)

    def _spell_now(
        self, s: Session, context: str, prefix: str, k: int, correct: bool
    ) -> list[Candidate]:
        """On the worker: spell words for `prefix` at the decision held for `context`."""
        decider = s.decider
        if decider is None or not decider.has_cached(context):
            return []
        return decider.decide(context, prefix, k, spell=True, correct=correct)
