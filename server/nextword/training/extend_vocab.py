"""Whole-word tokens for the everyday words the tokenizer splits, and a model to match.

The bundled tokenizer was trained on the first model's text, the technical sources,
and spends its merges there: " sorry" is [" s", "or", "ry"], " tomorrow" four tokens,
" love", " school" and " happy" two each, while the kernel's identifiers have their
own. A third of the dev chat's words are more than one token. The model then reads
an everyday word as letters, and its next-word guess is mostly a first letter that the
word tables share out (" f" -> favorite, friends, family).

Retraining the tokenizer means training the model from nothing. Instead the words are
added whole: the most frequent words of the training mix (counted by its shares, as
the word tables count) that take two tokens or more get a token each, and the BPE
model reads a word that is in its vocabulary as one token before merging
(`ignore_merges`), so every other word is split as before. The model gets one
embedding row per new token, started at the mean of its pieces' rows (what the model
read for the word until now), and is trained on from there (`nextword train
--resume-from OUT --vocab N`).

    python -m nextword.training.extend_vocab --model server/nextword/models/en \\
        --out runs/en-words/start --words 2048
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from nextword.errors import CommandError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

# A word the ByteLevel pre-tokenizer keeps whole: its letters, and the one space
# before them (GPT-2's " ?\p{L}+"); ASCII letters only, the English words.
PRETOKEN_RE = re.compile(r" ?[A-Za-z]+")
# Below this many occurrences in the mixed counts a word's embedding would see too
# few updates to learn.
MIN_COUNT = 200


def byte_level(piece: str) -> str:
    """The pre-token as the byte-level vocabulary spells it (" sorry" -> "Ġsorry")."""
    return piece.replace(" ", "\u0120")


def pretoken_counts(files: list[Path], shares: list[float]) -> dict[str, float]:
    """Pre-token counts of the training files, each file's counts scaled by its share of
    the mix over its share of the words, as the word tables count them."""
    from nextword.training.tables import mix_factors

    per_file = []
    for path in files:
        counts: Counter[str] = Counter()
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                counts.update(PRETOKEN_RE.findall(line))
        per_file.append(counts)
    factors = mix_factors([sum(c.values()) for c in per_file], shares)
    mixed: dict[str, float] = defaultdict(float)
    for counts, factor in zip(per_file, factors, strict=True):
        for word, count in counts.items():
            mixed[word] += count * factor
    return mixed


def choose_words(
    tokenizer: Tokenizer, counts: dict[str, float], n: int, min_count: float = MIN_COUNT
) -> list[tuple[str, list[int]]]:
    """The `n` most frequent pre-tokens that take two tokens or more, with their pieces."""
    chosen: list[tuple[str, list[int]]] = []
    for word, count in sorted(counts.items(), key=lambda item: -item[1]):
        if count < min_count or len(chosen) == n:
            break
        pieces = tokenizer.encode(word, add_special_tokens=False).ids
        if len(pieces) > 1:
            chosen.append((word, pieces))
    return chosen


def extended_tokenizer(source: Path, words: list[str]) -> dict[str, object]:
    """tokenizer.json with `words` appended to the BPE vocabulary (ids after the last),
    read whole before merging."""
    spec = json.loads(source.read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    next_id = max(vocab.values()) + 1
    for word in words:
        vocab[byte_level(word)] = next_id
        next_id += 1
    spec["model"]["ignore_merges"] = True
    return spec


def extend_model(
    model: Path,
    out: Path,
    files: list[Path],
    shares: list[float],
    n: int,
    min_count: float = MIN_COUNT,
) -> int:
    """Write `out`: `model`'s directory with `n` whole-word tokens added to its tokenizer
    and embedding. Returns the new vocabulary size."""
    from safetensors.numpy import load_file, save_file
    from tokenizers import Tokenizer

    config = json.loads((model / "config.json").read_text())
    if "quantization" in config:
        # Packed rows with their own scales cannot take a mean: extend the full model,
        # then quantize the result (`nextword quantize`).
        raise CommandError(f"{model} is quantized: extend its full-precision model instead")
    tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))
    chosen = choose_words(tokenizer, pretoken_counts(files, shares), n, min_count)
    if not chosen:
        raise CommandError(
            f"no word of the training text seen {min_count:g} times or more takes two tokens: "
            "nothing to add (a lower --min-count?)"
        )
    out.mkdir(parents=True, exist_ok=True)
    for item in model.iterdir():
        if item.is_file():
            shutil.copy(item, out / item.name)
    spec = extended_tokenizer(model / "tokenizer.json", [w for w, _ in chosen])
    (out / "tokenizer.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")

    weights = load_file(str(model / "model.safetensors"))
    # The output layer too where it is not tied to the embedding: a new word's logit then
    # starts at the mean of its pieces' logits.
    for key in ("model.embed_tokens.weight", "lm_head.weight"):
        if key in weights:
            table = weights[key].astype(np.float32)
            rows = np.stack([table[pieces].mean(axis=0) for _, pieces in chosen])
            weights[key] = np.concatenate([table, rows]).astype(weights[key].dtype)
    save_file(weights, str(out / "model.safetensors"), metadata={"format": "mlx"})

    config["vocab_size"] = size = int(config["vocab_size"]) + len(chosen)
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    print(f"{len(chosen)} words added ({chosen[0][0]!r} ... {chosen[-1][0]!r}): vocabulary {size}")
    return size


def main(argv: list[str] | None = None) -> int:
    from nextword.training.mixes import mix_weights
    from nextword.training.train import corpus_files

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="the model directory to extend")
    parser.add_argument("--out", type=Path, required=True, help="where the extended model goes")
    parser.add_argument("--words", type=int, default=2048, help="how many words to add")
    parser.add_argument("--corpus", type=Path, default=Path("data/corpus"))
    parser.add_argument("--mix", help="the shares to count sources by (default: the model's)")
    parser.add_argument("--min-count", type=float, default=MIN_COUNT)
    args = parser.parse_args(argv)
    try:
        record = args.model / "training.json"
        if not record.exists():
            # The words are counted over the model's own training text, which it names.
            raise CommandError(f"{record} is missing: extend a model `nextword train` exported")
        training = json.loads(record.read_text())
        sources = training["sources"]
        files = corpus_files(args.corpus, "train", sources)
        sizes = {s: f.stat().st_size for s, f in zip(sources, files, strict=True)}
        weights = mix_weights(args.mix or training.get("mix") or "sqrt", sizes)
        shares = [weights[s] for s in sources]
        extend_model(args.model, args.out, files, shares, args.words, args.min_count)
    except CommandError as err:
        print(f"extend_vocab: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
