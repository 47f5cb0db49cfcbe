"""`nextword train`: the tokenizer, the model and its word tables, in one run directory.

A run lives in one directory (`--run`), so an interrupted run resumes where its last
checkpoint left it (training/train.py has the layout); `--export DIR` writes the model
directory, fits its mixture and writes its card.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from nextword.errors import CommandError
from nextword.training.mixes import DEFAULT_MIX, DEFAULT_SOURCES, MIXES
from nextword.training.tokenizer import train_tokenizer
from nextword.training.train import (
    Shape,
    TrainConfig,
    corpus_files,
    encode_split,
    export,
    finish_export,
    rebuild_tables,
    train_model,
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--corpus",
        type=Path,
        help="the prepared corpus (default: where `nextword prepare-corpus` wrote it)",
    )
    parser.add_argument("--run", type=Path, default=Path("runs/en"), help="run directory")
    parser.add_argument("--sources", default=",".join(DEFAULT_SOURCES))
    parser.add_argument("--vocab", type=int, default=8192)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--ffn", type=int, default=1024)
    parser.add_argument("--seq", type=int, default=128, help="training sequence length")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--warmup", type=int, default=200, help="warm-up steps")
    parser.add_argument("--steps", type=int, default=20000, help="total steps of the schedule")
    parser.add_argument("--minutes", type=float, default=0.0, help="stop after this long")
    parser.add_argument("--eval-every", type=int, default=200)
    parser.add_argument("--save-every", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--dropout", type=float, default=0.0, help="residual dropout while training (0: none)"
    )
    parser.add_argument(
        "--backend",
        choices=("mlx", "torch"),
        default="mlx",
        help="train with MLX, or with PyTorch (about twice as fast on a CPU; CUDA when there "
        "is a GPU); either writes the same checkpoint and export",
    )
    parser.add_argument(
        "--no-compile",
        dest="compile",
        action="store_false",
        help="skip torch.compile (its 30-40 s of start-up outweigh it on a short run)",
    )
    parser.add_argument(
        "--precision",
        choices=("auto", "fp32", "bf16"),
        default="auto",
        help="the torch backend's arithmetic: bf16 autocast (master weights fp32) on CUDA "
        "and on a CPU with AVX-512 BF16 by default, else fp32",
    )
    parser.add_argument(
        "--mix",
        help=f"source shares: one of {', '.join(['sqrt', *MIXES])}, or source=share,... "
        f"(default: the run's own, else {DEFAULT_MIX} for the default sources, else sqrt)",
    )
    parser.add_argument("--resume-from", type=Path, help="start from this model directory")
    parser.add_argument(
        "--export", type=Path, help="write the model directory here (after training)"
    )
    parser.add_argument("--export-only", action="store_true", help="export without training")
    parser.add_argument(
        "--tables-only",
        action="store_true",
        help="rebuild the word tables of the model at --export from its training.json and "
        "the corpus, keeping its weights and fits (after a change to how tables are counted)",
    )
    parser.add_argument(
        "--fit-words", type=int, default=1500, help="dev words per source to fit the mixture on"
    )


def run(args: argparse.Namespace) -> int:

    sources = [s for s in args.sources.split(",") if s]
    if args.corpus is None:
        from nextword.data.corpus import default_corpus

        args.corpus = default_corpus()
    if not args.corpus.is_dir():
        raise CommandError(f"no corpus at {args.corpus}: run `nextword prepare-corpus` first")
    if args.tables_only:
        if args.export is None:
            raise CommandError("--tables-only needs --export DIR, the model to rebuild them in")
        rebuild_tables(args.export, args.corpus)
        return 0
    args.run.mkdir(parents=True, exist_ok=True)
    tokenizer_path = args.run / "tokenizer.json"
    if args.resume_from and not tokenizer_path.exists():
        shutil.copy(args.resume_from / "tokenizer.json", tokenizer_path)
    if not tokenizer_path.exists():
        train_tokenizer(corpus_files(args.corpus, "train", sources), tokenizer_path, args.vocab)
    tokens = {
        split: encode_split(args.corpus, split, sources, tokenizer_path, args.run)
        for split in ("train", "dev")
    }
    shape = Shape(args.hidden, args.layers, args.heads, args.ffn, args.vocab)
    if not args.export_only:
        config = TrainConfig(
            run=args.run,
            lr=args.lr,
            warmup=args.warmup,
            steps=args.steps,
            seq=args.seq,
            batch=args.batch,
            minutes=args.minutes,
            eval_every=args.eval_every,
            save_every=args.save_every,
            seed=args.seed,
            mix=args.mix,
            resume_from=args.resume_from,
            dropout=args.dropout,
            backend=args.backend,
            compile=args.compile,
            precision=args.precision,
        )
        train_model(config, shape, tokens)
    if args.export:
        export(args.run, args.export, args.corpus, sources)
        finish_export(args.export, args.corpus, sources, args.fit_words)
    return 0
