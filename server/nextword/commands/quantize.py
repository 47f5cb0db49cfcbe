"""`nextword quantize --bits 8|4`: write a quantized copy of a model (training/quantize.py)
and report its parity with the original."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from nextword.engine.loader import MODELS_DIR
from nextword.errors import CommandError
from nextword.training.quantize import parity, quantize


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bits", type=int, choices=(4, 8), required=True)
    parser.add_argument("--group-size", type=int, default=64)
    parser.add_argument("--model", help="model directory (default: the bundled model)")
    parser.add_argument("--out", type=Path, required=True, help="where to write the copy")
    parser.add_argument("--parity-text", type=Path, help="dev text for the parity check")
    parser.add_argument("--parity-words", type=int, default=400)
    parser.add_argument("--json", action="store_true")


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
