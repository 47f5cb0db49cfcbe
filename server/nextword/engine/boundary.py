"""One word boundary's decision: the mixed word distribution and what came with it.

The decider (decider.py) makes a `Boundary` at each word start; filtering
(filtering.py), the token search (tokensearch.py), the refinement and the work ahead
read it. A boundary once published is replaced, never changed in place, except for
the caches it fills as it is read (`starts`, and words spelled for a prefix).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from nextword.engine.components import Candidate

if TYPE_CHECKING:
    from nextword.engine.wordtables import Document


@dataclass
class Boundary:
    """The word distribution computed at one word boundary."""

    context: str
    dense: np.ndarray  # (W,) probabilities of lexicon words
    extra: dict[str, float]  # probabilities of words outside the lexicon
    lead: str  # " " when the word follows a space, else ""
    tokens: list[int]
    logprobs: np.ndarray  # the model's next-token log-probabilities
    word_mass: float = 1.0  # P(a lexicon word comes next at all), see Components
    # Whether the variants' probability went to their standard spellings ("saturday" to
    # "Saturday", variants.py): prose, not code.
    standardised: bool = False
    # Per spelled prefix: the share of its mass the spelled words do not cover, so a
    # lone spelled word shows its real share, not 100%.
    unspelled: dict[str, float] = field(default_factory=dict)
    # The words in `extra` that only the token search gave: guesses at a new word, no
    # evidence that the prefix they start was typed right (the correction gate's).
    spelled: frozenset[str] = frozenset()
    # Decided ahead over a guess as if it were written: the document caches counted up
    # to `context`, which the decider takes over with the decision when the text
    # reaches it. None for a phrase's boundaries (mixed again when reached).
    doc: Document | None = None
    # The candidates at the word start, best first, and how many were asked for: the
    # decision, the popup, the ghost text and the phrase search all read them (once
    # computed they never change: a spelled word needs a prefix).
    starts: tuple[int, list[Candidate]] | None = None
    # The first tokens refined by the model's next token (`Decider.refine`), with the
    # model's log-probabilities after each.
    branches: tuple[list[int], np.ndarray] | None = None
