"""`nextword bench`: replay typing against a freshly spawned server, as an editor would.

Over a real stdio JSON-RPC connection: one didChange per key, then a completion
request at the new cursor, at a steady rate (or flat out with `--rate 0`). Reports
the completion round trip (p50/p95/p99, see docs/EVAL.md "Editor latency"), the
server's own counters (nextword/stats), its peak RSS (VmHWM), the cold start
(process start to the first completion with items) and the server's CPU time per
typed character (user + system, all its threads, from /proc).

`--inline` asks for ghost text at each key too, as VS Code does (the phrase search
runs for documents whose client asks for it). `--compare` types the text twice, into
two fresh servers: first with phrases and speculation off, then with the settings
given, and reports the two side by side: the share of boundaries decided ahead (by a
speculation or a phrase), their answer time against the model's boundary decision,
and the CPU time per character.

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
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lsprotocol import types

from nextword.engine.words import split_prefix
from nextword.errors import CommandError
from nextword.evaluation.lspclient import LspClient
from nextword.lsp.names import CHECKSUM_REQUEST, STATS_REQUEST
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
    parser.add_argument(
        "--inline", action="store_true", help="ask for ghost text at each key too, as VS Code does"
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="type twice: with phrases and speculation off, then with --settings; side by side",
    )


def _advance(pos: types.Position, ch: str) -> types.Position:
    if ch == "\n":
        return types.Position(pos.line + 1, 0)
    return types.Position(pos.line, pos.character + (2 if ord(ch) > 0xFFFF else 1))


def _cpu_s(pid: int) -> float | None:
    """A process's CPU time so far, user + system, all threads (/proc/PID/stat)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces: count the fields after its ")".
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int, field: str = "VmHWM") -> float | None:
    """A memory figure of a process from /proc (VmHWM: peak RSS, VmRSS: RSS now)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


@contextlib.contextmanager
def _served(model: str | None, settings: dict[str, Any]) -> Iterator[LspClient]:
    """A fresh server, initialized; killed on the way out unless it has exited."""
    with LspClient.spawn(*(["--model", model] if model else [])) as conn:
        conn.initialize(settings)
        yield conn


def _cold_start(conn: LspClient, uri: str, position: types.Position, deadline: float) -> None:
    """Ask at `position` until the server answers with words (the model is loaded)."""
    if not conn.until_words(uri, position, deadline):
        raise CommandError(f"no completion within {COLD_START_TIMEOUT_S:g} s of start")


def _round_trip(conn: LspClient, msg_id: int, data: bytes) -> tuple[float, Any]:
    """Write a framed keystroke (see `LspClient.keystroke`) and wait for its completion:
    (ms from the write until the answer was read, the result)."""
    t0 = time.perf_counter()
    conn.write(data)
    answer = conn.response(msg_id)
    return (answer.received - t0) * 1000, answer.value()


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _inline_request(conn: LspClient, position: types.Position) -> tuple[int, bytes]:
    return conn.frame_request(
        types.TEXT_DOCUMENT_INLINE_COMPLETION,
        types.InlineCompletionParams(
            context=types.InlineCompletionContext(
                trigger_kind=types.InlineCompletionTriggerKind.Automatic
            ),
            text_document=types.TextDocumentIdentifier(URI),
            position=position,
        ),
    )


def replay(
    text: str, rate: float, settings: dict[str, Any], model: str | None, *, inline: bool = False
) -> dict[str, Any]:
    """Spawn a server, type `text` into it and measure; returns the figures.

    Args:
        inline: ask for ghost text after each key too (written with its completion
            request, as VS Code sends both).
    """
    started = time.perf_counter()
    with _served(model, settings) as conn:
        conn.open_document(URI)
        # Cold start: ask at the document start until the model answers with words.
        start = types.Position(0, 0)
        _cold_start(conn, URI, start, started + COLD_START_TIMEOUT_S)
        cold_start = time.perf_counter() - started

        latencies: dict[str, list[float]] = {"boundary": [], "inword": []}
        # The round trip of each key that ends a word, by how the server decided that
        # boundary: its counters, asked after the answer, say whether it was ahead.
        by_source: dict[str, list[float]] = {"model": [], "speculation": [], "phrase": []}
        counted = {"decidedAhead": 0, "speculationHits": 0}
        ghost_ms: list[float] = []
        empty = phrases = 0
        pos = start
        cpu_before = _cpu_s(conn.proc.pid)
        keys_started = time.perf_counter()
        progress = Progress(len(text), "keys typed")
        for i, ch in enumerate(text):
            progress.update(i)
            after = _advance(pos, ch)
            change = types.TextDocumentContentChangePartial(range=types.Range(pos, pos), text=ch)
            msg_id, data = conn.keystroke(URI, i + 1, change, after)
            ghost_id = None
            if inline:
                ghost_id, ask = _inline_request(conn, after)
                data += ask
            if rate > 0:
                time.sleep(max(0.0, keys_started + i / rate - time.perf_counter()))
            sent = time.perf_counter()
            ms, result = _round_trip(conn, msg_id, data)
            _, prefix = split_prefix(text[: i + 1])
            latencies["inword" if prefix and len(prefix) > 1 else "boundary"].append(ms)
            empty += not (result and result.get("items"))
            if ghost_id is not None:
                answer = conn.response(ghost_id)
                ghost_ms.append((answer.received - sent) * 1000)
                items = (answer.value() or {}).get("items") or []
                phrases += bool(items) and " " in items[0]["insertText"]
            if not prefix:
                now = conn.request(STATS_REQUEST, None)["overall"]
                ahead, guessed = (now[name] - counted[name] for name in counted)
                counted = {name: now[name] for name in counted}
                source = "speculation" if guessed else "phrase" if ahead else "model"
                by_source[source].append(ms)
            pos = after
        typing_s = time.perf_counter() - keys_started
        cpu_after = _cpu_s(conn.proc.pid)

        stats = conn.request(STATS_REQUEST, None)
        rss = _rss_mb(conn.proc.pid)
        exit_code = conn.shutdown()

    every = sorted(latencies["boundary"] + latencies["inword"])
    overall = stats["overall"]
    cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    boundaries = overall["boundaries"]

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
        "boundaries": boundaries,
        "decided_ahead": overall["decidedAhead"],
        "speculation_hits": overall["speculationHits"],
        "speculations": overall["speculations"],
        "share_ahead": round(overall["decidedAhead"] / boundaries, 3) if boundaries else 0.0,
        "share_speculation": round(overall["speculationHits"] / boundaries, 3)
        if boundaries
        else 0.0,
        # The engine's own time for a boundary decision that ran the model, and the
        # server's time to answer the first completion at each boundary, by how the
        # boundary was decided (now by the model, or ahead by a speculation or a phrase).
        "decision_ms": overall["decisionMs"],
        "boundary_answer_ms": overall["boundaryLatencyMs"],
        "round_trip_ms_by_boundary": {
            source: {"count": len(ms), **summary(ms)} for source, ms in by_source.items() if ms
        },
        "inline": inline,
        "ghost_round_trip_ms": summary(ghost_ms) if inline else None,
        "ghost_phrases": phrases,
        "phrase_searches": overall["phraseSearches"],
        "cpu_ms_per_key": round(cpu * 1000 / len(text), 3) if cpu is not None and text else None,
        "peak_rss_mb": round(rss, 1) if rss is not None else None,
        "cold_start_s": round(cold_start, 3),
        "exit_code": exit_code,
        "settings": settings,
    }


# What --compare turns off for its first run.
OFF = {"speculate": False, "phraseWords": 0}


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
    runs = []
    if args.compare:
        runs.append(("speculation and phrases off", {**settings, **OFF}))
    runs.append(("" if not args.compare else "with the settings given", settings))
    results = []
    for title, chosen in runs:
        if title:
            print(f"-- {title}: {json.dumps(chosen)}")
        figures = replay(text, args.rate, chosen, args.model, inline=args.inline)
        _print_replay(figures, args.rate)
        results.append(figures)
    if args.compare:
        off, on = results
        ratio = (
            on["cpu_ms_per_key"] / off["cpu_ms_per_key"]
            if on["cpu_ms_per_key"] and off["cpu_ms_per_key"]
            else None
        )
        print(
            f"-- on against off: CPU per key x{ratio:.2f}" if ratio else "-- CPU time unknown",
            f"completion round trip p50 {off['round_trip_ms']['p50']:.2f} -> "
            f"{on['round_trip_ms']['p50']:.2f} ms, p99 {off['round_trip_ms']['p99']:.2f} -> "
            f"{on['round_trip_ms']['p99']:.2f} ms",
            sep="; ",
        )
    if args.json:
        both = {"off": results[0], "on": results[-1]}
        print(json.dumps(both if args.compare else results[-1]))
    return 0


def _print_replay(figures: dict[str, Any], rate: float) -> None:
    rt = figures["round_trip_ms"]
    shown = "flat out" if rate == 0 else f"{rate:g} keys/s"
    print(f"typed {figures['keys']} keys at {shown} in {figures['typing_s']} s")
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
    decision = figures["decision_ms"]
    print(
        f"boundaries {figures['boundaries']}: decided ahead {figures['decided_ahead']} "
        f"({figures['share_ahead']:.0%}), by a speculation {figures['speculation_hits']} "
        f"({figures['share_speculation']:.0%}; {figures['speculations']} speculations run); "
        f"model decision p50 {decision['p50']:.2f} ms, p95 {decision['p95']:.2f} ms"
    )
    for source, p in sorted(figures["round_trip_ms_by_boundary"].items()):
        served = figures["boundary_answer_ms"].get(source, {})
        print(
            f"  the key ending a word, its boundary decided by {source:11s} ({p['count']}): "
            f"round trip p50 {p['p50']:.2f}  p95 {p['p95']:.2f}  p99 {p['p99']:.2f} ms; "
            f"in the server p50 {served.get('p50', 0):.2f} ms"
        )
    if figures["inline"]:
        g = figures["ghost_round_trip_ms"]
        print(
            f"ghost text: {figures['ghost_phrases']} phrases shown, "
            f"{figures['phrase_searches']} searched; its round trip "
            f"p50 {g['p50']:.2f}  p95 {g['p95']:.2f}  p99 {g['p99']:.2f} ms"
        )
    print(
        f"server CPU {figures['cpu_ms_per_key']} ms per typed character; "
        f"peak RSS {figures['peak_rss_mb']} MB, cold start {figures['cold_start_s']:.2f} s"
    )


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
            conn.open_document(uri)
        # A soak measures a loaded server: keys typed while the model loads are answered
        # empty, and on a busy machine the load outlasts the whole flat-out run.
        loading = time.perf_counter()
        _cold_start(conn, uris[0], types.Position(0, 0), loading + COLD_START_TIMEOUT_S)
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
            ms, result = _round_trip(conn, msg_id, data)
            latencies.append(ms)
            empty += not (result and result.get("items"))
            if n + 1 == max(1, edits // 10):
                warm_rss = _rss_mb(conn.proc.pid, "VmRSS")
        seconds = time.perf_counter() - started
        end_rss = _rss_mb(conn.proc.pid, "VmRSS")
        drift = []
        for uri in uris:
            answer = conn.request(CHECKSUM_REQUEST, {"uri": uri})
            want = hashlib.sha256(held[uri].encode("utf-8")).hexdigest()
            if answer["sha256"] != want:
                drift.append(uri)
        exit_code = conn.shutdown()

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
    conn: LspClient, uri: str, held: dict[str, str], versions: dict[str, int], text: str,
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
        ms, result = _round_trip(conn, msg_id, data)
        latencies.append(ms)
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
        conn.open_document(uris[0])
        _cold_start(conn, uris[0], types.Position(0, 0), started + COLD_START_TIMEOUT_S)
        before, _ = _type_line(conn, uris[0], held, versions, active, rate)
        rss_one = _rss_mb(conn.proc.pid, "VmRSS")
        progress = Progress(docs - 1, "documents opened and typed into")
        for n, uri in enumerate(uris[1:], 1):
            conn.open_document(uri)
            at = (n * 131) % (len(words) - KEYS_PER_DOCUMENT)
            _type_line(conn, uri, held, versions, words[at : at + KEYS_PER_DOCUMENT], 0)
            progress.update(n)
        rss_many = _rss_mb(conn.proc.pid, "VmRSS")
        again = words[ACTIVE_KEYS:][:ACTIVE_KEYS]
        after, words_after = _type_line(conn, uris[0], held, versions, again, rate)
        stats = conn.request(STATS_REQUEST, None)
        peak = _rss_mb(conn.proc.pid)
        exit_code = conn.shutdown()

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
        conn.open_document(uri)
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
            conn.response(msg_id).value()
        cursor = types.Position(0, _utf16_len(held))
        _cold_start(conn, uri, cursor, time.perf_counter() + COLD_START_TIMEOUT_S)
        rss_before = _rss_mb(conn.proc.pid, "VmRSS")
        messages = [key(text[i % len(text)]) for i in range(len(held), len(held) + n)]
        last_id = messages[-1][0]
        last_sent = 0.0

        # Written flat out, unanswered: the client's reader takes the answers meanwhile.
        started = time.perf_counter()
        for msg_id, data in messages:
            if msg_id == last_id:
                last_sent = time.perf_counter()
            conn.write(data)
        answers = {msg_id: conn.response(msg_id, timeout=None) for msg_id, _ in messages}
        seconds = max(a.received for a in answers.values()) - started
        rss_after = _rss_mb(conn.proc.pid, "VmRSS")
        errors = sum(1 for a in answers.values() if a.error is not None)
        empty = sum(1 for a in answers.values() if not (a.result or {}).get("items"))
        newest_ms = (answers[last_id].received - last_sent) * 1000
        newest = answers[last_id].result or {}
        stats = conn.request(STATS_REQUEST, None)["overall"]
        exit_code = conn.shutdown()
    return {
        "requests": n,
        "answered": len(answers),
        "errors": errors,
        "answered_empty": empty,
        "newest_items": [item["label"] for item in newest.get("items", [])],
        "newest_ms": round(newest_ms, 3),
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
