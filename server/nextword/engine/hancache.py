"""Continuations the document itself has used: the document cache for Chinese text.

News repeats its names and terms (江泽民, 国有企业) within an article far more often
than corpus counts predict, and a user's own text repeats its own. Where the two
characters before the cursor occurred earlier in the document, what followed them
there is offered again, cut to the longest lexicon word that starts there. This is
the Chinese counterpart of doclocal.py, which counts space-separated words.
"""

from __future__ import annotations

from collections import Counter

from nextword.engine.words import is_han_text

KEY_CHARS = 2
# How far back the document is searched: recent text matters most, and a search must
# stay well under a millisecond.
MAX_SCAN = 20_000
MAX_CONTINUATION = 4


def following(context: str, index: dict[str, int]) -> Counter[str]:
    """Lexicon continuations that followed the context's last two characters before."""
    key = context[-KEY_CHARS:]
    found: Counter[str] = Counter()
    if len(key) < KEY_CHARS or not is_han_text(key):
        return found
    text = context[-MAX_SCAN:]
    last = len(text) - KEY_CHARS  # the key's own position, at the cursor
    at = text.find(key)
    while -1 < at < last:
        start = at + KEY_CHARS
        after = text[start : start + MAX_CONTINUATION]
        for n in range(len(after), 0, -1):
            if after[:n] in index and is_han_text(after[:n]):
                found[after[:n]] += 1
                break
        at = text.find(key, at + 1)
    return found
