"""training/shape_bench.py with trained runs: a run's checkpoint becomes a model beside
another model's tables, and its loss, quality and cost are read from it."""

from __future__ import annotations

from pathlib import Path

from helpers import FIXTURES
from nextword.training.shape_bench import boundary_latencies, quality, trained_model


def test_a_trained_run_is_measured_beside_the_tables(
    tiny_run: Path, tiny_model: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "shape"
    folder.mkdir()
    shape, params, trained = trained_model(tiny_run / "run", folder, tiny_model)
    assert (shape.hidden_size, shape.num_hidden_layers) == (32, 2)
    # 300 tokens x 32 tied embeddings, and two layers of attention and MLP.
    assert 300 * 32 < params < 100_000
    assert trained["tokens_seen"] == 20 * 4 * 32
    assert trained["val_loss"]["mean"] > 0 and "tiny" in trained["val_loss"]
    found = quality(folder, [FIXTURES / "eval" / "prose.txt"], 40)
    assert 0 <= found["prose"]["ksr@3"] <= 1 and 0 <= found["prose"]["top3"] <= 1
    seconds, cpu, chars = boundary_latencies(folder, ["The user opens the file and the user "])
    assert len(seconds) == 8 and cpu > 0 and chars > 0
