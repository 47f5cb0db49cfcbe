"""Is a file text a person wrote? One rule for every command that reads the user's files."""

from __future__ import annotations

from pathlib import Path

from nextword.data.documents import read_documents
from nextword.engine.words import WORD_RE, is_han
from nextword.errors import CommandError

# A NUL byte in a file's first block marks it as binary (as git and grep decide).
SNIFF_BYTES = 8192


def looks_binary(data: bytes) -> bool:
    return b"\0" in data[:SNIFF_BYTES]


def describe_non_file(path: Path) -> str | None:
    """Why `path` cannot be read as a text file ("is a directory", ...); None if it can."""
    if not path.exists():
        return "no such file"
    if path.is_dir():
        return "is a directory, not a text file"
    if not path.is_file():
        return "is not a regular file"
    return None


# More replaced bytes than this share of the characters: not UTF-8 text at all (a few
# stray bytes in real text are replaced and counted, as `invalid_utf8_replaced`).
MAX_BAD_SHARE = 0.3


def check_text_file(path: Path) -> None:
    """Refuse, in one line, what the typist cannot type: no file, a folder, binary data,
    text in another encoding, a file without words."""

    if (why := describe_non_file(path)) is not None:
        raise CommandError(f"{path}: {why}")
    with path.open("rb") as f:
        head = f.read(SNIFF_BYTES)
    if looks_binary(head):
        raise CommandError(f"{path}: is not text (binary data); give UTF-8 text files")
    docs, bad = read_documents(path, None)
    characters = sum(len(d) for d in docs)
    if bad > MAX_BAD_SHARE * max(characters, 1):
        raise CommandError(f"{path}: is not UTF-8 text ({bad:,} undecodable bytes)")
    if not any(WORD_RE.search(d) or any(is_han(c) for c in d) for d in docs):
        raise CommandError(f"{path}: has no words to type")
