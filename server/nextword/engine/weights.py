"""The mixture: how much each word distribution counts in a decision.

The component names are spelled here once; the decider, the fits (training/mixture.py,
training/personal_fit.py) and mixture.json use these. A `Mixture` is handed to each
decider, so a fit can try weights without touching the engine others use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from nextword.engine.loader import ModelError

# The model's distribution (lexicon.py), the word trigram (ngram.py), the document's
# words and what followed its last word (doclocal.py).
NEURAL, NGRAM, DOC, DOCBIGRAM = "neural", "ngram", "doc", "docbigram"
# The personal store (personal.py): the user's words, and what followed the last word.
USER, USERBIGRAM = "user", "userbigram"
# The system's Chinese language model, where installed (systemlm.py), and the word
# trigram of general English trained elsewhere (general.py); 0 where a mixture.json
# predates them.
SYSTEM = "system"
GENERAL = "general"
BASE = (NEURAL, NGRAM, DOC, DOCBIGRAM)
PERSONAL = (USER, USERBIGRAM)
COMPONENTS = (*BASE, *PERSONAL, SYSTEM, GENERAL)
# The document caches, whose weight grows with the document's length (`evidence`).
DOCUMENT = (DOC, DOCBIGRAM)

# Used when a model directory has no fitted mixture.json (see training/mixture.py).
DEFAULT_WEIGHTS = {NEURAL: 0.4, NGRAM: 0.3, DOC: 0.15, DOCBIGRAM: 0.15}
# A mixture.json fitted before learning existed lacks the personal weights: these,
# fitted for the bundled model by training/personal_fit.py, stand in.
PERSONAL_WEIGHTS = {USER: 0.15, USERBIGRAM: 0.45}


@dataclass(frozen=True)
class Mixture:
    """Each component's weight, and how fast the document caches earn theirs."""

    weights: dict[str, float] = field(
        default_factory=lambda: {**DEFAULT_WEIGHTS, **PERSONAL_WEIGHTS}
    )
    # The document length, in words, at which the caches get half their weight
    # (`evidence`); 0 gives them their full weight from the first word.
    doc_evidence_words: float = 0.0
    # The weight, in words, of the genres' prior against what the document's words say
    # of its genre (genres.py; fitted by training/genre_fit.py).
    genre_evidence_words: float = 50.0

    def weight(self, name: str) -> float:
        return self.weights.get(name, 0.0)

    def computed(self) -> set[str]:
        """The components worth computing: a component weighted 0 is skipped."""
        return {name for name, w in self.weights.items() if w > 0}

    def with_weights(self, **weights: float) -> Mixture:
        """This mixture with some weights replaced (the fits try many)."""
        return replace(self, weights={**self.weights, **weights})

    def evidence(self, words: int) -> float:
        """The share of their weight the document caches get after `words` words: n / (n + h).

        A short document has said little about itself; its few words would crowd out
        the model's and the trigram's. The half-weight length h is fitted on dev text
        (training/mixture.py); 0 turns the scaling off.
        """
        half = self.doc_evidence_words
        return 1.0 if half <= 0 else words / (words + half)

    @classmethod
    def read(cls, path: Path) -> Mixture:
        """The fitted mixture.json of a model directory, or the defaults where it has none.

        Raises:
            ModelError: the file exists but does not hold non-negative weights.
        """
        if not path.exists():
            return cls()
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            stored = record["weights"]
            weights = {name: float(stored[name]) for name in BASE}
            weights.update({n: float(stored.get(n, w)) for n, w in PERSONAL_WEIGHTS.items()})
            weights[SYSTEM] = float(stored.get(SYSTEM, 0.0))
            weights[GENERAL] = float(stored.get(GENERAL, 0.0))
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise ModelError(f"{path} is malformed ({err!r}); delete it to use defaults") from None
        if any(w < 0 for w in weights.values()) or weights[NEURAL] + weights[NGRAM] <= 0:
            raise ModelError(f"{path} needs non-negative weights, neural or ngram above 0")
        try:
            half = max(0.0, float(record.get("doc_evidence_words", 0)))
            genre = max(1.0, float(record.get("genre_evidence_words", cls.genre_evidence_words)))
        except (ValueError, TypeError):
            half, genre = 0.0, cls.genre_evidence_words
        return cls(weights, half, genre)
