"""Broken model directories fail with one clear line, never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import nextword
from nextword.engine.engine import Engine
from nextword.engine.loader import ModelError


def broken_copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def test_missing_directory(tmp_path: Path):
    with pytest.raises(ModelError, match="does not exist"):
        Engine.load(tmp_path / "nope")


def test_truncated_weights(tiny_model: Path, tmp_path: Path):
    model = broken_copy(tiny_model, tmp_path / "m")
    weights = model / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.raises(ModelError, match="truncated or corrupt"):
        Engine.load(model)


def test_garbage_config(tiny_model: Path, tmp_path: Path):
    model = broken_copy(tiny_model, tmp_path / "m")
    (model / "config.json").write_text("{not json")
    with pytest.raises(ModelError, match="not valid JSON"):
        Engine.load(model)


def test_wrong_shape_config(tiny_model: Path, tmp_path: Path):
    model = broken_copy(tiny_model, tmp_path / "m")
    config = json.loads((model / "config.json").read_text())
    config["hidden_size"] = 64
    (model / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match="do not match config.json"):
        Engine.load(model)


def test_unsupported_architecture(tiny_model: Path, tmp_path: Path):
    model = broken_copy(tiny_model, tmp_path / "m")
    config = json.loads((model / "config.json").read_text())
    config["model_type"] = "no_such_arch"
    (model / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match="not supported"):
        Engine.load(model)


def test_mismatched_tokenizer(tiny_model: Path, tmp_path: Path):
    model = broken_copy(tiny_model, tmp_path / "m")
    shutil.copy(Engine.load.__globals__["DEFAULT_MODEL"] / "tokenizer.json", model)
    with pytest.raises(ModelError, match="belongs to another model"):
        Engine.load(model)


def test_model_without_word_tables_borrows_the_default_lexicon(tiny_model: Path, tmp_path: Path):
    """Any mlx-lm directory works: only config, weights and tokenizer are required."""
    model = broken_copy(tiny_model, tmp_path / "m")
    for name in ("lexicon.txt", "lexicon.npz", "mixture.json", "training.json"):
        (model / name).unlink()
    engine = Engine.load(model)
    assert len(engine.lexicon) > 1000
    assert all(c.text.startswith("th") for c in engine.decider().decide("I think ", "th", 5))


def test_cli_reports_a_bad_model_in_one_line(tmp_path: Path):
    result = nextword("predict", "hello", "--model", str(tmp_path / "nope"), check=False)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "content", ["{", '{"weights": {"neural": -1}}', '{"weights": {"neural": 0, "ngram": 0}}']
)
def test_bad_mixture_file(tiny_model: Path, tmp_path: Path, content: str):
    model = broken_copy(tiny_model, tmp_path / "m")
    (model / "mixture.json").write_text(content)
    with pytest.raises(ModelError, match="mixture.json"):
        Engine.load(model)


def test_corrupt_word_tables(tiny_model: Path, tmp_path: Path):
    model = broken_copy(tiny_model, tmp_path / "m")
    tables = model / "lexicon.npz"
    tables.write_bytes(tables.read_bytes()[:500])
    with pytest.raises(ModelError, match="word tables"):
        Engine.load(model)


def test_a_loaded_engine_gives_back_the_buffers_its_load_freed(tiny_model: Path):
    """The fp16 -> fp32 conversion and the warm-up's window leave freed buffers in MLX's
    cache; on the CPU it keeps none at all (RSS, `loader.release_cached_buffers`)."""
    import mlx.core as mx

    engine = Engine.load(tiny_model)  # held: its weights, freed, would refill the cache
    assert mx.get_cache_memory() == 0
    decider = engine.decider()
    decider.decide("The quick brown fox jumps over the lazy dog. " * 8, "")
    decider.refine("The quick brown fox jumps over the lazy dog. " * 8)
    assert mx.get_cache_memory() == 0
