"""The training loop: an mlx-lm `llama` trained on the prepared corpus, then exported.

A run lives in one directory (`--run`), so an interrupted run resumes where its last
checkpoint left it:

    runs/en/tokenizer.json         trained once, then reused
    runs/en/tokens-{train,dev}.npy the corpus encoded once (uint16 token ids)
    runs/en/checkpoint/            weights, optimizer state and step, written atomically
    runs/en/log.jsonl              training and validation loss per interval

The step runs on a backend (`--backend`): MLX (mlx_backend.py, mlx-lm's own module) or
PyTorch (torch_backend.py: the same model, about twice as fast on this CPU, and CUDA on
an accelerator). Both write the checkpoint's weights under mlx-lm's names, so either
resumes the other's run (the optimizer state is each backend's own).

`--export DIR` writes an mlx-lm model directory (config.json, model.safetensors,
tokenizer files) plus the word tables the decider mixes in (tables.py). The command is
commands/train.py; the tokenizer is tokenizer.py.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from nextword.errors import CommandError
from nextword.training.mixes import default_mix, mix_weights
from nextword.training.shape import Shape
from nextword.training.tokenizer import SPECIAL_TOKEN


@dataclass
class TrainConfig:
    """How the model is trained: what `nextword train` passes to `train_model`."""

    run: Path  # the run directory: tokenizer, encoded corpus, checkpoint, log
    lr: float = 2e-3  # the peak learning rate
    warmup: int = 200  # warm-up steps
    steps: int = 20000  # total steps of the schedule
    seq: int = 128  # training sequence length
    batch: int = 16
    minutes: float = 0.0  # stop after this long (0: at the end of the schedule)
    eval_every: int = 200
    save_every: int = 100
    seed: int = 0
    mix: str | None = None  # source shares (MIXES); None: the run's own, else the default
    resume_from: Path | None = None  # start from this model directory's weights
    dropout: float = 0.0  # residual dropout while training (mlx_backend.add_residual_dropout)
    backend: str = "mlx"  # "mlx" or "torch" (torch_backend.py: faster on a CPU, and CUDA)
    compile: bool = True  # torch.compile the torch backend's step
    precision: str = "auto"  # the torch backend's: auto, fp32 or bf16 (torch_backend.use_bf16)


def corpus_files(corpus: Path, split: str, sources: list[str]) -> list[Path]:
    """The existing `<corpus>/<split>/<source>.txt` files, in `sources` order."""
    files = [corpus / split / f"{s}.txt" for s in sources]
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        raise CommandError(f"missing corpus files: {', '.join(missing)}")
    return files


def encode_split(
    corpus: Path, split: str, sources: list[str], tokenizer_path: Path, run_dir: Path
) -> dict[str, np.ndarray]:
    """Token ids per source, documents joined by the special token; cached in the run."""
    from tokenizers import Tokenizer

    from nextword.data.documents import read_documents

    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    sep = tokenizer.token_to_id(SPECIAL_TOKEN)
    if sep is None:
        raise ValueError(f"{tokenizer_path} lacks the {SPECIAL_TOKEN} token")
    out: dict[str, np.ndarray] = {}
    for source in sources:
        cache = run_dir / f"tokens-{split}-{source}.npy"
        if cache.exists():
            out[source] = np.load(cache)
            continue
        docs, _ = read_documents(corpus / split / f"{source}.txt", None)
        ids: list[int] = []
        for encoding in tokenizer.encode_batch(docs):
            ids.append(sep)
            ids.extend(encoding.ids)
        arr = np.asarray(ids, dtype=np.uint16)
        np.save(cache, arr)
        print(f"encoded {split}/{source}: {len(docs)} documents, {len(arr):,} tokens")
        out[source] = arr
    return out


def lr_at(step: int, *, peak: float, warmup: int, total: int) -> float:
    """Linear warm-up, then cosine decay to a tenth of the peak."""
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


class Backend(Protocol):
    """What the loop needs of a training backend (mlx_backend.py, torch_backend.py)."""

    name: str
    n_params: int
    machine: str  # for the model card: "PyTorch 2.13.0+cpu (torch.compile) on the CPU"

    def load_weights(self, path: Path) -> None: ...

    def load_optimizer(self, ckpt: Path) -> bool: ...

    def step(self, x: np.ndarray, y: np.ndarray, lr: float) -> float: ...

    def losses(self, batches: dict[str, tuple[np.ndarray, np.ndarray]]) -> dict[str, float]: ...

    def write(self, folder: Path) -> None: ...


def make_backend(
    name: str, shape: Shape, *, dropout: float, compile: bool, precision: str = "auto"
) -> Backend:
    if name == "torch":
        from nextword.training.torch_backend import TorchBackend

        return TorchBackend(shape, dropout=dropout, compile=compile, precision=precision)
    if name == "mlx":
        from nextword.training.mlx_backend import MlxBackend

        return MlxBackend(shape, dropout=dropout)
    raise CommandError(f"unknown training backend {name!r}: mlx or torch")


def train_model(args: TrainConfig, shape: Shape, tokens: dict[str, dict[str, np.ndarray]]) -> None:
    ckpt = args.run / "checkpoint"
    state: dict[str, Any] = {"step": 0, "tokens_seen": 0, "seconds": 0.0}
    resuming = (ckpt / "state.json").exists()
    if resuming:
        state = json.loads((ckpt / "state.json").read_text())
    dropout = args.dropout or state.get("dropout", 0.0)  # a resumed run keeps its own
    backend = make_backend(
        args.backend, shape, dropout=dropout, compile=args.compile, precision=args.precision
    )
    if resuming:
        backend.load_weights(ckpt / "model.safetensors")
        restored = backend.load_optimizer(ckpt)
        fresh = "" if restored else f"; the optimizer starts afresh (no {backend.name} state)"
        print(f"resumed at step {state['step']} ({state['tokens_seen']:,} tokens seen){fresh}")
    elif args.resume_from:
        backend.load_weights(args.resume_from / "model.safetensors")
        earlier = args.resume_from / "training.json"
        if earlier.exists():
            # The model card counts every token the weights have seen, over all runs.
            seen = json.loads(earlier.read_text())
            state["tokens_before"] = seen.get("tokens_seen", 0) + seen.get("tokens_before", 0)
        print(f"starting from the weights of {args.resume_from}")
    state["shape"] = asdict(shape)
    state["backend"] = backend.name
    state["trained_on"] = f"{backend.machine}, {os.cpu_count()} cores"
    if dropout:
        state["dropout"] = dropout
    print(f"model: {backend.n_params / 1e6:.2f}M parameters, {shape}, on {backend.name}")

    train = tokens["train"]
    names = list(train)
    mix = args.mix or state.get("mix") or default_mix(list(train))
    state["mix"] = mix
    weights = mix_weights(mix, {s: len(a) for s, a in train.items()})
    probs = np.array([weights[s] for s in names])
    rng = np.random.default_rng(args.seed + state["step"])
    seq, batch = args.seq, args.batch
    print("source mix: " + ", ".join(f"{s} {weights[s]:.1%}" for s in names))
    # 24 windows a source: 8 gave losses too noisy to compare two mixes by.
    dev_batches = fixed_batches(tokens["dev"], seq, per_source=24, seed=1234)

    def validate() -> dict[str, float]:
        losses = backend.losses(dev_batches)
        losses["mean"] = float(np.mean(list(losses.values())))
        return losses

    from tqdm import tqdm

    # Line-buffered: every record is on disk at once, however the process ends.
    log = (args.run / "log.jsonl").open("a", buffering=1)
    # A bar on a terminal; in a log file (a background run) the periodic lines suffice.
    bar = tqdm(
        total=args.steps, initial=state["step"], unit="step", disable=not sys.stderr.isatty()
    )
    start = time.perf_counter()
    deadline = start + args.minutes * 60 if args.minutes else math.inf
    window_loss, window_tokens, window_start = 0.0, 0, time.perf_counter()
    while state["step"] < args.steps and time.perf_counter() < deadline:
        lr = lr_at(state["step"], peak=args.lr, warmup=args.warmup, total=args.steps)
        chunk = sample_batch(train, names, probs, rng, batch=batch, seq=seq)
        loss = backend.step(chunk[:, :-1], chunk[:, 1:], lr)
        state["step"] += 1
        state["tokens_seen"] += batch * seq
        bar.update(1)
        window_loss += loss
        window_tokens += batch * seq
        if state["step"] % 20 == 0:
            elapsed = time.perf_counter() - window_start
            bar.set_postfix(loss=f"{window_loss / 20:.3f}", tok_s=f"{window_tokens / elapsed:,.0f}")
            bar.write(
                f"step {state['step']}/{args.steps} loss {window_loss / 20:.3f} "
                f"lr {lr:.2e} {window_tokens / elapsed:,.0f} tok/s"
            )
            log.write(json.dumps({"step": state["step"], "train_loss": window_loss / 20}) + "\n")
            window_loss, window_tokens, window_start = 0.0, 0, time.perf_counter()
        if state["step"] % args.eval_every == 0:
            val = validate()
            state["val_loss"] = val  # the latest, for an export mid-run
            bar.write("validation " + " ".join(f"{k} {v:.3f}" for k, v in val.items()))
            log.write(json.dumps({"step": state["step"], "val_loss": val}) + "\n")
            log.flush()
        if state["step"] % args.save_every == 0:
            state["seconds"] += time.perf_counter() - start
            start = time.perf_counter()
            save_checkpoint(ckpt, backend, state)
    bar.close()
    log.close()
    state["seconds"] += time.perf_counter() - start
    val = validate()
    state["val_loss"] = val
    save_checkpoint(ckpt, backend, state)
    print(f"stopped at step {state['step']}: validation loss {val['mean']:.3f}")


def sample_batch(
    train: dict[str, np.ndarray],
    names: list[str],
    probs: np.ndarray,
    rng: np.random.Generator,
    *,
    batch: int,
    seq: int,
) -> np.ndarray:
    """(B, seq + 1) windows: a source per row by the mix, then a random offset in it."""
    rows = []
    for source in rng.choice(len(names), size=batch, p=probs):
        arr = train[names[source]]
        o = int(rng.integers(0, len(arr) - seq - 1))
        rows.append(arr[o : o + seq + 1])
    return np.stack(rows).astype(np.int32)


def fixed_batches(
    tokens: dict[str, np.ndarray], seq: int, *, per_source: int, seed: int
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The same validation windows every time, so losses compare across a run."""
    rng = np.random.default_rng(seed)
    out = {}
    for source, arr in tokens.items():
        if len(arr) <= seq + 1:
            continue
        offsets = rng.integers(0, len(arr) - seq - 1, size=per_source)
        chunk = np.stack([arr[o : o + seq + 1] for o in offsets]).astype(np.int32)
        out[source] = (chunk[:, :-1], chunk[:, 1:])
    return out


def save_checkpoint(ckpt: Path, backend: Backend, state: dict[str, Any]) -> None:
    """Write the checkpoint into a temporary folder, then swap it in (crash-safe)."""
    tmp = ckpt.with_name(ckpt.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    backend.write(tmp)
    (tmp / "state.json").write_text(json.dumps(state, indent=1))
    old = ckpt.with_name(ckpt.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if ckpt.exists():
        os.replace(ckpt, old)
    os.replace(tmp, ckpt)
    shutil.rmtree(old, ignore_errors=True)


def export(run_dir: Path, out: Path, corpus: Path, sources: list[str]) -> None:
    """Write an mlx-lm model directory from the run's last checkpoint."""
    import mlx.core as mx

    from nextword.engine.loader import load_safetensors

    ckpt = run_dir / "checkpoint"
    state = json.loads((ckpt / "state.json").read_text())
    weights = load_safetensors(str(ckpt / "model.safetensors"))
    shape = Shape(**state["shape"])
    out.mkdir(parents=True, exist_ok=True)
    config = shape.config()
    config["torch_dtype"] = "float16"
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    # fp16 on disk halves the size; the loader upcasts to fp32, the fast type on CPU.
    mx.save_safetensors(
        str(out / "model.safetensors"),
        {k: v.astype(mx.float16) for k, v in weights.items()},
        metadata={"format": "mlx"},
    )
    shutil.copy(run_dir / "tokenizer.json", out / "tokenizer.json")
    (out / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "tokenizer_class": "PreTrainedTokenizerFast",
                "bos_token": SPECIAL_TOKEN,
                "eos_token": SPECIAL_TOKEN,
                "unk_token": SPECIAL_TOKEN,
                "model_max_length": 512,
                "add_bos_token": False,
            },
            indent=2,
        )
        + "\n"
    )
    (out / "special_tokens_map.json").write_text(
        json.dumps({"bos_token": SPECIAL_TOKEN, "eos_token": SPECIAL_TOKEN}, indent=2) + "\n"
    )
    write_tables(out, corpus, sources, state.get("mix"))
    kept = (
        "step", "tokens_seen", "tokens_before", "seconds", "val_loss", "mix", "dropout",
        "trained_on",
    )  # fmt: skip
    training = {k: state[k] for k in kept if k in state}
    training["sources"] = sources
    training["shape"] = asdict(shape)
    (out / "training.json").write_text(json.dumps(training, indent=2) + "\n")
    print(f"exported {out}")


def write_tables(out: Path, corpus: Path, sources: list[str], mix: str | None) -> None:
    """The word tables (lexicon.txt, lexicon.npz) of the model directory `out`, counted
    over the training text of `sources`, each file by its share of `mix` (None: as is)."""
    from nextword.training.tables import build_han_tables, build_tables

    files = corpus_files(corpus, "train", sources)
    shares = None
    if mix:
        sizes = {s: f.stat().st_size for s, f in zip(sources, files, strict=True)}
        weights = mix_weights(mix, sizes)
        shares = [weights[s] for s in sources]
    if is_chinese(corpus, sources):
        # Each segmented copy with its source's share of the mix (None: counted as is).
        segmented = [
            (corpus / "train" / f"{s}.seg.txt", share)
            for s, share in zip(sources, shares or [1.0] * len(sources), strict=True)
        ]
        segmented = [(f, share) for f, share in segmented if f.exists()]
        build_han_tables(
            [f for f, _ in segmented], out, [share for _, share in segmented] if shares else None
        )
    else:
        from nextword.data.corpus import SOURCES

        genre = {source.id: source.genre for source in SOURCES}
        genres = [genre.get(s, s) for s in sources]
        build_tables(files, out, shares, known_misspellings(), genres)


def rebuild_tables(out: Path, corpus: Path) -> None:
    """`write_tables` again for an exported model, from its training.json (sources and
    mix): after a change to how the tables are counted, leaving the weights and the
    fits as they are."""
    try:
        training = json.loads((out / "training.json").read_text(encoding="utf-8"))
        sources = list(training["sources"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise CommandError(f"{out / 'training.json'} names no training sources ({err})") from None
    write_tables(out, corpus, sources, training.get("mix"))


def known_misspellings() -> set[str]:
    """The allowed codespell misspellings written in lower case (names such as "Claus"
    are left alone); none when the dictionary cannot be fetched."""
    from nextword.data.misspellings import allowed_pairs

    try:
        pairs = allowed_pairs(Path.home() / ".cache" / "nextword" / "sources")
    except CommandError as err:
        print(f"note: no misspellings list ({err}); the word list may hold some")
        return set()
    return {wrong for wrong, _ in pairs if wrong.islower()}


def finish_export(out: Path, corpus: Path, sources: list[str], fit_words: int) -> None:
    """Fit the genres' prior weight, convert the general-English trigram (English;
    training/general.py), fit the mixture (and, where its dev text is there, the phrase
    threshold and the correction gate) on dev text, then write the model card."""
    from nextword.training import correction_fit, genre_fit, phrase_fit
    from nextword.training.general import build_general
    from nextword.training.mixture import fit_and_save, fit_han_and_save
    from nextword.training.modelcard import write_card

    if is_chinese(corpus, sources):
        fit_han_and_save(out, corpus_files(corpus, "dev", sources))
    else:
        # The trigram's genre weights first: the mixture is fitted with them in place.
        dev = [corpus / "dev" / f"{name}.txt" for name in genre_fit.FIT_FILES]
        genre_fit.fit_and_save(out, [f for f in dev if f.exists()])
        # The general-English trigram joins the mixture where Debian's package can be had.
        try:
            build_general(out, Path.home() / ".cache/nextword/sources")
        except CommandError as err:
            print(f"note: no general-English trigram ({err}); the mixture is fitted without")
        fit_and_save(out, corpus_files(corpus, "dev", sources), fit_words)
        if all((corpus / "dev" / f"{name}.txt").exists() for name in phrase_fit.FIT_FILES):
            phrase_fit.main(["--model", str(out), "--corpus", str(corpus)])
            try:
                correction_fit.main(["--model", str(out), "--corpus", str(corpus)])
            except CommandError as err:  # codespell's dictionary could not be fetched
                print(f"note: no correction gate fitted ({err}); the default is used")
    write_card(out, corpus / "manifest.json")


def is_chinese(corpus: Path, sources: list[str]) -> bool:
    """True when the manifest marks every source as Chinese (no manifest: English)."""
    path = corpus / "manifest.json"
    if not path.exists():
        return False
    manifest = json.loads(path.read_text(encoding="utf-8"))
    langs = {e["id"]: e.get("lang", "en") for e in manifest["sources"]}
    return all(langs.get(s) == "zh" for s in sources)
