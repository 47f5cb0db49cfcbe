"""`nextword eval`: the typist (evaluation/typist.py) over held-out files, for nextword
and the baselines named, with a table, a JSON line or a plot of the figures."""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from nextword.data.documents import chinese_spans, read_documents
from nextword.data.textfiles import check_text_file
from nextword.engine import REFINED_LETTERS
from nextword.engine.corrections import CorrectionGate, compared_thresholds
from nextword.errors import CommandError
from nextword.evaluation.openings import BUNDLED as BUNDLED_OPENINGS
from nextword.evaluation.openings import read_openings, score_openings
from nextword.evaluation.phrases import (
    EXACT_N,
    PHRASE_WORDS,
    PhraseTypist,
    guessed_at,
    measure_phrases,
)
from nextword.evaluation.typist import KS, Predict, Suggest, TypoRun, evaluate_file

# Where `nextword prepare-corpus` keeps what it fetched (codespell's wheel among them).
SOURCES_CACHE = Path.home() / ".cache" / "nextword" / "sources"
MODES = {"off": ("off",), "on": ("on",), "both": ("off", "on")}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", type=Path, help="held-out text files")
    parser.add_argument("--k", default="1,3,5", help="k values to print (of 1,3,5)")
    parser.add_argument("--model", help="model directory (default: the bundled model)")
    parser.add_argument(
        "--chinese-model", help="model directory for Chinese text (default: the bundled one)"
    )
    parser.add_argument(
        "--baseline",
        default="",
        help="comma list of: unigram, presage (on Chinese text, their character-level "
        "versions: the most frequent Han characters, Presage's character trigram). Both are "
        "built from the training text of the model they stand beside: run `nextword "
        "prepare-corpus` first for English (it fetches about 570 MB of packages), `nextword "
        "prepare-corpus --lang zh` for Chinese. The first presage run builds its trigram "
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
    parser.add_argument(
        "--typos",
        type=float,
        metavar="RATE",
        help="corrupt this share (0-1] of the words of four letters or more (docs/EVAL.md): "
        "report the correction rate, KSR on the corrupted text, and hunspell's and "
        "SymSpell's correction rates on the same words (fetches codespell's dictionary "
        "once, into ~/.cache/nextword/sources)",
    )
    parser.add_argument("--typo-seed", type=int, metavar="N", help="the typos' seed (default 0)")
    parser.add_argument(
        "--corrections",
        choices=sorted(MODES),
        help="nextword's typo corrections: off, on, or both compared on the same text "
        "(default: off; both with --typos, and on at the two other gate thresholds the "
        "model's corrections.json names, for the trade-off of docs/CORRECTIONS.md)",
    )
    parser.add_argument(
        "--phrases",
        action="store_true",
        help="measure the ghost-text phrases at word boundaries (docs/EVAL.md): "
        "ExactMatch@1..5, coverage, the phrase-accepting typist's KSR beside the word-only "
        "KSR, and the phrase latency; and the phrases shown while a word is typed",
    )
    parser.add_argument(
        "--phrase-threshold",
        type=float,
        metavar="SCORE",
        help="with --phrases: show phrases scoring at least this (mean log-probability per "
        "word) instead of the model's fitted thresholds, at word starts and in words; a "
        "very low one (-100) shows every phrase of two words or more",
    )
    parser.add_argument(
        "--openings",
        type=Path,
        nargs="?",
        const=BUNDLED_OPENINGS,
        metavar="TSV",
        help="everyday openings (docs/EVAL.md): for each, typed at the start of a new "
        "document, whether the top 5 hold a word a judge accepts, for nextword and the "
        "baselines (default file: the bundled 229, texts/openings-en.tsv)",
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

    if not args.files and args.openings is None:
        raise CommandError("name held-out files to type, or --openings")
    for path in args.files:
        check_text_file(path)
    openings = read_openings(args.openings) if args.openings is not None else None
    if args.plot and not args.files:
        raise CommandError("--plot draws the typed files' figures: name some")
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
    if args.typos is not None and not 0 < args.typos <= 1:
        raise CommandError(f"--typos takes a share in (0, 1], not {args.typos}")
    if args.typo_seed is not None and args.typos is None:
        raise CommandError("--typo-seed goes with --typos RATE")
    if args.phrase_threshold is not None and not args.phrases:
        raise CommandError("--phrase-threshold goes with --phrases")
    try:
        # The router, as the server and `predict` use it: Chinese text goes to the
        # Chinese model, the rest to the main one.
        engine = Router.load(args.model, args.chinese_model)
    except ModelError as err:
        raise CommandError(str(err)) from None
    # As the server does once its model is loaded (lsp/server.py): the engine's long-lived
    # containers out of the cyclic collector's passes, which would otherwise land in
    # whichever decision is being timed.
    gc.freeze()
    main = engine.engines["en"]
    if args.phrase_threshold is not None:
        main.phrase_threshold = main.in_word_phrase_threshold = args.phrase_threshold

    def nextword_predictor(gate: CorrectionGate | None) -> Callable[[], Predict]:
        def make() -> Predict:
            return _Predict(engine.decider(gate=gate), gate is not None)

        return make

    # The correction modes nextword runs in; the first is the one reported on top. With
    # typos, corrections on at other gate thresholds too: the trade-off between clean
    # popups and corrected misspellings, on the same words.
    wanted_modes = args.corrections or ("both" if args.typos is not None else None)
    gates: dict[str, CorrectionGate | None] = {
        m: main.gate if m == "on" else None for m in MODES[wanted_modes or "off"]
    }
    if args.typos is not None and "on" in gates:
        for threshold in compared_thresholds(main.loaded.path / "corrections.json"):
            gates[f"on@{threshold:g}"] = replace(main.gate, threshold=threshold)
    modes = {m: nextword_predictor(gate) for m, gate in gates.items()}
    predictors: dict[str, Callable[[], Predict]] = {"nextword": next(iter(modes.values()))}
    cjk_predictors: dict[str, Callable[[], Predict]] = {}
    notes: list[str] = []
    wanted = [b for b in args.baseline.split(",") if b]
    if wanted:
        from nextword.data.corpus import default_corpus

        corpus = args.corpus or default_corpus()
        # Each baseline learns from the text its nextword counterpart learned from: the
        # word baselines from the main model's, the character ones from the Chinese model's
        # (the main one's without it). Each is looked up only if the files have text of its
        # kind, so English files need no Chinese corpus, and the reverse.
        kinds = _span_kinds(args.files, args.max_words, args.doc_words)
        if openings is not None:
            kinds.add("word")
        main_engine = engine.engines["en"]
        zh_engine = engine.engines.get("zh") or main_engine
        word_files, char_files = args.train or [], args.train or []
        if not args.train and "word" in kinds:
            word_files = _training_files(main_engine, corpus)
        if not args.train and "chinese" in kinds:
            char_files = _training_files(zh_engine, corpus)
        english, chinese = _baselines(wanted, word_files, char_files, notes)
        predictors.update(english)
        cjk_predictors.update(chinese)
    progress = not args.no_progress
    phrases = None
    if args.phrases:
        # Between phrases the typist types in the correction mode reported on top.
        typist = _phrase_typist(engine, correct=next(iter(modes)) == "on")
        phrases = partial(measure_phrases, make=typist, progress=progress)
    with ExitStack() as spellers:
        typos = None
        if args.typos is not None:
            typos = _typo_run(args.typos, args.typo_seed or 0, notes, spellers)
        results = [
            evaluate_file(
                path,
                predictors,
                max_words=args.max_words,
                doc_words=args.doc_words,
                progress=progress,
                cjk_predictors=cjk_predictors,
                modes=modes if wanted_modes else None,
                typos=typos,
                phrases=phrases,
            )
            for path in args.files
        ]
    if openings is not None:
        scores = {name: score_openings(make, openings) for name, make in predictors.items()}
        by_engine = {name: score.as_dict() for name, score in scores.items()}
        results.append({"openings_file": str(args.openings), "openings": by_engine})
    backend = blas.backend_label()
    for result in results:
        result["backend"] = backend
        result["model"] = str(engine.loaded.path)
        if "typos" in result:
            result["typos"]["gate"] = _gate_tradeoff(result, gates)
        if "phrases" in result:
            result["phrases"]["threshold"] = main.phrase_threshold
            result["phrases"]["in_word_threshold"] = main.in_word_phrase_threshold
        if notes:
            result["notes"] = notes
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    typed = [r for r in results if "openings" not in r]
    if args.plot:
        _plot(typed, args.plot)
    if args.json:
        print(json.dumps(results[0] if len(results) == 1 else results))
    else:
        if typed:
            _print_table(typed, ks, backend)
        if openings is not None:
            _print_openings(results[-1], list(predictors))
    return 0


class _Predict:
    """One document's decider as the typist asks it: the candidates' words, and whether
    one was a correction (`MarksCorrections`); between keys, the refinement the
    server's worker runs there (`Decider.refine`)."""

    def __init__(self, decider: Any, correct: bool):
        self.decider, self.correct = decider, correct
        self.corrected = False

    def __call__(self, context: str, prefix: str, k: int) -> list[str]:
        found = self.decider.decide(context, prefix, k, correct=self.correct)
        self.corrected = any(c.corrects(prefix) for c in found)
        return [c.text for c in found]

    def between_keys(self, context: str, prefix: str) -> None:
        if len(prefix) <= REFINED_LETTERS:
            self.decider.refine(context, prefix)


def _phrase_typist(engine: Any, *, correct: bool) -> Callable[[], PhraseTypist]:
    """Per document, a decider asked for candidates and for the phrase it shows."""

    def make() -> PhraseTypist:
        decider = engine.decider()

        def show(context: str) -> tuple[str, ...] | None:
            phrase = decider.shown_phrase(context, "", PHRASE_WORDS)
            return None if phrase is None else phrase.words

        def show_in_word(context: str, word: str, typed: int) -> tuple[str, ...] | None:
            prefix = guessed_at(decider, context, word, typed)
            phrase = prefix and decider.shown_phrase(context, prefix, PHRASE_WORDS)
            return phrase.words if phrase else None

        return PhraseTypist(_Predict(decider, correct), show, show_in_word)

    return make


def _span_kinds(files: list[Path], max_words: int | None, doc_words: int | None) -> set[str]:
    """The kinds of span the typist will type in these files, as the results' `parts`
    name them: "word" and "chinese"; each kind asks for baselines of its own."""
    kinds: set[str] = set()
    for path in files:
        docs, _ = read_documents(path, max_words, doc_words)
        kinds |= {"chinese" if zh else "word" for doc in docs for _, _, zh in chinese_spans(doc)}
    return kinds


def _training_files(engine: Any, corpus: Path) -> list[Path]:
    """The engine's training sources in the prepared corpus; a missing one is named with
    the command that prepares it."""
    from nextword.commands.prepare_corpus import command_for

    info = engine.loaded.path / "training.json"
    if not info.exists():
        raise CommandError("give the baselines' training text with --train FILE...")
    sources = json.loads(info.read_text())["sources"]
    missing = [s for s in sources if not (corpus / "train" / f"{s}.txt").exists()]
    if missing:
        command = command_for(missing, corpus)
        fix = f"run `{' '.join(command)}`" if command else "prepare it"
        raise CommandError(
            f"baseline training text missing ({corpus / 'train' / missing[0]}.txt): "
            f"{fix} or pass --train FILE..."
        )
    return [corpus / "train" / f"{s}.txt" for s in sources]


def _gate_tradeoff(
    result: dict[str, Any], gates: dict[str, CorrectionGate | None]
) -> dict[str, dict[str, float]]:
    """Per correction mode with a gate: its threshold, the share of in-word answers on
    the clean text that held a correction, and the misspellings corrected."""
    out = {}
    for mode, gate in gates.items():
        clean, typed = result["corrections"].get(mode), result["typos"]["nextword"].get(mode)
        if gate is None or clean is None or typed is None:
            continue
        out[mode] = {
            "threshold": gate.threshold,
            "unknown": gate.unknown,
            "inword_corrected": clean.get("inword_corrected", 0.0),
            **{f"correction@{k}": typed[f"correction@{k}"] for k in KS},
        }
        if "inword_corrected_known" in clean:  # hunspell judged the words
            out[mode]["inword_corrected_known"] = clean["inword_corrected_known"]
    return out


def _typo_run(rate: float, seed: int, notes: list[str], stack: ExitStack) -> TypoRun:
    """The typo generator over codespell's allowed pairs, and the spellers installed here
    (closed by `stack`); one note for each that is not."""
    from nextword.data.misspellings import allowed_pairs
    from nextword.evaluation.spellers import HunspellSpeller, SpellerMissing, SymSpellSpeller
    from nextword.evaluation.typos import TypoGenerator

    generator = TypoGenerator(rate, pairs=allowed_pairs(SOURCES_CACHE))
    spellers: dict[str, Suggest] = {}
    knows = None
    try:
        hunspell = stack.enter_context(HunspellSpeller())
        spellers[hunspell.name] = hunspell.suggest
        knows = hunspell.knows
    except SpellerMissing as err:
        notes.append(str(err))
    try:
        symspell = SymSpellSpeller()
        spellers[symspell.name] = symspell.suggest
    except SpellerMissing as err:
        notes.append(str(err))
    return TypoRun(generator, seed, spellers, knows)


def _baselines(
    names: list[str], train_files: list[Path], char_files: list[Path], notes: list[str]
) -> tuple[dict[str, Callable[[], Predict]], dict[str, Callable[[], Predict]]]:
    """Factories for the named baselines: word-level ones, and character-level ones for
    Chinese text under the same names. Each is built on first use, so a run over
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

    def presage(kind: type[PresageBaseline], files: list[Path]) -> Predict:
        return kind(files, cache_dir=cache).predict

    for name in names:
        if name == "unigram":
            words["unigram"] = _lazy(lambda: UnigramBaseline(train_files).predict)
            chars["unigram"] = _lazy(lambda: UnigramCharBaseline(char_files).predict)
        elif name == "presage":
            if not PresageBaseline.available():
                notes.append("presage skipped: not installed (apt-get install presage)")
                continue
            words["presage"] = _lazy(lambda: presage(PresageBaseline, train_files))
            chars["presage"] = _lazy(lambda: presage(PresageCharBaseline, char_files))
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

    def row(label: str, name: str, words: int, q: dict[str, Any]) -> None:
        values = " ".join(
            f"{q[c]:>{width[c]}.4f}" if c in q else f"{'-':>{width[c]}}" for c in cols
        )
        print(f"{label[:28]:<28} {name:<10} {words:>7} {values}")

    for r in results:
        rows = [("nextword", r)] + list(r["baselines"].items())
        for name, q in rows:
            row(Path(r["file"]).name, name, r["words"], q)
            # A file with Chinese and other spans: each part below the whole.
            for part, label in (("word", "  word spans"), ("chinese", "  Chinese spans")):
                if part in q.get("parts", {}):
                    row(label, name, q["parts"][part]["words"], q["parts"][part])
        if r.get("unit") == "character-continuation":
            print("  unit: character continuations (words = Han positions)")
        elif r.get("unit") == "mixed":
            print("  unit: mixed, typed span by span (words = words + Han positions)")
            print(
                "  parts: word spans (the word typist) and Chinese spans (character "
                "continuations, words = Han positions), KSR over each part's characters"
            )
        lat = r["latency_ms"]
        print(
            f"  latency ({backend}): boundary p50 {lat['boundary']['p50']:.2f} ms "
            f"p95 {lat['boundary']['p95']:.2f} p99 {lat['boundary']['p99']:.2f}; "
            f"in-word p50 {lat['inword']['p50']:.3f} ms p95 {lat['inword']['p95']:.3f} "
            f"p99 {lat['inword']['p99']:.3f}"
        )
        if "corrections" in r:
            _print_corrections(r["corrections"], ks)
        if "typos" in r:
            _print_typos(r["typos"], ks)
        if "phrases" in r:
            _print_phrases(r["phrases"], ks, backend)


def _print_openings(result: dict[str, Any], engines: list[str]) -> None:
    first = result["openings"][engines[0]]
    print(
        f"openings ({first['openings']} in {result['openings_file']}): "
        f"an accepted word in the top {first['k']}"
    )
    print(f"{'engine':<12} {'hits':>9} {'rate':>7} {'accepted':>9} {'mrr':>7}")
    for name in engines:
        r = result["openings"][name]
        hits = f"{r['hits']}/{r['openings']}"
        print(f"{name:<12} {hits:>9} {r['hit_rate']:>7.3f} {r['accepted']:>9} {r['mrr']:>7.3f}")


def _print_corrections(figures: dict[str, dict[str, Any]], ks: list[int]) -> None:
    cols = [f"ksr@{k}" for k in ks] + ["top1", "top3"]
    for mode, q in figures.items():
        values = ", ".join(f"{c} {q[c]:.4f}" for c in cols)
        if "inword_corrected" in q:
            values += f"; in-word answers with a correction {q['inword_corrected']:.2%}"
        print(f"  clean text, corrections {mode + ':':<4} {values}")
        for part, label in (("word", "word spans"), ("chinese", "Chinese spans")):
            if part in q.get("parts", {}):
                values = ", ".join(f"{c} {q['parts'][part][c]:.4f}" for c in cols)
                print(f"    {label + ':':<14} {values}")


def _print_typos(typos: dict[str, Any], ks: list[int]) -> None:
    kinds = ", ".join(f"{kind} {n}" for kind, n in typos["kinds"].items())
    print(
        f"  typos at {typos['rate'] * 100:g}% (seed {typos['seed']}): {typos['corrupted']} of "
        f"{typos['eligible']} words of 4+ letters ({kinds or 'none'})"
    )
    rows = [(f"nextword ({mode})", q) for mode, q in typos["nextword"].items()]
    rows += list(typos["spellers"].items())
    width = max(16, *(len(name) for name, _ in rows))
    for name, q in rows:
        parts = [", ".join(f"correction@{k} {q[f'correction@{k}']:.4f}" for k in ks)]
        if "before_mistake@1" in q:  # nextword's own figures
            parts.append(
                "before the mistake "
                + ", ".join(f"@{k} {q[f'before_mistake@{k}']:.4f}" for k in ks)
            )
            parts.append("corrupted text " + ", ".join(f"ksr@{k} {q[f'ksr@{k}']:.4f}" for k in ks))
        print(f"    {name:<{width}} " + "; ".join(parts))
    if typos.get("gate"):
        print("  correction gate (threshold: clean in-word answers holding a correction; "
              "misspellings corrected):")  # fmt: skip
        for mode, g in typos["gate"].items():
            rates = ", ".join(f"correction@{k} {g[f'correction@{k}']:.4f}" for k in ks)
            known = g.get("inword_corrected_known")
            words = "" if known is None else f" ({known:.2%} in words hunspell knows)"
            print(f"    {g['threshold']:<8g} ({mode}): {g['inword_corrected']:.2%}{words}; {rates}")


def _print_phrases(figures: dict[str, Any], ks: list[int], backend: str) -> None:
    rates = {n: figures[f"exact_match@{n}"] for n in EXACT_N}
    # None: no phrase of N words was shown (N beyond the longest phrase, at least).
    exact = ", ".join(f"@{n} {'-' if r is None else f'{r:.4f}'}" for n, r in rates.items())
    print(
        f"  phrases (threshold {figures['threshold']}): shown at {figures['shown']} of "
        f"{figures['boundaries']} boundaries (coverage {figures['coverage']:.4f}, "
        f"{figures['mean_words']:.2f} words); exact match {exact}"
    )
    ksr = ", ".join(
        f"ksr@{k} {figures[f'ksr@{k}']:.4f} (word-only {figures[f'word_ksr@{k}']:.4f})" for k in ks
    )
    lat = figures["latency_ms"]
    print(f"    phrase-accepting typist: {ksr}; {figures['accepted_words']} words accepted")
    print(f"    phrase latency ({backend}): p50 {lat['p50']:.2f} ms p95 {lat['p95']:.2f}")
    inside = figures.get("in_word")
    if inside:
        print(
            f"    in a word (threshold {figures['in_word_threshold']}): shown at "
            f"{inside['shown']} of {inside['words']} words typed (coverage "
            f"{inside['coverage']:.4f}); right as a whole {inside['precision']:.4f}, first "
            f"two words {inside['exact_match@2']:.4f}"
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
