"""A word n-gram model (trigram, or 4-gram where the tables hold one) with
interpolated absolute discounting, Kneser-Ney's where the tables are counted so.

Counts are cheap where a small transformer trained on two cores is weak: frequent
phrases and fixed collocations. The decider mixes this distribution with the
model's (weights fitted on dev text, see training/mixture.py).

    P(w | u v) = max(c(uvw) - D, 0) / c(uv) + D * n(uv) / c(uv) * P(w | v)

with n(uv) the number of distinct words seen after uv, and the same one order down
to the unigram, and one order up for P(w | t u v) where the 4-gram tables exist
(the everyday genres': "for the late" -> response, where "the late" alone says
war). Pruned n-grams (training/tables.py says which) leave their contexts' totals
in the tables, so the discounted mass still flows to the lower order. The genres'
tables count every order below the highest as Kneser-Ney does (training/tables.py,
`continuation_counts`): c(vw) is the number of distinct words seen before "v w", and
the unigram's the number each word follows (engine/genres.py), so the formula reads
the same.

A history reads a sentence's first word in the case the word usually has inside a
sentence (`fold_starts`): "Happy" opening a sentence is the "happy" of "happy
birthday", and "The" the "the" of every other sentence, so the few sentences that open
with a word do not decide what follows it. Names keep their capital ("John" is
"John" inside sentences too). The predicted word keeps the case it was written in.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from nextword.engine.lexicon import find

DISCOUNT = 0.75
# A sentence end or a blank line becomes the start symbol <s>; other punctuation is
# transparent, so "foo, bar" and "foo bar" share a bigram. An abbreviation of dotted
# letters ("i.e.", "e.g.", "U.S.", "p.m.") is one event, outside the lexicon: read as
# words it was "i" then "e" then a sentence end, and the technical text's 1,600
# "i.e." made "e" half of what follows a lower-case "i" ("tonight? i" -> e).
EVENT_RE = re.compile(r"(?:[^\W\d_]\.){2,}|[\w']+|[.!?](?=\s|\Z)|\n[ \t]*\n")
# A single newline after a short line starts a sentence too: after a greeting ("Hi
# Sarah,"), a sign-off, a list item or a chat message, not "Sarah" -> of, will. After a
# longer line it is prose wrapped at a width (emails at 72 columns) and reads as a
# space; after an indented line or one ending as code does (":", ";", a bracket, "=")
# it is code's, whose next line the line before still predicts. 25 and 40 characters
# measured alike on the dev splits (docs/TRAINING.md); 40 also takes in a note's or a
# list's items ("Call the dentist on Monday").
SHORT_LINE = 40
_SHORT_LINE_END_RE = re.compile(
    rf"^(?![ \t])[^\n]{{0,{SHORT_LINE - 1}}}(?<![:;{{}}()\[\]=\\])\n(?!\n)", re.MULTILINE
)


def events(text: str, *, opens_line: bool = True) -> list[str]:
    """Words and sentence starts ("<s>") in order. `opens_line`: whether `text` starts
    a line (False for a piece cut from a longer text: its first line may be longer)."""
    text = _SHORT_LINE_END_RE.sub(
        lambda m: m.group() + "\n" if opens_line or m.start() else m.group(), text
    )
    return [e if e[0].isalnum() or e[0] in "_'" else "<s>" for e in EVENT_RE.findall(text)]


# A word's standard spelling, or None where it is standard (variants.Variants.standard).
Spelling = Callable[[str], str | None]


def events_before(context: str, chars: int, last: int, spell: Spelling | None = None) -> list[str]:
    """The `last` `events` of the last `chars` characters of `context`: a bounded read
    of what precedes the cursor, whose first line opens a line only where the cut falls
    on one.

    With `spell`, each word is read in its standard spelling: the tables were counted
    from text in it (the chats are trained on so), and an informal "i dont" typed is a
    history they hardly saw ("i dont" -> know 0.13, have; "I don't" -> know 0.36, think).
    """
    opens_line = len(context) <= chars or context[-chars - 1] == "\n"
    found = events(context[-chars:], opens_line=opens_line)[-last:]
    if spell is None:
        return found
    return [spell(e) or e for e in found]


def read_inside(values: np.ndarray, openers: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """`values` over the lexicon as read inside a sentence: `openers` are the ids of the
    capitals that mostly open one ("How", "The") and the fold (`fold_starts`), and each
    such capital's value goes to the word it folds to. `values` itself, not a copy,
    where no capital has any."""
    capitals, fold = openers
    opened = values[capitals]
    if not opened.any():
        return values
    out = values.copy()
    out[capitals] = 0.0
    np.add.at(out, fold[capitals], opened)
    return out


def fold_starts(ids: np.ndarray, fold: np.ndarray | None, start: int, before: int) -> np.ndarray:
    """`ids` as histories read them: each id right after the start symbol `start` (the
    id before the first is `before`) replaced by `fold[id]`, the id of the case the
    word usually has inside a sentence (training/tables.py's `start_folds`). None:
    tables written before the fold, read as they are."""
    if fold is None or not len(ids):
        return ids
    previous = np.concatenate(([before], ids[:-1]))
    return np.where(previous == start, fold[ids], ids)


# The longest history a table reads: three events, for the 4-gram.
HISTORY = 3
# Table names by order; each is keyed by its context, its history's ids in base
# len(unigram) + 2, oldest first.
ORDERS = ((2, "bi"), (3, "tri"), (4, "quad"))


def history_ids(
    context: str,
    index: dict[str, int],
    n_words: int,
    fold: np.ndarray | None = None,
    spell: Spelling | None = None,
) -> tuple[int, ...]:
    """The ids of the `HISTORY` events before the cursor, oldest first, as histories
    read them (`fold_starts`; `spell` as `events_before` reads it); document start
    counts as <s>."""
    tail = events_before(context, 400, HISTORY + 1, spell)
    start = n_words + 1
    ids = [start] * HISTORY + [index.get(e, n_words) if e != "<s>" else start for e in tail]
    read = fold_starts(np.array(ids[-HISTORY - 1 :]), fold, start, start)[-HISTORY:]
    return tuple(int(i) for i in read)


class NGram:
    """Dense next-word distributions over the lexicon from the stored tables.

    `strength` (θ) is added to the total of a context seen once, its share going to
    the lower order, as the hierarchical Pitman-Yor model's strength parameter does
    (Teh 2006): P(w | h) = (max(c(hw) - D, 0) + (D n(h) + θ) P(w | h')) / (c(h) + θ).
    Without it the one word seen after such a context takes a quarter of the mass.
    """

    def __init__(
        self,
        arrays: dict[str, np.ndarray],
        unigram: np.ndarray,
        fold: np.ndarray | None = None,
        strength: float = 0.0,
    ):
        self._a = arrays
        # Not copied where it is float32 already: GenreNGram passes rows of its stack.
        self.unigram = np.asarray(unigram, dtype=np.float32)
        self._base = len(unigram) + 2
        self.fold = fold  # how histories read a sentence's first word (`fold_starts`)
        self._strength = strength

    def _theta(self, total: float) -> float:
        """What a context seen `total` times adds to its total (see the class)."""
        return self._strength if total <= 1 else 0.0

    def _row(self, name: str, key: int) -> tuple[int, int, float, float] | None:
        """The context `key` in the table `name`: its continuations' span [lo, hi) of
        the row arrays, the total their counts are divided by (θ in it), and the
        lower order's backoff weight; None where the table lacks the context."""
        row = find(self._a[f"{name}_keys"], key)
        if row is None:
            return None
        lo, hi = int(self._a[f"{name}_ptr"][row]), int(self._a[f"{name}_ptr"][row + 1])
        seen = float(self._a[f"{name}_total"][row])
        theta = self._theta(seen)
        total = seen + theta
        return lo, hi, total, (DISCOUNT * float(self._a[f"{name}_types"][row]) + theta) / total

    def terms(self, history: tuple[int, ...]) -> tuple[float, list[tuple[np.ndarray, np.ndarray]]]:
        """P(w | history) unnormalised, as `coef` * unigram plus sparse terms (ids,
        values): each order's discounted counts, scaled by the backoff weights of the
        orders above it. Kept apart so that mixing several tables (genres.py) scales
        each unigram once, instead of the whole vocabulary once per order."""
        rows = [
            (name, found)
            for name, key in self._contexts(history)
            if (found := self._row(name, key))
        ]
        # From the highest order down, each row's counts scaled once by the backoff
        # weights of the orders above it; their product is the unigram's coefficient.
        coef = 1.0
        terms: list[tuple[np.ndarray, np.ndarray]] = []
        for name, (lo, hi, total, backoff) in reversed(rows):
            counts = self._a[f"{name}_count"][lo:hi].astype(np.float64)
            terms.append((self._a[f"{name}_next"][lo:hi], (counts - DISCOUNT) * (coef / total)))
            coef *= backoff
        return coef, terms

    def _apply_one(self, name: str, key: int, w: int, lower: float) -> float:
        """One order of `terms` for the one word `w`: a row's next ids are sorted."""
        found = self._row(name, key)
        if found is None:
            return lower
        lo, hi, total, backoff = found
        p = lower * backoff
        at = find(self._a[f"{name}_next"][lo:hi], w)
        if at is not None:
            p += (float(self._a[f"{name}_count"][lo + at]) - DISCOUNT) / total
        return p

    def _contexts(self, history: tuple[int, ...]) -> list[tuple[str, int]]:
        """(table, key) of each order the tables hold and `history` (ids oldest first,
        two at least) reaches, lowest order first."""
        out = []
        for order, name in ORDERS:
            if order - 1 > len(history) or f"{name}_keys" not in self._a:
                break
            key = 0
            for i in history[len(history) - order + 1 :]:
                key = key * self._base + i
            out.append((name, key))
        return out

    def counts_after(self, v: int, ids: np.ndarray) -> np.ndarray:
        """The bigram table's counts of each word of `ids` after the word `v` (0 where
        it lists none)."""
        row = find(self._a["bi_keys"], v)
        if row is None:
            return np.zeros(len(ids))
        lo, hi = self._a["bi_ptr"][row], self._a["bi_ptr"][row + 1]
        listed = self._a["bi_next"][lo:hi]  # sorted
        if not len(listed):
            return np.zeros(len(ids))
        at = np.minimum(np.searchsorted(listed, ids), len(listed) - 1)
        return np.where(listed[at] == ids, self._a["bi_count"][lo:hi][at], 0).astype(np.float64)

    def prob(self, history: tuple[int, ...], w: int) -> float:
        """P(w | history) for one word, unnormalised (pruned n-grams leave the tables a
        little under 1): what the genres are scored by (genres.py)."""
        p = float(self.unigram[w])
        for name, key in self._contexts(history):
            p = self._apply_one(name, key, w, p)
        return p

    def distribution(self, history: tuple[int, ...]) -> np.ndarray:
        """P(w | history) for every lexicon word w, normalised; `history`: the ids
        before the cursor, oldest first (`history_ids`), two at least."""
        coef, terms = self.terms(history)
        p = self.unigram * np.float32(coef)
        for ids, values in terms:
            p[ids] += values
        return p / p.sum()
