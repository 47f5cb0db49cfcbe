"""Privacy and no-network guarantees (README "Privacy"), checked on the real server.

Each test spawns `nextword serve` (or `nextword predict`) with the bundled model and
drives it over a raw JSON-RPC connection (the benchmark's client), the way an editor
does: one didChange per keystroke, then a completion request.

- Document text never reaches a log below `trace`: a marker string is typed, sent
  through pygls' error paths, and looked for in the log file, stderr and every
  window/logMessage and window/showMessage.
- The server writes nothing outside its log file and the user's data directory:
  every file-writing system call, seen by strace.
- The server opens no network socket except its own `--tcp` listener: it serves and
  `predict` answers inside a network namespace with no interfaces (`unshare -n`),
  and strace sees no socket, bind or connect beyond asyncio's in-process socketpair.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from helpers import SERVER as SERVE
from nextword.engine.words import is_word
from nextword.evaluation.lspclient import LspClient, ResponseError

MARKER = "Zqxmarker7731"
URI = "file:///tmp/nextword-privacy/notes.txt"
READY_TIMEOUT_S = 60.0


def require(tool: str) -> str:
    """These checks must run wherever the suite runs: a missing tool fails, never skips."""
    path = shutil.which(tool)
    assert path, f"`{tool}` is not installed (scripts/test installs it)"
    return path


def require_unshare() -> None:
    require("unshare")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, text=True)
    assert probe.returncode == 0, (
        "`unshare -n` (a network namespace with no interfaces) does not work here; "
        f"the no-network test needs it (run as root): {probe.stderr.strip()}"
    )


# --------------------------------------------------------------------------- the client


class Client(LspClient):
    """The benchmark's JSON-RPC client, typing into one document. What the server
    shows or logs to the client (window/logMessage, window/showMessage) is in `window`."""

    def __init__(self, proc: subprocess.Popen[bytes], **streams: Any):
        super().__init__(proc, **streams)
        self.text = ""
        self.version = 0

    def start(self, options: dict[str, Any], text: str) -> None:
        """Initialize, open the document with `text`, wait for the model's first words."""
        self.initialize(options)
        self.text = text
        self.open_document(URI, text)
        deadline = time.perf_counter() + READY_TIMEOUT_S
        assert self.until_words(URI, self.end(), deadline), "the model never became ready"

    def end(self) -> types.Position:
        return types.Position(0, len(self.text))  # one line of ASCII

    def complete(self) -> list[str]:
        """Labels offered at the end of the document."""
        return self.labels(URI, self.end())

    def type(self, text: str) -> list[str]:
        """One didChange per key, each followed by a completion; the last labels."""
        labels: list[str] = []
        for ch in text:
            end = {"line": 0, "character": len(self.text)}
            self.version += 1
            self.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": URI, "version": self.version},
                    "contentChanges": [{"range": {"start": end, "end": end}, "text": ch}],
                },
            )
            self.text += ch
            labels = self.complete()
        return labels


@contextlib.contextmanager
def served(cmd: list[str], tmp_path: Path, **popen: Any) -> Iterator[Client]:
    """Run `cmd` (a server on stdio) with stderr to tmp_path/stderr.txt; never leave it."""
    with open(tmp_path / "stderr.txt", "wb") as stderr:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,  # one process group: unshare, strace and the server
            **popen,
        )
    try:
        yield Client(proc)
    finally:
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        for pipe in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()  # type: ignore[union-attr]


# ------------------------------------------------------------------- text never logged


def marker_session(tmp_path: Path, level: str) -> tuple[str, str, str]:
    """Type the marker and push it through pygls' error paths at `level`.

    Returns what could hold a log line: the log file, stderr, and the client's
    window/logMessage and window/showMessage notifications (as JSON).
    """
    log_file = tmp_path / "server.log"
    with served([*SERVE, "--log-file", str(log_file)], tmp_path) as client:
        client.start(
            {"logLevel": level, "throttleMs": 0}, f"Notes on {MARKER}: the cat sat on the "
        )
        client.type(f"mat. Then {MARKER} and {MARKER} went to the ")

        # A request whose params cannot be deserialized: pygls logs the traceback,
        # which carries the bad value. (pygls alone would never answer it: no waiting.)
        client.send(
            {
                "jsonrpc": "2.0",
                "id": "bad-params",
                "method": "textDocument/completion",
                "params": {
                    "textDocument": {"uri": 5, "text": MARKER},
                    "position": {"line": MARKER, "character": 0},
                },
            }
        )
        # A notification likewise, an unknown request and notification, an edit to a
        # document that is not open, and a body that is not JSON.
        client.send(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": URI, "version": MARKER},
                    "contentChanges": [{"text": MARKER}],
                },
            }
        )
        with pytest.raises(ResponseError, match="Method Not Found"):
            client.request("nextword/noSuchMethod", {"text": MARKER})
        client.notify("nextword/noSuchNotification", {"text": MARKER})
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": URI + ".unopened", "version": 1},
                "contentChanges": [{"text": f"a {MARKER} b"}],
            },
        )
        client.send_raw(
            b'{"jsonrpc": "2.0", "method": "x", "params": {"text": "%s" ' % MARKER.encode()
        )

        # Still serving, and every message above has been read by now.
        assert client.type("x")
        assert client.shutdown() == 0
    stderr = (tmp_path / "stderr.txt").read_text(errors="replace")
    return log_file.read_text(errors="replace"), stderr, json.dumps(client.window)


def test_document_text_is_never_logged_below_trace(tmp_path: Path) -> None:
    log, stderr, window = marker_session(tmp_path, "debug")
    # The error paths ran (so pygls had params and tracebacks to log) ...
    assert "Unable to deserialize message" in log
    assert "JSONDecodeError" in log
    # ... and the marker reached none of the logs.
    assert MARKER not in log, "document text in the log file"
    assert MARKER not in stderr, "document text on stderr"
    assert MARKER not in window, "document text in window/logMessage or window/showMessage"


def test_trace_level_does_log_document_text(tmp_path: Path) -> None:
    """The check above can fail: at `trace` the same session logs the text."""
    log, _, _ = marker_session(tmp_path, "trace")
    assert MARKER in log


# ----------------------------------------------------------------- writes to disk


# strace's rendering of one call: pid, name, arguments (to the end of the line).
CALL = re.compile(r"^(?:\d+\s+)?(?P<name>\w+)\((?P<args>.*)$")
QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
DIRFD = re.compile(r"^(?:-?\d+|AT_FDCWD)<([^>]*)>")
WRITE_FLAGS = re.compile(r"\bO_(?:WRONLY|RDWR|CREAT)\b")
OPENS = {"open", "openat", "creat"}
WRITE_CALLS = {
    "creat", "mkdir", "mkdirat", "rename", "renameat", "renameat2",
    "unlink", "unlinkat", "link", "linkat", "symlink", "symlinkat",
}  # fmt: skip
STRACE_WRITES = "trace=" + ",".join(sorted(OPENS | WRITE_CALLS))


def written_paths(trace: str, cwd: Path) -> list[str]:
    """Every path a traced process opened for writing, created, renamed, linked or
    removed (attempts that failed included), made absolute."""
    paths = []
    for line in trace.splitlines():
        match = CALL.match(line.strip())
        if not match or match["name"] not in OPENS | WRITE_CALLS:
            continue
        name, args = match["name"], match["args"]
        if name in OPENS and name != "creat" and not WRITE_FLAGS.search(args):
            continue  # opened for reading
        # `-y` prints a directory fd with its path: relative names resolve against it.
        at = DIRFD.match(args)
        base = at[1] if at else str(cwd)
        for path in QUOTED.findall(args):
            paths.append(os.path.normpath(os.path.join(base, path)))
    return paths


# g++'s temporaries: "cc" and six random characters (ccS4REdy.s, cc2o9m5g.o, ...).
GCC_TEMP = re.compile(r"^cc[A-Za-z0-9]{6}\.")


def disallowed(
    paths: list[str], log_file: Path, data_dir: Path, tmp_dir: Path, cache_dir: Path
) -> list[str]:
    """The paths outside what the server may write (see the README's "Privacy")."""

    def allowed(path: str) -> bool:
        p = Path(path)
        return (
            p == log_file
            # The user's data directory (platformdirs' user_data_dir("nextword") on
            # Linux): the learning store (learning.py), only with `learning` on.
            or p.is_relative_to(data_dir)
            # MLX's CPU backend compiles the fused kernels of mx.compile'd functions
            # with g++ and caches them under $TMPDIR/mlx/<version>/cpu/: generated code
            # named by the op graph and shapes, never text. Its g++ writes (and then
            # removes) its own temporaries in $TMPDIR, and the compiler probe
            # `sh -c "g++ --version > /dev/null 2>&1"` opens /dev/null for writing.
            or p.is_relative_to(tmp_dir / "mlx")
            # The corrections' deletion index (engine/corrections.py, `cache_dir`): built
            # from the model's word lists once, and holding nothing typed (and the
            # folders made for it).
            or p.is_relative_to(cache_dir)
            or p in cache_dir.parents
            or (p.parent == tmp_dir and bool(GCC_TEMP.match(p.name)))
            or path == "/dev/null"
            # Bytecode caches are written by the Python interpreter on import when a
            # source is newer than its .pyc (not by the server); they hold no text.
            or "__pycache__" in p.parts
        )

    return [p for p in paths if not allowed(p)]


def test_the_write_checker_flags_writes_elsewhere(tmp_path: Path) -> None:
    """The disk test below can fail: the parser sees writes and only writes."""
    log_file, data, tmp = tmp_path / "server.log", tmp_path / "data" / "nextword", Path("/t")
    trace = "\n".join(
        [
            '101 openat(AT_FDCWD, "/tmp/x", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3',
            '101 openat(AT_FDCWD, "/tmp/read", O_RDONLY|O_CLOEXEC) = 3',
            '102 mkdir("/tmp/y", 0777) = 0',
            '102 openat(3</srv/cache>, "z.bin", O_RDWR|O_CREAT, 0600 <unfinished ...>',
            "102 <... openat resumed>) = 4",
            '103 renameat2(AT_FDCWD, "/a/__pycache__/m.pyc.1", AT_FDCWD, '
            '"/a/__pycache__/m.pyc", RENAME_NOREPLACE) = 0',
            f'103 openat(AT_FDCWD, "{log_file}", O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC, 0666) = 5',
            f'103 mkdir("{data}/cache", 0777) = 0',
            '104 unlink("rel.tmp") = -1 ENOENT (No such file or directory)',
            '105 mkdir("/t/mlx/0.1/cpu", 0777) = 0',
            '105 openat(AT_FDCWD, "/t/ccS4REdy.s", O_RDWR|O_CREAT|O_EXCL, 0600) = 3',
            '105 openat(AT_FDCWD, "/t/notes.txt", O_RDWR|O_CREAT|O_EXCL, 0600) = 3',
            '105 openat(AT_FDCWD, "/t/sub/ccS4REdy.s", O_RDWR|O_CREAT|O_EXCL, 0600) = 3',
        ]
    )
    paths = written_paths(trace, Path("/work/cwd"))
    assert disallowed(paths, log_file, data, tmp, Path("/home/u/.cache/nextword/corrections")) == [
        "/tmp/x",
        "/tmp/y",
        "/srv/cache/z.bin",
        "/work/cwd/rel.tmp",
        "/t/notes.txt",
        "/t/sub/ccS4REdy.s",
    ]


@pytest.mark.parametrize("learning", [False, True], ids=["learning-off", "learning-on"])
def test_server_writes_only_its_log_file(tmp_path: Path, learning: bool) -> None:
    strace = require("strace")
    home, cwd, tmp = tmp_path / "home", tmp_path / "cwd", tmp_path / "tmp"
    for d in (home / ".local" / "share", cwd, tmp):
        d.mkdir(parents=True)  # a home as users have it: the store's folder goes in there
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "TMPDIR": str(tmp),
    }
    log_file, trace_file = tmp_path / "server.log", tmp_path / "writes.strace"
    cmd = [strace, "-f", "-qq", "-y", "-e", STRACE_WRITES, "-o", str(trace_file)]
    cmd += [*SERVE, "--log-file", str(log_file)]
    with served(cmd, tmp_path, env=env, cwd=cwd) as client:
        options = {"logLevel": "debug", "learning": learning}
        client.start(options, "Dear Sam, the meeting is on the ")
        assert client.type("third floor, next to the ")
        assert client.shutdown() == 0
    assert log_file.stat().st_size > 0
    paths = written_paths(trace_file.read_text(), cwd)
    assert str(log_file) in paths  # the trace does see the server's own writes
    data_dir = home / ".local" / "share" / "nextword"
    cache_dir = home / ".cache" / "nextword" / "corrections"
    assert disallowed(paths, log_file, data_dir, tmp, cache_dir) == []
    stored = [p for p in paths if Path(p).is_relative_to(data_dir)]
    if learning:  # the store, through a temporary file beside it (written at shutdown)
        assert str(data_dir / "learning" / "user.json") in stored
    else:  # `learning` off (the default): not even the data directory is written
        assert stored == []
    # Of the temporary directory only MLX's kernel cache (if any) is left.
    assert {p.name for p in tmp.iterdir()} <= {"mlx"}


# ------------------------------------------------------------------------- no network


# `-yy` prints each socket fd with its kind (UNIX-STREAM, TCP, NETLINK, ...).
STRACE_NET = ["-f", "-qq", "-yy", "-e", "trace=%network"]


def network_calls(trace: str) -> list[str]:
    calls = []
    for line in trace.splitlines():
        match = CALL.match(line.strip())
        if match:
            calls.append(f"{match['name']}({match['args']}")
    return calls


def foreign(calls: list[str]) -> list[str]:
    """Network calls other than asyncio's self-pipe.

    asyncio's event loop wakes itself through a socket.socketpair() (AF_UNIX,
    in-process, never bound or connected to anything): socketpair, getsockname on
    its two ends (Python's socket objects ask their family), then a byte sent and
    received on them. Anything else, any socket(), bind() or connect(), and any
    AF_INET/AF_INET6/AF_NETLINK, is foreign.
    """

    def ours(call: str) -> bool:
        name = call.partition("(")[0]
        if name == "socketpair":
            return call.startswith("socketpair(AF_UNIX")
        if name in {"getsockname", "sendto", "recvfrom", "sendmsg", "recvmsg"}:
            return bool(re.match(r"\w+\(\d+<UNIX-STREAM:", call))
        return False

    return [c for c in calls if not ours(c)]


def test_the_network_checker_flags_sockets() -> None:
    """The network tests can fail: only the self-pipe passes."""
    trace = "\n".join(
        [
            "7 socketpair(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0, "
            "[4<UNIX-STREAM:[1->2]>, 5<UNIX-STREAM:[2->1]>]) = 0",
            "7 getsockname(4<UNIX-STREAM:[1->2]>, {sa_family=AF_UNIX}, [128 => 2]) = 0",
            '7 sendto(5<UNIX-STREAM:[2->1]>, "\\0", 1, 0, NULL, 0) = 1',
            "7 socket(AF_INET, SOCK_DGRAM|SOCK_CLOEXEC, IPPROTO_IP) = 6<UDP:[9]>",
            "7 connect(6<UDP:[9]>, {sa_family=AF_INET, sin_port=htons(53), "
            'sin_addr=inet_addr("10.0.0.1")}, 16) = 0',
            '7 sendto(6<UDP:[9]>, "x", 1, 0, NULL, 0) = 1',
            "7 socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, NETLINK_ROUTE) = 8<NETLINK:[10]>",
        ]
    )
    flagged = [c.partition("(")[0] for c in foreign(network_calls(trace))]
    assert flagged == ["socket", "connect", "sendto", "socket"]


def test_server_works_without_a_network(tmp_path: Path) -> None:
    require_unshare()
    strace = require("strace")
    trace_file = tmp_path / "net.strace"
    cmd = ["unshare", "-n", strace, *STRACE_NET, "-o", str(trace_file), *SERVE]
    with served(cmd, tmp_path) as client:
        client.start({"throttleMs": 0}, "It was a cold morning and the ")
        labels = client.type("children walked to the ")
        assert labels and all(is_word(label) for label in labels), labels
        assert client.shutdown() == 0
    calls = network_calls(trace_file.read_text())
    assert any(c.startswith("socketpair(AF_UNIX") for c in calls)  # strace saw the loop
    assert foreign(calls) == []


def test_predict_works_without_a_network() -> None:
    require_unshare()
    cmd = ["unshare", "-n", *SERVE[:-1], "predict", "The history of the"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    words = [line.split()[1] for line in done.stdout.splitlines() if re.match(r"\d+\. ", line)]
    assert words and all(is_word(w) for w in words), done.stdout


def type_over_tcp(proc: subprocess.Popen[bytes], port: int) -> None:
    """Connect to a server listening on 127.0.0.1:port once it listens, type a sentence,
    shut it down: exit 0. The server is killed on the way out if it is still there."""
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except OSError:
                assert proc.poll() is None, "the server exited before listening"
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.05)
        with conn, conn.makefile("rwb") as stream:
            # The client reads and writes the socket as it would a process' pipes.
            client = Client(proc, reader=stream, writer=stream)
            client.start({"throttleMs": 0}, "The weather today is ")
            assert client.shutdown() == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def test_tcp_listener_is_the_only_socket(tmp_path: Path) -> None:
    strace = require("strace")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    trace_file = tmp_path / "tcp.strace"
    cmd = [strace, *STRACE_NET, "-o", str(trace_file), *SERVE, "--tcp", f"127.0.0.1:{port}"]
    with open(tmp_path / "stderr.txt", "wb") as stderr:
        proc = subprocess.Popen(cmd, stderr=stderr, start_new_session=True)
    type_over_tcp(proc, port)
    calls = network_calls(trace_file.read_text())
    listener = re.compile(
        rf"^bind\(\d+<TCP:\[\d+\]>, \{{sa_family=AF_INET, sin_port=htons\({port}\), "
        r'sin_addr=inet_addr\("127\.0\.0\.1"\)\}'
    )
    binds = [c for c in calls if c.startswith("bind(")]
    assert len(binds) == 1 and listener.match(binds[0]), binds
    assert not [c for c in calls if c.startswith("connect(")]
    sockets = [c for c in calls if c.startswith("socket(")]
    assert len(sockets) == 1 and sockets[0].startswith("socket(AF_INET, SOCK_STREAM"), sockets


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.1", "example.org"])
def test_tcp_refuses_an_address_others_can_reach(host: str) -> None:
    done = subprocess.run(
        [*SERVE, "--tcp", f"{host}:2087"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "not a loopback address" in done.stderr and "--allow-remote" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_tcp_with_allow_remote_listens_on_every_interface() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [*SERVE, "--tcp", f"0.0.0.0:{port}", "--allow-remote"],
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    type_over_tcp(proc, port)
