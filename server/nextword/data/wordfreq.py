"""English word frequencies from wordfreq's data (PyPI `wordfreq==3.1.1`, data CC BY-SA 4.0).

`large_en.msgpack.gz` is a msgpack list: a header, then one list of words per
centibel, the words in list i having a frequency of about 10^(-i/100) per word of
running English text (web, subtitles, news, books, Wikipedia: wordfreq's own mix).
CORPORA.md allows it as a unigram prior for words the training text lacks.
"""

from __future__ import annotations

import gzip
import zipfile
from pathlib import Path

from nextword.data.fetch import fetch_pypi

WORDFREQ = "wordfreq==3.1.1"
MEMBER = "wordfreq/data/large_en.msgpack.gz"
LICENSE = "CC BY-SA 4.0 (data; the code is Apache-2.0)"


def parse(packed: bytes) -> dict[str, float]:
    """word -> frequency per running word, from the gzipped msgpack list."""
    import msgpack

    buckets = msgpack.unpackb(gzip.decompress(packed), raw=False)
    header = buckets[0]
    if not isinstance(header, dict) or header.get("format") != "cB":
        raise ValueError(f"not a wordfreq cB list (header {header!r})")
    out: dict[str, float] = {}
    for centibels, words in enumerate(buckets[1:], start=1):
        for word in words:
            out.setdefault(word, 10 ** (-centibels / 100))
    return out


def english_frequencies(cache: Path) -> dict[str, float]:
    """The English list from the wheel, fetched into `cache` once."""
    wheel = fetch_pypi(cache, WORDFREQ, sdist=False)
    with zipfile.ZipFile(wheel) as archive:
        return parse(archive.read(MEMBER))
