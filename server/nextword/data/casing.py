"""Standard capitals: "saturday" -> "Saturday", "tv" -> "TV", "iphone" -> "iPhone".

The chats write names, days and months in lower case, and the lexicon counts them so:
"sat" was completed to "saturday", "lon" to "london". A completion offers the spelling
a dictionary has. A lower-case word of the lexicon is a variant when Hunspell's en_US
dictionary (Debian `hunspell-en-us`, from SCOWL: permissive, see its copyright file)
rejects it and accepts a spelling with capitals: its own entry's ("iPhone", "TV"),
else the word capitalised ("Saturdays").

The dictionary alone says too much. It is American, so "grey" and "coloured" are
rejected; and it lacks the lower-case words of computing ("fd", "http", "gcc"). So
the edited training text (every genre but the chats) must write the spelling with
capitals at least as often as the lower-case one. Short words are often abbreviations
of the chats' own ("bc", "rn", "ty"): a word of three letters or fewer must be written
with its capitals twice as often as without in all the training text, the chats too
("tv" -> "TV", but not "bc" -> "BC").
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from nextword.data.fetch import fetch_deb
from nextword.errors import CommandError

PACKAGE = "hunspell-en-us"
DICTIONARY = "usr/share/hunspell/en_US"  # .dic and .aff, inside the package
LICENSE = "SCOWL (permissive; the package's copyright file)"
SHORT = 3  # letters: a word this short needs its capitals twice as often, chats too
# The share of the edited text's writings of a rare sense's word that are capitalised:
# "english" 0.96, "french" 0.99, "pacific" 0.91.
RARE_SENSE_SHARE = 0.9
RARE_SENSE_MIN = 10  # writings of the capitalised word, for the share to mean something


def dictionary(cache: Path) -> Path:
    """The en_US dictionary's path without its extension, as `hunspell -d` takes it."""
    _, root = fetch_deb(cache, PACKAGE)
    return root / DICTIONARY


def entries(dic: Path) -> list[str]:
    """The dictionary's entries as listed: a word, then "/" and its affix flags if any."""
    lines = dic.with_suffix(".dic").read_text(encoding="utf-8", errors="replace").splitlines()
    return [line.strip() for line in lines[1:]]  # the first line is the entry count


def own_spellings(listed: list[str]) -> dict[str, list[str]]:
    """lower case -> the dictionary's entries spelled with capitals ("iphone": ["iPhone"])."""
    out: dict[str, list[str]] = {}
    for line in listed:
        entry = line.split("/", 1)[0]
        if entry and not entry.islower():
            out.setdefault(entry.lower(), []).append(entry)
    return out


def bare_entries(listed: list[str]) -> set[str]:
    """The lower-case entries without an affix flag ("english", "french")."""
    return {entry for entry in listed if entry.islower() and "/" not in entry}


def rejected(words: Iterable[str], dic: Path) -> set[str]:
    """The words Hunspell finds misspelled against `dic` (`hunspell -l`)."""
    try:
        done = subprocess.run(
            ["hunspell", "-d", str(dic), "-l"],
            input="\n".join(words),
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError) as err:
        raise CommandError(f"hunspell failed ({err}): apt-get install hunspell") from None
    return set(done.stdout.split())


def capitalised(word: str, own: Mapping[str, list[str]]) -> list[str]:
    """The spellings with capitals a lower-case word may stand for, likeliest first: the
    word with a capital where the dictionary has it so ("Sam", not "SAM"), the
    dictionary's own spellings of the word or of its stem before a plural or possessive
    ending ("iPhones"), then the word with a capital."""
    capital = word[:1].upper() + word[1:]
    found = list(own.get(word, []))
    for ending in ("'s", "s"):
        if word.endswith(ending):
            found += [stem + ending for stem in own.get(word[: -len(ending)], [])]
    return sorted(found, key=lambda s: s != capital) + [capital]


def case_variants(
    words: Iterable[str], edited: Mapping[str, float], every: Mapping[str, float], dic: Path
) -> dict[str, str]:
    """lower-case word -> its standard spelling with capitals, for the `words` that have
    one; `edited` and `every`: how often the edited training text and all of it write
    each spelling."""
    lower = sorted({w for w in words if w.islower() and w.replace("'", "").isalpha()})
    unknown = rejected(lower, dic)
    listed = entries(dic)
    own = own_spellings(listed)
    options = {w: capitalised(w, own) for w in lower if w in unknown}
    for word in bare_entries(listed).intersection(lower).difference(unknown):
        # A rare sense: the name is the dictionary's own capitalised entry, and the
        # edited text writes it so nearly always.
        capital = word[:1].upper() + word[1:]
        written = edited.get(capital, 0.0)
        share = written / max(written + edited.get(word, 0.0), 1.0)
        if capital in own.get(word, []) and written >= RARE_SENSE_MIN and share >= RARE_SENSE_SHARE:
            options[word] = [capital]
    wrong = rejected({s for found in options.values() for s in found}, dic)
    table = {}
    for word, found in options.items():
        standard = next((s for s in found if s not in wrong), None)
        if standard is None:
            continue
        if edited.get(standard, 0.0) < edited.get(word, 0.0):
            continue
        if len(word) <= SHORT and every.get(standard, 0.0) < max(1.0, 2 * every.get(word, 0.0)):
            continue
        table[word] = standard
    return table


def genre_counts(model: Path) -> tuple[list[str], dict[str, np.ndarray]]:
    """The lexicon words of `model`, and how often each genre's training text wrote each
    of them, case kept: the per-genre unigram counts of its word tables."""
    words = (model / "lexicon.txt").read_text(encoding="utf-8").split("\n")[:-1]
    with np.load(model / "lexicon.npz") as data:
        if "genre_names" not in data:
            raise CommandError(f"{model}: its word tables have no genres to count in")
        names = [str(n) for n in data["genre_names"]]
        per_genre = {n: data[f"g{i}_unigram"].astype(np.float64) for i, n in enumerate(names)}
    return words, per_genre


def counts(model: Path) -> tuple[dict[str, float], dict[str, float]]:
    """How often the training text of every genre but the chats, and all of it, wrote
    each lexicon word of `model`, case kept (`genre_counts`)."""
    words, per_genre = genre_counts(model)
    edited = np.sum([c for n, c in per_genre.items() if n != "chat"], axis=0)
    every = np.sum(list(per_genre.values()), axis=0)
    return dict(zip(words, edited, strict=True)), dict(zip(words, every, strict=True))


def case_variants_of(model: Path, dic: Path) -> dict[str, str]:
    """`case_variants` of the words of a model's lexicon."""
    edited, every = counts(model)
    return case_variants(every, edited, every, dic)
