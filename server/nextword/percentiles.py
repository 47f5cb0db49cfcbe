"""Latency percentiles, computed one way for the server's stats, bench and eval.

Linear interpolation between the closest ranks (numpy's default method), so a p99
of 20 samples lies between the two slowest rather than being the slowest.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

QUANTILES = (50, 95, 99)


def percentile(values: Iterable[float], q: float) -> float:
    """The q-th percentile (0..100) of `values`, in any order; 0.0 for no values."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    pos = (len(ordered) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def summary(values: Iterable[float]) -> dict[str, float]:
    """{"p50", "p95", "p99"} of `values`, in ms, rounded as the figures print them."""
    ordered = sorted(values)
    return {f"p{q}": round(percentile(ordered, q), 3) for q in QUANTILES}
