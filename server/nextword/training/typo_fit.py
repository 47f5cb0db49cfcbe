"""Fit the corrections' error model (engine/errormodel.py) on real misspellings.

    python -m nextword.training.typo_fit [--cache DIR] [--out FILE]

Each allowed codespell pair (data/misspellings.py) that is one edit from its
correction counts towards that edit's kind. A kind's rate is its count over the
opportunities to make it in all the corrections (a word of six letters offers five
swaps), times ERROR_PRIOR, the share of words a typist gets wrong: codespell lists
misspellings, not how often they are made.

Two edits in one word: were they independent once a word is misspelled, a pair would
weigh rates[a] * rates[b] / ERROR_PRIOR. Codespell lists about a third as many
two-edit pairs as that predicts, so the pairs are counted and `pair_factor` scales
rates[a] * rates[b] to make the model expect as many as codespell lists.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from nextword.data.misspellings import CODESPELL, LICENSE, allowed_pairs
from nextword.engine.errormodel import KINDS, classify, edits, prefix_opportunities
from nextword.engine.loader import MODELS_DIR

# About one word in fifty typed wrong before the typist notices: the order of the
# error rates reported for keyboard typing (Dhakal et al., CHI 2018: 1-2% of keys
# corrected). It scales every rate alike, so it sets how readily a correction
# outranks a completion; the clean-text figures (`nextword eval`) check it.
ERROR_PRIOR = 0.02
DEFAULT_OUT = MODELS_DIR / "typos.json"


def is_two_edits(wrong: str, right: str) -> bool:
    """Whether two edits of the model's kinds turn `right` into `wrong` (and one does not).
    A letter left out at the very end is not among them: `edits` reads the typed text
    as a prefix."""
    if abs(len(wrong) - len(right)) > 2 or classify(wrong, right) is not None:
        return False
    for middle, _ in edits(wrong):
        if abs(len(middle) - len(right)) <= 1 and classify(middle, right) is not None:
            return True
    return False


def fit(pairs: list[tuple[str, str]]) -> dict[str, object]:
    counts: Counter[str] = Counter()
    opportunities: Counter[str] = Counter()
    per_word: list[dict[str, int]] = []
    two = 0
    for wrong, right in pairs:
        kind = classify(wrong, right)
        if kind is not None:
            counts[kind] += 1
        else:
            two += is_two_edits(wrong, right)
        per_word.append(prefix_opportunities(right))
        opportunities.update(per_word[-1])
    one_edit = sum(counts.values())
    shares = {k: counts[k] / max(opportunities[k], 1) for k in KINDS}
    rates = {k: ERROR_PRIOR * shares[k] for k in KINDS}
    # Two edits expected under independence: per word, half the square of the one-edit
    # expectation (unordered pairs of chances); the factor makes it the count seen.
    expected_two = sum(sum(o[k] * shares[k] for k in KINDS) ** 2 / 2 for o in per_word)
    pair_factor = two / max(expected_two, 1e-9) / ERROR_PRIOR
    return {
        "rates": {k: float(f"{v:.4g}") for k, v in rates.items()},
        "pair_factor": float(f"{pair_factor:.4g}"),
        "counts": {k: counts[k] for k in KINDS},
        "pairs": len(pairs),
        "one_edit_share": round(one_edit / max(len(pairs), 1), 4),
        "two_edit_share": round(two / max(len(pairs), 1), 4),
        "error_prior": ERROR_PRIOR,
        "source": f"PyPI {CODESPELL}, codespell_lib/data/dictionary.txt ({LICENSE}), "
        "the entries whose misspelling's md5 is not 0 mod 5",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nextword.training.typo_fit")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache/nextword/sources")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    record = fit(allowed_pairs(args.cache))
    args.out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(f"{record['pairs']:,} pairs, {record['one_edit_share']:.0%} one edit: {record['rates']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
