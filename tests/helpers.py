"""What the tests share: the repository's paths, the `nextword` command, and the
editor's side of a pytest-lsp session (the client's copy of a document, typing into
it, asking for completions).

conftest.py holds the fixtures; every other shared name lives here, and test modules
import from here, never from each other. The raw JSON-RPC client is the benchmark's,
`nextword.evaluation.lspclient.LspClient`.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from nextword.engine import DEFAULT_MODEL
from nextword.evaluation.lspclient import SERVE

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SERVER = list(SERVE)  # `nextword serve` over stdio, as pytest-lsp spawns it
# What an editor announces to an LspClient: it answers workspace/configuration and
# shows work-done progress.
EDITOR_CAPABILITIES = types.ClientCapabilities(
    workspace=types.WorkspaceClientCapabilities(
        configuration=True,
        did_change_configuration=types.DidChangeConfigurationClientCapabilities(),
    ),
    window=types.WindowClientCapabilities(work_done_progress=True),
)


def plain(obj: Any) -> Any:
    """A custom request's result as dicts and lists (pygls gives named tuples)."""
    if hasattr(obj, "_asdict"):
        obj = obj._asdict()
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    return obj


def phrase_model(folder: Path, threshold: float = -10.0) -> Path:
    """A copy of the bundled model with its phrase threshold set to `threshold`: at -10
    nearly every phrase of two words or more is shown, so tests meet one anywhere."""
    model = folder / "phrase-model"
    shutil.copytree(DEFAULT_MODEL, model)
    (model / "phrases.json").write_text(json.dumps({"threshold": threshold}), encoding="utf-8")
    return model


def nextword(*args: str, check: bool = True, **kwargs) -> subprocess.CompletedProcess[str]:
    """Run the `nextword` command as a user would, capturing its output."""
    return subprocess.run(
        [sys.executable, "-m", "nextword", *args],
        capture_output=True,
        text=True,
        check=check,
        timeout=600,
        **kwargs,
    )


# --------------------------------------------------------------------- the client's copy


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@dataclass
class ClientDoc:
    """The text as the editor holds it, with LSP (UTF-16) positions."""

    uri: str
    text: str = ""
    version: int = 0

    def lines(self) -> list[str]:
        # Lines end only at \n, \r\n and \r, as in editors.
        out, start, i = [], 0, 0
        while i < len(self.text):
            ch = self.text[i]
            if ch in "\r\n":
                end = i + 2 if self.text[i : i + 2] == "\r\n" else i + 1
                out.append(self.text[start:end])
                start = i = end
                continue
            i += 1
        out.append(self.text[start:])
        return out

    def position(self, offset: int) -> types.Position:
        line_start = 0
        for n, line in enumerate(self.lines()):
            body = line.rstrip("\r\n")
            if offset <= line_start + len(body) or line_start + len(line) > offset:
                return types.Position(n, utf16_len(self.text[line_start:offset]))
            line_start += len(line)
        raise AssertionError("offset beyond the document")

    def offset(self, pos: types.Position) -> int:
        lines = self.lines()
        start = sum(len(x) for x in lines[: pos.line])
        line, units, i = lines[pos.line], 0, 0
        while units < pos.character:
            units += utf16_len(line[i])
            i += 1
        return start + i

    def end(self) -> types.Position:
        return self.position(len(self.text))

    def edit(self, start: int, end: int, new: str) -> types.TextDocumentContentChangePartial:
        change = types.TextDocumentContentChangePartial(
            range=types.Range(self.position(start), self.position(end)), text=new
        )
        self.text = self.text[:start] + new + self.text[end:]
        self.version += 1
        return change


def apply(doc: ClientDoc, item: types.CompletionItem) -> str:
    """The text after accepting `item`, applied the way a client applies a textEdit."""
    edit = item.text_edit
    assert isinstance(edit, types.TextEdit)
    start, end = doc.offset(edit.range.start), doc.offset(edit.range.end)
    return doc.text[:start] + edit.new_text + doc.text[end:]


# ------------------------------------------------------------------ a pytest-lsp session


async def start(
    client: LanguageClient, options: dict[str, Any] | None = None, *, root_uri: str | None = None
) -> None:
    """initialize as VS Code does, with `options` as initializationOptions."""
    caps = pytest_lsp.client_capabilities("visual-studio-code")
    await client.initialize_session(
        types.InitializeParams(
            capabilities=caps, initialization_options=options or {}, root_uri=root_uri
        )
    )


def open_doc(
    client: LanguageClient, uri: str, text: str = "", language: str = "plaintext"
) -> ClientDoc:
    doc = ClientDoc(uri, text)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id=language, version=0, text=text)
        )
    )
    return doc


def send(client: LanguageClient, doc: ClientDoc, *changes: Any) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=doc.uri, version=doc.version),
            content_changes=list(changes),
        )
    )


def type_at(client: LanguageClient, doc: ClientDoc, offset: int, text: str) -> None:
    doc_change = doc.edit(offset, offset, text)
    send(client, doc, doc_change)


async def complete(
    client: LanguageClient, doc: ClientDoc, offset: int | None = None
) -> types.CompletionList:
    pos = doc.end() if offset is None else doc.position(offset)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri), position=pos
        )
    )
    assert isinstance(result, types.CompletionList)
    return result


async def inline(client: LanguageClient, doc: ClientDoc) -> types.InlineCompletionList:
    """The ghost text offered at the end of `doc`."""
    result = await client.text_document_inline_completion_async(
        types.InlineCompletionParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri),
            position=doc.end(),
            context=types.InlineCompletionContext(
                trigger_kind=types.InlineCompletionTriggerKind.Automatic
            ),
        )
    )
    assert isinstance(result, types.InlineCompletionList)
    return result


async def labels(client: LanguageClient, doc: ClientDoc) -> list[str]:
    """The labels offered at the end of `doc`."""
    return [item.label for item in (await complete(client, doc)).items]


async def stats(client: LanguageClient) -> dict[str, Any]:
    return plain(await client.protocol.send_request_async("nextword/stats", {}))


async def ready(client: LanguageClient) -> None:
    """Wait for the model: a completion at a word start has items once it is loaded."""
    probe = open_doc(client, "file:///tmp/nextword-test/probe.txt", "The cat sat on the ")
    for _ in range(200):
        if (await complete(client, probe)).items:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the model never became ready")
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=probe.uri))
    )
