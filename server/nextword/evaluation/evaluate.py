"""`nextword eval`: the simulated typist of docs/EVAL.md, for nextword and baselines.

For each word of a held-out text, with everything before it (in its document) as
context, the typist asks for the top-k candidates after typing 0, 1, 2, ... of its
characters, and accepts the word as soon as it is offered. Keystroke savings
(KSR@k), next-word accuracy at word starts, diversity and decision latency follow.
Documents in a file are separated by form-feed lines (as `prepare-corpus` writes
them); each starts with an empty context.

Chinese documents (more than half of their non-space characters Han, `is_han_document`)
are typed by `type_document_cjk` instead, as EVAL.md says for CJK text: the unit is the
continuation the engine proposes at each Han character (one or more characters), accepted
when it is a prefix of the remaining text, and KSR is counted in characters. Their results
also carry next-character accuracy (`nextchar_top1`, `nextchar_top3`).
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

from nextword.data.textfiles import SNIFF_BYTES, describe_non_file, looks_binary
from nextword.engine.words import WORD_RE, is_han
from nextword.errors import CommandError
from nextword.percentiles import summary

KS = (1, 3, 5)
MAX_K = max(KS)
Predict = Callable[[str, str, int], list[str]]
# Chinese: candidates asked for at each Han position. Only the first MAX_K can be accepted;
# the rest serve the next-character ranking (distinct first characters), which needs more
# than MAX_K continuations when several start with the same character.
NEXT_CHAR_K = 20
CJK_K = max(MAX_K, NEXT_CHAR_K)


def is_han_document(doc: str) -> bool:
    """True when more than half of the document's non-space characters are Han."""
    visible = len(doc) - sum(c.isspace() for c in doc)
    return visible > 0 and sum(is_han(c) for c in doc) / visible > 0.5


@dataclass
class Tally:
    """Running sums for one predictor over one file."""

    chars: int = 0
    words: int = 0  # words, plus Han positions of Chinese documents
    word_docs: int = 0
    cjk_docs: int = 0
    han_positions: int = 0
    nextchar_top1: int = 0
    nextchar_top3: int = 0
    keystrokes: dict[int, int] = field(default_factory=lambda: {k: 0 for k in KS})
    ranked_keystrokes: dict[int, int] = field(default_factory=lambda: {k: 0 for k in KS})
    top1: int = 0
    top3: int = 0
    reciprocal: float = 0.0
    diversity: float = 0.0
    diversity_n: int = 0
    boundary_ms: list[float] = field(default_factory=list)
    inword_ms: list[float] = field(default_factory=list)

    def word_start(self, rank: int | None, candidates: list[str]) -> None:
        """Count a word start (every Han position in Chinese): the accepted rank, if any."""
        self.top1 += rank == 1
        self.top3 += rank is not None and rank <= 3
        self.reciprocal += 1 / rank if rank else 0.0
        if (d := diversity(candidates)) is not None:
            self.diversity += d
            self.diversity_n += 1

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
        if self.han_positions:
            out["nextchar_top1"] = self.nextchar_top1 / self.han_positions
            out["nextchar_top3"] = self.nextchar_top3 / self.han_positions
        return {k: round(v, 4) for k, v in out.items()}

    def unit(self) -> str:
        """What `words` counts: "word", "character-continuation" (Chinese) or "mixed"."""
        if self.cjk_docs and self.word_docs:
            return "mixed"
        return "character-continuation" if self.cjk_docs else "word"

    def latency(self) -> dict[str, Any]:
        out: dict[str, Any] = summary(self.boundary_ms + self.inword_ms)
        out["boundary"] = summary(self.boundary_ms)
        out["inword"] = summary(self.inword_ms)
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
    tally.word_docs += 1
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
                tally.word_start(rank, candidates)
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


def type_document_cjk(doc: str, predict: Predict, tally: Tally) -> None:
    """Simulate typing one Chinese document; add its costs to `tally`.

    At every Han character `doc[i]` the engine is asked once for continuations of `doc[:i]`
    (with no typed prefix). The context does not depend on k, so the answers are kept by
    position and the typist's walk is replayed for each k from them, exactly: at a Han
    position it accepts the longest of the top-k candidates that is a prefix of `doc[i:]`
    (the best rank among equally long ones), for 1 keystroke (r in the ranked variant),
    and moves past it; otherwise it types the character (+1). Everything else (punctuation,
    digits, spaces, line breaks, and Latin words inside the Chinese text) is typed, +1 per
    character. Next-continuation accuracy (top1, top3, mrr@5) and next-character accuracy
    are counted at every Han position, whether or not a walk stops there.
    """
    tally.chars += len(doc)
    tally.cjk_docs += 1
    answers: dict[int, list[str]] = {}
    for i, char in enumerate(doc):
        if not is_han(char):
            continue
        start = time.perf_counter()
        candidates = [c for c in predict(doc[:i], "", CJK_K) if c]
        tally.boundary_ms.append((time.perf_counter() - start) * 1000)
        answers[i] = candidates
        tally.words += 1
        tally.han_positions += 1
        rank = next((r for r, c in enumerate(candidates[:MAX_K], 1) if doc.startswith(c, i)), None)
        tally.word_start(rank, candidates)
        firsts = list(dict.fromkeys(c[0] for c in candidates))
        tally.nextchar_top1 += firsts[:1] == [char]
        tally.nextchar_top3 += char in firsts[:3]
    for k in KS:
        keystrokes = ranked = i = 0
        while i < len(doc):
            accepted = _longest_accepted(answers.get(i, []), doc, i, k)
            if accepted is None:
                keystrokes += 1
                ranked += 1
                i += 1
            else:
                rank, length = accepted
                keystrokes += 1
                ranked += rank
                i += length
        tally.keystrokes[k] += keystrokes
        tally.ranked_keystrokes[k] += ranked


def _longest_accepted(candidates: list[str], doc: str, i: int, k: int) -> tuple[int, int] | None:
    """(rank, length) of the longest top-k candidate that `doc` continues with at `i`."""
    best: tuple[int, int] | None = None
    for rank, candidate in enumerate(candidates[:k], 1):
        if doc.startswith(candidate, i) and (best is None or len(candidate) > best[1]):
            best = (rank, len(candidate))
    return best


def read_documents(
    path: Path, max_words: int | None, doc_words: int | None = None
) -> tuple[list[str], int]:
    """The file's documents, cut after `max_words` words; and the count of bad bytes.

    With `doc_words`, each document is first cut after its own first `doc_words` words
    (short documents: the start of an email, a note). In Chinese documents
    (`is_han_document`) the units counted are Han characters.
    """
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - raw.decode("utf-8", errors="ignore").count("\ufffd")
    docs = [d.strip("\n") for d in text.replace("\r\n", "\n").split("\f") if d.strip()]
    if doc_words is not None:
        docs = [cut_words(doc, doc_words)[0] for doc in docs]
    if max_words is None:
        return docs, bad
    out, budget = [], max_words
    for doc in docs:
        if budget <= 0:
            break
        doc, units = cut_words(doc, budget)
        out.append(doc)
        budget -= units
    return out, bad


def cut_words(doc: str, n: int) -> tuple[str, int]:
    """The document up to the end of its `n`-th word (Han character in Chinese), and
    the number of words (characters) it keeps."""
    if is_han_document(doc):
        han = [i + 1 for i, char in enumerate(doc) if is_han(char)]
        return (doc[: han[n - 1]], n) if len(han) > n else (doc, len(han))
    matches = list(WORD_RE.finditer(doc))
    return (doc[: matches[n - 1].end()], n) if len(matches) > n else (doc, len(matches))


# More replaced bytes than this share of the characters: not UTF-8 text at all (a few
# stray bytes in real text are replaced and counted, as `invalid_utf8_replaced`).
MAX_BAD_SHARE = 0.3


def check_text_file(path: Path) -> None:
    """Refuse, in one line, what the typist cannot type: no file, a folder, binary data,
    text in another encoding, a file without words."""

    if (why := describe_non_file(path)) is not None:
        raise CommandError(f"{path}: {why}")
    with path.open("rb") as f:
        head = f.read(SNIFF_BYTES)
    if looks_binary(head):
        raise CommandError(f"{path}: is not text (binary data); give UTF-8 text files")
    docs, bad = read_documents(path, None)
    characters = sum(len(d) for d in docs)
    if bad > MAX_BAD_SHARE * max(characters, 1):
        raise CommandError(f"{path}: is not UTF-8 text ({bad:,} undecodable bytes)")
    if not any(WORD_RE.search(d) or any(is_han(c) for c in d) for d in docs):
        raise CommandError(f"{path}: has no words to type")


def evaluate_file(
    path: Path,
    predictors: dict[str, Callable[[], Predict]],
    *,
    max_words: int | None,
    progress: bool,
    cjk_predictors: dict[str, Callable[[], Predict]] | None = None,
    doc_words: int | None = None,
) -> dict[str, Any]:
    """Run every predictor over one file; the first predictor is the one reported on top.

    Chinese documents are typed by `type_document_cjk`, with the predictor of the same name
    in `cjk_predictors` where there is one (the character-level baselines).
    """
    docs, bad = read_documents(path, max_words, doc_words)
    results: dict[str, Tally] = {}
    for name, make in predictors.items():
        tally = Tally()
        bar = _progress(len(docs), f"{path.name} [{name}]", progress)
        for doc in docs:
            # A fresh predictor per document: per-document state starts empty.
            if is_han_document(doc):
                type_document_cjk(doc, (cjk_predictors or {}).get(name, make)(), tally)
            else:
                type_document(doc, make(), tally)
            bar.update(1)
        bar.close()
        results[name] = tally
    main_name = next(iter(predictors))
    main = results[main_name]
    out: dict[str, Any] = {
        "file": str(path),
        "unit": main.unit(),
        "words": main.words,
        "characters": main.chars,
    }
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
    parser.add_argument(
        "--chinese-model", help="model directory for Chinese text (default: the bundled one)"
    )
    parser.add_argument(
        "--baseline",
        default="",
        help="comma list of: unigram, presage (Chinese documents get their character-level "
        "versions: the most frequent Han characters, Presage's character trigram). Both are "
        "built from the model's training text: run `nextword prepare-corpus` first (it "
        "fetches about 570 MB of packages). The first presage run builds its trigram "
        "database (about 340 MB, 3-4 minutes, cached in ~/.cache/nextword/presage)",
    )
    parser.add_argument(
        "--train",
        type=Path,
        nargs="*",
        help="baseline training text (default: the model's training sources in --corpus)",
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        help="the prepared corpus (default: where `nextword prepare-corpus` wrote it)",
    )
    parser.add_argument(
        "--max-words",
        type=int,
        help="stop each file after this many words (Han characters in Chinese documents)",
    )
    parser.add_argument(
        "--doc-words",
        type=int,
        help="type only the first N words of each document (short documents)",
    )
    parser.add_argument("--json", action="store_true", help="last line: one JSON object")
    parser.add_argument(
        "--plot",
        type=Path,
        help="draw KSR@k and latency to this PNG (needs matplotlib: pip install 'nextword[plot]')",
    )
    parser.add_argument("--no-progress", action="store_true")


def run(args: argparse.Namespace) -> int:
    from nextword import blas
    from nextword.engine.loader import ModelError
    from nextword.engine.router import Router

    for path in args.files:
        check_text_file(path)
    if args.plot:
        plot_library()  # before the run, not after it
    try:
        ks = [int(k) for k in args.k.split(",")]
    except ValueError:
        raise CommandError(f"--k must be a comma list of 1, 3, 5, not {args.k!r}") from None
    if not set(ks) <= set(KS):
        raise CommandError("--k takes values among 1, 3, 5 (the protocol's k)")
    for name in ("max_words", "doc_words"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise CommandError(f"--{name.replace('_', '-')} must be at least 1")
    try:
        # The router, as the server and `predict` use it: Chinese text goes to the
        # Chinese model, the rest to the main one.
        engine = Router.load(args.model, args.chinese_model)
    except ModelError as err:
        raise CommandError(str(err)) from None

    def nextword_predictor() -> Predict:
        decider = engine.decider()
        return lambda context, prefix, k: [c.text for c in decider.decide(context, prefix, k)]

    predictors: dict[str, Callable[[], Predict]] = {"nextword": nextword_predictor}
    cjk_predictors: dict[str, Callable[[], Predict]] = {}
    notes: list[str] = []
    wanted = [b for b in args.baseline.split(",") if b]
    if wanted:
        if args.corpus is None:
            from nextword.data.corpus import default_corpus

            args.corpus = default_corpus()
        train_files = args.train or _training_files(engine, args.corpus)
        english, chinese = _baselines(wanted, train_files, notes)
        predictors.update(english)
        cjk_predictors.update(chinese)
    progress = not args.no_progress
    results = [
        evaluate_file(
            path,
            predictors,
            max_words=args.max_words,
            doc_words=args.doc_words,
            progress=progress,
            cjk_predictors=cjk_predictors,
        )
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
) -> tuple[dict[str, Callable[[], Predict]], dict[str, Callable[[], Predict]]]:
    """Factories for the named baselines: word-level ones, and character-level ones for
    Chinese documents under the same names. Each is built on first use, so a run over
    English files builds no character model, and the reverse."""
    from nextword.evaluation.baselines import (
        PresageBaseline,
        PresageCharBaseline,
        UnigramBaseline,
        UnigramCharBaseline,
    )

    words: dict[str, Callable[[], Predict]] = {}
    chars: dict[str, Callable[[], Predict]] = {}
    cache = Path.home() / ".cache" / "nextword" / "presage"

    def presage(kind: type[PresageBaseline]) -> Predict:
        return kind(train_files, cache_dir=cache).predict

    for name in names:
        if name == "unigram":
            words["unigram"] = _lazy(lambda: UnigramBaseline(train_files).predict)
            chars["unigram"] = _lazy(lambda: UnigramCharBaseline(train_files).predict)
        elif name == "presage":
            if not PresageBaseline.available():
                notes.append("presage skipped: not installed (apt-get install presage)")
                continue
            words["presage"] = _lazy(lambda: presage(PresageBaseline))
            chars["presage"] = _lazy(lambda: presage(PresageCharBaseline))
        else:
            raise CommandError(f"unknown baseline {name!r}: choose unigram, presage")
    return words, chars


def _lazy(build: Callable[[], Predict]) -> Callable[[], Predict]:
    """A factory that builds a stateless predictor on first use, then hands out the same one."""
    built: list[Predict] = []

    def make() -> Predict:
        if not built:
            built.append(build())
        return built[0]

    return make


def _print_table(results: list[dict[str, Any]], ks: list[int], backend: str) -> None:
    cols = [f"ksr@{k}" for k in ks] + ["top1", "top3", "mrr@5", "diversity@3"]
    if any("nextchar_top1" in r for r in results):
        cols += ["nextchar_top1", "nextchar_top3"]
    width = {c: max(11, len(c)) for c in cols}
    header = " ".join(f"{c:>{width[c]}}" for c in cols)
    print(f"{'file':<28} {'engine':<10} {'words':>7} {header}")
    for r in results:
        rows = [("nextword", r)] + list(r["baselines"].items())
        for name, q in rows:
            values = " ".join(
                f"{q[c]:>{width[c]}.4f}" if c in q else f"{'-':>{width[c]}}" for c in cols
            )
            print(f"{Path(r['file']).name[:28]:<28} {name:<10} {r['words']:>7} {values}")
        if r.get("unit") == "character-continuation":
            print("  unit: character continuations (words = Han positions)")
        elif r.get("unit") == "mixed":
            print("  unit: mixed (words = words + Han positions of Chinese documents)")
        lat = r["latency_ms"]
        print(
            f"  latency ({backend}): boundary p50 {lat['boundary']['p50']:.2f} ms "
            f"p95 {lat['boundary']['p95']:.2f} p99 {lat['boundary']['p99']:.2f}; "
            f"in-word p50 {lat['inword']['p50']:.3f} ms p95 {lat['inword']['p95']:.3f} "
            f"p99 {lat['inword']['p99']:.3f}"
        )


def plot_library() -> Any:
    """matplotlib's pyplot, headless; a one-line error when the `plot` extra is missing."""

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise CommandError(
            "--plot needs matplotlib: pip install 'nextword[plot]' (or pip install matplotlib)"
        ) from None
    return plt


# The on-device keyboard's figure for a decision (README): drawn on the latency panel.
REFERENCE_MS = 7.4


def _plot(results: list[dict[str, Any]], out: Path) -> None:
    """KSR@k per file and engine (axis from 0), and p50 latency per engine at word
    boundaries and inside words, on a log axis with the 7.4 ms reference line."""
    plt = plot_library()
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    bars: dict[str, dict[str, float]] = {}
    for r in results:
        name = Path(r["file"]).stem
        for engine_name, q in [("nextword", r), *r["baselines"].items()]:
            left.plot(KS, [q[f"ksr@{k}"] for k in KS], marker="o", label=f"{name} {engine_name}")
            lat = q["latency_ms"]
            bars[f"{name}\n{engine_name}"] = {
                "boundary": max(lat["boundary"]["p50"], 1e-3),
                "in-word": max(lat["inword"]["p50"], 1e-3),
            }
    left.set(xlabel="k", ylabel="KSR@k", title="Keystroke savings", xticks=list(KS))
    left.set_ylim(bottom=0)
    left.legend(fontsize=7)
    labels = list(bars)
    x = np.arange(len(labels))
    for offset, kind in ((-0.2, "boundary"), (0.2, "in-word")):
        right.bar(x + offset, [bars[label][kind] for label in labels], width=0.4, label=kind)
    right.axhline(REFERENCE_MS, color="red", linestyle="--", linewidth=1, label="7.4 ms")
    right.set_yscale("log")
    right.set_xticks(x, labels, fontsize=7)
    right.set(ylabel="p50 ms (log)", title="Decision latency")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
