"""What a larger model costs per decision, and what it buys, in one run.

    python -m nextword.training.shape_bench [--file DEV.txt] [--words N]
    python -m nextword.training.shape_bench --runs runs/shape-1x runs/shape-2x ... \
        [--quality-files DEV.txt ...] [--quality-words N]

A decision's cost depends on the model's shape, not on its weights, so without `--runs`
each shape is measured with weights as a fresh run draws them, before one is trained.
With `--runs`, each run directory's last checkpoint (runs of several shapes trained on
the same tokens: the same seed, mix and steps) is measured instead, and what it buys is
reported beside the cost: its validation loss per dev source, and KSR@3 and top-3 on
the quality files. Either way the network sits beside the bundled model's word tables
and mixture (or those of `--tables`), and every word boundary of the dev text is
decided in order, as the evaluator's typist does (evaluation/typist.py), all shapes in
one run. Prints, per shape, its parameters, the boundary decision's p50/p95/p99 and
the process CPU per typed character, against the first shape's.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from nextword.data.documents import last_words, read_documents
from nextword.engine.engine import Engine
from nextword.engine.loader import DEFAULT_MODEL
from nextword.engine.words import WORD_RE
from nextword.training.shape import Shape

# The bundled shape, about 2x and about 4.5x its parameters (the 29M of TRAINING.md).
SHAPES = {
    "1x": Shape(256, 4, 4, 1024),
    "2x": Shape(320, 6, 5, 1280),
    "4x": Shape(512, 6, 8, 2048),
}
# What model directories carry beside the weights and config: the tables stay the
# bundled model's, so only the network differs.
BESIDE = (
    "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "lexicon.txt",
    "lexicon.npz", "mixture.json",
)  # fmt: skip


def random_model(shape: Shape, folder: Path, bundled: Path) -> int:
    """A model directory of `shape` with freshly drawn weights; returns its parameters."""
    from nextword.training.torch_backend import TorchBackend

    backend = TorchBackend(shape, compile=False, precision="fp32")
    backend.write(folder)
    (folder / "optimizer.pt").unlink()
    (folder / "config.json").write_text(json.dumps(shape.config(), indent=2) + "\n")
    for name in BESIDE:
        shutil.copy(bundled / name, folder / name)
    return int(backend.n_params)


def trained_model(run: Path, folder: Path, bundled: Path) -> tuple[Shape, int, dict[str, Any]]:
    """A model directory of `run`'s last checkpoint beside the bundled tables; returns
    its shape, parameters, and the tokens it saw and its validation losses (nats per
    token, per dev source)."""
    checkpoint = run / "checkpoint"
    state = json.loads((checkpoint / "state.json").read_text())
    shape = Shape(**state["shape"])
    shutil.copy(checkpoint / "model.safetensors", folder / "model.safetensors")
    (folder / "config.json").write_text(json.dumps(shape.config(), indent=2) + "\n")
    for name in BESIDE:
        shutil.copy(bundled / name, folder / name)
    from safetensors.numpy import load_file

    params = sum(int(a.size) for a in load_file(str(folder / "model.safetensors")).values())
    losses = {k: round(float(v), 3) for k, v in state.get("val_loss", {}).items()}
    return shape, params, {"tokens_seen": state.get("tokens_seen", 0), "val_loss": losses}


def quality(model: Path, files: list[Path], words: int) -> dict[str, dict[str, float]]:
    """KSR@3 and top-3 of the model's decisions on each file's first `words` words."""
    from nextword.evaluation.learning import predictor
    from nextword.evaluation.typist import Predict, evaluate_file

    engine = Engine.load(model)

    def make() -> Predict:
        return predictor(engine.decider(), None)

    out = {}
    for path in files:
        found = evaluate_file(path, {"nextword": make}, max_words=words, progress=False)
        out[path.stem] = {"ksr@3": round(found["ksr@3"], 4), "top3": round(found["top3"], 4)}
    return out


def boundary_latencies(model: Path, docs: list[str]) -> tuple[np.ndarray, float, int]:
    """(each boundary decision's seconds, process CPU seconds, characters typed)."""
    engine = Engine.load(model)
    seconds: list[float] = []
    cpu = 0.0
    chars = 0
    for doc in docs:
        decider = engine.decider()
        for match in WORD_RE.finditer(doc):
            context = doc[: match.start()]
            start, start_cpu = time.perf_counter(), time.process_time()
            decider.decide(context, "", 5)
            seconds.append(time.perf_counter() - start)
            cpu += time.process_time() - start_cpu
        chars += len(doc)
    return np.array(seconds), cpu, chars


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nextword.training.shape_bench")
    parser.add_argument("--file", type=Path, default=Path("data/corpus/dev/email.txt"))
    parser.add_argument("--words", type=int, default=600)
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument(
        "--runs", type=Path, nargs="+", help="trained run directories to measure (by name)"
    )
    parser.add_argument(
        "--quality-files", type=Path, nargs="*", default=[], help="with --runs: dev text for KSR"
    )
    parser.add_argument("--quality-words", type=int, default=400)
    parser.add_argument(
        "--tables", type=Path, default=DEFAULT_MODEL, help="the model whose word tables to use"
    )
    args = parser.parse_args(argv)
    docs = last_words(read_documents(args.file)[0], args.words)
    rows: dict[str, dict[str, Any]] = {}
    shapes: dict[str, Shape | Path] = (
        {run.name: run for run in args.runs} if args.runs else dict(SHAPES)
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name, spec in shapes.items():
            folder = Path(tmp) / name
            folder.mkdir()
            trained: dict[str, Any] = {}
            if isinstance(spec, Shape):
                shape, params = spec, random_model(spec, folder, args.tables)
            else:
                shape, params, trained = trained_model(spec, folder, args.tables)
                if args.quality_files:
                    trained["quality"] = quality(folder, args.quality_files, args.quality_words)
            lat, cpu, chars = boundary_latencies(folder, docs)
            rows[name] = {
                "shape": f"{shape.hidden_size} x {shape.num_hidden_layers} layers, "
                f"FFN {shape.intermediate_size}",
                "parameters_m": round(params / 1e6, 2),
                "boundaries": len(lat),
                "p50_ms": round(float(np.percentile(lat, 50)) * 1e3, 2),
                "p95_ms": round(float(np.percentile(lat, 95)) * 1e3, 2),
                "p99_ms": round(float(np.percentile(lat, 99)) * 1e3, 2),
                "cpu_ms_per_char_boundaries": round(cpu / chars * 1e3, 3),
                **trained,
            }
            print(name, rows[name], flush=True)
    base = next(iter(rows.values()))["p50_ms"]
    for name, row in rows.items():
        print(f"{name}: {row['parameters_m']}M parameters, boundary p50 {row['p50_ms']} ms "
              f"({row['p50_ms'] / base:.2f}x), p99 {row['p99_ms']} ms")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
