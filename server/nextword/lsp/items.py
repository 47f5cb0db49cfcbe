"""Engine candidates as lsprotocol completion and inline-completion items."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import takewhile

from lsprotocol import types

from nextword.engine import Candidate, is_candidate

# A space asks for the next word; typing inside a word is covered by isIncomplete.
# Chinese punctuation ends a phrase: the next one starts there.
TRIGGER_CHARACTERS = [" ", "，", "。", "、", "；", "：", "？", "！"]


def offered(candidates: Sequence[Candidate], prefix: str) -> list[Candidate]:
    """The candidates worth showing for `prefix`: words that extend it exactly, case
    included, and corrections (words the prefix misspells), which replace it.

    Clients filter items by label against the typed prefix; a label that does not
    start with the prefix would vanish in some clients and show in others, so a
    correction's item filters by the prefix itself (`completion_list`).
    """
    return [
        c
        for c in candidates
        if (c.correction or c.text.startswith(prefix)) and c.text != prefix and is_candidate(c.text)
    ]


def completion_list(
    candidates: Sequence[Candidate], prefix: str, prefix_range: types.Range
) -> types.CompletionList:
    """A popup list: whole words that replace the typed prefix, in the engine's order."""
    items = [
        types.CompletionItem(
            label=c.text,
            kind=types.CompletionItemKind.Text,
            detail=f"{c.prob:.1%} (correction)" if c.corrects(prefix) else f"{c.prob:.1%}",
            # "~" sorts after letters and digits: where a client merges our words with a
            # language server's items of equal match, the language server's come first.
            sort_text=f"~{rank:03d}",
            # A correction does not start with what was typed: it filters by what was
            # typed, so clients matching the typed word against it keep it.
            filter_text=prefix if c.correction else c.text,
            text_edit=types.TextEdit(range=prefix_range, new_text=c.text),
            insert_text_format=types.InsertTextFormat.PlainText,
        )
        for rank, c in enumerate(candidates)
    ]
    # Incomplete: the client asks again at each keystroke, and gets the new prefix's words.
    return types.CompletionList(is_incomplete=True, items=items)


def inline_list(
    candidates: Sequence[Candidate],
    prefix_range: types.Range,
    *,
    prefix: str = "",
    phrase: str | None = None,
) -> types.InlineCompletionList:
    """Ghost text: the phrase, or else the best word that extends the typed prefix; both
    replace the prefix, and the client shows what follows it. `candidates` are the
    engine's (`BoundaryDecider.filter_cached` with `typed`), read likeliest first: the
    popup's, the prefix itself where it is a word, and the likely words one letter
    past the prefix that the popup passed over.

    Never a correction: ghost text can only append to what was typed. Nor a lesser word
    where a likelier one is the prefix's word with capitals ("sat": Saturday, not
    satellite), or the prefix itself ("you" is likelier than your after "I'll call
    you"): none then.
    """
    text = phrase or _ghost(candidates, prefix)
    if text is None:
        return types.InlineCompletionList(items=[])
    item = types.InlineCompletionItem(insert_text=text, range=prefix_range)
    return types.InlineCompletionList(items=[item])


def _ghost(candidates: Sequence[Candidate], prefix: str) -> str | None:
    by_probability = sorted(candidates, key=lambda c: -c.prob)
    likelier = list(takewhile(lambda c: not c.is_typed(prefix), by_probability))
    for c in offered(likelier, prefix):
        if c.recased(prefix):
            return None
        if not c.correction:
            return c.text
    return None
