"""The server's copy of a document: the position rules of nextword/lsp/documents.py."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.workspace import Workspace

from nextword.lsp.documents import LspTextDocument, LspWorkspace, index_of_units

UTF8, UTF16, UTF32 = (
    types.PositionEncodingKind.Utf8,
    types.PositionEncodingKind.Utf16,
    types.PositionEncodingKind.Utf32,
)


def make(text: str, encoding: str = UTF16) -> LspTextDocument:
    workspace = LspWorkspace.like(
        Workspace(None, position_encoding=encoding), types.TextDocumentSyncKind.Incremental
    )
    workspace.put_text_document(
        types.TextDocumentItem(uri="file:///t.txt", language_id="plaintext", version=0, text=text)
    )
    doc = workspace.opened("file:///t.txt")
    assert doc is not None
    return doc


def edit(doc: LspTextDocument, start: tuple[int, int], end: tuple[int, int], text: str) -> str:
    rng = types.Range(types.Position(*start), types.Position(*end))
    doc.apply_change(types.TextDocumentContentChangePartial(range=rng, text=text))
    return doc.source


def test_lines_end_only_where_editors_end_them() -> None:
    doc = make("a\x0cb\u2028c\r\nd\re\nf")
    assert doc.lines == ("a\x0cb\u2028c\r\n", "d\r", "e\n", "f")
    assert edit(doc, (1, 1), (1, 1), "!") == "a\x0cb\u2028c\r\nd!\re\nf"


def test_a_column_past_the_line_end_is_the_line_end_not_the_next_line() -> None:
    doc = make("ab\r\ncd")
    assert edit(doc, (0, 99), (0, 99), "X") == "abX\r\ncd"
    assert edit(doc, (1, 99), (1, 99), "Y") == "abX\r\ncdY"  # the last line, no break


def test_a_line_past_the_end_is_the_document_end() -> None:
    doc = make("ab\ncd")
    assert edit(doc, (7, 3), (9, 0), "!") == "ab\ncd!"


def test_a_column_inside_a_surrogate_pair_is_the_pair_start() -> None:
    doc = make("a😀b")
    assert edit(doc, (0, 2), (0, 2), "|") == "a|😀b"
    assert doc.clamp(types.Position(0, 3)) == types.Position(0, 2)


def test_a_reversed_range_is_the_same_range() -> None:
    doc = make("hello world")
    assert edit(doc, (0, 11), (0, 6), "there") == "hello there"


def test_full_replacement_and_clamp() -> None:
    doc = make("old")
    doc.apply_change(types.TextDocumentContentChangeWholeDocument(text="new\ntext"))
    assert doc.source == "new\ntext"
    assert doc.clamp(types.Position(5, 5)) == types.Position(1, 4)


@pytest.mark.parametrize(
    ("encoding", "units", "index"),
    [(UTF16, 3, 2), (UTF16, 2, 1), (UTF8, 5, 2), (UTF8, 3, 1), (UTF32, 2, 2), (UTF32, 9, 3)],
)
def test_columns_in_every_position_encoding(encoding: str, units: int, index: int) -> None:
    # "a😀b": UTF-16 units a=1 😀=2 b=1; UTF-8 bytes a=1 😀=4 b=1.
    assert index_of_units("a😀b", units, encoding) == index


def test_an_edit_to_an_unopened_document_is_dropped() -> None:
    workspace = LspWorkspace.like(Workspace(None), types.TextDocumentSyncKind.Incremental)
    change = types.TextDocumentContentChangeWholeDocument(text="ghost")
    workspace.update_text_document(
        types.VersionedTextDocumentIdentifier(uri="file:///none.txt", version=1), change
    )
    assert workspace.opened("file:///none.txt") is None
    assert not workspace.text_documents


def test_a_huge_single_line_stays_cheap() -> None:
    doc = make("word " * 2_000_000 + "😀")  # 10 MB on one line
    end = doc.clamp(types.Position(0, 10**9))
    assert end == types.Position(0, 10_000_002)
    edit(doc, (0, end.character), (0, end.character), "!")
    assert doc.source.endswith("😀!")
