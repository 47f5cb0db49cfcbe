"""Where the cursor is after an edit, and the text before it that the engine sees.

Clients send edits (didChange) and requests at positions; between requests the
server follows the cursor through the edits, so a word boundary typed is decided
before the request for it comes. Positions are in the client's units (UTF-16 code
units unless it negotiated otherwise).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from pygls.workspace import TextDocument

_LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")

# The context handed to the engine: the last 256-320k characters before the cursor
# (the model reads ~600 of them, the document caches all), cut on a fixed 64k grid.
# The engine's caches follow the context as it grows; a cut that moved with every
# keystroke would restart them each time, one on a grid restarts them once per 64k
# characters typed. So a key in a 10 MB document costs what it costs in a 300 KB one.
CONTEXT_CHARS = 256 * 1024
CONTEXT_STEP = 64 * 1024


def _after(start: types.Position, text: str, units: Callable[[str], int]) -> types.Position:
    """The position just after `text` inserted at `start` (in the client's units)."""
    lines = _LINE_BREAK_RE.split(text)
    if len(lines) == 1:
        return types.Position(start.line, start.character + units(text))
    return types.Position(start.line + len(lines) - 1, units(lines[-1]))


def _key(p: types.Position) -> tuple[int, int]:
    return (p.line, p.character)


def track_cursor(
    cursor: types.Position | None,
    changes: Sequence[types.TextDocumentContentChangeEvent],
    units: Callable[[str], int],
) -> tuple[types.Position | None, bool, bool]:
    """Follow the cursor through one didChange.

    A change that touches the cursor is typing (an insert, a backspace, a paste over
    a selection, an undo there): the cursor moves to the end of the inserted text. A
    change before the cursor shifts it; one after it leaves it alone.

    Returns:
        (the new cursor or None when unknown, typed at the cursor, text before the
        cursor changed).
    """
    typed = before = False
    for change in changes:
        if not isinstance(change, types.TextDocumentContentChangePartial):
            # A whole-document replacement: the cursor is unknown until the next request.
            cursor, before = None, True
            continue
        start, end = change.range.start, change.range.end
        new_end = _after(start, change.text, units)
        if cursor is None or _key(start) <= _key(cursor) <= _key(end):
            cursor, typed, before = new_end, True, True
        elif _key(end) < _key(cursor):
            before = True
            if cursor.line == end.line:
                cursor = types.Position(
                    new_end.line, new_end.character + cursor.character - end.character
                )
            else:
                cursor = types.Position(cursor.line + new_end.line - end.line, cursor.character)
    return cursor, typed, before


def text_before(doc: TextDocument, position: types.Position) -> str:
    """The text the engine sees before a client position (clamped to the document)."""
    offset = doc.offset_at_position(position)
    start = 0
    if offset > CONTEXT_CHARS:
        start = (offset - CONTEXT_CHARS) // CONTEXT_STEP * CONTEXT_STEP
    return doc.source[start:offset]
