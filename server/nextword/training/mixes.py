"""The training mix: which sources the model learns from, and in what shares.

The word tables (tables.py) count the sources by the same shares, and the model card
(modelcard.py) reports them.
"""

from __future__ import annotations

import math

from nextword.errors import CommandError

# The default English sources: everyday prose, technical prose and code. The KJV's
# archaic English is left out: its idioms compete with modern prose for capacity.
DEFAULT_SOURCES = (
    "chat",
    "email",
    "sotu",
    "wiki",
    "handbook",
    "moby",
    "pydocs",
    "relnotes",
    "debref",
    "kernel",
    "manpages",
    "pystdlib",
)

PROSE_SOURCES = ("wiki", "handbook")
# Named training mixes: each source's share of the batches (normalised over the sources
# trained on). "sqrt" is the first model's: sqrt(size), prose counted double. The two
# everyday mixes were compared on short runs; the model card records the figures.
MIXES: dict[str, dict[str, float]] = {
    "everyday50": {
        "email": 14,
        "sotu": 12,
        "wiki": 12,
        "handbook": 6,
        "moby": 6,
        "pydocs": 12,
        "kernel": 10,
        "pystdlib": 12,
        "relnotes": 6,
        "debref": 3,
        "manpages": 7,
    },
    "everyday70": {
        "email": 20,
        "sotu": 16,
        "wiki": 18,
        "handbook": 8,
        "moby": 8,
        "pydocs": 8,
        "kernel": 5,
        "pystdlib": 9,
        "relnotes": 4,
        "debref": 2,
        "manpages": 2,
    },
    # Chinese: the news, and the HSK sentences at 10% (short runs at 10% and 30%
    # compared in models/zh/mix-comparison.json).
    "zh-hsk10": {"peoples_daily": 90, "hsk": 10},
}


def _with_chat(share: float) -> dict[str, float]:
    """everyday70's shares scaled down to leave casual chat `share` of the batches."""
    rest = MIXES["everyday70"]
    return {"chat": share, **{s: w * (100 - share) / 100 for s, w in rest.items()}}


# With casual chat; chat25 and chat40 were compared on short runs from the previous
# bundled model (models/en/mix-comparison.json).
MIXES["chat25"] = _with_chat(25)
MIXES["chat40"] = _with_chat(40)
DEFAULT_MIX = "chat25"
DEFAULT_CHINESE_MIX = "zh-hsk10"


def default_mix(sources: list[str]) -> str:
    """The default mix of the sources' language when they are among its sources (or a
    subset); "sqrt" otherwise."""
    for mix in (DEFAULT_MIX, DEFAULT_CHINESE_MIX):
        if set(sources) <= set(MIXES[mix]):
            return mix
    return "sqrt"


def mix_shares(mix: str) -> dict[str, float]:
    """The shares a named mix or an explicit "source=share,..." list gives (not "sqrt",
    whose shares depend on the sizes)."""
    if mix in MIXES:
        return MIXES[mix]
    try:
        return {k.strip(): float(v) for k, v in (p.split("=") for p in mix.split(","))}
    except ValueError as err:
        raise CommandError(f"--mix {mix!r}: expected a mix name or source=share,...") from err


def mix_weights(mix: str, sizes: dict[str, int]) -> dict[str, float]:
    """Sampling share per source for a named mix or an explicit "source=share,..." list."""

    if mix == "sqrt":
        return source_weights(sizes)
    shares = mix_shares(mix)
    missing = [s for s in sizes if shares.get(s, 0) <= 0]
    if missing:
        raise CommandError(f"--mix {mix!r} gives no share to {', '.join(missing)}")
    total = sum(shares[s] for s in sizes)
    return {s: shares[s] / total for s in sizes}


def source_weights(sizes: dict[str, int]) -> dict[str, float]:
    """Sampling share per source: proportional to sqrt(size), prose counted double.

    Plain concatenation would give the kernel docs 40% of every batch and the
    Wikipedia prose 4%; the square root evens that out without repeating small
    sources to death.
    """
    raw = {s: math.sqrt(n) * (2.0 if s in PROSE_SOURCES else 1.0) for s, n in sizes.items()}
    total = sum(raw.values())
    return {s: w / total for s, w in raw.items()}
