"""What learning gains: the EVAL.md typist on a user's later documents, learning on and off.

    python -m nextword.evaluation.learning FILE ... [--learn-share 0.5] [--max-words 3000] [--json]

Each file stands for one user's writing, split by document (data.documents.split_documents):
the store learns the earliest documents, `--learn-share` of the file's words, then the
typist (typist.type_document) types the later documents, up to `--max-words` words,
twice with the same engine: learning off (no store), and learning on, the store also
learning each word once it is typed, as the server does. A fresh decider per document,
as `nextword eval` has it. The latency of a decision with learning on includes that
learning.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nextword.data.documents import first_words, split_documents
from nextword.engine.personal import PersonalStore
from nextword.engine.words import WORD_RE
from nextword.evaluation.typist import Predict, Tally, type_document


def predictor(decider: Any, store: PersonalStore | None) -> Predict:
    """The typist's view of a decider; with a store, it learns each word once typed."""
    learned = 0  # the words before this offset of the document are learned

    def predict(context: str, prefix: str, k: int) -> list[str]:
        nonlocal learned
        if store is not None and len(context) > learned:
            # The context ends where a word starts: every word in it is finished.
            for match in WORD_RE.finditer(context, learned):
                store.learn_word(context[: match.start()], match.group())
            learned = len(context)
        return [c.text for c in decider.decide(context, prefix, k)]

    return predict


def measure(engine: Any, path: Path, share: float, max_words: int) -> dict[str, Any]:
    earlier, later = split_documents(path, share)
    typed = first_words(later, max_words)
    out: dict[str, Any] = {
        "file": str(path),
        "learned_from": {
            "documents": len(earlier),
            "words": sum(len(WORD_RE.findall(d)) for d in earlier),
        },
        "measured_on": {
            "documents": len(typed),
            "first_document": len(earlier) + 1,
            "words": sum(len(WORD_RE.findall(d)) for d in typed),
        },
    }
    arms: dict[str, Callable[[], PersonalStore | None]] = {
        "off": lambda: None,
        "on": lambda: PersonalStore.learned_from(earlier),
    }
    for arm, make_store in arms.items():
        store, tally = make_store(), Tally()
        for doc in typed:
            type_document(doc, predictor(engine.decider(store=store), store), tally)
        out[arm] = {**tally.quality(), "latency_ms": tally.latency()}
        if store is not None:
            out["store"] = {k: v for k, v in store.status().items() if k in ("words", "bigrams")}
    return out


def main(argv: list[str] | None = None) -> int:
    from nextword import blas
    from nextword.engine.engine import Engine

    parser = argparse.ArgumentParser(
        prog="python -m nextword.evaluation.learning", description=__doc__
    )
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--model", type=Path, help="model directory (default: the bundled one)")
    parser.add_argument("--learn-share", type=float, default=0.5)
    parser.add_argument("--max-words", type=int, default=3000)
    parser.add_argument("--json", action="store_true", help="last line: one JSON object")
    args = parser.parse_args(argv)

    engine = Engine.load(args.model)
    results = [measure(engine, f, args.learn_share, args.max_words) for f in args.files]
    for result in results:
        result["backend"] = blas.backend_label()
        print(
            f"{result['file']}: learned {result['learned_from']['words']:,} words "
            f"({result['learned_from']['documents']} documents), typed "
            f"{result['measured_on']['words']:,} words of the next "
            f"{result['measured_on']['documents']}",
            file=sys.stderr,
        )
        for arm in ("off", "on"):
            r = result[arm]
            lat = r["latency_ms"]
            print(
                f"  learning {arm:>3}: KSR@1 {r['ksr@1']:.3f} KSR@3 {r['ksr@3']:.3f} "
                f"KSR@5 {r['ksr@5']:.3f} top-1 {r['top1']:.3f} top-3 {r['top3']:.3f}; "
                f"boundary p50 {lat['boundary']['p50']:.2f} p99 {lat['boundary']['p99']:.2f} "
                f"ms, in-word p50 {lat['inword']['p50']:.3f} p99 {lat['inword']['p99']:.3f} ms",
                file=sys.stderr,
            )
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
