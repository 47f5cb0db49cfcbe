"""Is a file text a person wrote? One rule for every command that reads the user's files."""

from __future__ import annotations

from pathlib import Path

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
