"""Real misspellings: codespell's dictionary, the entries CORPORA.md allows.

`dictionary.txt` (PyPI `codespell==2.4.3`, CC BY-SA 3.0, from English Wikipedia's
list of common misspellings) holds lines `misspelling->correction[, correction...]`.
A fifth of them, chosen by the md5 of the misspelling, is reserved for independent
evaluation and never read here: `is_reserved` says which.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

from nextword.data.fetch import fetch_pypi

CODESPELL = "codespell==2.4.3"
MEMBER = "codespell_lib/data/dictionary.txt"
LICENSE = "CC BY-SA 3.0"


def is_reserved(misspelling: str) -> bool:
    """True for the fifth of the entries kept for independent evaluation."""
    return int(hashlib.md5(misspelling.encode()).hexdigest(), 16) % 5 == 0


def parse(lines: list[str]) -> list[tuple[str, str]]:
    """(misspelling, first correction) of the allowed single-word entries."""
    out = []
    for line in lines:
        wrong, sep, right = line.strip().partition("->")
        if not sep or is_reserved(wrong):
            continue
        first = right.split(",")[0].strip()
        # Entries whose correction is a phrase or a fragment ("a lot") teach no typo.
        if first.isalpha() and wrong.isalpha():
            out.append((wrong, first))
    return out


def allowed_pairs(cache: Path) -> list[tuple[str, str]]:
    """The allowed (misspelling, correction) pairs, fetched once into `cache`."""
    wheel = fetch_pypi(cache, CODESPELL, sdist=False)
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(MEMBER).decode("utf-8")
    return parse(text.splitlines())
