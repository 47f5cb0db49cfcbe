"""Counters and completion latency percentiles, per document and for the whole server.

Served by the `nextword/stats` request and the `nextword.stats` command; the overall
figures keep counting after a document closes.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from nextword.percentiles import summary

# Latency samples kept per document: enough for stable p99s, bounded memory.
MAX_SAMPLES = 20_000


@dataclass
class Counters:
    """One document's (or the server's) figures."""

    decisions_run: int = 0  # model jobs that ran (boundary decisions and word spelling)
    decisions_skipped: int = 0  # model decisions dropped by the throttle or superseded
    throttle_waits: int = 0  # requests that waited for a decision the throttle held
    cache_hits: int = 0  # requests answered from the current decision, no model call
    superseded: int = 0  # requests answered empty: newer typing or a newer request arrived
    deciders_released: int = 0  # engine state given back by an idle document (decisions.py)
    boundaries: int = 0  # boundary decisions made (by the model now, or ahead)
    decided_ahead: int = 0  # of those, decided ahead of the text: no model call when reached
    speculation_hits: int = 0  # of those, by a speculation on the word typed
    speculations: int = 0  # speculative decisions run (a word guessed before its space)
    refinements: int = 0  # decisions refined by the model's second token, between keys
    phrase_searches: int = 0  # phrases searched for ghost text
    phrases_shown: int = 0  # ghost-text answers that were a phrase
    phrases_dropped: int = 0  # phrases (held or searched) that typing left before use
    latencies_ms: deque[float] = field(default_factory=lambda: deque(maxlen=MAX_SAMPLES))
    last_ms: float = 0.0  # the latest completion's, from being read to being answered
    # The first completion at each boundary, by how its decision was made (session.Source).
    boundary_ms: dict[str, deque[float]] = field(default_factory=dict)
    # Boundary decisions that ran the model: their time on the inference worker.
    decision_ms: deque[float] = field(default_factory=lambda: deque(maxlen=MAX_SAMPLES))

    def report(self) -> dict[str, Any]:
        return {
            "decisionsRun": self.decisions_run,
            "decisionsSkipped": self.decisions_skipped,
            "throttleWaits": self.throttle_waits,
            "cacheHits": self.cache_hits,
            "superseded": self.superseded,
            "decidersReleased": self.deciders_released,
            "boundaries": self.boundaries,
            "decidedAhead": self.decided_ahead,
            "speculationHits": self.speculation_hits,
            "speculations": self.speculations,
            "refinements": self.refinements,
            "phraseSearches": self.phrase_searches,
            "phrasesShown": self.phrases_shown,
            "phrasesDropped": self.phrases_dropped,
            "completions": len(self.latencies_ms),
            "lastLatencyMs": round(self.last_ms, 3),
            "latencyMs": summary(self.latencies_ms),
            "boundaryLatencyMs": {
                source: {"count": len(ms), **summary(ms)} for source, ms in self.boundary_ms.items()
            },
            "decisionMs": summary(self.decision_ms),
        }


class ServerStats:
    """Counters per document URI plus the overall sum."""

    def __init__(self) -> None:
        self.overall = Counters()
        self.documents: dict[str, Counters] = {}

    def count(self, uri: str, name: str, n: int = 1) -> None:
        """Add `n` to the counter `name` of `uri` and of the overall figures."""
        doc = self.documents.setdefault(uri, Counters())
        setattr(doc, name, getattr(doc, name) + n)
        setattr(self.overall, name, getattr(self.overall, name) + n)

    def latency(self, uri: str, ms: float, *, boundary: str | None = None) -> None:
        """A completion's latency; `boundary`: the first at a boundary decided so."""
        doc = self.documents.setdefault(uri, Counters())
        for counters in (doc, self.overall):
            counters.latencies_ms.append(ms)
            counters.last_ms = ms
            if boundary is not None:
                samples = counters.boundary_ms.setdefault(boundary, deque(maxlen=MAX_SAMPLES))
                samples.append(ms)

    def decision(self, uri: str, ms: float) -> None:
        """A boundary decision that ran the model took `ms` on the worker."""
        doc = self.documents.setdefault(uri, Counters())
        for counters in (doc, self.overall):
            counters.decision_ms.append(ms)

    def forget(self, uri: str) -> None:
        self.documents.pop(uri, None)

    def report(self) -> dict[str, Any]:
        return {
            "overall": self.overall.report(),
            "documents": [{"uri": uri, **c.report()} for uri, c in self.documents.items()],
        }
