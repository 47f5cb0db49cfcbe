"""`nextword serve`: run the language server on stdio (default) or TCP."""

from __future__ import annotations

import argparse

from nextword.cli import CommandError


def configure(parser: argparse.ArgumentParser) -> None:
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    transport.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead")
    parser.add_argument("--log-file", metavar="FILE", help="write the log here instead of stderr")
    parser.add_argument(
        "--model", metavar="DIR", help="model directory (overrides the client's `model` setting)"
    )


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise CommandError(f"--tcp wants HOST:PORT, e.g. 127.0.0.1:2087, not {value!r}")
    return host or "127.0.0.1", int(port)


def run(args: argparse.Namespace) -> int:
    from nextword.lsp.logs import setup_stderr
    from nextword.lsp.server import make_server

    address = _host_port(args.tcp) if args.tcp else None
    try:
        setup_stderr(args.log_file)
    except OSError as err:
        raise CommandError(f"cannot open the log file: {err}") from None
    server = make_server(model_override=args.model)
    if address is None:
        server.start_io()
    else:
        server.start_tcp(*address)
    return 0
