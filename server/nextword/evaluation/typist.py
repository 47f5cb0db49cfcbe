"""The simulated typist of docs/EVAL.md, for nextword and the baselines alike.

For each word of a held-out text, with everything before it (in its document) as
context, the typist asks for the top-k candidates after typing 0, 1, 2, ... of its
characters, and accepts the word as soon as it is offered. Keystroke savings
(KSR@k), next-word accuracy at word starts, diversity and decision latency follow.
Documents in a file are separated by form-feed lines (as `prepare-corpus` writes
them); each starts with an empty context.

With typing mistakes (`TypoRun`, evaluation/typos.py), a corrupted word is typed in its
misspelled form and the word meant is the one to accept; the correction rates
(`correction@k`) sit beside those of context-free spellers (evaluation/spellers.py) asked
about the same words.

Chinese text is typed by `type_document_cjk` instead, as EVAL.md says for CJK text: the
unit is the continuation the engine proposes at each Han character (one or more
characters), accepted when it is a prefix of the remaining text, and KSR is counted in
characters. Its results also carry next-character accuracy (`nextchar_top1`,
`nextchar_top3`).

A document is typed span by span (`data.documents.chinese_spans`): its Chinese spans
(Han text with the punctuation and digits inside it) by `type_document_cjk`, the rest
(Latin words, commands, paths) by `type_document`, in document order, with one
predictor per document (a baseline's Chinese spans get its character version) and, as
always, the whole document before the cursor as context. A file
with both kinds of span reports both parts (`parts`: "word" and "chinese", each with
its own figures) beside the figures of the whole; a file of one kind prints as a file
of that kind.

`nextword eval` (commands/eval.py) runs it over files; the fits and the learning
evaluation call `type_document` directly.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from nextword.data.documents import chinese_spans, read_documents
from nextword.engine.words import WORD_RE, is_han
from nextword.evaluation.typos import Corrupted, Typo, TypoGenerator
from nextword.percentiles import summary

KS = (1, 3, 5)
MAX_K = max(KS)
Predict = Callable[[str, str, int], list[str]]
# Told once per word typed (per Han position in Chinese text): the progress bar moves
# within a document, so one long file does not sit at "0/1" until its end.
Tick = Callable[[], object]


@runtime_checkable
class WorksAhead(Protocol):
    """A predictor that also works between keystrokes, as the server's worker does
    (nextword refines a decision there): `between_keys` runs after each answer, and
    its time is reported apart from the answers' latency."""

    def __call__(self, context: str, prefix: str, k: int) -> list[str]: ...

    def between_keys(self, context: str, prefix: str) -> None: ...


@runtime_checkable
class MarksCorrections(Protocol):
    """A predictor whose answers may hold corrections (nextword's, corrections on):
    `corrected` says whether its last answer had one. The typist counts the in-word
    answers that did (`inword_corrected`): on clean text each is a popup that offered
    to replace a word typed right."""

    def __call__(self, context: str, prefix: str, k: int) -> list[str]: ...

    @property
    def corrected(self) -> bool: ...


# A context-free speller: up to k suggestions for a whole typed word, best first.
Suggest = Callable[[str, int], list[str]]
# Chinese: candidates asked for at each Han position. Only the first MAX_K can be accepted;
# the rest serve the next-character ranking (distinct first characters), which needs more
# than MAX_K continuations when several start with the same character.
NEXT_CHAR_K = 20
CJK_K = max(MAX_K, NEXT_CHAR_K)


@dataclass
class Tally:
    """Running sums for one predictor over one file."""

    chars: int = 0
    words: int = 0  # words, plus Han positions of Chinese text
    # Documents (or spans of documents) typed by the word typist and the Chinese one.
    word_docs: int = 0
    cjk_docs: int = 0
    han_positions: int = 0
    nextchar_top1: int = 0
    nextchar_top3: int = 0
    keystrokes: dict[int, int] = field(default_factory=lambda: {k: 0 for k in KS})
    ranked_keystrokes: dict[int, int] = field(default_factory=lambda: {k: 0 for k in KS})
    top1: int = 0
    top3: int = 0
    reciprocal: float = 0.0
    diversity: float = 0.0
    diversity_n: int = 0
    boundary_ms: list[float] = field(default_factory=list)
    inword_ms: list[float] = field(default_factory=list)
    between_keys_ms: list[float] = field(default_factory=list)  # `WorksAhead`'s work
    # In-word answers of a predictor that marks its corrections, and those that had one,
    # by the word being typed (`corrected_share`'s `knows`).
    marked_by_word: Counter[str] = field(default_factory=Counter)
    corrected_by_word: Counter[str] = field(default_factory=Counter)
    # Typing mistakes: corrupted words, those whose intended word was accepted within
    # the top k, and of those the ones accepted before the mistake was typed.
    corrupted: int = 0
    recovered: dict[int, int] = field(default_factory=lambda: {k: 0 for k in KS})
    before_mistake: dict[int, int] = field(default_factory=lambda: {k: 0 for k in KS})

    def word_start(self, rank: int | None, candidates: list[str]) -> None:
        """Count a word start (every Han position in Chinese): the accepted rank, if any."""
        self.top1 += rank == 1
        self.top3 += rank is not None and rank <= 3
        self.reciprocal += 1 / rank if rank else 0.0
        if (d := diversity(candidates)) is not None:
            self.diversity += d
            self.diversity_n += 1

    def quality(self) -> dict[str, float]:
        n = max(self.words, 1)
        out = {f"ksr@{k}": 1 - self.keystrokes[k] / max(self.chars, 1) for k in KS}
        out.update(
            {f"ksr@{k}(ranked)": 1 - self.ranked_keystrokes[k] / max(self.chars, 1) for k in KS}
        )
        out.update(
            {
                "top1": self.top1 / n,
                "top3": self.top3 / n,
                "mrr@5": self.reciprocal / n,
                "diversity@3": self.diversity / max(self.diversity_n, 1),
            }
        )
        if self.han_positions:
            out["nextchar_top1"] = self.nextchar_top1 / self.han_positions
            out["nextchar_top3"] = self.nextchar_top3 / self.han_positions
        out.update(self.corrected_share())
        return {k: round(v, 4) for k, v in out.items()}

    @property
    def marked_answers(self) -> int:
        return self.marked_by_word.total()

    @property
    def corrected_answers(self) -> int:
        return self.corrected_by_word.total()

    def corrected_share(self, knows: Callable[[str], bool] | None = None) -> dict[str, float]:
        """`inword_corrected`: the share of in-word answers that held a correction, for
        a predictor that marks them (`MarksCorrections`); nothing for the others. With
        `knows` (a dictionary's judgement), `inword_corrected_known` too: the share in
        the words it spells so. "Clean" text holds words no dictionary knows, names and
        its own misspellings ("unecessarily"), where a correction may be no mistake."""
        marked = self.marked_answers
        if not marked:
            return {}
        out = {"inword_corrected": round(self.corrected_answers / marked, 5)}
        if knows is not None:
            known = [w for w in self.marked_by_word if knows(w)]
            marked = sum(self.marked_by_word[w] for w in known)
            corrected = sum(self.corrected_by_word[w] for w in known)
            out["inword_corrected_known"] = round(corrected / max(marked, 1), 5)
        return out

    def typo_quality(self) -> dict[str, float]:
        """Correction rates and KSR of a run over corrupted text (`type_document` with typos)."""
        n = max(self.corrupted, 1)
        out = {f"correction@{k}": self.recovered[k] / n for k in KS}
        out.update({f"before_mistake@{k}": self.before_mistake[k] / n for k in KS})
        out.update({f"ksr@{k}": 1 - self.keystrokes[k] / max(self.chars, 1) for k in KS})
        return {k: round(v, 4) for k, v in out.items()}

    def unit(self) -> str:
        """What `words` counts: "word", "character-continuation" (Chinese) or "mixed"."""
        if self.cjk_docs and self.word_docs:
            return "mixed"
        return "character-continuation" if self.cjk_docs else "word"

    def latency(self) -> dict[str, Any]:
        out: dict[str, Any] = summary(self.boundary_ms + self.inword_ms)
        out["boundary"] = summary(self.boundary_ms)
        out["inword"] = summary(self.inword_ms)
        if self.between_keys_ms:
            out["between_keys"] = summary(self.between_keys_ms)
        return out

    def __add__(self, other: Tally) -> Tally:
        """Both tallies' sums, as if one had typed the text of both."""
        sums: dict[str, Any] = {}
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if isinstance(a, Counter):
                sums[f.name] = a + b
            else:
                sums[f.name] = {k: a[k] + b[k] for k in a} if isinstance(a, dict) else a + b
        return Tally(**sums)


@dataclass
class Parts:
    """One predictor over one file, typed span by span (`_type_all`): the word typist's
    spans and the Chinese spans, each in its own tally."""

    word: Tally = field(default_factory=Tally)
    chinese: Tally = field(default_factory=Tally)

    def total(self) -> Tally:
        return self.word + self.chinese

    def mixed(self) -> bool:
        """True when the file had spans of both kinds."""
        return bool(self.word.word_docs and self.chinese.cjk_docs)

    def figures(self) -> dict[str, Any]:
        """The whole's quality and latency; with both kinds of span, each part's too."""
        total = self.total()
        out: dict[str, Any] = {**total.quality(), "latency_ms": total.latency()}
        if self.mixed():
            out["parts"] = self.parts()
        return out

    def parts(self) -> dict[str, dict[str, Any]]:
        """Each part's unit, size, quality and latency: "word" (KSR over the characters of
        the word spans) and "chinese" (character continuations; words = Han positions)."""
        return {
            name: {
                "unit": tally.unit(),
                "words": tally.words,
                "characters": tally.chars,
                **tally.quality(),
                "latency_ms": tally.latency(),
            }
            for name, tally in (("word", self.word), ("chinese", self.chinese))
        }


def edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def diversity(candidates: list[str]) -> float | None:
    top = candidates[:3]
    pairs = [(a, b) for i, a in enumerate(top) for b in top[i + 1 :]]
    if not pairs:
        return None
    return sum(edit_distance(a, b) for a, b in pairs) / len(pairs)


def type_document(
    doc: str,
    predict: Predict,
    tally: Tally,
    typos: Sequence[Typo] = (),
    *,
    start: int = 0,
    end: int | None = None,
    tick: Tick | None = None,
) -> None:
    """Simulate typing one document (or its span `doc[start:end]`); add its costs to `tally`,
    and `tick` after each word.

    A word in `typos` (by its start) is typed in its corrupted spelling, letter by letter
    and once more when complete, and its intended word is the one to accept (`_type_typo`).
    The context is always the clean text before the word, in the whole document: the
    user ends up with the word meant, whether a candidate gave it or they fixed it by
    hand. A span's words end at its edges ("nextword" in "安装nextword包"); a typo of a
    word that a span edge cuts is typed as the word is, without it.
    """
    end = len(doc) if end is None else end
    tally.chars += end - start
    tally.word_docs += 1
    word_chars = 0
    corrupted = {typo.start: typo for typo in typos}
    for match in WORD_RE.finditer(doc, start, end):
        word, context = match.group(), doc[: match.start()]
        word_chars += len(word)
        tally.words += 1
        typo = corrupted.get(match.start())
        if typo is not None and typo.intended == word:
            _type_typo(context, typo, predict, tally)
        else:
            charge(tally, walk(context, word, word, len(word), predict, tally), len(word))
        if tick is not None:
            tick()
    # Separators (everything that is not a word character) are always typed.
    separators = end - start - word_chars
    for k in KS:
        tally.keystrokes[k] += separators
        tally.ranked_keystrokes[k] += separators


def walk(
    context: str, typed: str, target: str, points: int, predict: Predict, tally: Tally
) -> list[int | None]:
    """The rank of `target` among the candidates after each of `typed[:j]`, j < `points`,
    up to the first point where it is first (every k accepts there)."""
    ranks: list[int | None] = []
    ahead = predict if isinstance(predict, WorksAhead) else None
    marks = predict if isinstance(predict, MarksCorrections) else None
    for j in range(points):
        start = time.perf_counter()
        candidates = predict(context, typed[:j], MAX_K)
        elapsed = (time.perf_counter() - start) * 1000
        (tally.boundary_ms if j == 0 else tally.inword_ms).append(elapsed)
        if marks is not None and j:
            tally.marked_by_word[target] += 1
            tally.corrected_by_word[target] += marks.corrected
        if ahead is not None:
            start = time.perf_counter()
            ahead.between_keys(context, typed[:j])
            tally.between_keys_ms.append((time.perf_counter() - start) * 1000)
        rank = candidates.index(target) + 1 if target in candidates[:MAX_K] else None
        ranks.append(rank)
        if j == 0:
            tally.word_start(rank, candidates)
        if rank == 1:
            break  # every k accepts here; later prefixes are never typed
    return ranks


def _accepted(ranks: list[int | None], k: int) -> int | None:
    """The first point where the word is among the top `k`."""
    return next((j for j, r in enumerate(ranks) if r is not None and r <= k), None)


def charge(tally: Tally, ranks: list[int | None], length: int, *, cap: bool = False) -> None:
    """Keystrokes for a word of `length` letters: up to the accept key (with `cap`, never
    more than `length`), or `length` when it was never accepted."""
    for k in KS:
        accepted = _accepted(ranks, k)
        if accepted is None:
            tally.keystrokes[k] += length
            tally.ranked_keystrokes[k] += length
        else:
            plain, ranked = accepted + 1, accepted + ranks[accepted]  # type: ignore[operator]
            tally.keystrokes[k] += min(plain, length) if cap else plain
            tally.ranked_keystrokes[k] += min(ranked, length) if cap else ranked


def _type_typo(context: str, typo: Typo, predict: Predict, tally: Tally) -> None:
    """Type a corrupted word: its typed spelling, the intended word the one to accept.

    The candidates are asked for after 0 .. len(typed) letters: once the whole misspelling
    is typed, an editor still offers a correction before the space. The word costs the
    keystrokes up to the accept key, never more than the intended word's length (the
    mistake and its repair are the typist's, not the engine's: a word never recovered is
    charged as if typed right).
    """
    ranks = walk(context, typo.typed, typo.intended, len(typo.typed) + 1, predict, tally)
    charge(tally, ranks, len(typo.intended), cap=True)
    tally.corrupted += 1
    for k in KS:
        accepted = _accepted(ranks, k)
        if accepted is not None:
            tally.recovered[k] += 1
            tally.before_mistake[k] += accepted <= typo.mistake_at


def type_document_cjk(
    doc: str,
    predict: Predict,
    tally: Tally,
    *,
    start: int = 0,
    end: int | None = None,
    tick: Tick | None = None,
) -> None:
    """Simulate typing one Chinese document (or its span `doc[start:end]`); add its costs
    to `tally`, and `tick` after each Han position.

    At every Han character `doc[i]` the engine is asked once for continuations of `doc[:i]`
    (with no typed prefix; the whole document before it, for a span too). The context
    does not depend on k, so the answers are kept by position and the typist's walk is
    replayed for each k from them, exactly: at a Han position it accepts the longest of
    the top-k candidates that is a prefix of `doc[i:end]` (the best rank among equally
    long ones), for 1 keystroke (r in the ranked variant), and moves past it; otherwise it
    types the character (+1). Everything else (punctuation, digits, spaces, line breaks,
    and anything else in the span) is typed, +1 per character. Next-continuation accuracy
    (top1, top3, mrr@5) and next-character accuracy are counted at every Han position,
    whether or not a walk stops there.
    """
    end = len(doc) if end is None else end
    tally.chars += end - start
    tally.cjk_docs += 1
    answers: dict[int, list[str]] = {}
    for i in range(start, end):
        char = doc[i]
        if not is_han(char):
            continue
        began = time.perf_counter()
        candidates = [c for c in predict(doc[:i], "", CJK_K) if c]
        tally.boundary_ms.append((time.perf_counter() - began) * 1000)
        answers[i] = candidates
        tally.words += 1
        tally.han_positions += 1
        rank = next(
            (r for r, c in enumerate(candidates[:MAX_K], 1) if doc.startswith(c, i, end)), None
        )
        tally.word_start(rank, candidates)
        firsts = list(dict.fromkeys(c[0] for c in candidates))
        tally.nextchar_top1 += firsts[:1] == [char]
        tally.nextchar_top3 += char in firsts[:3]
        if tick is not None:
            tick()
    for k in KS:
        keystrokes = ranked = 0
        i = start
        while i < end:
            accepted = _longest_accepted(answers.get(i, []), doc, i, end, k)
            if accepted is None:
                keystrokes += 1
                ranked += 1
                i += 1
            else:
                rank, length = accepted
                keystrokes += 1
                ranked += rank
                i += length
        tally.keystrokes[k] += keystrokes
        tally.ranked_keystrokes[k] += ranked


def _longest_accepted(
    candidates: list[str], doc: str, i: int, end: int, k: int
) -> tuple[int, int] | None:
    """(rank, length) of the longest top-k candidate that `doc[:end]` continues with at `i`."""
    best: tuple[int, int] | None = None
    for rank, candidate in enumerate(candidates[:k], 1):
        if doc.startswith(candidate, i, end) and (best is None or len(candidate) > best[1]):
            best = (rank, len(candidate))
    return best


@dataclass(frozen=True)
class TypoRun:
    """What `--typos` asks of `evaluate_file`: the generator and its seed, and the
    context-free spellers asked about each corrupted word once it is typed in full."""

    generator: TypoGenerator
    seed: int
    spellers: dict[str, Suggest] = field(default_factory=dict)
    # A dictionary's judgement of a word's spelling (hunspell's), which splits the clean
    # text's in-word answers with a correction by the word typed (`corrected_share`).
    knows: Callable[[str], bool] | None = None


def evaluate_file(
    path: Path,
    predictors: dict[str, Callable[[], Predict]],
    *,
    max_words: int | None,
    progress: bool,
    cjk_predictors: dict[str, Callable[[], Predict]] | None = None,
    doc_words: int | None = None,
    modes: dict[str, Callable[[], Predict]] | None = None,
    typos: TypoRun | None = None,
    phrases: Callable[[list[str], str], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Run every predictor over one file; the first predictor is the one reported on top.

    Chinese spans are typed by `type_document_cjk`, with the predictor of the same name
    in `cjk_predictors` where there is one (the character-level baselines). A file with
    both kinds of span reports each part under `parts` (`Parts.parts`), for the first
    predictor, the baselines and the correction modes; the figures beside them are
    those of the whole.

    `modes` holds the first predictor with corrections "off" and "on" (either or both):
    each is typed on the clean text (`corrections` in the result; one that is also in
    `predictors` is not typed again) and, with `typos`, on the corrupted text (`typos`).

    `phrases` measures the ghost text on the same documents (evaluation/phrases.py,
    given the documents and the file's name); its figures go under `phrases`, beside
    the first predictor's word-only KSR on the same text (`word_ksr@k`).
    """
    if typos is not None and not modes:
        raise ValueError("typos need the modes to type the corrupted text in")
    docs, bad = read_documents(path, max_words, doc_words)
    results: dict[str, Parts] = {}
    for name, make in predictors.items():
        cjk_make = (cjk_predictors or {}).get(name, make)
        results[name] = _type_all(docs, make, cjk_make, f"{path.name} [{name}]", progress)
    main_name = next(iter(predictors))
    main = results[main_name].total()
    out: dict[str, Any] = {
        "file": str(path),
        "unit": main.unit(),
        "words": main.words,
        "characters": main.chars,
    }
    out.update(results[main_name].figures())
    if bad:
        out["invalid_utf8_replaced"] = bad
    out["baselines"] = {
        name: parts.figures() for name, parts in results.items() if name != main_name
    }
    if modes:
        clean = {}
        for mode, make in modes.items():
            same = [results[n] for n, m in predictors.items() if m is make]
            label = f"{path.name} [corrections {mode}]"
            clean[mode] = same[0] if same else _type_all(docs, make, make, label, progress)
        out["corrections"] = {mode: parts.figures() for mode, parts in clean.items()}
        if typos is not None and typos.knows is not None:
            for mode, parts in clean.items():
                out["corrections"][mode].update(parts.total().corrected_share(typos.knows))
    if typos is not None and modes:
        out["typos"] = _type_typos(docs, typos, modes, path.name, progress)
    if phrases is not None:
        block = phrases(docs, path.name)
        block.update({f"word_ksr@{k}": out[f"ksr@{k}"] for k in KS})
        out["phrases"] = block
    return out


def _type_all(
    docs: list[str],
    make: Callable[[], Predict],
    cjk_make: Callable[[], Predict],
    label: str,
    progress: bool,
    corrupted: list[Corrupted] | None = None,
) -> Parts:
    """One predictor over the documents (with their typos, if given), span by span."""
    parts = Parts()
    words, han = typed_units(docs)
    bar = progress_bar(words + han, label, progress, unit="word" if words else "char")
    for i, doc in enumerate(docs):
        typos = corrupted[i].typos if corrupted else ()
        # A fresh predictor per document: per-document state starts empty. Both kinds of
        # span share it when `make` serves both (nextword's router), as in the editor.
        made: dict[bool, Predict] = {}  # made on first use: by kind of span
        for start, end, chinese in chinese_spans(doc):
            if chinese not in made:
                shared = cjk_make is make and made
                made[chinese] = (
                    next(iter(made.values())) if shared else (cjk_make if chinese else make)()
                )
            if chinese:
                type_document_cjk(
                    doc, made[True], parts.chinese, start=start, end=end, tick=bar.update
                )
            else:
                type_document(
                    doc, made[False], parts.word, typos, start=start, end=end, tick=bar.update
                )
    bar.close()
    return parts


def typed_units(docs: list[str]) -> tuple[int, int]:
    """(words, Han positions) that `_type_all` types in `docs`: what its `words` counts."""
    words = han = 0
    for doc in docs:
        for start, end, chinese in chinese_spans(doc):
            if chinese:
                han += sum(is_han(char) for char in doc[start:end])
            else:
                words += sum(1 for _ in WORD_RE.finditer(doc, start, end))
    return words, han


def _type_typos(
    docs: list[str],
    run: TypoRun,
    modes: dict[str, Callable[[], Predict]],
    name: str,
    progress: bool,
) -> dict[str, Any]:
    """The corrupted text typed in each mode, and the spellers' rates on the same words."""
    corrupted = run.generator.corrupt(docs, seed=run.seed)
    typos = [typo for c in corrupted for typo in c.typos]
    return {
        "rate": run.generator.rate,
        "seed": run.seed,
        "eligible": sum(c.eligible for c in corrupted),
        "corrupted": len(typos),
        "kinds": dict(sorted(Counter(typo.kind for typo in typos).items())),
        "nextword": {
            mode: _type_all(
                docs, make, make, f"{name} [typos, corrections {mode}]", progress, corrupted
            )
            .total()
            .typo_quality()
            for mode, make in modes.items()
        },
        "spellers": {speller: speller_rates(typos, s) for speller, s in run.spellers.items()},
    }


def speller_rates(typos: Sequence[Typo], suggest: Suggest) -> dict[str, float]:
    """`correction@k` of a context-free speller: the share of the typos whose intended
    word is among its first k suggestions for the whole typed word."""
    hits = {k: 0 for k in KS}
    for typo in typos:
        suggestions = suggest(typo.typed, MAX_K)[:MAX_K]
        if typo.intended in suggestions:
            rank = suggestions.index(typo.intended) + 1
            for k in KS:
                hits[k] += rank <= k
    n = max(len(typos), 1)
    return {f"correction@{k}": round(hits[k] / n, 4) for k in KS}


def progress_bar(total: int, desc: str, enabled: bool, *, unit: str = "word") -> Any:
    """A bar on stderr over `total` words (or Han characters, `unit="char"`) to type."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, disable=not enabled, file=sys.stderr)
