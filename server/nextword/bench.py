"""`nextword bench`: replay typing against a freshly spawned server, as an editor would.

Over a real stdio JSON-RPC connection: one didChange per key, then a completion
request at the new cursor, at a steady rate (or flat out with `--rate 0`). Reports
the completion round trip (p50/p95/p99, see ../shared/EVAL.md "Editor latency"), the
server's own counters (nextword/stats), its peak RSS (VmHWM) and the cold start:
process start to the first completion with items.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from nextword.cli import CommandError
from nextword.lsp.stats import percentile
from nextword.words import split_prefix

DEFAULT_TEXT = Path(__file__).resolve().parents[2] / "fixtures" / "bench" / "typing.txt"
URI = "file:///nextword-bench/typing.txt"
COLD_START_TIMEOUT_S = 60.0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--text", type=Path, default=DEFAULT_TEXT, help="the text to type")
    parser.add_argument(
        "--rate", type=float, default=10.0, help="keys per second (0: flat out, no pauses)"
    )
    parser.add_argument("--json", action="store_true", help="end with one JSON line of results")
    parser.add_argument("--model", metavar="DIR", help="model directory for the server")
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


def _advance(pos: types.Position, ch: str) -> types.Position:
    if ch == "\n":
        return types.Position(pos.line + 1, 0)
    return types.Position(pos.line, pos.character + (2 if ord(ch) > 0xFFFF else 1))


def _peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def replay(text: str, rate: float, settings: dict[str, Any], model: str | None) -> dict[str, Any]:
    """Spawn a server, type `text` into it and measure; returns the figures."""
    cmd = [sys.executable, "-m", "nextword", "serve"]
    if model:
        cmd += ["--model", model]
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    conn = Connection(proc)
    try:
        conn.request(
            types.INITIALIZE,
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                process_id=None,
                initialization_options=settings,
            ),
        )
        conn.notify(types.INITIALIZED, types.InitializedParams())
        doc = types.TextDocumentIdentifier(uri=URI)
        conn.notify(
            types.TEXT_DOCUMENT_DID_OPEN,
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=URI, language_id="plaintext", version=0, text="")
            ),
        )
        # Cold start: ask at the document start until the model answers with words.
        start = types.Position(0, 0)
        while True:
            result = conn.request(
                types.TEXT_DOCUMENT_COMPLETION, types.CompletionParams(doc, start)
            )
            if result and result.get("items"):
                break
            if time.perf_counter() - started > COLD_START_TIMEOUT_S:
                raise CommandError("no completion within 60 s of start")
            time.sleep(0.005)
        cold_start = time.perf_counter() - started

        latencies: dict[str, list[float]] = {"boundary": [], "inword": []}
        empty = 0
        pos = start
        keys_started = time.perf_counter()
        for i, ch in enumerate(text):
            after = _advance(pos, ch)
            _, change = conn.encode(
                types.TEXT_DOCUMENT_DID_CHANGE,
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=i + 1),
                    content_changes=[
                        types.TextDocumentContentChangePartial(range=types.Range(pos, pos), text=ch)
                    ],
                ),
                request=False,
            )
            msg_id, ask = conn.encode(
                types.TEXT_DOCUMENT_COMPLETION,
                types.CompletionParams(doc, after),
                request=True,
            )
            assert msg_id is not None
            if rate > 0:
                time.sleep(max(0.0, keys_started + i / rate - time.perf_counter()))
            t0 = time.perf_counter()
            conn.write(change + ask)
            result = conn.wait(msg_id)
            ms = (time.perf_counter() - t0) * 1000
            _, prefix = split_prefix(text[: i + 1])
            latencies["inword" if prefix and len(prefix) > 1 else "boundary"].append(ms)
            empty += not (result and result.get("items"))
            pos = after
        typing_s = time.perf_counter() - keys_started

        stats = conn.request("nextword/stats", None)
        rss = _peak_rss_mb(proc.pid)
        conn.request(types.SHUTDOWN, None)
        conn.notify(types.EXIT, None)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    every = sorted(latencies["boundary"] + latencies["inword"])
    overall = stats["overall"]

    def pct(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {f"p{q}": round(percentile(ordered, q), 3) for q in (50, 95, 99)}

    return {
        "keys": len(text),
        "rate_keys_per_s": rate,
        "typing_s": round(typing_s, 2),
        "round_trip_ms": pct(every),
        "round_trip_ms_boundary": pct(latencies["boundary"]),
        "round_trip_ms_inword": pct(latencies["inword"]),
        "max_ms": round(every[-1], 3) if every else 0.0,
        "empty_answers": empty,
        "decisions_run": overall["decisionsRun"],
        "decisions_skipped": overall["decisionsSkipped"],
        "throttle_waits": overall["throttleWaits"],
        "cache_hits": overall["cacheHits"],
        "server_latency_ms": overall["latencyMs"],
        "peak_rss_mb": round(rss, 1) if rss is not None else None,
        "cold_start_s": round(cold_start, 3),
        "exit_code": proc.returncode,
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
