"""Load an mlx-lm model directory, checking each part, with one-line errors.

A model directory is what `mlx_lm.load` reads: `config.json`, `model*.safetensors`,
and the tokenizer files. We read it ourselves rather than through `mlx_lm.load`
because that imports transformers (seconds of cold start) and raises tracebacks;
the architecture code is still mlx-lm's (see architectures.py).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The bundled models live in the package, beside the layers (nextword/models/).
MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
# The bundled model. NEXTWORD_DEFAULT_MODEL puts another directory in its place: for
# packagers who ship the weights elsewhere, and for tests of a default that is broken.
DEFAULT_MODEL = Path(os.environ.get("NEXTWORD_DEFAULT_MODEL") or MODELS_DIR / "en").expanduser()
# The bundled Chinese model (router.py routes Chinese text to it).
DEFAULT_CHINESE_MODEL = MODELS_DIR / "zh"


class ModelError(Exception):
    """The model directory cannot be used; the message says what is wrong and how to fix it."""


@dataclass
class LoadedModel:
    """A ready model: the mlx-lm module, its tokenizer and what we know about it."""

    path: Path
    model: Any  # an mlx-lm `Model` (nn.Module)
    tokenizer: Any  # a `tokenizers.Tokenizer`
    config: dict[str, Any]
    bos_id: int | None
    n_params: int
    size_bytes: int

    @property
    def vocab_size(self) -> int:
        return int(self.config["vocab_size"])


def resolve(path: str | Path | None) -> Path:
    """The model directory to use: the given one, or the bundled default."""
    return DEFAULT_MODEL if path in (None, "") else Path(str(path)).expanduser()


def read_config(path: Path) -> dict[str, Any]:
    if path.exists() and not path.is_dir():
        raise ModelError(f"model path {path} is a file, not a directory; give the model's folder")
    if not path.is_dir():
        raise ModelError(f"model directory {path} does not exist; check the path")
    config_path = path / "config.json"
    if not config_path.exists():
        raise ModelError(
            f"{path} has no config.json; it is not an mlx-lm model directory: "
            "choose the directory that holds config.json"
        )
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelError(f"{config_path} is not valid JSON ({err}); re-export the model") from None
    if not isinstance(config, dict) or "model_type" not in config:
        raise ModelError(
            f"{config_path} has no model_type; it is not an mlx-lm config: re-export the model"
        )
    # Some exports nest the language model's settings under text_config.
    if "vocab_size" not in config and isinstance(config.get("text_config"), dict):
        config = {**config["text_config"], **config}
    return config


def load(path: str | Path | None = None) -> LoadedModel:
    """Load and check a model directory.

    Raises:
        ModelError: the directory is missing, corrupt, mismatched or unsupported.
    """
    import mlx.core as mx
    import mlx.nn as nn

    from nextword.engine.architectures import architecture

    model_dir = resolve(path)
    config = read_config(model_dir)
    model_type = str(config["model_type"])
    try:
        arch = architecture(model_type)
    except ModuleNotFoundError:
        raise ModelError(
            f"model_type {model_type!r} in the config.json of {model_dir} is not supported by "
            "the installed mlx-lm; upgrade mlx-lm or choose another model"
        ) from None
    try:
        model = arch.Model(arch.ModelArgs.from_dict(config))
    except (TypeError, ValueError, KeyError) as err:
        raise ModelError(
            f"config.json of {model_dir} does not fit {model_type} ({err}); re-export the model"
        ) from None

    weight_files = sorted(model_dir.glob("model*.safetensors"))
    if not weight_files:
        raise ModelError(
            f"{model_dir} has no model*.safetensors weights; re-download or re-export the model"
        )
    weights: dict[str, Any] = {}
    for file in weight_files:
        try:
            weights.update(load_safetensors(str(file)))
        except Exception as err:  # mlx raises RuntimeError/ValueError for bad files
            raise ModelError(
                f"{file} is truncated or corrupt ({str(err).splitlines()[0]}); "
                "re-download or re-export the model"
            ) from None
    if hasattr(model, "sanitize"):
        weights = model.sanitize(weights)
    if (quant := config.get("quantization")) is not None:
        nn.quantize(
            model,
            group_size=quant["group_size"],
            bits=quant["bits"],
            mode=quant.get("mode", "affine"),
            class_predicate=lambda p, m: hasattr(m, "to_quantized") and f"{p}.scales" in weights,
        )
    elif mx.default_device() == mx.cpu:
        # fp32 is the fast type on CPU; weights may be stored in fp16 to halve the file.
        weights = {k: v.astype(mx.float32) for k, v in weights.items()}
    try:
        model.load_weights(list(weights.items()), strict=True)
    except ValueError as err:
        raise ModelError(
            f"weights in {model_dir} do not match config.json ({str(err).splitlines()[0]}); "
            "restore the config.json exported with these weights"
        ) from None
    mx.eval(model.parameters())
    model.eval()

    tokenizer, bos_id = load_tokenizer(model_dir, int(config.get("vocab_size", 0)))
    n_params = parameter_count(model)
    size = sum(f.stat().st_size for f in weight_files)
    return LoadedModel(model_dir, model, tokenizer, config, bos_id, n_params, size)


def release_cached_buffers() -> None:
    """Give MLX's cache of freed buffers back to the system, and on the CPU keep none.

    MLX keeps freed buffers for reuse, up to 32 MB on the CPU by default. A load (the
    fp16 weights converted to fp32) and the warm-up's window fill it, and a session's
    batched steps (the refinement's copies of the KV cache) fill it again: 35 MB of the
    server's RSS here (250 -> 216 MB after 260 typed keys). On the CPU the system
    allocator reuses freed memory too: the decision p50 and the CPU per word came out
    the same with no cache, 8 MB or 32 MB (300 words, interleaved). Metal keeps its
    cache: GPU buffers cost more to make.
    """
    import mlx.core as mx

    if mx.default_device() == mx.cpu:
        mx.set_cache_limit(0)
    mx.clear_cache()


def parameter_count(model: Any) -> int:
    from mlx.utils import tree_reduce

    return int(tree_reduce(lambda total, x: total + x.size, model.parameters(), 0))


def load_safetensors(path: str) -> dict[str, Any]:
    import mlx.core as mx

    loaded = mx.load(path)
    if not isinstance(loaded, dict):
        raise ValueError("not a safetensors file of named arrays")
    return loaded


def load_tokenizer(model_dir: Path, vocab_size: int) -> tuple[Any, int | None]:
    """The HF `tokenizers` tokenizer and its BOS id, checked against the model's vocabulary."""
    from tokenizers import Tokenizer

    path = model_dir / "tokenizer.json"
    if not path.exists():
        raise ModelError(
            f"{model_dir} has no tokenizer.json (HF tokenizers format); "
            "copy the one exported with the model"
        )
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as err:  # tokenizers raises a bare Exception on bad JSON
        raise ModelError(
            f"{path} cannot be read ({str(err).splitlines()[0]}); "
            "re-download or re-export the model"
        ) from None
    if vocab_size and tokenizer.get_vocab_size() > vocab_size:
        raise ModelError(
            f"{path} has {tokenizer.get_vocab_size()} tokens but the model only "
            f"{vocab_size}: the tokenizer belongs to another model; "
            "copy the tokenizer.json exported with these weights"
        )
    bos_id = None
    config_path = model_dir / "tokenizer_config.json"
    if config_path.exists():
        try:
            bos = json.loads(config_path.read_text(encoding="utf-8")).get("bos_token")
        except (OSError, json.JSONDecodeError):
            bos = None
        if isinstance(bos, dict):
            bos = bos.get("content")
        if isinstance(bos, str):
            bos_id = tokenizer.token_to_id(bos)
    return tokenizer, bos_id
