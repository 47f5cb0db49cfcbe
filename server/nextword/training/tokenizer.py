"""The byte-level BPE tokenizer (HF `tokenizers`) every nextword model is trained with."""

from __future__ import annotations

from pathlib import Path

from nextword.engine.words import CJK_PUNCTUATION, FULL_WIDTH, HAN_BMP

# Ends every document in the encoded corpus; the model's BOS and EOS token.
SPECIAL_TOKEN = "<|endoftext|>"
# CJK ideographs (with extension A and compatibility forms), CJK punctuation, and
# full-width forms: one character each, never merged with a neighbour.
CJK_CHARACTER = f"[{CJK_PUNCTUATION}{HAN_BMP}{FULL_WIDTH}]"


def train_tokenizer(files: list[Path], out: Path, vocab_size: int) -> None:
    """Train a byte-level BPE tokenizer (HF `tokenizers`) on the training text."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    # Chinese has no spaces: isolating each CJK character keeps merges inside one, so
    # a Chinese token is exactly one character and the next token is the next character
    # (no token spans a word boundary the text does not mark).
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(CJK_CHARACTER), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[SPECIAL_TOKEN],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        min_frequency=2,
        show_progress=True,
    )
    print(f"training a {vocab_size}-token byte-level BPE tokenizer")
    tokenizer.train([str(f) for f in files], trainer)
    tokenizer.save(str(out))
