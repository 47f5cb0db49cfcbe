"""The map of informal spellings to standard ones (engine/variants.py applies it).

The contractions are PyPI `contractions==0.1.73`'s list (MIT): "don't", "I'm",
"that's", ... Typed without its apostrophe, a contraction is a variant when wordfreq
sees the contraction at least VARIANT_RATIO times as often as the bare spelling:
"dont" (5.4e-5 per word against 1.5e-3) and "im", "cant", "wont", "thats" are
variants; "its", "well", "were", "lets" (0.22), "ill" (0.19) and "id" are words of
their own. The pronoun "i" is written "I", in its contractions too. Words written in
lower case that have a standard spelling with capitals ("saturday" -> "Saturday") are
variants too: data/casing.py finds them among the words of a model's lexicon.

    python -m nextword.data.variants [--cache DIR] [--model DIR] [--out FILE]

writes models/variants.txt (the bundled English model's words by default).
"""

from __future__ import annotations

import argparse
import json
import re
import zipfile
from pathlib import Path

from nextword.data import casing
from nextword.data.fetch import fetch_pypi
from nextword.data.wordfreq import english_frequencies
from nextword.engine.loader import MODELS_DIR
from nextword.engine.variants import Variants

CONTRACTIONS = "contractions==0.1.73"
MEMBER = "contractions/data/contractions_dict.json"
LICENSE = "MIT"
VARIANT_RATIO = 10.0
DEFAULT_OUT = MODELS_DIR / "variants.txt"
_CONTRACTION = re.compile(r"[A-Za-z]+'[A-Za-z]+")


def contractions(cache: Path) -> list[str]:
    """The list's contractions with one straight apostrophe ("don't", "I'm")."""
    wheel = fetch_pypi(cache, CONTRACTIONS, sdist=False)
    with zipfile.ZipFile(wheel) as archive:
        listed: dict[str, str] = json.loads(archive.read(MEMBER))
    return sorted({w for w in listed if _CONTRACTION.fullmatch(w)})


def build(contractions: list[str], frequencies: dict[str, float]) -> dict[str, str]:
    """variant (lower case) -> standard spelling."""
    table = {"i": "I"}
    for standard in contractions:
        if standard.lower().startswith("i'"):
            standard = "I" + standard[1:]
            table[standard.lower()] = standard  # "i'm" -> "I'm"
        bare = standard.replace("'", "").lower()
        seen = frequencies.get(standard.lower(), 0.0)
        if seen > 0 and seen >= VARIANT_RATIO * frequencies.get(bare, 0.0):
            table.setdefault(bare, standard)
    return dict(sorted(table.items()))


def variants(cache: Path) -> Variants:
    return Variants(build(contractions(cache), english_frequencies(cache)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nextword.data.variants")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache/nextword/sources")
    parser.add_argument("--model", type=Path, default=MODELS_DIR / "en")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    table = variants(args.cache).table
    cased = casing.case_variants_of(args.model, casing.dictionary(args.cache))
    for word, standard in cased.items():
        table.setdefault(word, standard)
    table = dict(sorted(table.items()))
    args.out.write_text("".join(f"{v}\t{s}\n" for v, s in table.items()), encoding="utf-8")
    print(
        f"{len(table)} variants ({len(cased)} of them capitals) from PyPI {CONTRACTIONS} "
        f"({LICENSE}), wordfreq, Debian {casing.PACKAGE} and {args.model} -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
