"""`nextword figures`: every published figure, regenerated from a fresh clone.

It prepares the corpus it needs (`nextword prepare-corpus`, with `--lang zh` for the
Chinese figures), then runs each measurement as its own `nextword` process: `eval` over
the dev splits (quality beside both baselines, short documents, typing mistakes, the
Chinese splits), `bench` (10 keys/s and flat out) and `doctor`. What they print is kept
in `--out` (runs/figures) and written out: each model's card (eval.json, README.md), the
tables of docs/FIGURES.md and the headline table of README.md, between their markers
(evaluation/figures.py). Every step says what it runs and, done, how long it took;
docs/FIGURES.md says how long the whole takes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from nextword.errors import CommandError
from nextword.evaluation.figures import (
    CHINESE_SPLITS,
    GENRES,
    TYPO_GENRES,
    bench_table,
    check_blocks,
    chinese_table,
    corrections_headline,
    corrections_tables,
    gate_table,
    headline_table,
    latency_table,
    machine_line,
    openings_table,
    quality_table,
    running_time,
    short_documents_table,
    write_blocks,
)

BUNDLED = Path(__file__).resolve().parents[1] / "models"
# The blocks of docs/FIGURES.md each language's figures write.
FIGURES_BLOCKS = {
    "en": [
        "machine-en",
        "quality-table",
        "latency-table",
        "short-documents-table",
        "openings-table",
        "corrections-table",
        "corrections-clean-table",
        "corrections-gate-table",
        "bench-table",
    ],
    "zh": ["machine-zh", "chinese-table"],
}
# Written by any run: how long it took.
RUNNING_TIME = "running-time"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        choices=("en", "zh", "all"),
        default="all",
        help="the English figures, the Chinese ones, or both (default: all)",
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        default=Path("data/corpus"),
        help="the prepared corpus; what is missing is prepared (default: data/corpus)",
    )
    parser.add_argument(
        "--model", type=Path, default=BUNDLED / "en", help="the English model (default: bundled)"
    )
    parser.add_argument(
        "--chinese-model",
        type=Path,
        default=BUNDLED / "zh",
        help="the Chinese model (default: bundled)",
    )
    parser.add_argument(
        "--words", type=int, default=4000, help="words of each dev split typed (default: 4000)"
    )
    parser.add_argument(
        "--doc-words",
        type=int,
        default=50,
        help="short documents: the first N words of each (default: 50)",
    )
    parser.add_argument(
        "--typo-words",
        type=int,
        default=2000,
        help="words of each split typed with typos (default: 2000)",
    )
    parser.add_argument(
        "--chars",
        type=int,
        default=3000,
        help="Han characters of the news split typed (default: 3000)",
    )
    # The mixture is fitted on the last 1,500 characters of each dev file
    # (training/mixture.py), and the HSK split holds about 4,100.
    parser.add_argument(
        "--hsk-chars",
        type=int,
        default=2000,
        help="Han characters of the HSK split typed (default: 2000)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="evaluations run at once (the quality figures are the same; the latencies then "
        "share the CPU: upper bounds). The bench always runs alone",
    )
    parser.add_argument(
        "--bench-text", type=Path, help="the text the bench types (default: its bundled text)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("runs/figures"),
        help="the JSON kept (default: runs/figures)",
    )
    parser.add_argument(
        "--readme", type=Path, default=Path("README.md"), help="the page of the headline table"
    )
    parser.add_argument(
        "--figures-page", type=Path, default=Path("docs/FIGURES.md"), help="the page of the tables"
    )


@dataclass(frozen=True)
class Step:
    """One `nextword` process; its last line of output (its JSON) is kept in `out`."""

    label: str
    args: tuple[str, ...]
    out: Path | None = None  # None: its output is shown, not kept (prepare-corpus)
    kind: str = ""  # the table an English evaluation's results go to


class Runner:
    """Runs the steps in order, numbered, each timed; the times go to `timings.json`."""

    def __init__(self, total: int, out: Path):
        self.total, self.done, self.out = total, 0, out
        self.seconds: dict[str, float] = {}
        self.began = time.monotonic()
        self.lock = threading.Lock()  # steps run from a pool count under it

    def run(self, steps: list[Step], jobs: int = 1) -> None:
        """The steps, `jobs` at a time."""
        if jobs == 1:
            for step in steps:
                self._one(step)
            return
        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(self._one, steps))

    def _one(self, step: Step) -> None:
        with self.lock:
            self.done += 1
            tag = f"[{self.done}/{self.total}] {step.label}"
        print(f"{tag}: nextword {' '.join(step.args)}", file=sys.stderr, flush=True)
        began = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "nextword", *step.args],
            stdout=subprocess.PIPE if step.out else None,
            text=True,
        )
        if done.returncode != 0:
            raise CommandError(f"{step.label} failed (exit {done.returncode}): see above")
        if step.out is not None:
            step.out.write_text(done.stdout.strip().splitlines()[-1] + "\n", encoding="utf-8")
        seconds = time.monotonic() - began
        self.seconds[step.label] = round(seconds, 1)
        print(f"{tag}: done in {seconds:.0f} s", file=sys.stderr, flush=True)

    def finish(self) -> float:
        elapsed = time.monotonic() - self.began
        timings = {"steps_s": self.seconds, "total_s": round(elapsed, 1)}
        (self.out / "timings.json").write_text(json.dumps(timings, indent=1) + "\n")
        return elapsed


def run(args: argparse.Namespace) -> int:
    from nextword.commands.prepare_corpus import command_for
    from nextword.data.corpus import TYPED

    for name in ("words", "doc_words", "typo_words", "chars", "hsk_chars", "jobs"):
        if getattr(args, name) < 1:
            raise CommandError(f"--{name.replace('_', '-')} must be at least 1")
    langs = ("en", "zh") if args.lang == "all" else (args.lang,)
    # Every page and marker written at the end is checked before the first measurement.
    pages = {
        args.figures_page: [RUNNING_TIME, *(b for lang in langs for b in FIGURES_BLOCKS[lang])]
    }
    if "en" in langs:
        pages[args.readme] = ["headline-table", "corrections-headline"]
    for page, names in pages.items():
        try:
            check_blocks(page, names)
        except (OSError, ValueError) as err:
            raise CommandError(f"{err} (run from the repository's root)") from None
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    corpus: Path = args.corpus
    dev = corpus / "dev"
    # Bars of processes run at once would interleave: with --jobs, none.
    quiet = ("--no-progress",) if args.jobs > 1 else ()
    common = ("--corpus", str(corpus), "--json", *quiet)

    evals: list[Step] = []
    if "en" in langs:
        evals += _english_evals(args, out, common)
    if "zh" in langs:
        for split, cap in (("peoples_daily", args.chars), ("hsk", args.hsk_chars)):
            evals.append(
                Step(
                    f"Chinese quality, {split}",
                    ("eval", str(dev / f"{split}.txt"), "--max-words", str(cap),
                     "--baseline", "unigram,presage", *_models(args), *common),
                    out / f"eval-zh-{split}.json",
                )
            )  # fmt: skip
    measured = _measurements(args, out) if "en" in langs else []
    doctor = Step("doctor", ("doctor", "--json", *_models(args)), out / "doctor.json")

    # What the steps read from the corpus: the dev splits, and the baselines' training text.
    splits = [*GENRES] * ("en" in langs) + [*CHINESE_SPLITS] * ("zh" in langs)
    sources = [s for lang in langs for s in _training_sources(_model(args, lang))]
    missing = sorted(
        {s for s in splits if not (dev / f"{s}.txt").exists()}
        | {s for s in sources if not (corpus / "train" / f"{s}.txt").exists()}
    )
    prepare: list[Step] = []
    if missing:
        command = command_for({s.removesuffix(TYPED) for s in missing}, corpus)
        if command is None:
            raise CommandError(f"{corpus} lacks {', '.join(missing)}, which no source prepares")
        prepare.append(Step(f"prepare the corpus ({', '.join(missing)})", tuple(command[1:])))

    # Evaluations run side by side would each build Presage's English database (minutes,
    # the same file): one process builds it first, on one word, and the others read it.
    database = []
    if "en" in langs and args.jobs > 1:
        database.append(
            Step(
                "Presage's English database",
                ("eval", str(dev / "email.txt"), "--max-words", "1", "--baseline", "presage",
                 "--model", str(args.model), *common),
                out / "presage-database.json",
            )
        )  # fmt: skip
    runner = Runner(len(prepare) + len(database) + len(evals) + len(measured) + 1, out)
    runner.run(prepare)
    runner.run(database)
    if "en" in langs:
        _fixed_cache_weight(args.model, out / "model-fixed-cache-weight")
    runner.run(evals, args.jobs)
    runner.run(measured)  # alone: their latencies are the published ones
    runner.run([doctor])
    elapsed = runner.finish()
    _write(args, langs, out, evals, running_time(runner.seconds, elapsed, args.lang))
    print(
        f"figures written in {elapsed / 60:.1f} min: {', '.join(map(str, pages))}, the model "
        f"cards; JSON and step times in {out}",
        file=sys.stderr,
    )
    return 0


def _model(args: argparse.Namespace, lang: str) -> Path:
    return args.model if lang == "en" else args.chinese_model


def _models(args: argparse.Namespace) -> tuple[str, ...]:
    return ("--model", str(args.model), "--chinese-model", str(args.chinese_model))


def _english_evals(args: argparse.Namespace, out: Path, common: tuple[str, ...]) -> list[Step]:
    """Quality beside both baselines, short documents (the cache weight as shipped and
    fixed), and typing mistakes; each over its splits, in `--jobs` processes."""
    dev = args.corpus / "dev"
    files = [str(dev / f"{g}.txt") for g in GENRES]
    typo_files = [str(dev / f"{g}.txt") for g in TYPO_GENRES]
    fixed = out / "model-fixed-cache-weight"
    cm = ("--chinese-model", str(args.chinese_model))
    kinds: list[tuple[str, list[str], tuple[str, ...]]] = [
        ("quality", files, ("--max-words", str(args.words), "--baseline", "unigram,presage",
                            "--model", str(args.model), *cm)),
        ("short", files, ("--doc-words", str(args.doc_words), "--model", str(args.model), *cm)),
        ("short-fixed", files, ("--doc-words", str(args.doc_words), "--model", str(fixed), *cm)),
        ("typos", typo_files, ("--max-words", str(args.typo_words), "--typos", "0.05",
                               "--typo-seed", "1", "--corrections", "both",
                               "--model", str(args.model), *cm)),
    ]  # fmt: skip
    steps = [
        Step(
            "openings",
            ("eval", "--openings", "--baseline", "unigram,presage", "--model", str(args.model),
             *cm, *common),
            out / "openings.json",
            "openings",
        )
    ]  # fmt: skip
    for kind, paths, options in kinds:
        groups = [paths[i :: args.jobs] for i in range(min(args.jobs, len(paths)))]
        for i, group in enumerate(groups):
            names = ", ".join(Path(p).stem for p in group)
            label = f"{kind} ({names})"
            command = ("eval", *group, *options, *common)
            steps.append(Step(label, command, out / f"{kind}-{i}.json", kind))
    return steps


def _measurements(args: argparse.Namespace, out: Path) -> list[Step]:
    """The editor bench, at 10 keys/s and flat out, each on a fresh server."""
    text = ("--text", str(args.bench_text)) if args.bench_text else ()
    model = ("--model", str(args.model))
    return [
        Step("bench, 10 keys/s", ("bench", *text, *model, "--json"), out / "bench-10.json"),
        Step(
            "bench, flat out",
            ("bench", "--rate", "0", *text, *model, "--json"),
            out / "bench-flat.json",
        ),
    ]


def _training_sources(model: Path) -> list[str]:
    """The corpus sources a model was trained on: its baselines learn from them too."""
    info = model / "training.json"
    return json.loads(info.read_text())["sources"] if info.exists() else []


def _fixed_cache_weight(model: Path, copy: Path) -> None:
    """A copy of the model whose document caches weigh the same at any length
    (`doc_evidence_words` 0, the earlier models' rule)."""
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(model, copy)
    path = copy / "mixture.json"
    mixture = json.loads(path.read_text())
    mixture["doc_evidence_words"] = 0
    path.write_text(json.dumps(mixture, indent=2) + "\n")


def _results(steps: list[Step], kind: str) -> list[dict[str, Any]]:
    """The results the evaluations of one kind printed, in the order of GENRES."""
    found: list[dict[str, Any]] = []
    for step in steps:
        if step.kind == kind and step.out is not None:
            data = json.loads(step.out.read_text())
            found += data if isinstance(data, list) else [data]
    order = list(GENRES)
    return sorted(found, key=lambda r: order.index(Path(r["file"]).stem))


def _load(path: Path) -> Any:
    return json.loads(path.read_text())


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "CPU unknown"


def _write(
    args: argparse.Namespace,
    langs: tuple[str, ...],
    out: Path,
    evals: list[Step],
    timing: list[str],
) -> None:
    """The model cards, the tables of the figures page and the README's headline."""
    from nextword.training.modelcard import write_card

    doctor = _load(out / "doctor.json")
    machine = machine_line(doctor, os.cpu_count(), _cpu_name())
    today = datetime.now(UTC).date().isoformat()
    manifest = args.corpus / "manifest.json"
    blocks: dict[str, list[str]] = {RUNNING_TIME: timing}
    chinese: list[dict[str, Any]] = []
    if "zh" in langs:
        chinese = [_load(out / f"eval-zh-{split}.json") for split in CHINESE_SPLITS]
        (args.chinese_model / "eval.json").write_text(json.dumps(chinese, indent=1) + "\n")
        write_card(args.chinese_model, manifest)
        blocks["machine-zh"] = [f"Measured on {today}: {machine}."]
        blocks["chinese-table"] = chinese_table(chinese)
    if "en" in langs:
        quality = _results(evals, "quality")
        (args.model / "eval.json").write_text(json.dumps(quality, indent=1) + "\n")
        write_card(args.model, manifest)
        offered, clean = corrections_tables(_results(evals, "typos"))
        openings = _load(out / "openings.json")
        bench = _load(out / "bench-10.json")
        blocks |= {
            "machine-en": [f"Measured on {today}: {machine}."],
            "quality-table": quality_table(quality),
            "latency-table": latency_table(quality),
            "short-documents-table": short_documents_table(
                _results(evals, "short"), _results(evals, "short-fixed")
            ),
            "openings-table": openings_table(openings),
            "corrections-table": offered,
            "corrections-clean-table": clean,
            "corrections-gate-table": gate_table(_results(evals, "typos")),
            "bench-table": bench_table(
                [("10 keys/s", bench), ("flat out", _load(out / "bench-flat.json"))]
            ),
        }
        if not chinese and (args.chinese_model / "eval.json").exists():
            # The Chinese model's published figures, from its last run.
            chinese = _load(args.chinese_model / "eval.json")
        headline = headline_table(quality, chinese, bench, doctor, machine, openings)
        write_blocks(
            args.readme,
            {
                "headline-table": headline,
                "corrections-headline": corrections_headline(_results(evals, "typos")),
            },
        )
    write_blocks(args.figures_page, blocks)
