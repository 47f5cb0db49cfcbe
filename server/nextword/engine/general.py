"""A word trigram of general English trained elsewhere: CMU Sphinx's US English model.

The text the project may train on says little the way people write to each other:
after "Sorry for the late" its trigram offers war and treaty (the speeches), where
CMU's model, built from far more everyday English, offers reply and response. Its
tables (BSD-2; converted at build time by training/general.py into the model
directory's general/, over the lexicon's words) are one more component of the
mixture, weighted by the fit like the others (training/mixture.py).

The tables (16 MB) are memory-mapped, never copied: they load in a few milliseconds,
and the pages a session has read are the kernel's to drop and read again (typing a
few hundred words reads most of them).

A backoff model, as its ARPA form reads, with log10 probabilities and backoffs:

    P(w | u v) = p3(u v w)  where listed, else bo(u v) P(w | v)
    P(w | v)   = p2(v w)    where listed, else bo(v) p1(w)

read with the trigram's backoff damped (`TRIGRAM_BACKOFF`) where the pair u v is
listed, then normalised.

The model is lower case without punctuation: a history is the two events before the
cursor (ngram.events: words, and <s> for a sentence start) lower-cased, and a
lexicon word gets its lower-case form's probability, shared between the forms it is
written in by their counts ("Bill" and "bill").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nextword.engine.lexicon import find
from nextword.engine.loader import ModelError
from nextword.engine.ngram import Spelling, events_before, read_inside

# Where the model lists the pair of words before the cursor, the words it lists after
# that pair keep their probabilities, and the words it would back off to the bigram
# for are damped by this factor (the distribution is normalised after). Katz's
# backoff reads the bigram at its full strength, and a bigram made by one famous
# phrase then outranks what follows the pair: after "your new", "york" (from "new
# york") took 0.17, ahead of job, home and business, and at a larger weight of this
# component led the popup. Measured on the everyday openings (top-5 hits at 1 / 0.5 /
# 0.3 / 0.1: 123 / 124 / 125 / 126 of the 152 then bundled); the dev splits' KSR@3 the
# same within 0.0004 at 0.3.
TRIGRAM_BACKOFF = 0.3
GENERAL_DIR = "general"  # in a model directory: words.txt and one .npy per array
START = "<s>"
ARRAYS = (
    *("uni_logp", "uni_bo", "bi_ptr", "bi_next", "bi_logp"),
    *("tri_keys", "tri_ptr", "tri_next", "tri_logp", "tri_bo"),
)


class GeneralTrigram:
    """P(word | the two words before) over the lexicon, from general.npz."""

    def __init__(
        self,
        words: list[str],
        arrays: dict[str, np.ndarray],
        lexicon_words: list[str],
        counts: np.ndarray,
        openers: tuple[np.ndarray, np.ndarray] | None = None,
    ):
        """`counts`: each lexicon word's in the training text; `openers`: the capitals
        that open a sentence for a lower-case word, and the fold (ngram.read_inside)."""
        self._n = len(words)
        self._index = {w: i for i, w in enumerate(words)}
        self._start = self._index.get(START)
        # Probabilities in float32, padded with a 0 for the lexicon words it lacks.
        self._uni = np.append(np.power(10.0, arrays["uni_logp"].astype(np.float32)), 0.0).astype(
            np.float32
        )
        self._uni_bo = arrays["uni_bo"].astype(np.float32)
        self._a = arrays
        # Each lexicon word's lower-case form, and its share of that form's count.
        self._forms = np.array(
            [self._index.get(w.lower(), self._n) for w in lexicon_words], dtype=np.int32
        )
        totals = np.bincount(self._forms, weights=counts, minlength=self._n + 1)
        self._share = (counts / np.maximum(totals[self._forms], 1)).astype(np.float32)
        # Inside a sentence, a capital that mostly opens one is its lower-case word:
        # the mailing lists' headings wrote "Discuss" more often than anyone wrote
        # "discuss", and "Can we reschedule our meeting to" offered Discuss.
        self._share_inside = self._share
        if openers is not None:
            inside = read_inside(counts, openers)
            self._share_inside = (inside / np.maximum(totals[self._forms], 1)).astype(np.float32)

    @classmethod
    def load(
        cls,
        model_dir: Path,
        lexicon_words: list[str],
        counts: np.ndarray,
        openers: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> GeneralTrigram | None:
        """The model directory's general/ tables; None where it has none. `counts` and
        `openers` as the tables read them.

        Raises:
            ModelError: they are there but not readable as these tables.
        """
        path = model_dir / GENERAL_DIR
        if not path.is_dir():
            return None
        try:
            words = (path / "words.txt").read_text(encoding="utf-8").split("\n")[:-1]
            arrays = {k: np.load(path / f"{k}.npy", mmap_mode="r") for k in ARRAYS}
            if len(arrays["uni_logp"]) != len(words) or len(arrays["bi_ptr"]) != len(words) + 1:
                raise ValueError("the arrays do not match words.txt")
            return cls(words, arrays, lexicon_words, counts.astype(np.float64), openers)
        except (OSError, ValueError, UnicodeDecodeError) as err:
            raise ModelError(
                f"{path} is unreadable ({type(err).__name__}); rebuild it with "
                "`python -m nextword.training.general` or delete it"
            ) from None

    def history(self, context: str, spell: Spelling | None = None) -> tuple[int | None, int | None]:
        """The ids of the two events before the cursor (None: a word it lacks; `spell`
        as ngram.events_before reads it); the document start counts as a sentence start."""
        tail = [START, START] + [e.lower() for e in events_before(context, 200, 2, spell)]
        u, v = (self._index.get(e) for e in tail[-2:])
        return u, v

    def distribution(self, context: str, spell: Spelling | None = None) -> np.ndarray:
        """P(w | the two words before the cursor) for every lexicon word, normalised."""
        u, v = self.history(context, spell)
        p = self._uni.copy()
        a = self._a
        if v is not None:
            lo, hi = int(a["bi_ptr"][v]), int(a["bi_ptr"][v + 1])
            p[:-1] *= np.float32(10.0 ** float(self._uni_bo[v]))
            p[a["bi_next"][lo:hi]] = np.power(10.0, a["bi_logp"][lo:hi].astype(np.float32))
            if u is not None:
                row = find(a["tri_keys"], u * self._n + v)
                if row is not None:
                    lo, hi = int(a["tri_ptr"][row]), int(a["tri_ptr"][row + 1])
                    p[:-1] *= np.float32(TRIGRAM_BACKOFF * 10.0 ** float(a["tri_bo"][row]))
                    p[a["tri_next"][lo:hi]] = np.power(
                        10.0, a["tri_logp"][lo:hi].astype(np.float32)
                    )
        share = self._share if v == self._start else self._share_inside
        dense = p[self._forms] * share
        return dense / max(float(dense.sum()), 1e-30)
