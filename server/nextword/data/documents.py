"""The one reader of prepared text: files of documents separated by form feeds.

`prepare-corpus` writes every split this way (a form-feed line between documents),
and the evaluator, the trainer's table builders and the fits all read it here, with
the same word-budget cuts.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from nextword.engine.words import CJK_PUNCTUATION, FULL_WIDTH, HAN, KANA, WORD_RE, is_han

# What marks text as Chinese in a mixed document: Han and kana (written without spaces),
# CJK punctuation (，。、「」) and full-width forms; the classes the router reads
# (`words.script_before`).
_CHINESE_CHAR_RE = re.compile(f"[{HAN}{KANA}{CJK_PUNCTUATION}{FULL_WIDTH}]")


def is_han_document(doc: str) -> bool:
    """True when more than half of the document's non-space characters are Han."""
    visible = len(doc) - sum(c.isspace() for c in doc)
    return visible > 0 and sum(is_han(c) for c in doc) / visible > 0.5


def chinese_spans(doc: str) -> list[tuple[int, int, bool]]:
    """The document cut into maximal spans of Chinese and of other text, in order:
    (start, end, chinese), covering it end to end.

    Han characters, kana, CJK punctuation and full-width forms are Chinese; letters of
    other scripts (Latin words, commands, paths) are not. Everything else (spaces, line
    breaks, digits, ASCII punctuation) takes the side of what surrounds it: between two
    Chinese characters it is Chinese ("2024年", "好， 走"), between two others it is other,
    between the two kinds it goes to the other span (the spaces around a Latin word in
    Chinese text), and at the document's edges to the one span beside it. A document
    with nothing Chinese is one other span, one with nothing else one Chinese span.
    """
    # (position, chinese) of every character that decides a side.
    marks = [
        (i, _CHINESE_CHAR_RE.match(char) is not None)
        for i, char in enumerate(doc)
        if char.isalpha() or _CHINESE_CHAR_RE.match(char)
    ]
    if not marks:
        return [(0, len(doc), False)] if doc else []
    spans: list[tuple[int, int, bool]] = []
    start, kind = 0, marks[0][1]
    last = marks[0][0]  # the last marked character of the current span
    for i, chinese in marks[1:]:
        if chinese != kind:
            # The neutral characters between the two kinds go to the other span.
            cut = last + 1 if kind else i
            spans.append((start, cut, kind))
            start, kind = cut, chinese
        last = i
    spans.append((start, len(doc), kind))
    return spans


def read_documents(
    path: Path, max_words: int | None = None, doc_words: int | None = None
) -> tuple[list[str], int]:
    """The file's documents, cut after `max_words` words; and the count of bad bytes.

    With `doc_words`, each document is first cut after its own first `doc_words` words
    (short documents: the start of an email, a note). In Chinese documents
    (`is_han_document`) the units counted are Han characters.
    """
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - raw.decode("utf-8", errors="ignore").count("\ufffd")
    docs = [d.strip("\n") for d in text.replace("\r\n", "\n").split("\f") if d.strip()]
    if doc_words is not None:
        docs = [cut_words(doc, doc_words)[0] for doc in docs]
    return (docs if max_words is None else first_words(docs, max_words)), bad


def cut_words(doc: str, n: int) -> tuple[str, int]:
    """The document up to the end of its `n`-th word (Han character in Chinese), and
    the number of words (characters) it keeps."""
    if is_han_document(doc):
        han = [i + 1 for i, char in enumerate(doc) if is_han(char)]
        return (doc[: han[n - 1]], n) if len(han) > n else (doc, len(han))
    matches = list(WORD_RE.finditer(doc))
    return (doc[: matches[n - 1].end()], n) if len(matches) > n else (doc, len(matches))


def first_words(docs: list[str], max_words: int) -> list[str]:
    """The documents from the first, cut after `max_words` words in all."""
    out, budget = [], max_words
    for doc in docs:
        if budget <= 0:
            break
        doc, units = cut_words(doc, budget)
        out.append(doc)
        budget -= units
    return out


def last_words(docs: list[str], max_words: int) -> list[str]:
    """The documents from the last, about `max_words` words in all, each cut to keep
    its end (last document first).

    The fits read a dev file from its end and `nextword eval --max-words` from its
    start, so the published figures are not measured on the words the weights saw.
    """
    out: list[str] = []
    budget = max_words
    for doc in reversed(docs):
        if budget <= 0:
            break
        words = list(WORD_RE.finditer(doc))
        if len(words) > budget:  # keep the document's end, `budget` words of it
            doc = doc[words[-budget].start() :]
        out.append(doc)
        budget -= len(words)
    return out


def split_documents(path: Path, share: float = 0.5) -> tuple[list[str], list[str]]:
    """(earlier documents, later documents): the earlier hold `share` of the words."""
    docs, _ = read_documents(path)
    total = sum(len(WORD_RE.findall(d)) for d in docs)
    seen = 0
    for i, doc in enumerate(docs):
        seen += len(WORD_RE.findall(doc))
        if seen >= total * share:
            return docs[: i + 1], docs[i + 1 :]
    return docs, []


def count_words(files: list[Path]) -> Counter[str]:
    """How often each word occurs in the files (the word tables' and baselines' counts)."""
    counts: Counter[str] = Counter()
    for file in files:
        with file.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                counts.update(WORD_RE.findall(line))
    return counts
