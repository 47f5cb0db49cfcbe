"""`nextword eval`: the simulated typist of ../shared/EVAL.md, for nextword and baselines.

For each word of a held-out text, with everything before it (in its document) as
context, the typist asks for the top-k candidates after typing 0, 1, 2, ... of its
characters, and accepts the word as soon as it is offered. Keystroke savings
(KSR@k), next-word accuracy at word starts, diversity and decision latency follow.
Documents in a file are separated by form-feed lines (as `prepare-corpus` writes
them); each starts with an empty context.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nextword.words import WORD_RE

KS = (1, 3, 5)
MAX_K = max(KS)
Predict = Callable[[str, str, int], list[str]]


@dataclass
class Tally:
    """Running sums for one predictor over one file."""

    chars: int = 0
    words: int = 0
    keystrokes: dict[int, int] = field(default_factory=lambda: {k: 0 for k in KS})
    ranked_keystrokes: dict[int, int] = field(default_factory=lambda: {k: 0 for k in KS})
    top1: int = 0
    top3: int = 0
    reciprocal: float = 0.0
    diversity: float = 0.0
    diversity_n: int = 0
    boundary_ms: list[float] = field(default_factory=list)
    inword_ms: list[float] = field(default_factory=list)

    def quality(self) -> dict[str, float]:
        n = max(self.words, 1)
        out = {f"ksr@{k}": 1 - self.keystrokes[k] / max(self.chars, 1) for k in KS}
        out.update(
            {f"ksr@{k}(ranked)": 1 - self.ranked_keystrokes[k] / max(self.chars, 1) for k in KS}
        )
        out.update(
            {
                "top1": self.top1 / n,
                "top3": self.top3 / n,
                "mrr@5": self.reciprocal / n,
                "diversity@3": self.diversity / max(self.diversity_n, 1),
            }
        )
        return {k: round(v, 4) for k, v in out.items()}

    def latency(self) -> dict[str, Any]:
        def pct(values: list[float]) -> dict[str, float]:
            if not values:
                return {"p50": 0.0, "p95": 0.0, "p99": 0.0}
            q = np.percentile(values, [50, 95, 99])
            return {"p50": round(q[0], 3), "p95": round(q[1], 3), "p99": round(q[2], 3)}

        out: dict[str, Any] = pct(self.boundary_ms + self.inword_ms)
        out["boundary"] = pct(self.boundary_ms)
        out["inword"] = pct(self.inword_ms)
        return out


def edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def diversity(candidates: list[str]) -> float | None:
    top = candidates[:3]
    pairs = [(a, b) for i, a in enumerate(top) for b in top[i + 1 :]]
    if not pairs:
        return None
    return sum(edit_distance(a, b) for a, b in pairs) / len(pairs)


def type_document(doc: str, predict: Predict, tally: Tally) -> None:
    """Simulate typing one document; add its costs to `tally`."""
    tally.chars += len(doc)
    word_chars = 0
    for match in WORD_RE.finditer(doc):
        word, context = match.group(), doc[: match.start()]
        word_chars += len(word)
        tally.words += 1
        ranks: list[int | None] = []
        for j in range(len(word)):
            start = time.perf_counter()
            candidates = predict(context, word[:j], MAX_K)
            elapsed = (time.perf_counter() - start) * 1000
            (tally.boundary_ms if j == 0 else tally.inword_ms).append(elapsed)
            rank = candidates.index(word) + 1 if word in candidates[:MAX_K] else None
            ranks.append(rank)
            if j == 0:
                tally.top1 += rank == 1
                tally.top3 += rank is not None and rank <= 3
                tally.reciprocal += 1 / rank if rank else 0.0
                if (d := diversity(candidates)) is not None:
                    tally.diversity += d
                    tally.diversity_n += 1
            if rank == 1:
                break  # every k accepts here; later prefixes are never typed
        for k in KS:
            accepted = next((j for j, r in enumerate(ranks) if r is not None and r <= k), None)
            if accepted is None:
                tally.keystrokes[k] += len(word)
                tally.ranked_keystrokes[k] += len(word)
            else:
                tally.keystrokes[k] += accepted + 1
                tally.ranked_keystrokes[k] += accepted + ranks[accepted]  # type: ignore[operator]
    # Separators (everything that is not a word character) are always typed.
    separators = len(doc) - word_chars
    for k in KS:
        tally.keystrokes[k] += separators
        tally.ranked_keystrokes[k] += separators


def read_documents(path: Path, max_words: int | None) -> tuple[list[str], int]:
    """The file's documents, cut after `max_words` words; and the count of bad bytes."""
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - raw.decode("utf-8", errors="ignore").count("\ufffd")
    docs = [d.strip("\n") for d in text.replace("\r\n", "\n").split("\f") if d.strip()]
    if max_words is None:
        return docs, bad
    out, budget = [], max_words
    for doc in docs:
        if budget <= 0:
            break
        matches = list(WORD_RE.finditer(doc))
        if len(matches) > budget:
            doc = doc[: matches[budget - 1].end()]
        out.append(doc)
        budget -= len(matches)
    return out, bad


def evaluate_file(
    path: Path,
    predictors: dict[str, Callable[[], Predict]],
    *,
    max_words: int | None,
    progress: bool,
) -> dict[str, Any]:
    """Run every predictor over one file; the first predictor is the one reported on top."""
    docs, bad = read_documents(path, max_words)
    results: dict[str, Tally] = {}
    for name, make in predictors.items():
        tally = Tally()
        bar = _progress(len(docs), f"{path.name} [{name}]", progress)
        for doc in docs:
            # A fresh predictor per document: per-document state starts empty.
            type_document(doc, make(), tally)
            bar.update(1)
        bar.close()
        results[name] = tally
    main_name = next(iter(predictors))
    main = results[main_name]
    out: dict[str, Any] = {"file": str(path), "words": main.words, "characters": main.chars}
    out.update(main.quality())
    out["latency_ms"] = main.latency()
    if bad:
        out["invalid_utf8_replaced"] = bad
    out["baselines"] = {
        name: {**t.quality(), "latency_ms": t.latency()}
        for name, t in results.items()
        if name != main_name
    }
    return out


def _progress(total: int, desc: str, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="doc", disable=not enabled, file=sys.stderr)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", type=Path, help="held-out text files")
    parser.add_argument("--k", default="1,3,5", help="k values to print (of 1,3,5)")
    parser.add_argument("--model", help="model directory (default: the bundled model)")
    parser.add_argument("--baseline", default="", help="comma list of: unigram, presage")
    parser.add_argument(
        "--train",
        type=Path,
        nargs="*",
        help="baseline training text (default: the model's training sources in --corpus)",
    )
    parser.add_argument("--corpus", type=Path, default=Path("data/corpus"))
    parser.add_argument("--max-words", type=int, help="stop each file after this many words")
    parser.add_argument("--json", action="store_true", help="last line: one JSON object")
    parser.add_argument("--plot", type=Path, help="draw KSR@k and latency to this PNG")
    parser.add_argument("--no-progress", action="store_true")


def run(args: argparse.Namespace) -> int:
    from nextword import blas
    from nextword.cli import CommandError
    from nextword.engine import Engine
    from nextword.loader import ModelError

    for path in args.files:
        if not path.is_file():
            raise CommandError(f"no such file: {path}")
    try:
        ks = [int(k) for k in args.k.split(",")]
    except ValueError:
        raise CommandError(f"--k must be a comma list of 1, 3, 5, not {args.k!r}") from None
    if not set(ks) <= set(KS):
        raise CommandError("--k takes values among 1, 3, 5 (the protocol's k)")
    try:
        engine = Engine.load(args.model)
    except ModelError as err:
        raise CommandError(str(err)) from None

    def nextword_predictor() -> Predict:
        decider = engine.decider()
        return lambda context, prefix, k: [c.text for c in decider.decide(context, prefix, k)]

    predictors: dict[str, Callable[[], Predict]] = {"nextword": nextword_predictor}
    notes: list[str] = []
    wanted = [b for b in args.baseline.split(",") if b]
    if wanted:
        train_files = args.train or _training_files(engine, args.corpus)
        predictors.update(_baselines(wanted, train_files, notes))
    progress = not args.no_progress
    results = [
        evaluate_file(path, predictors, max_words=args.max_words, progress=progress)
        for path in args.files
    ]
    backend = blas.backend_label()
    for result in results:
        result["backend"] = backend
        result["model"] = str(engine.loaded.path)
        if notes:
            result["notes"] = notes
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    if args.plot:
        _plot(results, args.plot)
    if args.json:
        print(json.dumps(results[0] if len(results) == 1 else results))
    else:
        _print_table(results, ks, backend)
    return 0


def _training_files(engine: Any, corpus: Path) -> list[Path]:
    from nextword.cli import CommandError

    info = engine.loaded.path / "training.json"
    if not info.exists():
        raise CommandError("give the baselines' training text with --train FILE...")
    sources = json.loads(info.read_text())["sources"]
    files = [corpus / "train" / f"{s}.txt" for s in sources]
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        raise CommandError(
            f"baseline training text missing ({missing[0]}): run `nextword prepare-corpus` "
            "or pass --train FILE..."
        )
    return files


def _baselines(
    names: list[str], train_files: list[Path], notes: list[str]
) -> dict[str, Callable[[], Predict]]:
    from nextword.baselines import PresageBaseline, UnigramBaseline
    from nextword.cli import CommandError

    out: dict[str, Callable[[], Predict]] = {}
    for name in names:
        if name == "unigram":
            unigram = UnigramBaseline(train_files)
            out["unigram"] = _constant(unigram.predict)
        elif name == "presage":
            if not PresageBaseline.available():
                notes.append("presage skipped: not installed (apt-get install presage)")
                continue
            cache = Path.home() / ".cache" / "nextword" / "presage"
            print("building the Presage n-gram database (cached)...", file=sys.stderr)
            presage = PresageBaseline(train_files, cache_dir=cache)
            out["presage"] = _constant(presage.predict)
        else:
            raise CommandError(f"unknown baseline {name!r}: choose unigram, presage")
    return out


def _constant(predict: Predict) -> Callable[[], Predict]:
    """A factory that hands out the same stateless predictor for every document."""
    return lambda: predict


def _print_table(results: list[dict[str, Any]], ks: list[int], backend: str) -> None:
    cols = [f"ksr@{k}" for k in ks] + ["top1", "top3", "mrr@5", "diversity@3"]
    print(f"{'file':<28} {'engine':<10} {'words':>7} " + " ".join(f"{c:>11}" for c in cols))
    for r in results:
        rows = [("nextword", r)] + list(r["baselines"].items())
        for name, q in rows:
            values = " ".join(f"{q[c]:>11.4f}" for c in cols)
            print(f"{Path(r['file']).name[:28]:<28} {name:<10} {r['words']:>7} {values}")
        lat = r["latency_ms"]
        print(
            f"  latency ({backend}): boundary p50 {lat['boundary']['p50']:.2f} ms "
            f"p95 {lat['boundary']['p95']:.2f} p99 {lat['boundary']['p99']:.2f}; "
            f"in-word p50 {lat['inword']['p50']:.3f} ms p95 {lat['inword']['p95']:.3f} "
            f"p99 {lat['inword']['p99']:.3f}"
        )


def _plot(results: list[dict[str, Any]], out: Path) -> None:
    from nextword.cli import CommandError

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise CommandError("--plot needs matplotlib: pip install 'nextword[plot]'") from None
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for r in results:
        name = Path(r["file"]).stem
        for engine_name, q in [("nextword", r), *r["baselines"].items()]:
            left.plot(KS, [q[f"ksr@{k}"] for k in KS], marker="o", label=f"{name} {engine_name}")
        lat = r["latency_ms"]
        right.bar(
            [f"{name}\nboundary", f"{name}\nin-word"],
            [lat["boundary"]["p50"], lat["inword"]["p50"]],
            yerr=[
                [0, 0],
                [
                    lat["boundary"]["p99"] - lat["boundary"]["p50"],
                    lat["inword"]["p99"] - lat["inword"]["p50"],
                ],
            ],
        )
    left.set(xlabel="k", ylabel="KSR@k", title="Keystroke savings", xticks=list(KS))
    left.legend(fontsize=7)
    right.set(ylabel="ms (p50, bar to p99)", title="Decision latency")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
