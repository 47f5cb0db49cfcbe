"""The word start's selection of the likeliest words (engine/filtering.py)."""

from __future__ import annotations

import numpy as np

from nextword.engine.filtering import top_indices


def test_top_indices_finds_the_largest_values_of_any_array() -> None:
    # Over a long array it partitions only the values over a floor drawn from block
    # maxima; the values it finds must be those a full sort finds: with ties, zeros,
    # a tail shorter than a block, and arrays too short for the floor.
    rng = np.random.default_rng(7)
    for size in [1, 5, 9, 300, 2_048, 2_049, 60_000, 60_037]:
        for n in [1, 3, 8]:
            probs = rng.random(size).astype(np.float32) ** 6
            probs[rng.integers(0, size, size // 2)] = 0.0
            probs[rng.integers(0, size, 3)] = probs.max()  # ties at the top
            found = top_indices(probs, n)
            assert len(found) == min(n, size) == len(set(found.tolist()))
            want = np.sort(probs)[::-1][: min(n, size)]
            np.testing.assert_array_equal(np.sort(probs[found])[::-1], want)
