"""The `nextword` command line, parsed without running anything."""

from __future__ import annotations

import pytest

from nextword.cli import build_parser


def parse(*argv: str):
    return build_parser(list(argv)).parse_args(list(argv))


@pytest.mark.parametrize("flag", [[], ["--stdio"]])
def test_serve_talks_over_stdio_unless_told_otherwise(flag: list[str]) -> None:
    assert parse("serve", *flag).tcp is None


def test_serve_takes_one_transport() -> None:
    assert parse("serve", "--tcp", "127.0.0.1:2087").tcp == "127.0.0.1:2087"
    with pytest.raises(SystemExit):
        parse("serve", "--stdio", "--tcp", "127.0.0.1:2087")
