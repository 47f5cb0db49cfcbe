"""`nextword quantize --bits 8|4`: a quantized copy of a model, for Metal users.

On the CPU backend fp32 is the fastest type (MLX's quantized kernels are slower
there), so the bundled model stays fp32 at run time; on Apple silicon a 4- or
8-bit copy is smaller and faster. The command reports the copy's parity with the
original: the overlap of their top-5 candidates at word starts of a dev text.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from nextword.engine.loader import MODELS_DIR
from nextword.engine.words import WORD_RE
from nextword.errors import CommandError

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


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bits", type=int, choices=(4, 8), required=True)
    parser.add_argument("--group-size", type=int, default=64)
    parser.add_argument("--model", help="model directory (default: the bundled model)")
    parser.add_argument("--out", type=Path, required=True, help="where to write the copy")
    parser.add_argument("--parity-text", type=Path, help="dev text for the parity check")
    parser.add_argument("--parity-words", type=int, default=400)
    parser.add_argument("--json", action="store_true")


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


def run(args: argparse.Namespace) -> int:
    from nextword.engine.loader import ModelError

    try:
        quantize(args.model, args.out, bits=args.bits, group_size=args.group_size)
    except ModelError as err:
        raise CommandError(str(err)) from None
    except ValueError as err:  # e.g. a dimension not divisible by the group size
        raise CommandError(f"cannot quantize with group size {args.group_size}: {err}") from None
    text_path = args.parity_text or MODELS_DIR / "parity.txt"
    text = text_path.read_text(encoding="utf-8", errors="replace")
    overlap = parity(args.model, args.out, text, args.parity_words)
    size = sum(f.stat().st_size for f in args.out.glob("model*.safetensors"))
    if args.json:
        print(json.dumps({"out": str(args.out), "bits": args.bits, "top5_overlap": overlap}))
    else:
        print(f"wrote {args.out} ({args.bits}-bit, {size / 1e6:.1f} MB weights)")
        print(f"parity: top-5 overlap {overlap:.1%} over word starts of {text_path.name}")
        if overlap < 0.98:
            print("note: below the 98% parity asked for; prefer --bits 8 or a smaller group")
    return 0
