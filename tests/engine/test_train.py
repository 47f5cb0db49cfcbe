"""`nextword train` end to end on the fixture corpus: tokenizer, checkpoints, export."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import FIXTURES, nextword


def tiny_run_args(run: Path, *extra: str) -> list[str]:
    """`nextword train` arguments for a 2-layer model on the fixture corpus."""
    return [
        "train", "--corpus", str(FIXTURES / "corpus-tiny"), "--sources", "tiny",
        "--run", str(run), "--vocab", "300", "--hidden", "32", "--layers", "2", "--heads", "2",
        "--ffn", "64", "--seq", "32", "--batch", "4", "--warmup", "2", *extra,
    ]  # fmt: skip


def test_export_is_an_mlx_lm_model_directory(tiny_model: Path):
    config = json.loads((tiny_model / "config.json").read_text())
    assert config["model_type"] == "llama"
    for name in ("model.safetensors", "tokenizer.json", "tokenizer_config.json"):
        assert (tiny_model / name).exists(), name
    training = json.loads((tiny_model / "training.json").read_text())
    assert training["step"] == 20 and training["tokens_seen"] == 20 * 4 * 32
    mixture = json.loads((tiny_model / "mixture.json").read_text())
    assert abs(sum(mixture["weights"].values()) - 1) < 1e-6


def test_mlx_lm_itself_loads_the_export(tiny_model: Path):
    """The directory is in mlx-lm's format: mlx_lm's own loader accepts it."""
    code = (
        "import sys; from mlx_lm import load; "
        "model, tokenizer = load(sys.argv[1]); "
        "print(model.args.vocab_size, tokenizer.encode('the editor'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(tiny_model)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("300 [")


def test_training_resumes_from_its_checkpoint(tiny_run: Path, tmp_path: Path):
    run = tmp_path / "run"
    common = tiny_run_args(run, "--save-every", "5")
    nextword(*common, "--steps", "5")
    out = nextword(*common, "--steps", "8").stdout
    assert "resumed at step 5" in out
    state = json.loads((run / "checkpoint" / "state.json").read_text())
    assert state["step"] == 8


def test_dropout_trains_resumes_and_exports_a_plain_model(tmp_path: Path):
    """Residual dropout is training-only: a resumed run keeps it, and the export has
    mlx-lm's parameter names."""
    run, out = tmp_path / "run", tmp_path / "model"
    common = tiny_run_args(run, "--save-every", "5", "--eval-every", "4")
    nextword(*common, "--steps", "4", "--dropout", "0.2")
    nextword(*common, "--steps", "8", "--export", str(out), "--fit-words", "50")
    state = json.loads((run / "checkpoint" / "state.json").read_text())
    assert state["dropout"] == 0.2 and state["step"] == 8
    log = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    val = [r["val_loss"]["mean"] for r in log if "val_loss" in r]
    assert len(val) == 2 and val[0] != val[1]  # it trained on
    from nextword.engine.loader import load_safetensors

    names = set(load_safetensors(str(out / "model.safetensors")))
    assert "model.layers.0.mlp.down_proj.weight" in names
    assert "model.layers.1.self_attn.o_proj.weight" in names


def test_torch_runs_mlx_lms_llama_to_the_same_logits(tmp_path: Path):
    """The PyTorch backend's model is mlx-lm's llama: the weights the MLX backend wrote
    give the same logits (RoPE, norms, attention, tied head and names all agree)."""
    import mlx.core as mx
    import numpy as np
    import torch

    from nextword.training.mlx_backend import MlxBackend
    from nextword.training.shape import Shape
    from nextword.training.torch_backend import TorchBackend

    shape = Shape(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                  intermediate_size=128, vocab_size=300)  # fmt: skip
    mlx_side = MlxBackend(shape)
    mlx_side.write(tmp_path)
    torch_side = TorchBackend(shape, compile=False)
    torch_side.load_weights(tmp_path / "model.safetensors")
    tokens = np.random.default_rng(0).integers(0, 300, (2, 40)).astype(np.int32)
    expected = np.array(mlx_side.model(mx.array(tokens)))
    torch_side.model.eval()
    with torch.no_grad():
        got = torch_side.model(torch.from_numpy(tokens).long()).numpy()
    assert np.abs(expected).max() > 1.0  # not all zeros
    np.testing.assert_allclose(got, expected, atol=1e-4)


def test_torch_trains_and_either_backend_resumes_the_other(tmp_path: Path):
    run, out = tmp_path / "run", tmp_path / "model"
    common = tiny_run_args(run, "--save-every", "5", "--eval-every", "5", "--no-compile")
    first = nextword(*common, "--steps", "10", "--backend", "torch", "--dropout", "0.1").stdout
    assert "on torch" in first
    assert (run / "checkpoint" / "optimizer.pt").exists()
    log = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    val = [r["val_loss"]["mean"] for r in log if "val_loss" in r]
    assert val[-1] < val[0]  # it learned
    # MLX takes the run over: the weights carry on, its own optimizer state starts afresh.
    second = nextword(*common, "--steps", "12", "--export", str(out), "--fit-words", "50").stdout
    assert "resumed at step 10" in second and "optimizer starts afresh" in second
    state = json.loads((run / "checkpoint" / "state.json").read_text())
    assert state["step"] == 12 and state["backend"] == "mlx" and state["dropout"] == 0.1
    from nextword.engine.engine import Engine

    words = Engine.load(out).decider().decide("the ", "", k=3)
    assert len(words) == 3


def test_the_torch_backend_trains_where_there_is_no_mlx(tmp_path: Path):
    """A lent GPU machine has PyTorch, tokenizers, numpy and safetensors, but neither MLX
    nor the server's packages: the torch backend trains there all the same."""
    absent = ("mlx", "mlx.core", "mlx_lm", "pygls", "lsprotocol", "platformdirs")
    code = (
        "import sys\n"
        f"for name in {absent!r}: sys.modules[name] = None  # import fails\n"
        "from nextword.cli import entry\n"
        "sys.argv = ['nextword', *sys.argv[1:]]\n"
        "entry()\n"
    )
    run = tmp_path / "run"
    args = tiny_run_args(run, "--steps", "4", "--backend", "torch", "--no-compile")
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads((run / "checkpoint" / "state.json").read_text())["step"] == 4


def test_the_gpu_script_packs_trains_and_returns_fp16_weights(tmp_path: Path):
    """scripts/train-gpu, run here on the CPU: what the device would run, on the fixture
    corpus with the bundled tokenizer."""
    import os

    from safetensors.numpy import load_file

    run, out = tmp_path / "run", tmp_path / "out"
    env = {
        **os.environ,
        "CORPUS": str(FIXTURES / "corpus-tiny"),
        "SOURCES": "tiny",
        "OUT": str(out),
        "MINUTES": "2",
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",  # python3: the venv's
    }
    script = str(Path(__file__).parents[2] / "scripts" / "train-gpu")
    subprocess.run(["bash", script, "pack", str(run)], env=env, check=True, timeout=120)
    assert (run / "corpus.tar.xz").exists() and (run / "tokenizer.json").exists()
    args = ["--sources", "tiny", "--hidden", "32", "--layers", "1", "--heads", "2", "--ffn", "64",
            "--seq", "32", "--batch", "4", "--steps", "6", "--no-compile"]  # fmt: skip
    subprocess.run(["bash", script, "train", str(run), *args], env=env, check=True, timeout=300)
    weights = load_file(str(out / "model.safetensors"))
    assert weights and all(w.dtype.name == "float16" for w in weights.values())
    assert json.loads((out / "state.json").read_text())["step"] == 6
    assert "stopped at step 6" in (out / "train.log").read_text()


def test_missing_corpus_is_a_one_line_error(tmp_path: Path):
    result = nextword("train", "--corpus", str(tmp_path / "none"), check=False)
    assert result.returncode == 1
    assert "prepare-corpus" in result.stderr and "Traceback" not in result.stderr


def test_word_tables_count_the_sources_as_the_mix_weighs_them(tmp_path: Path) -> None:
    from nextword.training.tables import mixed_counts

    big, small = tmp_path / "kernel.txt", tmp_path / "email.txt"
    big.write_text("timeout timer timeout the " * 300)  # 1,200 words
    small.write_text("times the times " * 100)  # 300 words
    raw, mixed = mixed_counts([big, small], [0.2, 0.8])
    assert raw["timeout"] == 600 and raw["times"] == 200
    # email: 80% of the mix in 20% of the words; kernel: 20% in 80%: 16 times the weight.
    assert mixed["times"] == 200 * 16 and mixed["timeout"] == 600
    assert mixed["times"] > mixed["timeout"]
    assert mixed_counts([big, small], None)[1] == raw


def test_tables_only_rebuilds_an_exported_models_tables_and_nothing_else(
    tiny_model: Path, tmp_path: Path
) -> None:
    """After a change to how the tables are counted: `--tables-only` writes them again
    from the model's training.json, its weights and fits untouched."""
    import shutil

    model = tmp_path / "model"
    shutil.copytree(tiny_model, model)
    (model / "lexicon.npz").write_bytes(b"")
    kept = {name: (model / name).read_bytes() for name in ("model.safetensors", "mixture.json")}
    corpus = str(FIXTURES / "corpus-tiny")
    nextword("train", "--corpus", corpus, "--export", str(model), "--tables-only")
    assert (model / "lexicon.npz").read_bytes() == (tiny_model / "lexicon.npz").read_bytes()
    assert all((model / name).read_bytes() == data for name, data in kept.items())
    assert not (tmp_path / "runs").exists()
    # Without a model to rebuild in, a one-line error.
    result = nextword("train", "--corpus", corpus, "--tables-only", check=False)
    assert result.returncode == 1 and "--export" in result.stderr


def test_whole_word_tokens_extend_a_model_that_trains_on_from_them(tiny_run: Path, tmp_path: Path):
    """extend_vocab adds the frequent words its tokenizer splits as tokens of their own,
    every other word split as before, each new embedding row the mean of its pieces'
    rows; `nextword train --resume-from` trains on from the extended model and exports it."""
    import numpy as np
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    from nextword.training.extend_vocab import PRETOKEN_RE, byte_level
    from nextword.training.extend_vocab import main as extend

    model, extended = tiny_run / "model", tmp_path / "extended"
    extend([
        "--model", str(model), "--out", str(extended), "--words", "8", "--min-count", "3",
        "--corpus", str(FIXTURES / "corpus-tiny"),
    ])  # fmt: skip
    old = Tokenizer.from_file(str(model / "tokenizer.json"))
    new = Tokenizer.from_file(str(extended / "tokenizer.json"))
    assert new.get_vocab_size() == old.get_vocab_size() + 8
    added = [new.id_to_token(i) for i in range(300, 308)]
    text = (FIXTURES / "corpus-tiny" / "dev" / "tiny.txt").read_text()
    for piece in set(PRETOKEN_RE.findall(text)):
        pieces = old.encode(piece, add_special_tokens=False).ids
        if byte_level(piece) in added:
            assert len(pieces) > 1
            assert new.encode(piece, add_special_tokens=False).ids == [
                300 + added.index(byte_level(piece))
            ]
        else:
            assert new.encode(piece, add_special_tokens=False).ids == pieces, piece
    embed = load_file(str(extended / "model.safetensors"))["model.embed_tokens.weight"]
    before = load_file(str(model / "model.safetensors"))["model.embed_tokens.weight"]
    assert embed.shape == (308, 32)
    first = old.encode(added[0].replace("\u0120", " "), add_special_tokens=False).ids
    assert np.allclose(embed[300], before[first].astype(np.float32).mean(axis=0), atol=1e-3)
    assert json.loads((extended / "config.json").read_text())["vocab_size"] == 308

    run, out = tmp_path / "run", tmp_path / "out"
    args = tiny_run_args(run, "--resume-from", str(extended), "--steps", "2", "--eval-every", "2")
    args[args.index("--vocab") + 1] = "308"
    nextword(*args, "--export", str(out), "--fit-words", "50")
    assert json.loads((out / "config.json").read_text())["vocab_size"] == 308
    assert load_file(str(out / "model.safetensors"))["model.embed_tokens.weight"].shape[0] == 308
    assert Tokenizer.from_file(str(out / "tokenizer.json")).get_vocab_size() == 308
    from nextword.engine.engine import Engine

    assert Engine.load(out).decider().decide("The editor ", "", k=3)


def test_whole_word_tokens_extend_an_untied_output_layer_and_refuse_what_they_cannot(
    tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """Any mlx-lm model directory: an output layer of its own grows with the embedding
    (each new row the mean of its pieces'); a quantized model, a model without its
    training record and a word count no word reaches are one-line errors."""
    import numpy as np
    from safetensors.numpy import load_file, save_file

    from nextword.training.extend_vocab import main as extend

    untied = tmp_path / "untied"
    shutil.copytree(tiny_run / "model", untied)
    weights = load_file(str(untied / "model.safetensors"))
    head = np.random.default_rng(0).normal(size=weights["model.embed_tokens.weight"].shape)
    weights["lm_head.weight"] = head.astype(np.float32)
    save_file(weights, str(untied / "model.safetensors"), metadata={"format": "mlx"})
    corpus = ["--corpus", str(FIXTURES / "corpus-tiny"), "--min-count", "3"]
    out = tmp_path / "out"
    assert extend(["--model", str(untied), "--out", str(out), "--words", "4", *corpus]) == 0
    extended = load_file(str(out / "model.safetensors"))
    assert extended["lm_head.weight"].shape == (304, 32)
    assert extended["model.embed_tokens.weight"].shape == (304, 32)
    from tokenizers import Tokenizer

    word = Tokenizer.from_file(str(out / "tokenizer.json")).id_to_token(300).replace("\u0120", " ")
    pieces = Tokenizer.from_file(str(untied / "tokenizer.json")).encode(word).ids
    assert np.allclose(extended["lm_head.weight"][300], head[pieces].mean(axis=0), atol=1e-5)

    config = json.loads((untied / "config.json").read_text())
    (untied / "config.json").write_text(json.dumps({**config, "quantization": {"bits": 4}}))
    assert extend(["--model", str(untied), "--out", str(out), *corpus]) == 1
    assert "quantized" in capsys.readouterr().err
    (untied / "config.json").write_text(json.dumps(config))
    assert (
        extend(["--model", str(untied), "--out", str(out), *corpus[:2], "--min-count", "1e9"]) == 1
    )
    assert "nothing to add" in capsys.readouterr().err
    (untied / "training.json").unlink()
    assert extend(["--model", str(untied), "--out", str(out), *corpus]) == 1
    err = capsys.readouterr().err
    assert "training.json is missing" in err and len(err.strip().splitlines()) == 1
