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
    deciders_released: int = 0  # engine state given back by an idle document (sessions.py)
    latencies_ms: deque[float] = field(default_factory=lambda: deque(maxlen=MAX_SAMPLES))
    last_ms: float = 0.0  # the latest completion's, from being read to being answered

    def report(self) -> dict[str, Any]:
        return {
            "decisionsRun": self.decisions_run,
            "decisionsSkipped": self.decisions_skipped,
            "throttleWaits": self.throttle_waits,
            "cacheHits": self.cache_hits,
            "superseded": self.superseded,
            "decidersReleased": self.deciders_released,
            "completions": len(self.latencies_ms),
            "lastLatencyMs": round(self.last_ms, 3),
            "latencyMs": summary(self.latencies_ms),
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

    def latency(self, uri: str, ms: float) -> None:
        doc = self.documents.setdefault(uri, Counters())
        for counters in (doc, self.overall):
            counters.latencies_ms.append(ms)
            counters.last_ms = ms

    def forget(self, uri: str) -> None:
        self.documents.pop(uri, None)

    def report(self) -> dict[str, Any]:
        return {
            "overall": self.overall.report(),
            "documents": [{"uri": uri, **c.report()} for uri, c in self.documents.items()],
        }
