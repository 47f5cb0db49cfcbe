"""The offensive words a completion never offers unless the user wrote them.

The list is the "List of Dirty, Naughty, Obscene, and Otherwise Bad Words" (LDNOOBW,
the list Shutterstock started and many filters use), npm `naughty-words@1.2.0`,
CC BY 4.0: its English and Chinese lists. Kept: the English entries of one word (the
multi-word ones, "big black", are made of words that are harmless alone), and the
Chinese entries of two characters or more (a single character, 乳, is part of too many
everyday words, 乳制品). engine/blocklist.py applies it.

    python -m nextword.data.offensive [--cache DIR] [--out FILE]

writes models/offensive.txt, one word a line.
"""

from __future__ import annotations

import argparse
import json
import tarfile
from pathlib import Path

from nextword.data.fetch import fetch_npm
from nextword.engine.blocklist import DEFAULT_LIST

PACKAGE = "naughty-words@1.2.0"
LICENSE = "CC BY 4.0"
LISTS = ("package/en.json", "package/zh.json")


def select(english: list[str], chinese: list[str]) -> list[str]:
    """The entries kept (see the module docstring), in lower case, sorted."""
    words = {w.lower() for w in english if w.strip() and " " not in w.strip()}
    words |= {w for w in chinese if len(w) >= 2 and " " not in w}
    return sorted(words)


def offensive_words(cache: Path) -> list[str]:
    _, tgz = fetch_npm(cache, PACKAGE)
    with tarfile.open(tgz) as archive:
        lists = []
        for member in LISTS:
            extracted = archive.extractfile(member)
            assert extracted is not None, member
            lists.append(json.loads(extracted.read()))
    return select(*lists)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nextword.data.offensive")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache/nextword/sources")
    parser.add_argument("--out", type=Path, default=DEFAULT_LIST)
    args = parser.parse_args(argv)
    words = offensive_words(args.cache)
    args.out.write_text("".join(f"{w}\n" for w in words), encoding="utf-8")
    print(f"{len(words)} words from npm {PACKAGE} ({LICENSE}) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
