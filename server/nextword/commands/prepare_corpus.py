"""`nextword prepare-corpus`: fetch the sources, clean them, write the splits.

What each source is and how it is cleaned lives in data/corpus.py; this command picks
the sources, prepares each and writes the manifest beside the text.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path

from nextword.data.corpus import (
    SOURCES,
    Source,
    prepare_source,
    progress_line,
    record_location,
    split_words,
)
from nextword.errors import CommandError

DEFAULT_OUT = Path("data/corpus")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="output folder (default: data/corpus)"
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path.home() / ".cache" / "nextword" / "sources",
        help="where fetched packages are kept (default: ~/.cache/nextword/sources)",
    )
    parser.add_argument(
        "--sources", default="", help="comma-separated source ids (default: all of --lang)"
    )
    parser.add_argument(
        "--lang",
        choices=("en", "zh", "all"),
        default="en",
        help="which languages' sources to prepare (default: en)",
    )


def select_sources(names: str, lang: str) -> list[Source]:

    known = {s.id: s for s in SOURCES}
    if names:
        wanted = [n.strip() for n in names.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in known]
        if unknown:
            raise CommandError(f"unknown source(s) {', '.join(unknown)}; known: {', '.join(known)}")
        return [known[n] for n in wanted]
    return [s for s in SOURCES if lang == "all" or s.lang == lang]


def command_for(ids: Iterable[str], out: Path) -> list[str] | None:
    """The `nextword prepare-corpus` arguments that write these sources into `out`, by
    their languages (`--lang zh` for People's Daily); None if one is no source of ours."""
    wanted = set(ids)
    if not wanted <= {s.id for s in SOURCES}:
        return None
    langs = {s.lang for s in SOURCES if s.id in wanted}
    args = ["nextword", "prepare-corpus"]
    if langs - {"en"}:  # en alone is the default
        args += ["--lang", langs.pop() if len(langs) == 1 else "all"]
    if out != DEFAULT_OUT:
        args += ["--out", str(out)]
    return args


def run(args: argparse.Namespace) -> int:
    sources = select_sources(args.sources, args.lang)
    out: Path = args.out
    cache: Path = args.cache.expanduser()
    cache.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "manifest.json"
    # Keep entries for sources not rebuilt this time, so `--sources` can redo one source.
    entries: dict[str, dict[str, object]] = {}
    if manifest_path.exists():
        old = json.loads(manifest_path.read_text(encoding="utf-8"))
        entries = {e["id"]: e for e in old.get("sources", [])}
    for source in sources:
        entry = prepare_source(source, cache, out)
        entries[source.id] = entry
        print(progress_line(entry), flush=True)
    order = [s.id for s in SOURCES]
    manifest = {
        "created_by": "nextword prepare-corpus",
        "options": {"sources": args.sources or None, "lang": args.lang},
        "format": "UTF-8 text; documents separated by a line holding only \\f",
        "split": "sha1(source + '\\n' + document id) % 100: 0-2 dev, 3-5 test, else train; "
        "wiki dev widened to >= 60k words, hsk dev to >= 2,500; peoples_daily by position 90/5/5",
        "sources": [entries[i] for i in order if i in entries],
    }
    out.mkdir(parents=True, exist_ok=True)
    manifest_path.write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    record_location(out)
    train_words = sum(split_words(entries[s.id], "train") for s in sources)
    print(f"train words (sources prepared now): {train_words:,}; manifest: {manifest_path}")
    return 0
