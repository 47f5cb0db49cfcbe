"""`nextword predict "some text"`: the candidates for the end of a text, from a shell."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import TYPE_CHECKING

from nextword.engine.words import display_width
from nextword.errors import CommandError

if TYPE_CHECKING:
    from nextword.engine.router import RoutingDecider


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", help="the text; its partial last word is the prefix ('-': stdin)")
    parser.add_argument("--k", type=int, default=5, help="how many candidates")
    parser.add_argument("--model", help="model directory (default: the bundled model)")
    parser.add_argument(
        "--chinese-model", help="model directory for Chinese text (default: the bundled one)"
    )
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument(
        "--corrections",
        choices=("on", "off"),
        default="on",
        help="also offer the words a misspelled prefix probably means (default: on, as the "
        "server does in prose)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--learned",
        action="store_true",
        help="mix in what learning stored (the user's store, as the `learning` setting's "
        "default; see `nextword learn`)",
    )
    parser.add_argument(
        "--workspace",
        metavar="DIR",
        help="with --learned: that workspace's store instead (learningScope `workspace`)",
    )


def run(args: argparse.Namespace) -> int:
    from nextword.engine.loader import ModelError
    from nextword.engine.router import Router
    from nextword.engine.words import split_prefix

    text = sys.stdin.read() if args.text == "-" else args.text
    if args.k < 1:
        raise CommandError("--k must be at least 1")
    try:
        engine = Router.load(args.model, args.chinese_model)
    except ModelError as err:
        raise CommandError(str(err)) from None
    for problem in engine.problems:
        print(f"warning: {problem}", file=sys.stderr)
    store = None
    if args.workspace and not args.learned:
        raise CommandError("--workspace goes with --learned")
    if args.learned:
        from nextword.engine import personal

        store = personal.open_store(args.workspace)
    decider = engine.decider(temperature=args.temperature, store=store)
    context, prefix = split_prefix(text)
    start = time.perf_counter()
    candidates = decider.decide(context, prefix, args.k, correct=args.corrections == "on")
    ms = (time.perf_counter() - start) * 1000
    if args.json:
        out = {
            "candidates": [
                {"text": c.text, "prob": round(c.prob, 6), "correction": c.correction}
                for c in candidates
            ],
            "ms": round(ms, 3),
        }
        print(json.dumps(out, ensure_ascii=False))
        return 0
    if not candidates and prefix and _typed_in_full(decider, context, prefix):
        print(f"({prefix!r} is likely the whole word: nothing near as likely extends it)")
    elif not candidates:
        print(f"(no candidates for prefix {prefix!r})")
    for rank, c in enumerate(candidates, 1):
        note = "  (correction)" if c.corrects(prefix) else ""
        print(f"{rank}. {pad(c.text, 24)} {percent(c.prob):>8}{note}")
    print(f"{ms:.2f} ms (model load and warm-up {engine.load_seconds:.2f} s)")
    return 0


def _typed_in_full(decider: RoutingDecider, context: str, prefix: str) -> bool:
    """Whether the decision ranks `prefix` itself, as a word, first among its words."""
    ranked = decider.filter_cached(context, prefix, 1, typed=True) or []
    return bool(ranked) and ranked[0].is_typed(prefix)


def pad(text: str, width: int) -> str:
    """`text` left-aligned in `width` terminal columns (a Han character takes two)."""
    return text + " " * max(0, width - display_width(text))


def percent(p: float) -> str:
    """'44.20%'; two significant digits below 0.1% ('0.0042%'), never a rounded 0.00%."""
    if p >= 1e-3:
        return f"{p:.2%}"
    if p <= 0:
        return "0%"
    value = p * 100
    return f"{value:.{1 - math.floor(math.log10(value))}f}%"
