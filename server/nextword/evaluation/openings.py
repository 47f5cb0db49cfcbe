"""Everyday openings: is a word a person would accept among the top k after the first
words of a message?

KSR over dev text rewards what the training text repeats; a user judges the popup at
the start of an email or a chat ("Thank you for your", "Get well") by whether it holds
a word they might mean. An openings file is a TSV, one opening per line: the opening
typed at the start of an empty document, a tab, then the next words a kind judge would
accept, separated by spaces (matched ignoring case). The bundled
`texts/openings-en.tsv` holds 229: 100 written blind (by someone who had seen neither
the model nor its training text), 46 of a developer's, the six of the issue that asked
for everyday English, and 77 more written blind later, after the model had been tuned
on the first 152 (docs/EVAL.md).

Each opening is typed as a new document: a fresh predictor from `make`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from nextword.errors import CommandError
from nextword.evaluation.typist import Predict

BUNDLED = Path(__file__).resolve().parents[1] / "texts" / "openings-en.tsv"
K = 5


@dataclass(frozen=True)
class Opening:
    text: str
    accepted: frozenset[str]  # lower case


@dataclass
class OpeningsScore:
    """How an engine did on a file of openings, at `k`."""

    k: int
    openings: int = 0
    hits: int = 0  # openings with an accepted word in the top k
    accepted: int = 0  # accepted words in the top k, over all openings
    reciprocal_ranks: float = 0.0  # of the first accepted word (0 where none)
    misses: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        n = max(1, self.openings)
        return {
            "k": self.k,
            "openings": self.openings,
            "hits": self.hits,
            "hit_rate": round(self.hits / n, 4),
            "accepted": self.accepted,
            "mrr": round(self.reciprocal_ranks / n, 4),
            "misses": self.misses,
        }


def read_openings(path: Path) -> list[Opening]:
    """The openings of a TSV file; a clear error for a line that is not one."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise CommandError(f"cannot read openings from {path}: {err}") from None
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        text, tab, words = line.partition("\t")
        accepted = frozenset(w.lower() for w in words.split())
        if not tab or not text.strip() or not accepted:
            raise CommandError(
                f"{path}:{number}: expected an opening, a tab and the accepted words"
            )
        out.append(Opening(text.strip(), accepted))
    if not out:
        raise CommandError(f"{path}: no openings")
    return out


def score_openings(
    make: Callable[[], Predict], openings: list[Opening], k: int = K
) -> OpeningsScore:
    """Each opening typed at the start of a new document, followed by a space."""
    score = OpeningsScore(k)
    for opening in openings:
        words = make()(opening.text + " ", "", k)[:k]
        ranks = [i for i, word in enumerate(words) if word.lower() in opening.accepted]
        score.openings += 1
        score.accepted += len(ranks)
        if ranks:
            score.hits += 1
            score.reciprocal_ranks += 1 / (ranks[0] + 1)
        else:
            score.misses.append(f"{opening.text} -> {', '.join(words)}")
    return score
