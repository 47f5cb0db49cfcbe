"""`nextword serve`: run the language server on stdio (default) or TCP."""

from __future__ import annotations

import argparse
import ipaddress

from nextword.errors import CommandError


def configure(parser: argparse.ArgumentParser) -> None:
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    transport.add_argument(
        "--tcp",
        metavar="HOST:PORT",
        help="listen on a TCP socket instead, on a loopback address (127.0.0.1, ::1, "
        "localhost) unless --allow-remote",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --tcp listen on an address other machines can reach. The protocol has no "
        "authentication: whoever connects can read the words you type and learned, and "
        "delete what was learned (nextword.forget). Use it only on a network you trust",
    )
    parser.add_argument("--log-file", metavar="FILE", help="write the log here instead of stderr")
    parser.add_argument(
        "--model", metavar="DIR", help="model directory (overrides the client's `model` setting)"
    )


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise CommandError(f"--tcp wants HOST:PORT, e.g. 127.0.0.1:2087, not {value!r}")
    return host or "127.0.0.1", int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def run(args: argparse.Namespace) -> int:
    from nextword.lsp.logs import setup_stderr
    from nextword.lsp.server import make_server

    address = _host_port(args.tcp) if args.tcp else None
    if args.allow_remote and address is None:
        raise CommandError("--allow-remote goes with --tcp")
    if address is not None and not is_loopback(address[0]) and not args.allow_remote:
        raise CommandError(
            f"--tcp {args.tcp}: not a loopback address; anyone who can reach it could read "
            "your words (no authentication). Use 127.0.0.1, or add --allow-remote"
        )
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
