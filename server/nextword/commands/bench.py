"""`nextword bench`: replay typing against a freshly spawned server, as an editor would.

Over a real stdio JSON-RPC connection: one didChange per key, then a completion
request at the new cursor, at a steady rate (or flat out with `--rate 0`). Reports
the completion round trip (p50/p95/p99, see docs/EVAL.md "Editor latency"), the
server's own counters (nextword/stats), its peak RSS (VmHWM) and the cold start:
process start to the first completion with items.

`--soak` is the long run instead: `--edits` keystrokes (100,000 by default) spread
over `--docs` open documents (20), flat out, each followed by a completion request,
with a backspace run now and then. It reports the RSS after the first tenth (the
warm-up) and at the end, the round-trip p99 of the first and the last tenth, and
checks that the server's copy of every document still equals the client's.

`--burst N` is the overload check: N keystrokes, each with a completion request,
written without waiting for any answer. It reports how many were answered, how
many were answered empty (superseded by newer typing), how long the newest took
from its sending, and the RSS before and after.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from nextword.engine.words import split_prefix
from nextword.errors import CommandError
from nextword.percentiles import percentile, summary

# Shipped as package data, so an installed `nextword bench` has its text.
DEFAULT_TEXT = Path(__file__).resolve().parents[1] / "texts" / "typing.txt"
URI = "file:///nextword-bench/typing.txt"
COLD_START_TIMEOUT_S = 60.0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--text",
        type=Path,
        default=DEFAULT_TEXT,
        help="the text to type (default: the bundled typing.txt, 1,933 keys: about 3 "
        "minutes at 10 keys/s)",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=10.0,
        help="keys per second (default: 10, a fast typist; 0: flat out, no pauses)",
    )
    parser.add_argument("--json", action="store_true", help="end with one JSON line of results")
    parser.add_argument("--model", metavar="DIR", help="model directory for the server")
    parser.add_argument(
        "--soak", action="store_true", help="the long run: many edits over many documents"
    )
    parser.add_argument(
        "--edits", type=int, default=100_000, help="--soak: keystrokes in all (default: 100,000)"
    )
    parser.add_argument(
        "--docs",
        type=int,
        help="open documents: with --soak, how many the edits go round (default: 20); "
        "alone, the many-documents run: open N, type into each, then measure the first",
    )
    parser.add_argument(
        "--burst", type=int, default=0, metavar="N", help="send N completion requests at once"
    )
    parser.add_argument(
        "--settings",
        metavar="JSON",
        default="{}",
        help="initializationOptions for the server, e.g. '{\"throttleMs\": 25}'",
    )


class Connection:
    """A synchronous JSON-RPC client over a server process' stdin and stdout."""

    def __init__(self, proc: subprocess.Popen[bytes]):
        self.proc = proc
        self.converter = get_converter()
        self._next_id = 0
        assert proc.stdin is not None and proc.stdout is not None
        self._out: IO[bytes] = proc.stdin
        self._in: IO[bytes] = proc.stdout

    def encode(self, method: str, params: Any, *, request: bool) -> tuple[int | None, bytes]:
        """A framed message, built before the clock starts."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        msg_id = None
        if request:
            self._next_id += 1
            msg_id = message["id"] = self._next_id
        message["params"] = self.converter.unstructure(params)
        body = json.dumps(message, separators=(",", ":")).encode("utf-8")
        return msg_id, b"Content-Length: %d\r\n\r\n%s" % (len(body), body)

    def write(self, data: bytes) -> None:
        self._out.write(data)
        self._out.flush()

    def read(self) -> dict[str, Any]:
        length = 0
        while True:
            line = self._in.readline()
            if not line:
                raise CommandError("the server closed the connection")
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return json.loads(self._in.read(length))

    def wait(self, msg_id: int) -> Any:
        """Read until the response to `msg_id`; answer server requests with null."""
        while True:
            message = self.read()
            if message.get("id") == msg_id and "method" not in message:
                if "error" in message:
                    raise CommandError(f"server error: {message['error'].get('message')}")
                return message.get("result")
            if "method" in message and "id" in message:
                reply = {"jsonrpc": "2.0", "id": message["id"], "result": None}
                body = json.dumps(reply).encode()
                self.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def request(self, method: str, params: Any) -> Any:
        msg_id, data = self.encode(method, params, request=True)
        self.write(data)
        assert msg_id is not None
        return self.wait(msg_id)

    def notify(self, method: str, params: Any) -> None:
        self.write(self.encode(method, params, request=False)[1])

    def keystroke(
        self,
        uri: str,
        version: int,
        change: types.TextDocumentContentChangePartial,
        cursor: types.Position,
    ) -> tuple[int, bytes]:
        """One key as an editor sends it: the didChange, then a completion request at
        the new cursor; framed together, to write at once. Returns (request id, bytes)."""
        _, edit = self.encode(
            types.TEXT_DOCUMENT_DID_CHANGE,
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]
            ),
            request=False,
        )
        msg_id, ask = self.encode(
            types.TEXT_DOCUMENT_COMPLETION,
            types.CompletionParams(types.TextDocumentIdentifier(uri=uri), cursor),
            request=True,
        )
        assert msg_id is not None
        return msg_id, edit + ask

    def until_words(self, uri: str, position: types.Position, deadline: float) -> None:
        """Ask at `position` until the server answers with words (the model is loaded)."""
        doc = types.TextDocumentIdentifier(uri=uri)
        while True:
            result = self.request(
                types.TEXT_DOCUMENT_COMPLETION, types.CompletionParams(doc, position)
            )
            if result and result.get("items"):
                return
            if time.perf_counter() > deadline:
                raise CommandError(f"no completion within {COLD_START_TIMEOUT_S:g} s of start")
            time.sleep(0.005)

    def shut_down(self) -> int:
        """shutdown, then exit; the server's exit code."""
        self.request(types.SHUTDOWN, None)
        self.notify(types.EXIT, None)
        return self.proc.wait(timeout=10)


def _advance(pos: types.Position, ch: str) -> types.Position:
    if ch == "\n":
        return types.Position(pos.line + 1, 0)
    return types.Position(pos.line, pos.character + (2 if ord(ch) > 0xFFFF else 1))


def _rss_mb(pid: int, field: str = "VmHWM") -> float | None:
    """A memory figure of a process from /proc (VmHWM: peak RSS, VmRSS: RSS now)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def _spawn(model: str | None) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "nextword", "serve"]
    if model:
        cmd += ["--model", model]
    return subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )


@contextlib.contextmanager
def _served(model: str | None, settings: dict[str, Any]) -> Iterator[Connection]:
    """A fresh server, initialized; killed on the way out unless it has exited."""
    proc = _spawn(model)
    try:
        conn = Connection(proc)
        _initialize(conn, settings)
        yield conn
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _initialize(conn: Connection, settings: dict[str, Any]) -> None:
    conn.request(
        types.INITIALIZE,
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            process_id=None,
            initialization_options=settings,
        ),
    )
    conn.notify(types.INITIALIZED, types.InitializedParams())


def _open(conn: Connection, uri: str) -> None:
    conn.notify(
        types.TEXT_DOCUMENT_DID_OPEN,
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="plaintext", version=0, text="")
        ),
    )


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def replay(text: str, rate: float, settings: dict[str, Any], model: str | None) -> dict[str, Any]:
    """Spawn a server, type `text` into it and measure; returns the figures."""
    started = time.perf_counter()
    with _served(model, settings) as conn:
        _open(conn, URI)
        # Cold start: ask at the document start until the model answers with words.
        start = types.Position(0, 0)
        conn.until_words(URI, start, started + COLD_START_TIMEOUT_S)
        cold_start = time.perf_counter() - started

        latencies: dict[str, list[float]] = {"boundary": [], "inword": []}
        empty = 0
        pos = start
        keys_started = time.perf_counter()
        progress = Progress(len(text), "keys typed")
        for i, ch in enumerate(text):
            progress.update(i)
            after = _advance(pos, ch)
            change = types.TextDocumentContentChangePartial(range=types.Range(pos, pos), text=ch)
            msg_id, data = conn.keystroke(URI, i + 1, change, after)
            if rate > 0:
                time.sleep(max(0.0, keys_started + i / rate - time.perf_counter()))
            t0 = time.perf_counter()
            conn.write(data)
            result = conn.wait(msg_id)
            ms = (time.perf_counter() - t0) * 1000
            _, prefix = split_prefix(text[: i + 1])
            latencies["inword" if prefix and len(prefix) > 1 else "boundary"].append(ms)
            empty += not (result and result.get("items"))
            pos = after
        typing_s = time.perf_counter() - keys_started

        stats = conn.request("nextword/stats", None)
        rss = _rss_mb(conn.proc.pid)
        exit_code = conn.shut_down()

    every = sorted(latencies["boundary"] + latencies["inword"])
    overall = stats["overall"]

    return {
        "keys": len(text),
        "rate_keys_per_s": rate,
        "typing_s": round(typing_s, 2),
        "round_trip_ms": summary(every),
        "round_trip_ms_boundary": summary(latencies["boundary"]),
        "round_trip_ms_inword": summary(latencies["inword"]),
        "max_ms": round(every[-1], 3) if every else 0.0,
        "empty_answers": empty,
        "decisions_run": overall["decisionsRun"],
        "decisions_skipped": overall["decisionsSkipped"],
        "throttle_waits": overall["throttleWaits"],
        "cache_hits": overall["cacheHits"],
        "server_latency_ms": overall["latencyMs"],
        "peak_rss_mb": round(rss, 1) if rss is not None else None,
        "cold_start_s": round(cold_start, 3),
        "exit_code": exit_code,
        "settings": settings,
    }


def run(args: argparse.Namespace) -> int:
    try:
        text = args.text.read_text(encoding="utf-8")
    except OSError as err:
        raise CommandError(f"cannot read {args.text}: {err.strerror}") from None
    try:
        settings = json.loads(args.settings)
    except json.JSONDecodeError as err:
        raise CommandError(f"--settings is not valid JSON: {err}") from None
    if args.rate < 0:
        raise CommandError("--rate must be 0 (flat out) or a positive number of keys per second")
    # The replay writes \n line ends; a CRLF fixture would be typed as two keys per break.
    text = text.replace("\r\n", "\n")
    if args.soak:
        return run_soak(args, text, settings)
    if args.burst:
        return run_burst(args, text, settings)
    if args.docs is not None:
        return run_many(args, text, settings)
    figures = replay(text, args.rate, settings, args.model)
    rt = figures["round_trip_ms"]
    rate = "flat out" if args.rate == 0 else f"{args.rate:g} keys/s"
    print(f"typed {figures['keys']} keys at {rate} in {figures['typing_s']} s")
    print(
        f"completion round trip: p50 {rt['p50']:.2f} ms  p95 {rt['p95']:.2f} ms  "
        f"p99 {rt['p99']:.2f} ms  max {figures['max_ms']:.1f} ms"
    )
    for part in ("boundary", "inword"):
        p = figures[f"round_trip_ms_{part}"]
        print(f"  {part:8s}  p50 {p['p50']:.2f}  p95 {p['p95']:.2f}  p99 {p['p99']:.2f} ms")
    print(
        f"decisions run {figures['decisions_run']}, skipped by the throttle "
        f"{figures['decisions_skipped']}, throttle waits {figures['throttle_waits']}, "
        f"cache hits {figures['cache_hits']}, empty answers {figures['empty_answers']}"
    )
    print(f"peak RSS {figures['peak_rss_mb']} MB, cold start {figures['cold_start_s']:.2f} s")
    if args.json:
        print(json.dumps(figures))
    return 0


def soak(
    text: str, edits: int, docs: int, settings: dict[str, Any], model: str | None
) -> dict[str, Any]:
    """Type `edits` keys round-robin into `docs` documents, flat out; returns the figures."""
    uris = [f"file:///nextword-soak/doc{i}.txt" for i in range(docs)]
    # Each document holds one line (the typed text has its breaks made spaces), so a
    # position is (0, UTF-16 length) and the client's copy is a plain string.
    held = {uri: "" for uri in uris}
    versions = {uri: 0 for uri in uris}
    cursors = {uri: i * 97 for i, uri in enumerate(uris)}  # where each one reads the text
    text = " ".join(text.split()) + " "
    latencies: list[float] = []
    warm_rss = None
    empty = 0
    with _served(model, settings) as conn:
        for uri in uris:
            _open(conn, uri)
        started = time.perf_counter()
        progress = Progress(edits, "edits")
        for n in range(edits):
            progress.update(n)
            uri = uris[n % docs]
            body = held[uri]
            end = types.Position(0, _utf16_len(body))
            # Now and then a backspace (a deleted character), as typists do.
            if body and n % 37 == 0:
                start = types.Position(0, end.character - _utf16_len(body[-1]))
                change = types.TextDocumentContentChangePartial(types.Range(start, end), "")
                held[uri] = body[:-1]
            else:
                ch = text[cursors[uri] % len(text)]
                cursors[uri] += 1
                change = types.TextDocumentContentChangePartial(types.Range(end, end), ch)
                held[uri] = body + ch
            versions[uri] += 1
            cursor = types.Position(0, _utf16_len(held[uri]))
            msg_id, data = conn.keystroke(uri, versions[uri], change, cursor)
            t0 = time.perf_counter()
            conn.write(data)
            result = conn.wait(msg_id)
            latencies.append((time.perf_counter() - t0) * 1000)
            empty += not (result and result.get("items"))
            if n + 1 == max(1, edits // 10):
                warm_rss = _rss_mb(conn.proc.pid, "VmRSS")
        seconds = time.perf_counter() - started
        end_rss = _rss_mb(conn.proc.pid, "VmRSS")
        drift = []
        for uri in uris:
            answer = conn.request("nextword/documentChecksum", {"uri": uri})
            want = hashlib.sha256(held[uri].encode("utf-8")).hexdigest()
            if answer["sha256"] != want:
                drift.append(uri)
        exit_code = conn.shut_down()

    tenth = max(1, edits // 10)
    first, last = sorted(latencies[:tenth]), sorted(latencies[-tenth:])
    p99_first, p99_last = percentile(first, 99), percentile(last, 99)
    return {
        "edits": edits,
        "documents": docs,
        "seconds": round(seconds, 1),
        "rss_after_warmup_mb": round(warm_rss, 1) if warm_rss else None,
        "rss_end_mb": round(end_rss, 1) if end_rss else None,
        "rss_growth_pct": round(100 * (end_rss / warm_rss - 1), 1)
        if warm_rss and end_rss
        else None,
        "p99_first_tenth_ms": round(p99_first, 3),
        "p99_last_tenth_ms": round(p99_last, 3),
        "p99_ratio": round(p99_last / p99_first, 3) if p99_first else None,
        "p50_ms": round(percentile(latencies, 50), 3),
        "empty_answers": empty,
        "documents_drifted": drift,
        "exit_code": exit_code,
        "settings": settings,
    }


class Progress:
    """A line on stderr at every tenth of a long run, so a bench is never silent."""

    def __init__(self, total: int, what: str):
        self.total, self.what, self.shown = max(1, total), what, 0
        self.started = time.perf_counter()

    def update(self, done: int) -> None:
        tenth = done * 10 // self.total
        if tenth > self.shown:
            self.shown = tenth
            elapsed = time.perf_counter() - self.started
            print(
                f"  {self.what}: {done:,}/{self.total:,} ({tenth * 10}%, {elapsed:.0f} s)",
                file=sys.stderr,
                flush=True,
            )


def _type_line(
    conn: Connection, uri: str, held: dict[str, str], versions: dict[str, int], text: str,
    rate: float,
) -> tuple[list[float], int]:  # fmt: skip
    """Type `text` at the end of a one-line document, a completion per key; the round
    trips, and how many answers had words."""
    latencies, with_words = [], 0
    started = time.perf_counter()
    for i, ch in enumerate(text):
        end = types.Position(0, _utf16_len(held[uri]))
        change = types.TextDocumentContentChangePartial(types.Range(end, end), ch)
        held[uri] += ch
        versions[uri] += 1
        cursor = types.Position(0, _utf16_len(held[uri]))
        msg_id, data = conn.keystroke(uri, versions[uri], change, cursor)
        if rate > 0:
            time.sleep(max(0.0, started + i / rate - time.perf_counter()))
        t0 = time.perf_counter()
        conn.write(data)
        result = conn.wait(msg_id)
        latencies.append((time.perf_counter() - t0) * 1000)
        with_words += bool(result and result.get("items"))
    return latencies, with_words


# Keys typed into each of the many documents, and into the active one before and after.
KEYS_PER_DOCUMENT = 40
ACTIVE_KEYS = 200


def many_documents(
    text: str, docs: int, rate: float, settings: dict[str, Any], model: str | None
) -> dict[str, Any]:
    """Open `docs` documents and type into each; the active one's latency before and after."""
    uris = [f"file:///nextword-many/doc{i}.txt" for i in range(docs)]
    held = {uri: "" for uri in uris}
    versions = {uri: 0 for uri in uris}
    words = " ".join(text.split()) + " "
    active = words[:ACTIVE_KEYS]
    started = time.perf_counter()
    with _served(model, settings) as conn:
        _open(conn, uris[0])
        conn.until_words(uris[0], types.Position(0, 0), started + COLD_START_TIMEOUT_S)
        before, _ = _type_line(conn, uris[0], held, versions, active, rate)
        rss_one = _rss_mb(conn.proc.pid, "VmRSS")
        progress = Progress(docs - 1, "documents opened and typed into")
        for n, uri in enumerate(uris[1:], 1):
            _open(conn, uri)
            at = (n * 131) % (len(words) - KEYS_PER_DOCUMENT)
            _type_line(conn, uri, held, versions, words[at : at + KEYS_PER_DOCUMENT], 0)
            progress.update(n)
        rss_many = _rss_mb(conn.proc.pid, "VmRSS")
        again = words[ACTIVE_KEYS:][:ACTIVE_KEYS]
        after, words_after = _type_line(conn, uris[0], held, versions, again, rate)
        stats = conn.request("nextword/stats", None)
        peak = _rss_mb(conn.proc.pid)
        exit_code = conn.shut_down()

    return {
        "documents": docs,
        "keys_per_document": KEYS_PER_DOCUMENT,
        "rss_one_document_mb": round(rss_one, 1) if rss_one else None,
        "rss_all_documents_mb": round(rss_many, 1) if rss_many else None,
        "peak_rss_mb": round(peak, 1) if peak else None,
        "live_deciders": stats["liveDeciders"],
        "deciders_released": stats["overall"]["decidersReleased"],
        "active_round_trip_ms_before": summary(before),
        "active_round_trip_ms_after": summary(after),
        "active_answers_with_words_after": words_after,
        "rate_keys_per_s": rate,
        "seconds": round(time.perf_counter() - started, 1),
        "exit_code": exit_code,
    }


def run_many(args: argparse.Namespace, text: str, settings: dict[str, Any]) -> int:
    if args.docs < 2:
        raise CommandError("--docs needs at least 2 documents")
    f = many_documents(text, args.docs, args.rate, settings, args.model)
    print(
        f"{f['documents']} documents, {f['keys_per_document']} keys typed into each: RSS "
        f"{f['rss_one_document_mb']} MB with one, {f['rss_all_documents_mb']} MB with all, "
        f"peak {f['peak_rss_mb']} MB; {f['live_deciders']} documents hold engine state "
        f"({f['deciders_released']} released)"
    )
    for when in ("before", "after"):
        p = f[f"active_round_trip_ms_{when}"]
        print(
            f"active document, {when} the others: p50 {p['p50']:.2f}  p95 {p['p95']:.2f}  "
            f"p99 {p['p99']:.2f} ms"
        )
    if args.json:
        print(json.dumps(f))
    return 0 if f["exit_code"] == 0 else 1


def run_soak(args: argparse.Namespace, text: str, settings: dict[str, Any]) -> int:
    docs = 20 if args.docs is None else args.docs
    if args.edits < 10 or docs < 1:
        raise CommandError("--soak needs --edits >= 10 and --docs >= 1")
    f = soak(text, args.edits, docs, settings, args.model)
    print(f"soak: {f['edits']:,} edits over {f['documents']} documents in {f['seconds']} s")
    print(
        f"RSS after warm-up {f['rss_after_warmup_mb']} MB, at the end {f['rss_end_mb']} MB "
        f"(growth {f['rss_growth_pct']}%)"
    )
    print(
        f"round trip p99: first tenth {f['p99_first_tenth_ms']:.2f} ms, last tenth "
        f"{f['p99_last_tenth_ms']:.2f} ms (ratio {f['p99_ratio']}); p50 {f['p50_ms']:.2f} ms"
    )
    print(f"documents drifted: {len(f['documents_drifted'])}, exit code {f['exit_code']}")
    if args.json:
        print(json.dumps(f))
    return 0 if not f["documents_drifted"] and f["exit_code"] == 0 else 1


def burst(text: str, n: int, settings: dict[str, Any], model: str | None) -> dict[str, Any]:
    """Type a sentence, then send `n` keystrokes with a completion each, unanswered."""
    uri = "file:///nextword-burst/doc.txt"
    text = " ".join(text.split()) + " "
    with _served(model, settings) as conn:
        _open(conn, uri)
        held, version = "", 0

        def key(ch: str) -> tuple[int, bytes]:
            nonlocal held, version
            at = types.Position(0, _utf16_len(held))
            held += ch
            version += 1
            change = types.TextDocumentContentChangePartial(types.Range(at, at), ch)
            return conn.keystroke(uri, version, change, types.Position(0, _utf16_len(held)))

        # Warm up: the first sentence typed and answered key by key, until the model
        # is loaded and answers with words.
        for ch in text[: text.index(".") + 2]:
            msg_id, data = key(ch)
            conn.write(data)
            conn.wait(msg_id)
        cursor = types.Position(0, _utf16_len(held))
        conn.until_words(uri, cursor, time.perf_counter() + COLD_START_TIMEOUT_S)
        rss_before = _rss_mb(conn.proc.pid, "VmRSS")
        messages = [key(text[i % len(text)]) for i in range(len(held), len(held) + n)]
        last_id = messages[-1][0]
        last_sent = 0.0

        def write_all() -> None:
            # From a thread: the server's answers must be read while the burst is
            # written, or both pipes fill and each side waits on the other.
            nonlocal last_sent
            for msg_id, data in messages:
                if msg_id == last_id:
                    last_sent = time.perf_counter()
                conn.write(data)

        started = time.perf_counter()
        writer = threading.Thread(target=write_all)
        writer.start()
        answers: dict[int, Any] = {}
        newest_ms = None
        while len(answers) < n:
            message = conn.read()
            if "id" in message and "method" not in message:
                answers[message["id"]] = message
                if message["id"] == last_id:
                    newest_ms = (time.perf_counter() - last_sent) * 1000
        seconds = time.perf_counter() - started
        writer.join()
        rss_after = _rss_mb(conn.proc.pid, "VmRSS")
        errors = sum(1 for a in answers.values() if "error" in a)
        empty = sum(1 for a in answers.values() if not (a.get("result") or {}).get("items"))
        newest = answers[last_id].get("result") or {}
        stats = conn.request("nextword/stats", None)["overall"]
        exit_code = conn.shut_down()
    return {
        "requests": n,
        "answered": len(answers),
        "errors": errors,
        "answered_empty": empty,
        "newest_items": [item["label"] for item in newest.get("items", [])],
        "newest_ms": round(newest_ms, 3) if newest_ms is not None else None,
        # The server's own time for the newest: from reading it to answering it.
        "newest_server_ms": stats["lastLatencyMs"],
        "burst_seconds": round(seconds, 3),
        "rss_before_mb": rss_before,
        "rss_after_mb": rss_after,
        "superseded": stats["superseded"],
        "decisions_run": stats["decisionsRun"],
        "exit_code": exit_code,
    }


def run_burst(args: argparse.Namespace, text: str, settings: dict[str, Any]) -> int:
    f = burst(text, args.burst, settings, args.model)
    print(
        f"burst: {f['requests']} completion requests, {f['answered']} answered "
        f"({f['answered_empty']} empty: superseded; {f['errors']} errors) in "
        f"{f['burst_seconds']} s"
    )
    print(
        f"newest answered {f['newest_ms']:.2f} ms after it was sent, "
        f"{f['newest_server_ms']:.2f} ms after the server read it: {f['newest_items']}"
    )
    print(f"RSS before {f['rss_before_mb']} MB, after {f['rss_after_mb']} MB")
    if args.json:
        print(json.dumps(f))
    return 0 if f["answered"] == f["requests"] and not f["errors"] else 1
