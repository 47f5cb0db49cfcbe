"""The server's copy of each open document, kept exactly in step with the client's.

pygls' own `TextDocument` drifts from what editors hold in ways a long session
finds: it splits lines with `str.splitlines` (which also breaks at form feed,
U+2028 and friends, where editors do not), a position past the end of a line lands
one character short of it, a position inside a UTF-16 surrogate pair rounds up,
and every edit re-splits the whole document into lines. This module applies edits
by character offsets, with one rule for every position a client may send:

- lines end only at \\n, \\r\\n and \\r;
- a line past the end means the end of the document;
- a character past the end of its line means the end of the line (as LSP says),
  never the line break or the next line;
- a position inside a character (between the two halves of a surrogate pair in
  UTF-16, inside a multi-byte sequence in UTF-8) means the start of that character;
- a range whose end comes before its start is the same range, reversed.

An edit to a document that is not open is logged and dropped; it never creates one.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Sequence
from urllib.parse import unquote

from lsprotocol import types
from pygls.workspace import PositionCodec, TextDocument, Workspace

from nextword.lsp.pygls_seam import DocumentWorkspace

log = logging.getLogger(__name__)

_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_BREAK_RE = re.compile(r"\r\n|\r|\n")
_HIGH_SURROGATES = ("\ud800", "\udbff")


def index_of_units(line: str, units: int, encoding: str) -> int:
    """The character index in `line` of a column given in the client's code units.

    Rounds down to the start of a character that the column cuts, and clamps to the
    line's length.
    """
    if units <= 0:
        return 0
    if line.isascii() or encoding == types.PositionEncodingKind.Utf32:
        return min(units, len(line))
    codec, width = ("utf-8", 1) if encoding == types.PositionEncodingKind.Utf8 else ("utf-16-le", 2)
    data = line.encode(codec, "surrogatepass")[: units * width]
    try:
        prefix = data.decode(codec, "surrogatepass")
    except UnicodeDecodeError as cut:  # a UTF-8 sequence cut short
        prefix = data[: cut.start].decode(codec, "surrogatepass")
    n = len(prefix)
    low, high = _HIGH_SURROGATES
    if n and low <= prefix[-1] <= high and line[n - 1] != prefix[-1]:
        n -= 1  # the column splits a surrogate pair: the pair's start
    return n


class LspTextDocument(TextDocument):
    """A text document that applies edits by offsets under the rules above.

    It keeps its own text: pygls' would read a document opened without text from disk.
    """

    def __init__(
        self,
        uri: str,
        source: str,
        *,
        version: int | None,
        language_id: str | None,
        position_codec: PositionCodec,
    ) -> None:
        super().__init__(
            uri, source, version=version, language_id=language_id, position_codec=position_codec
        )
        self._text = source
        self._starts: list[int] | None = None  # offsets where lines start, made when needed

    @property
    def source(self) -> str:
        return self._text

    @property
    def lines(self) -> Sequence[str]:
        return tuple(_LINE_RE.findall(self.source))

    def _line_starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [0, *(m.end() for m in _BREAK_RE.finditer(self.source))]
        return self._starts

    def _set_source(self, source: str) -> None:
        self._text = source
        self._starts = None

    def offset_at_position(self, client_position: types.Position) -> int:
        """The character offset of a client position, clamped as the module says."""
        source = self.source
        starts = self._line_starts()
        if client_position.line >= len(starts):
            return len(source)
        start = starts[client_position.line]
        end = starts[client_position.line + 1] if client_position.line + 1 < len(starts) else None
        line = source[start:end].rstrip("\r\n") if end is not None else source[start:]
        encoding = str(self.position_codec.encoding or types.PositionEncodingKind.Utf16)
        return start + index_of_units(line, client_position.character, encoding)

    def position_at_offset(self, offset: int) -> types.Position:
        """The client position of a character offset (clamped to the document)."""
        source = self.source
        offset = max(0, min(offset, len(source)))
        starts = self._line_starts()
        line = bisect.bisect_right(starts, offset) - 1
        column = source[starts[line] : offset]
        return types.Position(line, self.position_codec.client_num_units(column))

    def clamp(self, position: types.Position) -> types.Position:
        """The position the document's rules make of a client's position."""
        return self.position_at_offset(self.offset_at_position(position))

    def apply_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        """Apply an edit (a range's new text) or a whole new text.

        The server syncs incrementally, so pygls' checks of the sync kind do not apply.
        """
        if not isinstance(change, types.TextDocumentContentChangePartial):
            self._set_source(change.text)
            return
        start = self.offset_at_position(change.range.start)
        end = self.offset_at_position(change.range.end)
        start, end = min(start, end), max(start, end)
        source = self.source
        self._set_source(source[:start] + change.text + source[end:])


class LspWorkspace(DocumentWorkspace):
    """A workspace that holds `LspTextDocument`s and never invents one."""

    def make_document(
        self, uri: str, source: str | None, version: int | None, language_id: str | None
    ) -> TextDocument:
        return LspTextDocument(
            uri,
            source or "",
            version=version,
            language_id=language_id,
            position_codec=self.position_codec,
        )

    def opened(self, uri: str) -> LspTextDocument | None:
        """The open document at `uri`, or None (pygls' getter would make an empty one)."""
        doc = self.text_documents.get(unquote(uri))
        return doc if isinstance(doc, LspTextDocument) else None

    def update_text_document(
        self,
        text_doc: types.VersionedTextDocumentIdentifier,
        change: types.TextDocumentContentChangeEvent,
    ) -> None:
        doc = self.opened(text_doc.uri)
        if doc is None:
            log.warning("ignored an edit to %s, which is not open", text_doc.uri)
            return
        doc.apply_change(change)
        doc.version = text_doc.version

    @classmethod
    def like(cls, workspace: Workspace, sync_kind: types.TextDocumentSyncKind) -> LspWorkspace:
        """An empty copy of a freshly initialized pygls workspace."""
        return cls(
            workspace.root_uri,
            sync_kind,
            list(workspace.folders.values()),
            workspace.position_encoding,
        )
