"""One open document's typing state: what the server knows between keystrokes.

A `Session` holds the document's engine decider (token window, KV cache), where the
cursor is, the context of the decision the decider holds, the decision in flight,
and a generation counter bumped by every edit at or before the cursor, so a request
overtaken by newer typing is answered empty rather than stale. The work ahead of
the user (ahead.py) keeps its phrase and its last guess here too.

Plain state: the modules that schedule the work (decisions.py, ahead.py) and answer
the requests (sessions.py) read and write it, on the event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nextword.engine import WORD_RE

if TYPE_CHECKING:
    from lsprotocol import types

    from nextword.engine import RoutingDecider

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
class PhraseSearch:
    """A phrase search on the worker: for the word at `context` completing `prefix`."""

    context: str
    prefix: str
    future: asyncio.Future[Any]
    key: str  # its worker key

    def may_match(self, context: str, prefix: str) -> bool:
        """Whether its phrase could still be the one for this position."""
        return context == self.context and prefix.startswith(self.prefix)


@dataclass
class Session:
    """One open document's typing state."""

    uri: str
    language_id: str
    decider: RoutingDecider | None = None  # made on the worker thread, on first use
    cursor: types.Position | None = None  # best guess until a request says where it is
    generation: int = 0  # bumped by each edit at or before the cursor
    closed: bool = False  # the document closed (or was opened again: a new session)
    decided: str | None = None  # the context of the decision the decider holds
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
    search: PhraseSearch | None = None  # the phrase search in flight
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

    def forget_decision(self) -> None:
        """Forget the decision held and what came of it (its decider is going)."""
        self.decided = None
        self.shown_context, self.shown = None, set()
        self.phrase, self.phrase_searched, self.guessed = None, None, None

    def still_at(self, decider: RoutingDecider, context: str) -> bool:
        """On the worker: `decider` still serves this document, at `context`, with no
        newer decision on its way (work for an older boundary would move it back)."""
        return self.decider is decider and self.decided == context and self.pending is None
