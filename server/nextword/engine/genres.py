"""The word n-gram per genre, mixed by what the document has been so far.

A chat, an email, a speech and a commit message want different next words after the
same words ("Thank you for your" -> time, help in chat and email; consideration in a
speech). The n-gram is counted per genre of training text (training/tables.py: a
trigram, a 4-gram in the everyday genres), and
a document's weights over the genres start at their shares of the training mix and
follow the document online, by how well each genre predicted the words written so
far: the online EM update of classic language-model adaptation,

    w_g = (c * prior_g + sum_i r_ig) / (c + n)
    r_ig = w_g P_g(w_i | h_i) / sum_k w_k P_k(w_i | h_i)

over the document's n words so far, with c (Mixture.genre_evidence_words, fitted on
dev text by training/genre_fit.py) the prior's weight in words.
"""

from __future__ import annotations

import numpy as np

from nextword.engine.ngram import HISTORY, NGram, events, fold_starts

# A document is read from its last words only when it is opened or changed before the
# cursor: enough to know its genre, and a bounded cost.
MAX_WORDS = 300
# Text that jumped ahead (a paste, queued typing read at once) is read from its last
# words only: each word costs each genre an n-gram lookup (~0.13 ms for all seven
# here), and the decision waiting on it is the one the user waits for. 200 words
# read at once cost 27 ms; the weights follow a document within a few words anyway.
CATCH_UP_WORDS = 24
# The genres whose contexts seen once lend the lower order this much more (NGram's
# `strength`). The chats are one-off talk between strangers: after "yesterday, my"
# one chat's "conductor" took a quarter of the trigram's mass and the popup's first
# place. The emails keep theirs: the lists repeat text from message to message, and
# on the dev email the same strength in both genres cost top-3 0.3853 -> 0.3787
# (chat alone: email level, chat 0.3867 -> 0.3860 on 1,500 words; docs/TRAINING.md).
# Kneser-Ney's lower orders are flatter, so such a word stands out more: 4 keeps it
# out of the first three, where 2 no longer did; the dev chat's KSR@3 and top-3 are
# the same at 2, 3, 4 and 6, the dev email's at 2 and 4.
SPARSE_STRENGTH = {"chat": 4.0}


class GenreNGram:
    """One n-gram per genre, and the genres' shares of the training mix."""

    def __init__(
        self,
        tables: list[NGram],
        names: list[str],
        prior: np.ndarray,
        evidence: float,
        fold: np.ndarray | None = None,
        unigrams: np.ndarray | None = None,
    ):
        self.tables = tables
        self.names = names
        self.prior = prior / prior.sum()
        self.evidence = evidence  # the prior's weight in words (Mixture.genre_evidence_words)
        self.fold = fold  # how histories read a sentence's first word (ngram.fold_starts)
        # (G, V): the genres' unigrams (the tables' own rows where `from_arrays` made
        # them), so a distribution mixes them in one product.
        self._unigrams = np.stack([t.unigram for t in tables]) if unigrams is None else unigrams
        self._unigram_sums = self._unigrams.sum(axis=1, dtype=np.float64)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], size: int, evidence: float) -> GenreNGram:
        """The tables training/tables.py writes: `genre_names`, `genre_prior`, and each
        genre's NGram arrays and unigram counts under the prefix `g<i>_`."""
        names = [str(n) for n in arrays["genre_names"]]
        unigrams = np.empty((len(names), size), dtype=np.float32)
        tables = []
        for i in range(len(names)):
            prefix = f"g{i}_"
            own = {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
            counts = own.pop("unigram").astype(np.float64)  # kept as probabilities only
            # Tables counted for Kneser-Ney (training/tables.py) end their backoff at
            # how many words each word follows, not how often it was seen.
            followed = own.pop("uni_continuation", None)
            if followed is not None:
                counts = followed.astype(np.float64)
            unigrams[i] = (counts + 0.5) / (counts.sum() + 0.5 * size)
            strength = SPARSE_STRENGTH.get(names[i], 0.0)
            tables.append(NGram(own, unigrams[i], strength=strength))
        prior = arrays["genre_prior"].astype(np.float64)
        return cls(tables, names, prior, evidence, arrays.get("start_fold"), unigrams)

    def distribution(
        self, history: tuple[int, ...], weights: np.ndarray | None = None
    ) -> np.ndarray:
        """P(w | history) for every lexicon word: the genres' n-grams, each normalised,
        mixed by `weights` (default: the prior). Each genre's is `coef` * its unigram
        plus a few sparse terms (`NGram.terms`): the unigrams are mixed in one
        matrix-vector product, the terms added after."""
        weights = self.prior if weights is None else weights
        coefs = np.zeros(len(self.tables))
        sparse: list[tuple[np.ndarray, np.ndarray]] = []
        for g, (table, weight) in enumerate(zip(self.tables, weights, strict=True)):
            if weight < 1e-3:  # a genre the document has ruled out costs nothing
                continue
            coef, terms = table.terms(history)
            total = coef * self._unigram_sums[g] + sum(float(v.sum()) for _, v in terms)
            coefs[g] = weight * coef / total
            sparse += [(ids, values * (weight / total)) for ids, values in terms]
        out = coefs.astype(np.float32) @ self._unigrams
        for ids, values in sparse:
            out[ids] += values
        return out / out.sum()

    def counts_after(self, v: int, ids: np.ndarray) -> np.ndarray:
        """The genres' bigram counts of each word of `ids` after the word `v`, summed."""
        return np.sum([table.counts_after(v, ids) for table in self.tables], axis=0)

    def probs(self, history: tuple[int, ...], w: int) -> np.ndarray:
        """(G,): each genre's P(w | history)."""
        return np.array([table.prob(history, w) for table in self.tables])


def load_ngram(
    arrays: dict[str, np.ndarray], unigram: np.ndarray, evidence: float
) -> NGram | GenreNGram | None:
    """The English word n-gram a lexicon.npz holds: one per genre, one over all the
    training text (models exported before the genres), or none."""
    if "genre_names" in arrays:
        return GenreNGram.from_arrays(arrays, len(unigram), evidence)
    return NGram(arrays, unigram, arrays.get("start_fold")) if "bi_keys" in arrays else None


class GenreWeights:
    """A document's weights over the genres, brought up to the text before the cursor."""

    def __init__(self, model: GenreNGram, index: dict[str, int], evidence: float | None = None):
        self.model = model
        self._index = index
        self.evidence = model.evidence if evidence is None else evidence
        self._reset()

    def _reset(self) -> None:
        self._text = ""
        start = len(self._index) + 1
        self.history: tuple[int, ...] = (start,) * HISTORY
        self.seen = np.zeros(len(self.model.names))  # sum of responsibilities
        self.words = 0

    @property
    def weights(self) -> np.ndarray:
        c = self.evidence
        return (c * self.model.prior + self.seen) / (c + self.words)

    def fork(self) -> GenreWeights:
        twin = GenreWeights.__new__(GenreWeights)
        twin.__dict__ = {**self.__dict__, "seen": self.seen.copy()}
        return twin

    def update(self, context: str) -> None:
        """Read the words of `context` not read yet (all of it, if it does not extend
        the text read before)."""
        if self._text and context.startswith(self._text):
            # The new text goes on the last line read: a short line it ends is missed
            # here (a sentence start less), which weighs the genres a hair differently.
            new = events(context[len(self._text) :], opens_line=self._text.endswith("\n"))
            most = CATCH_UP_WORDS
        else:
            self._reset()
            new, most = events(context), MAX_WORDS
        self._text = context
        n_words, start = len(self._index), len(self._index) + 1
        ids = [start if e == "<s>" else self._index.get(e, n_words) for e in new]
        history = self.history
        # The same events as the histories read them (a sentence's first word folded).
        read = fold_starts(
            np.array(ids, dtype=np.int64), self.model.fold, start, history[-1]
        ).tolist()
        words = [i for i, e in enumerate(new) if e != "<s>"]
        if len(words) > most:
            # Only the last `most` words are read; the events before them are their
            # history.
            first = words[-most]
            history = tuple([*history, *read[:first]][-HISTORY:])
            ids, read = ids[first:], read[first:]
        for w, as_history in zip(ids, read, strict=True):
            if w < n_words:
                weighted = self.weights * self.model.probs(history, w)
                total = weighted.sum()
                if total > 0:
                    self.seen += weighted / total
                    self.words += 1
            history = (*history[1:], as_history)
        self.history = history
