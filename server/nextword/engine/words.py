"""What a word is, and where the word being typed starts.

One definition serves the engine, the evaluator and the server, as docs/EVAL.md
asks: a word is a run of letters, digits, `_` and `'`.
"""

from __future__ import annotations

import re
import unicodedata

WORD_RE = re.compile(r"[\w']+")
# Longer runs of word characters (hashes, base64, minified code) are not words
# anyone completes; bounding them keeps each keystroke's work bounded too.
MAX_WORD = 64
# The Unicode ranges of the East Asian scripts, written once (regex class bodies).
# Han ideographs in the Basic Multilingual Plane: unified, extension A, compatibility.
HAN_BMP = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# All Han ideographs: with the supplementary planes' extensions B and on.
HAN = HAN_BMP + "\U00020000-\U0002fa1f"
KANA = "\u3040-\u30ff"  # hiragana and katakana
HANGUL = "\uac00-\ud7af"  # syllables
CJK_PUNCTUATION = "\u3000-\u303f"  # 。，、「」
FULL_WIDTH = "\uff00-\uffef"  # １２，！
# Han and kana: scripts written without spaces, where every character starts a
# continuation and none belongs to a typed prefix.
_UNSPACED = KANA + HAN
# Chinese text: Han, CJK punctuation and full-width forms.
_CHINESE_RE = re.compile(f"[{_UNSPACED}{CJK_PUNCTUATION}{FULL_WIDTH}]")
_HAN_RE = re.compile(f"[{HAN}]")
_CJK_RE = re.compile(f"[{KANA}{HAN}{HANGUL}]")
# The typed prefix: the word characters at the very end of the text before the cursor
# (Han and kana excluded), apostrophes inside it ("don'", "O'Bri") but not before it:
# one there opens a quotation ("'hel" is "hel" after a quote), and no word of the
# lexicon starts with one.
_WORD_CHAR = f"(?![{_UNSPACED}])\\w"
_TRAILING_WORD_RE = re.compile(f"{_WORD_CHAR}(?:{_WORD_CHAR}|')*\\Z")
_SENTENCE_END_RE = re.compile(r"(?:^|[.!?]['\")\]]?)\s*\Z")
_LINE_START_RE = re.compile(r"\n[ \t]*\Z")


def split_prefix(text_before_cursor: str) -> tuple[str, str]:
    """Split text into (context, prefix): prefix is the partial word at the end.

    A run of word characters longer than MAX_WORD is cut to its last MAX_WORD + 1,
    which no candidate matches (see `is_word`).

    >>> split_prefix("Hello wor")
    ('Hello ', 'wor')
    >>> split_prefix("She said 'don")
    ("She said '", 'don')
    """
    # Searching only the tail keeps this linear: from every start in a long run of
    # word characters the pattern would otherwise scan to the run's end.
    tail = max(0, len(text_before_cursor) - MAX_WORD - 1)
    match = _TRAILING_WORD_RE.search(text_before_cursor, tail)
    if match is None:
        return text_before_cursor, ""
    return text_before_cursor[: match.start()], match.group()


def is_candidate(word: str) -> bool:
    """True for a word worth offering: it starts and ends with a letter, digit or `_`.

    A lone apostrophe or a quote glued to a word ("'hello", "first'") counts as a word
    for the evaluator but makes a poor suggestion.
    """
    return bool(word) and _is_word_char(word[0]) and _is_word_char(word[-1])


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def is_word(text: str) -> bool:
    """True for a non-empty string that is exactly one word of at most MAX_WORD characters."""
    return len(text) <= MAX_WORD and WORD_RE.fullmatch(text) is not None


_PARAGRAPH_START_RE = re.compile(r"(?:\A|\n[ \t]*\n)[ \t]*\Z")


def starts_paragraph(context: str) -> bool:
    """True where the next word opens the document or a paragraph (after a blank line)."""
    return _PARAGRAPH_START_RE.search(context) is not None


def starts_sentence(context: str) -> bool:
    """True where the next word opens a sentence (document start, or after . ! ?)."""
    return _SENTENCE_END_RE.search(context) is not None


def opens_in_capitals(context: str) -> bool:
    """True where a capital is how the next word is written rather than what it is: a
    sentence's first word, or a line's (a greeting, a list item, a chat message)."""
    return starts_sentence(context) or _LINE_START_RE.search(context) is not None


def is_han(char: str) -> bool:
    """True for one Han ideograph (a Chinese character)."""
    return len(char) == 1 and _HAN_RE.match(char) is not None


def is_han_text(text: str) -> bool:
    """True for a non-empty string of Han characters only."""
    return bool(text) and all(is_han(c) for c in text)


def script_before(context: str) -> str:
    """ "zh" when the text before the cursor was last written in Chinese, else "en".

    Spaces and neutral punctuation (quotes, brackets, ASCII . , ! ?) are skipped: the
    last character that belongs to a script decides. The script of the last thing
    written picks the model for the next decision, so a mixed document is served by
    both, paragraph by paragraph, phrase by phrase.
    """
    for char in reversed(context[-32:]):
        if _CHINESE_RE.match(char):
            return "zh"
        if char.isalnum():
            return "en"
    return "en"


def is_cjk(char: str) -> bool:
    """True for a Han ideograph, kana or hangul character (scripts written without spaces)."""
    return len(char) == 1 and _CJK_RE.match(char) is not None


def is_wide(char: str) -> bool:
    """True for a character a terminal draws two columns wide (Han, full-width forms)."""
    return unicodedata.east_asian_width(char) in "WF"


def display_width(text: str) -> int:
    """Terminal columns `text` takes: two for wide and full-width characters (Han)."""
    return sum(2 if is_wide(ch) else 1 for ch in text)
