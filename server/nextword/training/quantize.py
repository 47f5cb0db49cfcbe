"""A quantized copy of a model, for Metal users (`nextword quantize`).

On the CPU backend fp32 is the fastest type (MLX's quantized kernels are slower
there), so the bundled model stays fp32 at run time; on Apple silicon a 4- or
8-bit copy is smaller and faster. The command reports the copy's parity with the
original: the overlap of their top-5 candidates at word starts of a dev text.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from nextword.engine.words import WORD_RE

# Everything in a model directory besides the weights and config travels as is.
COPIED = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "lexicon.txt",
    "lexicon.npz",
    "mixture.json",
    "training.json",
)


def quantize(model_dir: str | None, out: Path, *, bits: int, group_size: int) -> None:
    import mlx.core as mx
    import mlx.nn as nn
    from mlx.utils import tree_flatten

    from nextword.engine.loader import load, resolve

    src = resolve(model_dir)
    loaded = load(src)
    nn.quantize(loaded.model, group_size=group_size, bits=bits)
    out.mkdir(parents=True, exist_ok=True)
    mx.save_safetensors(
        str(out / "model.safetensors"),
        dict(tree_flatten(loaded.model.parameters())),
        metadata={"format": "mlx"},
    )
    config = dict(loaded.config)
    config["quantization"] = {"group_size": group_size, "bits": bits}
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    for name in COPIED:
        if (src / name).exists():
            shutil.copy(src / name, out / name)


def parity(original: str | None, copy: Path, text: str, max_words: int) -> float:
    """Mean share of the original's top-5 words at word starts that the copy also offers."""
    from nextword.engine.engine import Engine

    a = Engine.load(original, warmup=False).decider()
    b = Engine.load(copy, warmup=False).decider()
    overlaps = []
    for match in list(WORD_RE.finditer(text))[:max_words]:
        context = text[: match.start()]
        top_a = {c.text for c in a.decide(context, "", 5)}
        top_b = {c.text for c in b.decide(context, "", 5)}
        if top_a:
            overlaps.append(len(top_a & top_b) / len(top_a))
    return sum(overlaps) / max(len(overlaps), 1)
