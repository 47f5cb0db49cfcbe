"""Context-free spelling correctors, the baselines for nextword's corrections (docs/EVAL.md).

- `HunspellSpeller`: hunspell's suggestions (Debian `hunspell`, `hunspell-en-us`), one
  long-lived `hunspell -a -d en_US` process spoken to through its ispell pipe protocol.
- `SymSpellSpeller`: SymSpell (PyPI `symspellpy`) over its bundled English frequency
  dictionary, edit distance 2 at most.

Both answer `suggest(word, k)` (the typist's `Suggest`) with up to `k` words, best first,
in the case of the typed word. Either raises `SpellerMissing`, with a one-line reason,
when it is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
from importlib import resources
from typing import Any

from nextword.evaluation.typos import match_case

HUNSPELL_DICTIONARY = "en_US"
SYMSPELL_DICTIONARY = "frequency_dictionary_en_82_765.txt"
SYMSPELL_DISTANCE = 2


class SpellerMissing(RuntimeError):
    """A speller that cannot run here; the message says why in one line."""


class HunspellSpeller:
    """`hunspell -a`: one line in per word, one answer line and a blank line out.

    Answers: `*`, `+ root`, `-` (correct: no suggestions), `& word n offset: s1, s2, ...`
    (suggestions, best first), `# word offset` (none). Every line sent starts with `^`,
    which -a mode strips, so a word can never be read as a command (`*word` adds it).
    """

    name = "hunspell"

    def __init__(self, dictionary: str = HUNSPELL_DICTIONARY) -> None:
        if shutil.which("hunspell") is None:
            raise SpellerMissing(
                "hunspell skipped: not installed (apt-get install hunspell hunspell-en-us)"
            )
        self._proc = subprocess.Popen(
            ["hunspell", "-a", "-d", dictionary, "-i", "utf-8"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        assert self._proc.stdin and self._proc.stdout  # pipes, as asked
        self._in, self._out = self._proc.stdin, self._proc.stdout
        banner = self._out.readline()
        if not banner.startswith("@(#)"):
            self._proc.wait(timeout=5)
            why = self._proc.stderr.read().strip() if self._proc.stderr else ""
            raise SpellerMissing(
                f"hunspell skipped: {why.splitlines()[0] if why else 'no -a banner'} "
                "(apt-get install hunspell-en-us)"
            )

    def suggest(self, word: str, k: int) -> list[str]:
        if k <= 0:
            return []
        suggestions: list[str] = []
        for line in self._ask(word):
            if line.startswith("&") and not suggestions:
                suggestions = line.partition(": ")[2].split(", ")
        return suggestions[:k]

    def knows(self, word: str) -> bool:
        """Whether hunspell's dictionary spells `word` so (`*`, `+ root` or `-`)."""
        answers = self._ask(word)
        return bool(answers) and all(a[:1] in "*+-" for a in answers)

    def _ask(self, word: str) -> list[str]:
        """hunspell's answer lines about `word`: one per token it found in the line,
        read up to the blank line that ends them; none for an empty word."""
        if not word or "\n" in word:
            return []
        self._in.write(f"^{word}\n")
        self._in.flush()
        answers = []
        while line := self._out.readline().rstrip("\n"):
            answers.append(line)
        return answers

    def close(self) -> None:
        if self._proc.poll() is None:
            self._in.close()
            self._proc.wait(timeout=5)

    def __enter__(self) -> HunspellSpeller:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SymSpellSpeller:
    """SymSpell's lookup (every term within edit distance 2, nearest first, then the most
    frequent); the dictionary is lower case, so the typed word's case is put back."""

    name = "symspell"

    def __init__(self) -> None:
        try:
            from symspellpy import SymSpell, Verbosity
        except ImportError:
            raise SpellerMissing(
                "symspell skipped: not installed (pip install symspellpy, or nextword[eval])"
            ) from None
        self._all = Verbosity.ALL
        self._sym: Any = SymSpell(max_dictionary_edit_distance=SYMSPELL_DISTANCE)
        path = resources.files("symspellpy") / SYMSPELL_DICTIONARY
        if not self._sym.load_dictionary(str(path), term_index=0, count_index=1):
            raise SpellerMissing(f"symspell skipped: its dictionary {path} did not load")

    def suggest(self, word: str, k: int) -> list[str]:
        if k <= 0 or not word:
            return []
        found = self._sym.lookup(word.lower(), self._all, max_edit_distance=SYMSPELL_DISTANCE)
        return [match_case(s.term, word) for s in found[:k]]
