"""The model's tokens as text: what the token search and the refinement look up.

One per loaded model, shared by its documents' deciders. Decoding every token takes
a while on a large vocabulary, so the texts are computed on first use (the engine's
warm-up makes them), and the arrays built from them once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from nextword.engine.refine import TokenGroups
from nextword.engine.words import is_word

if TYPE_CHECKING:
    from nextword.engine.lexicon import Lexicon


class Vocabulary:
    """The tokenizer's tokens as text, and the lexicon's words by first token."""

    def __init__(self, tokenizer: Any, lexicon: Lexicon, *, refines: bool):
        """Args:
        tokenizer: the model's `tokenizers.Tokenizer`.
        lexicon: the words whose first-token maps the refinement groups by.
        refines: whether the language's tables refine decisions (not Chinese).
        """
        self._tokenizer = tokenizer
        self._lexicon = lexicon
        self._refines = refines
        space = tokenizer.encode(" ", add_special_tokens=False).ids
        # The bare space token, when a space is one token of its own (None otherwise).
        self.space_token: int | None = space[0] if len(space) == 1 else None
        self._texts: list[str] | None = None
        self._texts_array = np.array([], dtype=str)
        self._by_text: dict[str, int] = {}
        self._space_led: np.ndarray | None = None
        self._groups: dict[str, TokenGroups] = {}

    def token_texts(self) -> list[str]:
        """Each token's text, for the token search (computed on first use)."""
        if self._texts is None:
            tok = self._tokenizer
            self._texts = [tok.decode([i]) for i in range(tok.get_vocab_size())]
            self._texts_array = np.array(self._texts, dtype=str)
            self._by_text = {t: i for i, t in enumerate(self._texts)}
        return self._texts

    def token_groups(self, lead: str) -> TokenGroups | None:
        """The lexicon's words by first token after `lead` (" " or ""), for refining a
        decision (refine.py); None where the tables do not refine (Chinese, whose
        characters are their own tokens) or lack the second-token maps."""
        first, cond, second, pair = self._lexicon.token_maps(lead)
        if not self._refines or second is None or pair is None:
            return None
        if lead not in self._groups:
            self._groups[lead] = TokenGroups.build(first, cond, second, pair, self.token_texts())
        return self._groups[lead]

    def space_led(self) -> np.ndarray:
        """Which tokens begin with a space (computed on first use)."""
        if self._space_led is None:
            self.token_texts()
            self._space_led = np.char.startswith(self._texts_array, " ")
        return self._space_led

    def consistent_tokens(self, word: str, target: str, lead: str) -> list[int]:
        """Tokens that extend `word` (which starts with `lead`) along `target`.

        A token qualifies when word + token is a prefix of the target, or the target is
        a prefix of word + token, and the result stays one word after the lead.
        """
        texts = self.token_texts()
        remaining = target[len(word) :]
        # Tokens that contain all that remains to type, and maybe more.
        longer = np.flatnonzero(np.char.startswith(self._texts_array, remaining))
        # Tokens that cover only part of it.
        shorter = [
            self._by_text[remaining[:n]]
            for n in range(1, len(remaining))
            if remaining[:n] in self._by_text
        ]
        out = []
        for token in [*longer.tolist(), *shorter]:
            rest = (word + texts[token])[len(lead) :]
            if rest and is_word(rest):
                out.append(int(token))
        return out
