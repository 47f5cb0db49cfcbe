"""Fit the correction gate: how likely a mistake must be before corrections are offered.

    python -m nextword.training.correction_fit [--model DIR] [--max-words N] [--corpus DIR]
                                               [--target SHARE]

writes `corrections.json` into the model directory (default: the bundled model), which
the engine reads (`CorrectionGate`, engine/corrections.py). The figures are the model's
own: after exporting a new model, fit it again (a few minutes here).

A keyboard corrects what was typed wrong and stays quiet while a likely word is being
typed. At a typed prefix the gate weighs the two ways to have typed it: a word that
starts so (A, the words' probability in the boundary's mixed distribution) or a
mistake in the prefix of another (B, the error model's mass); corrections are offered
where the mistake's share B / (A + B) reaches the threshold.

At each word of the last `--max-words` words of each dev file (email, wiki, sotu;
`data.documents.last_words`, so `nextword eval --max-words`, which reads from a file's
start, measures on other words), after the boundary decision and the refinement the
server runs between keys:

- clean typing: every prefix of the word as written (one letter to all of them), its
  mistake share and whether the popup (the top 5, the gate open) would carry a
  correction;
- the same word misspelled, in the same context (each word of four letters or more:
  one of codespell's allowed misspellings of it where it has one, else a synthetic
  typo, `evaluation.typos.TypoGenerator`, seed 0): at every prefix of the misspelled
  form, from the word start to the whole of it, the rank of the word meant in the
  popup with the gate open and shut, and the share.

At a threshold t a clean prefix carries a correction when its share reaches t and the
open popup has one; a misspelling is corrected at k when some prefix shows the word
meant in the top k (the gate open there when the share reaches t). The threshold
fitted is the lowest (so the most misspellings corrected) at which at most `--target`
of the clean prefixes carry a correction. The share counts a floor N for the words no
list knows (`CorrectionGate.unknown`): each floor of `UNKNOWN` gets its threshold, and
the pair that corrects the most misspellings in the top 3 is kept. The file holds the
floors' figures and the curve beside it, and the two thresholds `nextword eval --typos`
reports beside the fitted one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nextword.data.documents import is_han_document, last_words, read_documents
from nextword.data.misspellings import allowed_pairs
from nextword.engine.corrections import CorrectionGate, Masses
from nextword.engine.refine import REFINED_LETTERS
from nextword.engine.words import WORD_RE
from nextword.evaluation.typos import CODESPELL, TypoGenerator, eligible
from nextword.training.phrase_fit import fit_files, fit_parser

# At most one in-word popup in four hundred on clean text carries a correction, a
# quarter of the 1% issue 35 allows: the fit's text is not the text measured, and the
# evaluator's typist, who stops at the word once it is offered, reads the short
# prefixes and the words no list knows (typed in full) more often than every prefix.
# The misspellings corrected hardly depend on it (the curve in corrections.json).
DEFAULT_TARGET = 0.0025
DEFAULT_WORDS = 1000  # per file, from its end (eval --max-words reads from the start)
POPUP = 5  # the candidates a popup shows (the evaluator's k = 5)
KS = (1, 3)
# The thresholds whose figures the file lists, beside the fitted one.
CURVE = (0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
# The two thresholds `nextword eval --typos` compares with the fitted one: the one fitted
# for LOOSER times the target (a popup in fifty carrying a correction), and STRICTER
# (only the surest: below the fitted one, the clean popups with a correction are mostly
# words no list knows, a name typed right, which no threshold tells from a mistake).
LOOSER = 4.0
STRICTER = 0.9
OPEN = CorrectionGate(0.0)  # every correction found is offered: the fit reads them all
SHUT = CorrectionGate(2.0)  # none is
SEED = 0


# The unknown-word floors N tried (CorrectionGate.unknown), in the units of A: the
# probability of the known words that start the prefix. The error mass of a far-fetched
# correction of a name is 1e-9 or less, that of a slip in a common word 1e-6 or more.
UNKNOWN = (0.0, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4)
# And for a prefix that reads as a name (CorrectionGate.name), each with each of those.
NAME = (*UNKNOWN, 1e-3)


@dataclass
class Collected:
    """What the fit's text showed, by file: the gate's masses (A, B) at the clean
    prefixes whose open popup carried a correction, and how many prefixes there were;
    per misspelling, by k, whether the popup with the gate shut shows the word meant
    and the masses at the prefixes where the open one does, and its kind."""

    clean: dict[str, list[Masses]] = field(default_factory=dict)
    prefixes: dict[str, int] = field(default_factory=dict)
    typos: dict[str, list[tuple[dict[int, tuple[bool, list[Masses]]], str]]] = field(
        default_factory=dict
    )


def collect(engine: Any, files: Sequence[Path], max_words: int, cache: Path) -> Collected:
    """Type the files' last `max_words` words clean and misspelled (see the module)."""
    generator = TypoGenerator(1.0, pairs=allowed_pairs(cache))
    found = Collected()
    for path in files:
        clean = found.clean.setdefault(path.stem, [])
        typos = found.typos.setdefault(path.stem, [])
        found.prefixes.setdefault(path.stem, 0)
        docs = [d for d in last_words(read_documents(path)[0], max_words) if not is_han_document(d)]
        for doc, corrupted in zip(docs, generator.corrupt(docs, seed=SEED), strict=True):
            misspelled = {typo.start: typo for typo in corrupted.typos}
            decider = engine.decider(gate=OPEN)  # per-document state starts empty
            for match in WORD_RE.finditer(doc):
                context, word = doc[: match.start()], match.group()
                for j in range(len(word) + 1):
                    popup = decider.decide(context, word[:j], POPUP, correct=True)
                    if j <= REFINED_LETTERS:
                        decider.refine(context, word[:j])  # as the server does between keys
                    if j and _gated(decider, context, word[:j], popup):
                        clean.append(decider.mistake_masses(context, word[:j]))
                    found.prefixes[path.stem] += j > 0
                typo = misspelled.get(match.start())
                if typo is not None and eligible(word):
                    typos.append((_corrected_at(decider, context, typo.typed, word), typo.kind))
    return found


def _gated(decider: Any, context: str, prefix: str, popup: list[Any]) -> bool:
    """Whether the open popup holds a correction the gate shut would not show (a standard
    spelling, "I" for "i", passes the gate too: it counts)."""
    fixes = {c.text for c in popup if c.correction}
    if not fixes:
        return False
    shut = decider.filter_cached(context, prefix, POPUP, correct=SHUT) or []
    return bool(fixes - {c.text for c in shut if c.correction})


def _corrected_at(
    decider: Any, context: str, typed: str, meant: str
) -> dict[int, tuple[bool, list[Masses]]]:
    """By k, whether `meant` is among the top k of the popup with the gate shut at some
    prefix of `typed`, and the gate's masses at the prefixes where the open one has it."""
    best: dict[int, tuple[bool, list[Masses]]] = {k: (False, []) for k in KS}
    for j in range(len(typed) + 1):
        shown = [c.text for c in decider.decide(context, typed[:j], POPUP, correct=True)]
        masses = decider.mistake_masses(context, typed[:j]) if j else Masses(1.0, 0.0)
        shut = [
            c.text for c in decider.filter_cached(context, typed[:j], POPUP, correct=SHUT) or []
        ]
        for k in KS:
            if meant in shut[:k]:
                best[k] = (True, best[k][1])
            elif meant in shown[:k]:
                best[k][1].append(masses)
    return best


def clean_share(found: Collected, gate: CorrectionGate) -> float:
    """The share of clean in-word prefixes whose popup carries a correction at `gate`."""
    shown = sum(gate.opens(*m) for v in found.clean.values() for m in v)
    return shown / max(sum(found.prefixes.values()), 1)


def corrected(found: Collected, gate: CorrectionGate, k: int, kind: str | None = None) -> float:
    """correction@k at `gate`, of the misspellings of `kind` ("codespell", or the
    synthetic ones: "synthetic"; None: all)."""
    ats = [
        shut or any(gate.opens(*m) for m in opened)
        for typos in found.typos.values()
        for at, made in typos
        if kind is None or (made == CODESPELL) == (kind == CODESPELL)
        for shut, opened in [at[k]]
    ]
    return sum(ats) / max(len(ats), 1)


def fit_threshold(
    found: Collected, target: float, unknown: float = 0.0, name: float = 0.0
) -> float:
    """The lowest threshold at which, with the floors `unknown` and `name`, at most
    `target` of the clean prefixes carry a correction (the shares are the candidates;
    just above the last one over), and at most 1: without a floor, where nothing known
    starts the typed prefix (a share of 1) it is always corrected."""
    floor = CorrectionGate(0.0, unknown, name)
    shares = np.sort([floor.share(*m) for v in found.clean.values() for m in v])
    allowed = int(target * sum(found.prefixes.values()))  # prefixes that may carry one
    if len(shares) <= allowed:
        return 0.0
    return min(1.0, float(np.nextafter(shares[len(shares) - allowed - 1], np.inf)))


def floor_gates(found: Collected, target: float) -> list[CorrectionGate]:
    """Each pair of floors (`UNKNOWN`, `NAME`) with its threshold for `target`."""
    pairs = [(n, m) for n in UNKNOWN for m in NAME]
    return [CorrectionGate(fit_threshold(found, target, n, m), n, m) for n, m in pairs]


def fit_gate(found: Collected, gates: list[CorrectionGate]) -> CorrectionGate:
    """Of `gates`, the one that corrects the most misspellings in the top 3 (on a tie,
    the fewest clean prefixes carrying a correction, then the smaller floors). A gate
    without floors may pass the target by the prefixes nothing known starts (its
    threshold is at most 1): by a prefix or two, where a floor would cost a point of
    correction@3; `clean_share` is in the record."""
    return max(
        gates,
        key=lambda g: (corrected(found, g, 3), -clean_share(found, g), -g.unknown, -g.name),
    )


def figures(found: Collected, gate: CorrectionGate) -> dict[str, float]:
    out = {
        "threshold": round(gate.threshold, 6),
        "unknown": gate.unknown,
        "name": gate.name,
        "clean_share": round(clean_share(found, gate), 5),
    }
    for kind, label in ((CODESPELL, "codespell"), ("synthetic", "synthetic"), (None, "all")):
        for k in KS:
            out[f"{label}_correction@{k}"] = round(corrected(found, gate, k, kind), 4)
    return out


def record(
    found: Collected, target: float, files: Sequence[Path], max_words: int
) -> dict[str, Any]:
    """What corrections.json holds: the gate, what it achieved, the curves."""
    floors = floor_gates(found, target)
    gate = fit_gate(found, floors)
    compare = [fit_threshold(found, target * LOOSER, gate.unknown, gate.name), STRICTER]
    typos = [kind for t in found.typos.values() for _, kind in t]
    return {
        "threshold": _rounded_up(gate.threshold),
        "unknown": gate.unknown,
        "name": gate.name,
        "share_is": "B / (A + N + B): the error model's mass over it, the typed prefix's "
        "known words' (A) and the unknown-word floor (N: `name` where the prefix is "
        "Capitalised inside a sentence, else `unknown`)",
        "target_clean_share": target,
        "fitted": figures(found, gate),
        "compare": [_rounded_up(t) for t in compare],
        "floors": [figures(found, g) for g in floors],
        "curve": [figures(found, CorrectionGate(t, gate.unknown, gate.name)) for t in CURVE],
        "clean_prefixes": sum(found.prefixes.values()),
        "misspellings": {
            "codespell": typos.count(CODESPELL),
            "synthetic": len(typos) - typos.count(CODESPELL),
        },
        "popup": POPUP,
        "max_words_per_file": max_words,
        "files": [str(f) for f in files],
        "method": "python -m nextword.training.correction_fit (training/correction_fit.py)",
    }


def _rounded_up(threshold: float) -> float:
    """`threshold` to four significant digits, never below it: a fitted threshold sits
    just above a clean prefix's share, which rounding down would open again."""
    rounded = float(f"{threshold:.4g}")
    if rounded < threshold:
        rounded = float(f"{rounded + 10 ** (math.floor(math.log10(rounded)) - 3):.4g}")
    return rounded


def main(argv: list[str] | None = None) -> int:
    from nextword.engine.engine import Engine

    parser = fit_parser("python -m nextword.training.correction_fit", DEFAULT_WORDS)
    parser.add_argument(
        "--target",
        type=float,
        default=DEFAULT_TARGET,
        help=f"the most clean in-word popups carrying a correction (default {DEFAULT_TARGET})",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path.home() / ".cache/nextword/sources",
        help="where codespell's wheel is fetched to",
    )
    args = parser.parse_args(argv)
    if not 0 < args.target < 1:
        parser.error("--target takes a share in (0, 1)")
    files = fit_files(parser, args)
    engine = Engine.load(args.model, warmup=False)
    found = collect(engine, files, args.max_words, args.cache)
    fit = record(found, args.target, files, args.max_words)
    (Path(args.model) / "corrections.json").write_text(json.dumps(fit, indent=2) + "\n")
    f = fit["fitted"]
    print(
        f"threshold {fit['threshold']}, unknown-word floors {fit['unknown']:g} "
        f"(names {fit['name']:g}): "
        f"{f['clean_share']:.2%} of {fit['clean_prefixes']} clean "
        f"prefixes carry a correction; correction@3 {f['codespell_correction@3']:.3f} "
        f"(codespell) {f['synthetic_correction@3']:.3f} (synthetic)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
