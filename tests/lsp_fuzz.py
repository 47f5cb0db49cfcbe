"""A seeded protocol fuzzer for `nextword serve`: valid typing mixed with hostile traffic.

Used by tests/server/test_fuzz.py (a few thousand messages in CI) and run by hand or
nightly for longer runs (scripts/nightly):

    python tests/lsp_fuzz.py --messages 20000 --seed 7

It spawns the real server over stdio with the bundled model and, through the
benchmark's client (nextword.evaluation.lspclient), sends a mix of
typing, bad ranges, out-of-order versions, edits to unopened documents, double
opens and closes, CRLF/CR line ends, emoji, positions that split a surrogate pair,
combining marks, zero-width characters, 10 MB single-line documents, settings of
the wrong type, requests with bad params, unknown methods, malformed JSON and
messages that are not JSON-RPC. It keeps its own copy of every document, applying
each edit under the rules in server/nextword/lsp/documents.py (written again here,
independently), and after each edit asks the server for its copy's checksum.

Checked: every request is answered (the right error code for bad ones), every
checksum matches, the server stays alive, a clean document still gets real
candidates at the end, and shutdown/exit returns 0.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from helpers import EDITOR_CAPABILITIES
from nextword.evaluation.lspclient import LspClient, Response

METHOD_NOT_FOUND = types.ErrorCodes.MethodNotFound
INVALID_PARAMS = types.ErrorCodes.InvalidParams

# Pieces of text that stress position arithmetic and line splitting.
PIECES = [
    "the ",
    "history ",
    "of ",
    "and ",
    "word",
    ". ",
    ", ",
    "\n",
    "\r\n",
    "\r",
    "😀",  # outside the BMP: two UTF-16 code units
    "👩‍💻",  # a ZWJ sequence of two astral characters
    "e\u0301",  # e + combining acute accent
    "\u200b",  # zero-width space
    "\ufeff",  # zero-width no-break space (BOM)
    "\u2028",  # line separator: a line break for str.splitlines, not for editors
    "\x0c",  # form feed: likewise
    "日本語",
    "\t",
    "café ",
]
_BREAK_RE = re.compile(r"\r\n|\r|\n")
_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")


# ----------------------------------------------------------------- the client's copy


def units_to_index(line: str, units: int) -> int:
    """The index of a UTF-16 column in `line`: clamped, rounded down inside a pair.

    Independent of the server's code: steps over the astral characters (two units
    each), counting one unit for every other character.
    """
    index = used = 0
    for m in _ASTRAL_RE.finditer(line):
        gap = m.start() - index
        if used + gap >= units:
            break
        used += gap
        if used + 2 > units:  # the column is this character's start or between its halves
            return m.start()
        used, index = used + 2, m.start() + 1
    return min(index + max(0, units - used), len(line))


def index_to_units(line: str, index: int) -> int:
    return index + sum(1 for _ in _ASTRAL_RE.finditer(line, 0, index))


@dataclass
class ClientDoc:
    """What an editor holds: text and version."""

    text: str
    version: int = 0

    def _lines(self) -> list[tuple[int, int]]:
        """(start, end without the break) of each line."""
        out, start = [], 0
        for m in _BREAK_RE.finditer(self.text):
            out.append((start, m.start()))
            start = m.end()
        out.append((start, len(self.text)))
        return out

    def offset(self, line: int, character: int) -> int:
        lines = self._lines()
        if line >= len(lines):
            return len(self.text)
        start, end = lines[line]
        return start + units_to_index(self.text[start:end], character)

    def position(self, offset: int) -> tuple[int, int]:
        """The position of an offset; one inside a \r\n counts as the next line's start."""
        for n, (start, end) in enumerate(self._lines()):
            if offset <= end:
                return n, index_to_units(self.text[start:end], max(0, offset - start))
        raise AssertionError("offset beyond the document")

    def apply(self, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        a, b = self.offset(*start), self.offset(*end)
        a, b = min(a, b), max(a, b)
        self.text = self.text[:a] + text + self.text[b:]

    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()


# ----------------------------------------------------------------------- the fuzzer


@dataclass
class Expected:
    """What a request's answer must be."""

    kind: str  # "ok" | "error" | "checksum"
    code: int | None = None
    sha256: str | None = None


@dataclass
class Fuzzer:
    server: LspClient
    rng: random.Random
    docs: dict[str, ClientDoc] = field(default_factory=dict)
    expected: dict[int, Expected] = field(default_factory=dict)
    answered: dict[int, Response] = field(default_factory=dict)  # taken early, to pace
    sent: Counter[str] = field(default_factory=Counter)
    huge_docs: int = 0

    # -- helpers ----------------------------------------------------------------------

    def uri(self) -> str:
        return f"file:///fuzz/doc{self.rng.randrange(6)}.txt"

    def text(self, n: int | None = None) -> str:
        n = self.rng.randrange(1, 6) if n is None else n
        return "".join(self.rng.choice(PIECES) for _ in range(n))

    def position(self, doc: ClientDoc, *, hostile: bool) -> dict[str, int]:
        """A valid position, or (hostile) one past the line or document end or inside a pair."""
        line, character = doc.position(self.rng.randrange(len(doc.text) + 1))
        if hostile:
            roll = self.rng.random()
            if roll < 0.3:
                character += self.rng.choice([1, 3, 1000])
            elif roll < 0.5:
                line += self.rng.choice([1, 5, 10**6])
            elif roll < 0.8:
                # Inside a surrogate pair, when the document has one.
                m = _ASTRAL_RE.search(doc.text)
                if m is not None:
                    line, character = doc.position(m.start())
                    character += 1
        return {"line": line, "character": character}

    def check(self, uri: str) -> None:
        msg_id = self.server.send_request("nextword/documentChecksum", {"uri": uri})
        self.expected[msg_id] = Expected("checksum", sha256=self.docs[uri].sha256())
        self.sent["checksum"] += 1

    def expect(self, msg_id: int, kind: str, code: int | None = None) -> None:
        self.expected[msg_id] = Expected(kind, code)

    # -- the actions -----------------------------------------------------------------

    def open(self, uri: str | None = None, text: str | None = None) -> None:
        uri = uri or self.uri()
        text = self.text(self.rng.randrange(0, 20)) if text is None else text
        lang = self.rng.choice(["plaintext", "markdown", "python", "unknown-lang"])
        self.docs[uri] = ClientDoc(text)  # a second open replaces the first
        self.server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": lang, "version": 0, "text": text}},
        )
        self.sent["open"] += 1
        self.check(uri)

    def close(self) -> None:
        uri = self.uri()
        self.docs.pop(uri, None)  # closing an unopened document is a no-op
        self.server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        self.sent["close"] += 1

    def edit(self, *, hostile: bool) -> None:
        uri = self.uri()
        doc = self.docs.get(uri)
        if doc is None:
            # An edit to an unopened document: the server must ignore it.
            start = {"line": 0, "character": 0}
            change = {"range": {"start": start, "end": start}, "text": "ghost"}
            self.server.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": 1}, "contentChanges": [change]},
            )
            self.sent["edit-unopened"] += 1
            return
        changes = []
        for _ in range(self.rng.choice([1, 1, 1, 2])):
            if self.rng.random() < 0.05:
                text = self.text(self.rng.randrange(0, 30))
                changes.append({"text": text})
                doc.text = text
                continue
            start = self.position(doc, hostile=hostile)
            end = start if self.rng.random() < 0.6 else self.position(doc, hostile=hostile)
            if hostile and self.rng.random() < 0.2:
                start, end = end, start  # reversed
            text = self.text() if self.rng.random() < 0.8 else ""
            changes.append({"range": {"start": start, "end": end}, "text": text})
            doc.apply((start["line"], start["character"]), (end["line"], end["character"]), text)
        # Versions go up, except now and then (out of order: applied all the same).
        doc.version += 1 if not hostile or self.rng.random() < 0.7 else -3
        self.server.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": doc.version}, "contentChanges": changes},
        )
        self.sent["edit-hostile" if hostile else "edit"] += 1
        self.check(uri)

    def type_and_ask(self) -> None:
        """Typing at the end of a document, then the requests an editor sends."""
        uri = self.uri()
        doc = self.docs.get(uri)
        if doc is None:
            self.open(uri, "")
            doc = self.docs[uri]
        for ch in self.rng.choice(["the ", "history of", " and", "word ", "😀 ", "e\u0301"]):
            line, character = doc.position(len(doc.text))
            pos = {"line": line, "character": character}
            doc.apply((line, character), (line, character), ch)
            doc.version += 1
            self.server.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": doc.version},
                    "contentChanges": [{"range": {"start": pos, "end": pos}, "text": ch}],
                },
            )
            self.sent["type"] += 1
            cursor = dict(zip(("line", "character"), doc.position(len(doc.text)), strict=True))
            method = self.rng.choice(["textDocument/completion", "textDocument/inlineCompletion"])
            params: dict[str, Any] = {"textDocument": {"uri": uri}, "position": cursor}
            if method.endswith("inlineCompletion"):
                params["context"] = {"triggerKind": 2}
            self.expect(self.server.send_request(method, params), "ok")
            self.sent["completion"] += 1
        self.check(uri)

    def bad_request(self) -> None:
        uri = self.uri()
        pos = {"line": 0, "character": 0}
        roll = self.rng.randrange(9)
        server = self.server
        if roll == 0:
            bad = {"line": -1, "character": 0}
            params = {"textDocument": {"uri": uri}, "position": bad}
            self.expect(
                server.send_request("textDocument/completion", params), "error", INVALID_PARAMS
            )
        elif roll == 1:
            params = {"textDocument": {"uri": 5}, "position": {"line": "x", "character": None}}
            self.expect(
                server.send_request("textDocument/completion", params), "error", INVALID_PARAMS
            )
        elif roll == 2:
            self.expect(
                server.send_request("textDocument/completion", None), "error", INVALID_PARAMS
            )
        elif roll == 3:
            msg_id = server.send_request("textDocument/completion", omit_params=True)
            self.expect(msg_id, "error", INVALID_PARAMS)
        elif roll == 4:
            self.expect(
                server.send_request("nextword/noSuchMethod", {"a": 1}), "error", METHOD_NOT_FOUND
            )
        elif roll == 5:
            self.expect(server.send_request("nextword/stats", omit_params=True), "ok")
        elif roll == 6:
            # A position far past the end: answered (empty or not), never an error.
            params = {"textDocument": {"uri": uri}, "position": {"line": 10**6, "character": 7}}
            self.expect(server.send_request("textDocument/completion", params), "ok")
        elif roll == 7:
            params = {"textDocument": {"uri": uri}, "position": pos, "context": {"triggerKind": 99}}
            self.expect(
                server.send_request("textDocument/inlineCompletion", params),
                "error",
                INVALID_PARAMS,
            )
        else:
            self.expect(
                server.send_request("nextword/documentChecksum", {}), "error", INVALID_PARAMS
            )
        self.sent["bad-request"] += 1

    def garbage(self) -> None:
        """Messages no handler should ever see; each is logged and skipped."""
        roll = self.rng.randrange(8)
        server = self.server
        if roll == 0:
            server.send_raw(b'{"jsonrpc": "2.0", "method": "textDocument/didChange", ')
        elif roll == 1:
            server.send_raw(b"\xff\xfe not utf-8 \xc3")
        elif roll == 2:
            server.send_raw(b"[1, 2, 3]")
        elif roll == 3:
            server.send({"jsonrpc": "1.0", "method": "textDocument/completion", "params": {}})
        elif roll == 4:
            server.send({"hello": "world"})
        elif roll == 5:
            # A didChange with a negative line: dropped whole, the document unchanged.
            uri = self.uri()
            bad = {"start": {"line": -2, "character": 0}, "end": {"line": 0, "character": 0}}
            server.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": 1}, "contentChanges": [{"range": bad}]},
            )
        elif roll == 6:
            server.notify("$/cancelRequest", {"id": self.rng.randrange(1, 10**6)})
        else:
            # A request id that is not an integer or a string: answered with a null id.
            server.send({"jsonrpc": "2.0", "id": {"not": "an id"}, "method": "nextword/stats"})
            self.sent["null-id-request"] += 1
        self.sent["garbage"] += 1

    def settings(self) -> None:
        bad = self.rng.choice(
            [
                {"k": "five"},
                {"throttleMs": -5},
                {"temperature": [1]},
                {"languages": "plaintext"},
                {"windowTokens": 10**9},
                {"noSuchSetting": 1},
                "not an object",
                {"k": 3, "throttleMs": 20},
                {"learning": True},  # the store learns (and saves) under the fuzz's data dir
                {"learning": False, "learningScope": "workspace"},
            ]
        )
        self.server.notify("workspace/didChangeConfiguration", {"settings": {"nextword": bad}})
        self.sent["settings"] += 1

    def huge(self) -> None:
        """A 10 MB single-line document: opened, edited at both ends, typed into, closed."""
        uri = "file:///fuzz/huge.txt"
        words = "lorem ipsum dolor sit amet 😀 "
        self.open(uri, words * (10_000_000 // len(words)))
        for _ in range(3):
            self.edit_at(uri, 0)
            self.edit_at(uri, len(self.docs[uri].text))
        line, character = self.docs[uri].position(len(self.docs[uri].text))
        params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
        self.expect(self.server.send_request("textDocument/completion", params), "ok")
        self.server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        self.docs.pop(uri)
        self.huge_docs += 1

    def edit_at(self, uri: str, offset: int) -> None:
        doc = self.docs[uri]
        line, character = doc.position(offset)
        pos = {"line": line, "character": character}
        doc.apply((line, character), (line, character), "x ")
        doc.version += 1
        self.server.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": doc.version},
                "contentChanges": [{"range": {"start": pos, "end": pos}, "text": "x "}],
            },
        )
        self.check(uri)

    # -- the run -----------------------------------------------------------------------

    def step(self) -> None:
        roll = self.rng.random()
        if roll < 0.08:
            self.open()
        elif roll < 0.11:
            self.close()
        elif roll < 0.45:
            self.edit(hostile=False)
        elif roll < 0.65:
            self.edit(hostile=True)
        elif roll < 0.80:
            self.type_and_ask()
        elif roll < 0.89:
            self.bad_request()
        elif roll < 0.96:
            self.garbage()
        else:
            self.settings()


def verify(fuzzer: Fuzzer) -> None:
    """Every request answered as expected."""
    server = fuzzer.server
    for msg_id, want in fuzzer.expected.items():
        answer = fuzzer.answered.pop(msg_id, None) or server.response(msg_id)
        if want.kind == "error":
            assert answer.error is not None, f"request {msg_id}: wanted an error, got {answer}"
            assert answer.error["code"] == want.code, f"request {msg_id}: {answer.error}"
        else:
            assert answer.error is None, f"request {msg_id}: {answer.error}"
        if want.kind == "checksum":
            assert answer.result["sha256"] == want.sha256, f"document drift at {msg_id}"
    assert server.null_id_errors == fuzzer.sent["null-id-request"]


def clean_completion(server: LspClient) -> list[str]:
    """Type a sentence into a fresh document; the candidates offered after it."""
    uri = "file:///fuzz/clean.txt"
    server.open_document(uri)
    text = "The history of the "
    for i, ch in enumerate(text):
        pos = {"line": 0, "character": i}
        server.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": i + 1},
                "contentChanges": [{"range": {"start": pos, "end": pos}, "text": ch}],
            },
        )
    # The sane settings may load the model again (the fuzzer's last ones may have named
    # another): ask until it answers, as an editor asks at the next key.
    return server.until_words(uri, types.Position(0, len(text)), time.perf_counter() + 60)


def run(messages: int, seed: int, *, huge: int = 1) -> dict[str, Any]:
    """Fuzz a fresh server with about `messages` messages; returns the figures."""
    rng = random.Random(seed)
    # Learning, when the fuzzer turns it on, writes here, never in the user's data dir.
    data_dir = tempfile.TemporaryDirectory(prefix="nextword-fuzz-")
    server = LspClient.spawn(env={**os.environ, "NEXTWORD_DATA_DIR": data_dir.name})
    started = time.perf_counter()
    try:
        server.initialize({"throttleMs": 0}, capabilities=EDITOR_CAPABILITIES)
        fuzzer = Fuzzer(server, rng)
        for _ in range(huge):
            fuzzer.huge()
        while sum(fuzzer.sent.values()) < messages:
            fuzzer.step()
            if len(fuzzer.expected) % 200 == 0 and fuzzer.expected:
                # Pace the traffic: wait for the latest answer now and then.
                latest = max(fuzzer.expected)
                if latest not in fuzzer.answered:
                    fuzzer.answered[latest] = server.response(latest)
        verify(fuzzer)
        assert server.alive, "the server died"
        # The settings the fuzzer sent last may be odd ones: restore sane ones.
        server.notify("workspace/didChangeConfiguration", {"settings": {"nextword": {"k": 5}}})
        words = clean_completion(server)
        code = server.shutdown()
    finally:
        server.kill()
        data_dir.cleanup()
    return {
        "messages": sum(fuzzer.sent.values()),
        "requests": len(fuzzer.expected),
        "sent": dict(fuzzer.sent),
        "huge_documents": fuzzer.huge_docs,
        "show_messages": len(server.show_messages),
        "clean_candidates": words,
        "exit_code": code,
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--huge", type=int, default=2, help="10 MB documents to send")
    args = parser.parse_args()
    figures = run(args.messages, args.seed, huge=args.huge)
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    ok = figures["exit_code"] == 0 and figures["clean_candidates"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
