"""The system's Chinese language model, where fcitx5's is installed: a second opinion on
the neural model's likeliest continuations.

fcitx5's Chinese input (Debian `libime-data-language-model`, LGPL-2.1+) ships a KenLM
word trigram of modern Chinese, built from far more everyday text than nextword's
month of news. Where that file and PyPI `kenlm` are both present, it re-ranks the
model's TOP_ENTRIES likeliest continuations: each is scored given the last words
before the cursor, and their share of the model's probability is spread by those
scores. The rest of the lexicon keeps the model's own figures, so the component is a
reordering, never a new candidate; it costs a few dozen KenLM lookups per decision,
not a query over the whole vocabulary (~10 ms).

It is read through KenLM's mmap, from where the package put it, and never copied.
`NEXTWORD_SYSTEM_LM` names another file, or, set empty, switches it off.
"""

from __future__ import annotations

import glob
import logging
import os
from pathlib import Path
from typing import Any

import numpy as np

from nextword.engine.words import is_han

log = logging.getLogger(__name__)

# Where Debian's libime-data-language-model puts it, under the machine's multiarch folder.
SYSTEM_LM_GLOB = "/usr/lib/*/libime/zh_CN.lm"
ENV = "NEXTWORD_SYSTEM_LM"
# The model's continuations re-ranked: the candidates at a word start come from the
# likeliest few first characters, and these cover them with room to spare.
TOP_ENTRIES = 64
# The longest word the context is segmented into, and how much of the context is read
# (a trigram sees two words back).
MAX_WORD = 4
HISTORY_CHARS = 12


class SystemLM:
    """A KenLM word model over Chinese words, scoring continuations after a context."""

    def __init__(self, model: Any, path: Path):
        import kenlm

        self._model = model
        self._kenlm = kenlm
        self.path = path

    @classmethod
    def find(cls) -> SystemLM | None:
        """The system's model; None where the file or `kenlm` is missing, or it is off."""
        named = os.environ.get(ENV)
        if named is not None and not named.strip():
            return None
        found = [Path(named)] if named else [Path(p) for p in sorted(glob.glob(SYSTEM_LM_GLOB))]
        path = next((p for p in found if p.is_file()), None)
        if path is None:
            return None
        try:
            import kenlm
        except ImportError:
            log.info("%s is there, but the kenlm module is not installed: not used", path)
            return None
        try:
            # Lazily mmapped: only the pages the lookups touch are read, not 17 MB.
            config = kenlm.Config()
            config.load_method = kenlm.LoadMethod.LAZY
            config.show_progress = False
            model = kenlm.Model(str(path), config)
        except (OSError, RuntimeError, ValueError) as err:
            log.warning("the system language model %s is unreadable (%s): not used", path, err)
            return None
        return cls(model, path)

    def segment(self, text: str) -> list[str]:
        """`text` (Han characters) as the model's words, longest first from the left."""
        words, i = [], 0
        while i < len(text):
            for n in range(min(MAX_WORD, len(text) - i), 0, -1):
                if n == 1 or text[i : i + n] in self._model:
                    words.append(text[i : i + n])
                    i += n
                    break
        return words

    def _history(self, context: str) -> tuple[Any, str]:
        """The model's state before the last word of `context`, and that word.

        The cursor is often inside a word (我们明天去北|京): a word model scoring 京
        after the word 北 would call it unlikely. So the last word stays open and each
        continuation is scored joined to it (北京), from the state before it. The
        state starts at a sentence start where the Han text does (after 。 or a
        non-Han character), or with no context where the tail was cut.
        """
        tail, start = "", True
        for i in range(len(context) - 1, -1, -1):
            if not is_han(context[i]):
                break
            if len(tail) == HISTORY_CHARS:
                start = False
                break
            tail = context[i] + tail
        state, scratch = self._kenlm.State(), self._kenlm.State()
        if start:
            self._model.BeginSentenceWrite(state)
        else:
            self._model.NullContextWrite(state)
        words = self.segment(tail)
        for word in words[:-1]:
            self._model.BaseScore(state, word, scratch)
            state, scratch = scratch, state
        return state, words[-1] if words else ""

    def _score(self, state: Any, text: str) -> float:
        """log10 P(`text`, word by word) from `state`."""
        total, here, out = 0.0, state, self._kenlm.State()
        for word in self.segment(text):
            total += self._model.BaseScore(here, word, out)
            here, out = out, self._kenlm.State()
        return total

    def reorder(self, neural: np.ndarray, words: list[str], context: str) -> np.ndarray:
        """`neural` with its TOP_ENTRIES likeliest entries' mass spread by this model."""
        n = min(TOP_ENTRIES, len(neural))
        top = np.argpartition(-neural, n - 1)[:n] if len(neural) > n else np.arange(n)
        # P(open word + continuation) over the continuations: the open word's own
        # probability is the same for each, and cancels.
        state, open_word = self._history(context)
        scores = np.array([self._score(state, open_word + words[i]) for i in top])
        scores *= np.log(10.0)
        shares = np.exp(scores - scores.max())
        out = neural.copy()
        out[top] = shares / shares.sum() * float(neural[top].sum())
        return out
