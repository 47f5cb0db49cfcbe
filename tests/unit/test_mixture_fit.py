"""The mixture fit's grid (training/mixture.py): many weight vectors scored at once
agree with one at a time, absent components included."""

import numpy as np

from nextword.training.mixture import score, score_many


def test_weight_vectors_scored_at_once_agree_with_one_at_a_time() -> None:
    rng = np.random.default_rng(0)
    positions = rng.random((400, 21, 4))
    positions[:, 1:, :] **= 3  # a few likely candidates, many unlikely ones
    absent = rng.random(400) < 0.3  # no document words yet: that component is NaN
    positions[absent, :, 2] = np.nan
    weights = rng.dirichlet(np.ones(4), 40)
    top3, ll = score_many(positions, weights)
    for i, w in enumerate(weights):
        assert np.allclose((top3[i], ll[i]), score(positions, w), rtol=0, atol=1e-9)
