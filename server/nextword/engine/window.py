"""The token window the model reads: the last tokens of a document, cut at word starts.

The window starts at an anchor (a character offset) and grows with the text; once
full it restarts at half its size, at a word start. The cached keys stay valid
between moves, so a move costs one recompute of half a window every half window of
typing. The decider keeps the anchor; this module moves it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from nextword.engine.scorer import common_prefix
from nextword.engine.words import WORD_RE

# After the text jumped (queued typing read at once), a decision that would forward
# more new tokens than this forwards only the last this many (about 18 words of
# context, ~6 ms here instead of ~25 ms for a full window); the window grows back.
CATCH_UP_TOKENS = 24


def fit_window(
    tokenizer: Any,
    text: str,
    anchor: int,
    *,
    size: int,
    limit: int,
    bos_id: int | None,
    cached: Sequence[int] | None = None,
    standardise: Callable[[str], str] | None = None,
) -> tuple[list[int], int]:
    """The tokens of text[anchor:], and the anchor, moved forward when the window is full.

    Args:
        tokenizer: the model's `tokenizers.Tokenizer`.
        anchor: where the window started last (0 at the document's start).
        size: the window's length in tokens (`window_tokens`).
        limit: how long the window may grow before it restarts (`size`, or less for
            a slide ahead of the text).
        bos_id: the model's beginning-of-text token, put before the document's start.
        cached: the tokens the model holds, to catch up from (see CATCH_UP_TOKENS);
            None for a window that grows as usual.
        standardise: what the model reads for the text (its standard spelling: "i dont"
            as "I don't", the spelling it was trained on); None: the text as it is.
            It changes a word's length by a character or two, so the offsets a cut
            is read at are the text's give or take those: the anchor still lands on
            a word start of the text, a little earlier or later.
    """
    read = standardise or (lambda piece: piece)
    if anchor > len(text):
        anchor = 0
    # Bound the text handed to the tokenizer; ~4 characters per token is typical.
    floor = len(text) - 16 * size
    if anchor < floor:
        anchor = next_word_start(text, floor)
    encoding = tokenizer.encode(read(text[anchor:]), add_special_tokens=False)
    ids, offsets = encoding.ids, encoding.offsets
    if len(ids) > limit:
        keep = size // 2
        cut = offsets[len(ids) - keep][0]
        anchor += next_word_start(text[anchor:], cut)
        encoding = tokenizer.encode(read(text[anchor:]), add_special_tokens=False)
        ids, offsets = encoding.ids, encoding.offsets
    if cached is not None:
        if anchor == 0 and bos_id is not None:
            cached = cached[1:]
        fresh = len(ids) - common_prefix(cached, ids)
        if fresh > CATCH_UP_TOKENS:
            cut = offsets[len(ids) - CATCH_UP_TOKENS][0]
            anchor += next_word_start(text[anchor:], cut)
            ids = tokenizer.encode(read(text[anchor:]), add_special_tokens=False).ids
    if anchor == 0 and bos_id is not None:
        ids = [bos_id, *ids]
    if not ids:
        ids = tokenizer.encode("\n", add_special_tokens=False).ids
    return ids[-size:], anchor


def next_word_start(text: str, pos: int) -> int:
    """The first offset at or after `pos` where a word starts after whitespace."""
    pos = max(0, pos)
    match = WORD_RE.search(text, pos)
    while match is not None and match.start() > 0 and not text[match.start() - 1].isspace():
        match = WORD_RE.search(text, match.end())
    return match.start() if match is not None else pos
