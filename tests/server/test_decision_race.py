"""A request that comes in the very loop turn its decision finishes (lsp/decisions.py).

The decision's own callback, which records it, runs on the loop's next turn; a request
that found the decision finished read the state before it and answered without words
(a space after a word, in the editors, under load: once in a few dozen fresh-clone
runs). Here the turn is made by hand, on the bundled model and a real worker: the
worker is held, the decision is computed and finished in the test's own turn, and the
request comes in that same turn.
"""

from __future__ import annotations

import asyncio
import threading

from lsprotocol import types
from pygls.workspace import TextDocument

from nextword.engine import Router
from nextword.lsp.sessions import Sessions
from nextword.lsp.settings import Settings
from nextword.lsp.stats import ServerStats
from nextword.lsp.worker import InferenceWorker

URI = "file:///tmp/nextword-test/race.txt"


def at_end(doc: TextDocument) -> types.Position:
    lines = doc.source.split("\n")
    return types.Position(len(lines) - 1, len(lines[-1]))


async def race(router: Router) -> list[str]:
    worker = InferenceWorker()
    sessions = Sessions(worker, ServerStats(), Settings(throttleMs=0, speculate=False))
    try:
        sessions.set_engine(router)
        sessions.open(URI, "plaintext")
        doc = TextDocument(URI, "Thank you for your help. ")
        assert (await sessions.candidates(URI, doc, at_end(doc), 5)).candidates
        doc = TextDocument(URI, "Thank you for your help. We ")
        s = sessions.get(URI)
        assert s is not None
        gate, holding = threading.Event(), threading.Event()

        def hold() -> None:
            holding.set()
            gate.wait()

        # The worker holds here (after the work ahead of the first decision, which
        # runs MLX): the decision's own job waits behind it, and MLX is this thread's.
        worker.submit(hold, key="busy")
        assert holding.wait(30)
        context = doc.source
        pending = sessions.decisions.decision(s, context)
        # Computed here while the worker waits (MLX is used by one thread at a time),
        # and finished in this turn: its callback is now scheduled, not yet run.
        pending.set_result(sessions.decisions._decide(s, context, 5))
        answer = await sessions.candidates(URI, doc, at_end(doc), 5)
        gate.set()
        return [c.text for c in answer.candidates]
    finally:
        worker.shutdown()


def test_a_request_in_the_turn_its_decision_finishes_gets_words() -> None:
    router = Router.load()
    assert asyncio.run(race(router))
