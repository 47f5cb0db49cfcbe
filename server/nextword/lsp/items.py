"""Engine candidates as lsprotocol completion and inline-completion items."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from nextword.engine import is_candidate

# A space asks for the next word; typing inside a word is covered by isIncomplete.
# Chinese punctuation ends a phrase: the next one starts there.
TRIGGER_CHARACTERS = [" ", "，", "。", "、", "；", "：", "？", "！"]


def offered(words: Sequence[str], prefix: str) -> list[str]:
    """The words worth showing for `prefix`: they extend it exactly, case included.

    Clients filter items by label against the typed prefix; a label that does not
    start with the prefix would vanish in some clients and show in others.
    """
    return [w for w in words if w.startswith(prefix) and w != prefix and is_candidate(w)]


def completion_list(
    candidates: Sequence[tuple[str, float]], prefix_range: types.Range
) -> types.CompletionList:
    """A popup list: whole words that replace the typed prefix, in the engine's order."""
    items = [
        types.CompletionItem(
            label=word,
            kind=types.CompletionItemKind.Text,
            detail=f"{prob:.1%}",
            # "~" sorts after letters and digits: where a client merges our words with a
            # language server's items of equal match, the language server's come first.
            sort_text=f"~{rank:03d}",
            filter_text=word,
            text_edit=types.TextEdit(range=prefix_range, new_text=word),
            insert_text_format=types.InsertTextFormat.PlainText,
        )
        for rank, (word, prob) in enumerate(candidates)
    ]
    # Incomplete: the client asks again at each keystroke, and gets the new prefix's words.
    return types.CompletionList(is_incomplete=True, items=items)


def inline_list(word: str | None, prefix_range: types.Range) -> types.InlineCompletionList:
    """Ghost text: the top word replacing the typed prefix; the client shows the rest."""
    if word is None:
        return types.InlineCompletionList(items=[])
    item = types.InlineCompletionItem(insert_text=word, range=prefix_range)
    return types.InlineCompletionList(items=[item])
