"""`nextword learn`, `nextword forget`, `nextword learning status`: the personal store
(engine/personal.py) from a shell. Status shows counts, sizes and places, never the words."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from pathlib import Path

from nextword.data.textfiles import looks_binary
from nextword.engine import learnfiles, personal
from nextword.errors import CommandError

# Bigger files are logs, dumps and data, not a person's writing.
MAX_FILE_BYTES = 10 * 1024 * 1024


def configure(parser: argparse.ArgumentParser) -> None:
    command = parser.prog.rsplit(" ", 1)[-1]  # this module serves three commands
    if command == "learn":
        parser.add_argument("paths", nargs="+", type=Path, help="text files or folders of them")
    if command in ("learn", "forget"):
        parser.add_argument(
            "--workspace",
            metavar="URI_OR_PATH",
            help="the workspace store (a folder or its URI) instead of the user's"
            + (" store" if command == "learn" else "; without it, everything is forgotten"),
        )
    if command == "forget":
        parser.add_argument("--all", action="store_true", help="everything (the default)")
    if command == "learning":
        actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
        actions.add_parser("status", help="what is stored: counts, size, where (never the words)")


def run(args: argparse.Namespace) -> int:
    return {"learn": learn, "forget": forget, "learning": status}[args.command](args)


def learn(args: argparse.Namespace) -> int:

    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        raise CommandError(f"no such file or folder: {', '.join(missing)}")
    store = personal.open_store(args.workspace)
    words = files = skipped = 0
    for path in text_files(args.paths):
        text = read_text(path)
        if text is None:
            skipped += 1
            continue
        words += store.learn_text(text)
        files += 1
    try:
        store.save()
    except OSError as err:
        raise CommandError(f"cannot write {store.path}: {err}") from None
    print(f"learned {words:,} words from {plural(files, 'file')} ({skipped:,} skipped: not text)")
    print_store(store.status())
    return 0


def text_files(paths: list[Path]) -> Iterator[Path]:
    """The files named, and the files in the folders named (hidden ones skipped)."""
    for path in paths:
        if path.is_file():
            yield path
            continue
        for root, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                if not name.startswith("."):
                    yield Path(root) / name


def read_text(path: Path) -> str | None:
    """The file as UTF-8 text; None for a binary, huge, non-UTF-8 or unreadable file."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if looks_binary(data):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def forget(args: argparse.Namespace) -> int:

    if args.all and args.workspace:
        raise CommandError("--all and --workspace: choose one")
    removed = learnfiles.forget(args.workspace)
    what = f"the store of {learnfiles.workspace_uri(args.workspace)}" if args.workspace else "all"
    print(f"forgot {what}: {plural(len(removed), 'file')} deleted")
    return 0


def status(args: argparse.Namespace) -> int:
    stores = personal.stored()
    if not stores:
        print(f"nothing learned (stores live in {learnfiles.learning_dir()})")
        return 0
    for store in stores:
        print_store(store)
    return 0


def plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def print_store(store: dict) -> None:
    where = store.get("workspace", "user")
    print(
        f"{where}: {store['words']:,} words, {store['bigrams']:,} word pairs "
        f"({store['wordsLearned']:,} counted), {store['bytes']:,} bytes, {store['path']}"
    )
