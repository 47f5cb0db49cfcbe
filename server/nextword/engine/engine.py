"""The decision API: (document context, typed prefix) -> ranked whole words.

    engine = Engine.load()              # model + word tables, shared by documents
    decider = engine.decider()          # one per document: its own KV cache and window
    decider.decide("The cat sat on the ", "m", k=3)

A decision at a word boundary runs the model once over the new tokens and mixes
three word distributions: the model's (lexicon.py), a word trigram (ngram.py) and
the document's own words (doclocal.py), with weights fitted on dev text
(mixture.py); with learning on, the user's own words too (learning.py). Keystrokes
inside the word only filter that cached distribution by the prefix; the model runs
again only when the cache has too few words for it.
"""

from __future__ import annotations

import json
import time
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from nextword.engine import hancache
from nextword.engine.doclocal import DocumentWords
from nextword.engine.lexicon import Lexicon, load_lexicon
from nextword.engine.loader import DEFAULT_MODEL, LoadedModel, ModelError, load
from nextword.engine.ngram import NGram, history_ids
from nextword.engine.personal import PersonalStore, last_word
from nextword.engine.scorer import Scorer, common_prefix
from nextword.engine.words import (
    WORD_RE,
    is_candidate,
    is_han_text,
    is_word,
    starts_paragraph,
    starts_sentence,
)

# Used when a model directory has no fitted mixture.json (see mixture.py).
DEFAULT_WEIGHTS = {"neural": 0.4, "ngram": 0.3, "doc": 0.15, "docbigram": 0.15}
# The personal store's components (learning.py), mixed only when a decider has a store.
# A mixture.json fitted before learning existed lacks them: these, fitted for the
# bundled model by learning_fit.py, stand in.
PERSONAL_WEIGHTS = {"user": 0.15, "userbigram": 0.45}
# Longest word the token search spells out, in tokens.
MAX_SPELL_TOKENS = 4
URL_STARTS = ["http", "https", "www", "ftp", "mailto"]
# After the text jumped (queued typing read at once), a decision that would forward
# more new tokens than this forwards only the last this many (about 18 words of
# context, ~6 ms here instead of ~25 ms for a full window); the window grows back.
CATCH_UP_TOKENS = 24
# Spelled words join the boundary's distribution with this much of their path
# probability: they rank by it among themselves, below any word the tables know.
SPELLED_SHARE = 1e-3


@dataclass(frozen=True)
class Candidate:
    """A whole word and its probability given the context and the typed prefix."""

    text: str
    prob: float


@dataclass
class DeciderStats:
    decisions: int = 0  # boundary decisions (distribution recomputed)
    cache_hits: int = 0  # answered by filtering the cached distribution
    spelled: int = 0  # answered with the help of the token search
    forwards: int = 0  # model calls


@dataclass
class Component:
    """One word distribution: dense over the lexicon, plus words outside it."""

    name: str  # a key of the mixture weights
    dense: np.ndarray  # (W,)
    extra: dict[str, float]
    # Scales the fitted weight at this position: how often such evidence has proved
    # right before (for the document caches, their repeat rate), 1 for the others.
    confidence: float = 1.0

    def prob(self, word: str, index: dict[str, int]) -> float:
        i = index.get(word)
        return float(self.dense[i]) if i is not None else self.extra.get(word, 0.0)


@dataclass
class _Boundary:
    """The word distribution computed at one word boundary."""

    context: str
    dense: np.ndarray  # (W,) probabilities of lexicon words
    extra: dict[str, float]  # probabilities of words outside the lexicon
    lead: str  # " " when the word follows a space, else ""
    tokens: list[int]
    logprobs: np.ndarray  # the model's next-token log-probabilities
    # Per spelled prefix: the share of its mass the spelled words do not cover, so a
    # lone spelled word shows its real share, not 100%.
    unspelled: dict[str, float] = field(default_factory=dict)


def read_weights(path: Path) -> dict[str, float]:
    """The fitted mixture weights (mixture.py), or the defaults where there is no file.

    Raises:
        ModelError: the file exists but does not hold non-negative weights.
    """
    if not path.exists():
        return {**DEFAULT_WEIGHTS, **PERSONAL_WEIGHTS}
    try:
        weights = json.loads(path.read_text(encoding="utf-8"))["weights"]
        out = {name: float(weights[name]) for name in DEFAULT_WEIGHTS}
        out.update({name: float(weights.get(name, w)) for name, w in PERSONAL_WEIGHTS.items()})
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ModelError(f"{path} is malformed ({err!r}); delete it to use defaults") from None
    if any(w < 0 for w in out.values()) or out["neural"] + out["ngram"] <= 0:
        raise ModelError(f"{path} needs non-negative weights, neural or ngram above 0")
    return out


def read_doc_evidence(path: Path) -> float:
    """The fitted `doc_evidence_words` of mixture.json (0: no length scaling)."""
    try:
        value = float(json.loads(path.read_text(encoding="utf-8")).get("doc_evidence_words", 0))
    except (OSError, ValueError, TypeError, AttributeError):
        return 0.0
    return max(0.0, value)


def evidence(words: int, half: float) -> float:
    """The share of their weight the document caches get after `words` words: n / (n + h).

    A short document has said little about itself; its few words would crowd out the
    model's and the trigram's. `half` is the length at which the caches get half their
    weight, fitted on dev text (mixture.py); 0 turns the scaling off.
    """
    return 1.0 if half <= 0 else words / (words + half)


class Engine:
    """A loaded model and its word tables; hand out one `Decider` per document."""

    def __init__(
        self,
        loaded: LoadedModel,
        lexicon: Lexicon,
        ngram: NGram | None,
        weights: dict[str, float],
        doc_evidence_words: float = 0.0,
    ):
        self.loaded = loaded
        self.lexicon = lexicon
        self.ngram = ngram
        self.weights: dict[str, float] = weights
        self.doc_evidence_words = doc_evidence_words
        # What never opens a document or paragraph unless the document writes it:
        # headings and tags in capitals (NAME, SPDX), and the start of a URL (emails
        # from feeds begin with one).
        self.no_opening = lexicon.shouted | np.isin(np.array(lexicon.words), URL_STARTS)
        space = loaded.tokenizer.encode(" ", add_special_tokens=False).ids
        self.space_token: int | None = space[0] if len(space) == 1 else None
        self._token_texts: list[str] | None = None
        self._texts_array = np.array([], dtype=str)
        self._by_text: dict[str, int] = {}
        self.load_seconds = 0.0
        # A Chinese model: its lexicon holds continuations of Han characters.
        self.chinese = bool(lexicon.words) and all(is_han_text(w) for w in lexicon.words[:100])
        if self.chinese:
            # For each entry, the range of entries it begins ("中" begins "中国",
            # "中国人"): sorted words make each a contiguous [lo, hi).
            ranges = [lexicon.prefix_range(w) for w in lexicon.words]
            self._begins_lo = np.array([lo for lo, _ in ranges])
            self._begins_hi = np.array([hi for _, hi in ranges])
            self._lengths = np.array([len(w) for w in lexicon.words])

    @classmethod
    def load(cls, model: str | Path | None = None, *, warmup: bool = True) -> Engine:
        """Load a model directory (default: the bundled model) and warm it up.

        Raises:
            loader.ModelError: with a one-line message naming the problem and the fix.
        """
        from nextword.blas import set_inference_threads

        start = time.perf_counter()
        set_inference_threads()
        loaded = load(model)
        try:
            lexicon, arrays = load_lexicon(loaded.path, loaded.tokenizer, DEFAULT_MODEL)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
            raise ModelError(
                f"the word tables (lexicon.txt, lexicon.npz) of {loaded.path} are unreadable "
                f"({type(err).__name__}); re-export the model or delete both files"
            ) from None
        ngram = NGram(arrays, lexicon.unigram) if "bi_keys" in arrays else None
        mixture = loaded.path / "mixture.json"
        engine = cls(loaded, lexicon, ngram, read_weights(mixture), read_doc_evidence(mixture))
        if warmup:
            engine.warmup()
        engine.load_seconds = time.perf_counter() - start
        return engine

    def decider(
        self,
        *,
        window_tokens: int = 128,
        temperature: float = 0.0,
        top_k: int = 50,
        seed: int | None = None,
        store: PersonalStore | None = None,
    ) -> Decider:
        return Decider(
            self,
            window_tokens=window_tokens,
            temperature=temperature,
            top_k=top_k,
            seed=seed,
            store=store,
        )

    def warmup(self) -> None:
        """Run the shapes a session runs (a window, then one-word steps) once."""
        decider = self.decider()
        text = "The quick brown fox jumps over the lazy dog while the editor waits. " * 4
        decider.decide(text, "")
        decider.decide(text + "Then ", "")
        decider.decide(text + "Then it ", "x")

    def token_texts(self) -> list[str]:
        """Each token's text, for the token search (computed on first use)."""
        if self._token_texts is None:
            tok = self.loaded.tokenizer
            self._token_texts = [tok.decode([i]) for i in range(tok.get_vocab_size())]
            self._texts_array = np.array(self._token_texts, dtype=str)
            self._by_text = {t: i for i, t in enumerate(self._token_texts)}
        return self._token_texts

    def consistent_tokens(self, word: str, target: str, lead: str) -> list[int]:
        """Tokens that extend `word` (which starts with `lead`) along `target`.

        A token qualifies when word + token is a prefix of the target, or the target is
        a prefix of word + token, and the result stays one word after the lead.
        """
        texts = self.token_texts()
        remaining = target[len(word) :]
        # Tokens that contain all that remains to type, and maybe more.
        longer = np.flatnonzero(np.char.startswith(self._texts_array, remaining))
        # Tokens that cover only part of it.
        shorter = [
            self._by_text[remaining[:n]]
            for n in range(1, len(remaining))
            if remaining[:n] in self._by_text
        ]
        out = []
        for token in [*longer.tolist(), *shorter]:
            rest = (word + texts[token])[len(lead) :]
            if rest and is_word(rest):
                out.append(int(token))
        return out

    def describe(self) -> dict[str, Any]:
        return {
            "path": str(self.loaded.path),
            "model_type": self.loaded.config.get("model_type"),
            "parameters": self.loaded.n_params,
            "weights_bytes": self.loaded.size_bytes,
            "lexicon_words": len(self.lexicon),
            "ngram": self.ngram is not None,
            "mixture": self.weights,
        }


class Decider:
    """One document's decisions: its token window, KV cache and cached distribution."""

    def __init__(
        self,
        engine: Engine,
        *,
        window_tokens: int = 128,
        temperature: float = 0.0,
        top_k: int = 50,
        seed: int | None = None,
        store: PersonalStore | None = None,
    ):
        if window_tokens < 8:
            raise ValueError("window_tokens must be at least 8")
        self.engine = engine
        self.window_tokens = window_tokens
        self.temperature = max(0.0, float(temperature))
        self.top_k = max(1, int(top_k))
        self.stats = DeciderStats()
        self._scorer = Scorer(engine.loaded.model)
        self._doc = DocumentWords(engine.lexicon.index)
        self._anchor = 0  # character offset where the token window starts
        self._boundary: _Boundary | None = None
        self._rng = np.random.default_rng(seed)
        # The user's own words (learning.py), shared by every document; None: learning off.
        self.store = store
        self._catch_up = False  # the next window is short if it needs many new tokens

    def catch_up(self) -> None:
        """Make the next decision cheap if it needs many new tokens (see CATCH_UP_TOKENS).

        The server asks this after reading ahead over queued typing: the text jumped,
        and the user waits for the newest state. The window then grows back as usual.
        """
        self._catch_up = True

    def reset(self) -> None:
        self._scorer.reset()
        self._doc = DocumentWords(self.engine.lexicon.index)
        self._anchor = 0
        self._boundary = None

    def has_cached(self, context: str) -> bool:
        """True when a decision at this boundary is already made (no model call needed)."""
        return self._boundary is not None and self._boundary.context == context

    def decide(
        self, context: str, prefix: str = "", k: int = 5, *, spell: bool = True
    ) -> list[Candidate]:
        """The top-`k` whole words that continue `context` and start with `prefix`.

        Args:
            context: the document text before the word being typed.
            prefix: the part of the word already typed ("" at a word start).
            k: how many candidates to return at most.
            spell: allow the token search (model calls) when no known word starts
                with the prefix; False keeps an in-word call to filtering only.
        """
        if k <= 0 or (prefix and not is_word(prefix)):
            return []
        cached = self.filter_cached(context, prefix, k)
        if cached is not None and (cached or not spell or not prefix):
            return cached
        boundary = self._boundary
        if boundary is None or boundary.context != context:
            boundary = self._boundary = self._decide_boundary(context)
            self.stats.decisions += 1
        ranked = self._filter(boundary, prefix, max(k, self.top_k))
        if spell and not ranked and prefix:
            # Nothing known starts with the prefix: spell words out with the model, and
            # keep them with the boundary so the next keystrokes filter them for free.
            # The dict is replaced, never changed: another thread may be filtering it.
            found = self._spell(boundary, prefix, k)
            spelled = {c.text: c.prob * SPELLED_SHARE for c in found}
            rest = max(0.0, 1.0 - sum(c.prob for c in found)) * SPELLED_SHARE
            boundary.unspelled = {**boundary.unspelled, prefix: rest}
            boundary.extra = {**spelled, **boundary.extra}
            self.stats.spelled += 1
            ranked = self._filter(boundary, prefix, max(k, self.top_k))
        return self._order(ranked, k)

    def filter_cached(self, context: str, prefix: str, k: int = 5) -> list[Candidate] | None:
        """The decision at `context` filtered by `prefix`, or None when none is cached.

        Never calls the model, and reads the cached decision once (a boundary, once
        published, is only replaced), so a thread other than the inference worker may
        call it while the worker decides elsewhere.
        """
        boundary = self._boundary
        if boundary is None or boundary.context != context:
            return None
        if k <= 0 or (prefix and not is_word(prefix)):
            return []
        self.stats.cache_hits += 1
        return self._order(self._filter(boundary, prefix, max(k, self.top_k)), k)

    # -- the boundary decision --------------------------------------------------------

    def slide_ahead(self, context: str) -> bool:
        """Slide a nearly full window now, while the user is not waiting.

        A slide recomputes half a window (about 20 ms here); done between keystrokes,
        it spares the next decision that cost. Returns True when it slid.
        """
        text = context[:-1] if context.endswith(" ") else context
        anchor = self._anchor
        tokens = self._window(text, limit=self.window_tokens * 3 // 4)
        if self._anchor == anchor:
            return False
        self._scorer.logprobs(tokens)
        self.stats.forwards = self._scorer.forwards
        return True

    def _window(self, text: str, *, limit: int | None = None) -> list[int]:
        """Tokens of text[anchor:], the anchor moved forward when the window is full.

        The window grows to `limit` (default `window_tokens`), then restarts at half
        of `window_tokens`, at a word start: the cached keys stay valid between moves,
        so a move costs one recompute of half a window every half window of typing.
        """
        limit = limit or self.window_tokens
        tok = self.engine.loaded.tokenizer
        if self._anchor > len(text):
            self._anchor = 0
        # Bound the text handed to the tokenizer; ~4 characters per token is typical.
        floor = len(text) - 16 * self.window_tokens
        if self._anchor < floor:
            self._anchor = _next_word_start(text, floor)
        encoding = tok.encode(text[self._anchor :], add_special_tokens=False)
        ids, offsets = encoding.ids, encoding.offsets
        if len(ids) > limit:
            keep = self.window_tokens // 2
            cut = offsets[len(ids) - keep][0]
            self._anchor += _next_word_start(text[self._anchor :], cut)
            encoding = tok.encode(text[self._anchor :], add_special_tokens=False)
            ids, offsets = encoding.ids, encoding.offsets
        bos = self.engine.loaded.bos_id
        if self._catch_up:
            self._catch_up = False
            cached = self._scorer.tokens
            if self._anchor == 0 and bos is not None:
                cached = cached[1:]
            fresh = len(ids) - common_prefix(cached, ids)
            if fresh > CATCH_UP_TOKENS:
                cut = offsets[len(ids) - CATCH_UP_TOKENS][0]
                self._anchor += _next_word_start(text[self._anchor :], cut)
                ids = tok.encode(text[self._anchor :], add_special_tokens=False).ids
        if self._anchor == 0 and bos is not None:
            ids = [bos, *ids]
        if not ids:
            ids = tok.encode("\n", add_special_tokens=False).ids
        return ids[-self.window_tokens :]

    def components(self, context: str) -> tuple[list[Component], list[int], np.ndarray, str]:
        """The word distributions mixed at this boundary, each with its weight name.

        Returns the components, the token window, the model's next-token
        log-probabilities and the lead (" " when the word follows a space).
        """
        engine, lex = self.engine, self.engine.lexicon
        # A component weighted 0 (a Chinese model has no word trigram or document
        # caches: its text has no spaces to count words by) is not computed at all.
        weighted = {name for name, w in engine.weights.items() if w > 0}
        # A single space before the word belongs to the word's first token (" the").
        lead = " " if context.endswith(" ") else ""
        tokens = self._window(context[:-1] if lead else context)
        logprobs = self._scorer.logprobs(tokens)
        self.stats.forwards = self._scorer.forwards

        first, cond = (lex.first_space, lex.cond_space) if lead else (lex.first_bare, lex.cond_bare)
        neural = np.exp(logprobs[first]) * cond
        if lead and engine.space_token is not None:
            # " 000" is [" ", "000"]: a word whose first token is the bare space would
            # take the model's whole P(" ") after a space, and that is mostly a second
            # space (emails put two after a full stop). Such words (numbers, mostly)
            # come from the trigram and the document instead.
            neural[first == engine.space_token] = 0.0
        parts = [Component("neural", neural / neural.sum(), {})]
        if engine.ngram is not None and "ngram" in weighted:
            u, v = history_ids(context, lex.index, len(lex))
            parts.append(Component("ngram", engine.ngram.distribution(u, v), {}))
        if self.store is not None and not engine.chinese:
            parts += self._personal(context, weighted)
        if not weighted & {"doc", "docbigram"}:
            return parts, tokens, logprobs, lead
        if engine.chinese:
            seen = hancache.following(context, lex.index)
            if seen:
                parts.append(Component("doc", *_spread(seen, lex.index)))
            return parts, tokens, logprobs, lead
        self._doc.update(context)
        # Document counts are blind to case; at a sentence start only capitalised words
        # can match, and the model and the trigram know which ones are likely.
        sentence_start = starts_sentence(context)
        doc_known = self._doc.known * lex.capitalised if sentence_start else self._doc.known
        known_total = float(doc_known.sum())
        scale = evidence(self._doc.total, engine.doc_evidence_words)
        if "doc" in weighted and (known_total or self._doc.unknown):
            total = float(self._doc.total)
            unknown = {
                word: c / total
                for word, c in self._doc.unknown.items()
                if not sentence_start or word[0].isupper()
            }
            if known_total or unknown:
                confidence = repeat_rate(self._doc.total, self._doc.singletons) * scale
                parts.append(Component("doc", doc_known / total, unknown, confidence))
        following = self._doc.following()
        if following and not sentence_start and "docbigram" in weighted:
            pairs = _following("docbigram", following, lex.index)
            parts.append(replace(pairs, confidence=pairs.confidence * scale))
        return parts, tokens, logprobs, lead

    def _personal(self, context: str, weighted: set[str]) -> list[Component]:
        """The personal store's components: the user's words, and what follows the last
        word in what they wrote; scaled, as the document's, by their repeat rate."""
        store, lex = self.store, self.engine.lexicon
        assert store is not None
        parts = []
        sentence_start = starts_sentence(context)
        if "user" in weighted:
            known, unknown, total, singletons = store.unigram(lex.index)
            if sentence_start:  # as for the document's words: only capitals open a sentence
                known *= lex.capitalised
                unknown = {w: c for w, c in unknown.items() if w[0].isupper()}
            if total and (unknown or known.any()):
                extra = {w: c / total for w, c in unknown.items()}
                confidence = repeat_rate(total, singletons)
                parts.append(Component("user", known / total, extra, confidence))
        previous = last_word(context) if "userbigram" in weighted else None
        following = store.following(previous) if previous is not None else {}
        if following:
            parts.append(_following("userbigram", following, lex.index))
        return parts

    def _decide_boundary(self, context: str) -> _Boundary:
        parts, tokens, logprobs, lead = self.components(context)
        # Weights of the components present renormalised: an empty document has no
        # document-local evidence, and its share goes to the others.
        weights = [self.engine.weights[p.name] * p.confidence for p in parts]
        norm = sum(weights) or 1.0
        mixed = np.zeros(len(self.engine.lexicon), dtype=np.float64)
        extra: dict[str, float] = {}
        for part, weight in zip(parts, weights, strict=True):
            weight /= norm
            mixed += weight * part.dense
            for word, p in part.extra.items():
                extra[word] = extra.get(word, 0.0) + weight * p
        if not self.engine.chinese and starts_paragraph(context.rstrip(" ")):
            # A document or paragraph opens with a written word, not a heading or tag
            # in capitals (NAME, SPDX) from man pages and source files, unless this
            # document writes it.
            mixed[self.engine.no_opening & (self._doc.known == 0)] = 0.0
        return _Boundary(context, mixed, extra, lead, tokens, logprobs)

    # -- in-word filtering --------------------------------------------------------------

    def _continuations(self, boundary: _Boundary, n: int) -> list[Candidate]:
        """Chinese: one continuation for each of the `n` likeliest next characters.

        A continuation is offered when the text goes on with it, so its probability is
        that of every word it begins: P("中国") counts "中国人民" too. The characters
        are ranked by that probability; for each, the continuation shown is the one
        that most characters are expected from (probability x length): a long word
        when the model is sure of it, the character alone when it is not. Distinct
        first characters make the short list cover more of what may come next. The
        list is then ordered by the continuations' own probabilities, the ones shown.
        """
        engine, lex = self.engine, self.engine.lexicon
        sums = np.concatenate([[0.0], np.cumsum(boundary.dense)])
        mass = sums[engine._begins_hi] - sums[engine._begins_lo]
        singles = np.flatnonzero(engine._lengths == 1)
        top = singles[np.argsort(-mass[singles])[:n]]
        total = float(mass[singles].sum()) or 1.0
        out = []
        for i in top:
            if mass[i] <= 0:
                break
            lo, hi = engine._begins_lo[i], engine._begins_hi[i]
            best = lo + int(np.argmax(mass[lo:hi] * engine._lengths[lo:hi]))
            out.append(Candidate(lex.words[best], float(mass[best]) / total))
        return sorted(out, key=lambda c: -c.prob)

    def _filter(self, boundary: _Boundary, prefix: str, n: int) -> list[Candidate]:
        """The `n` most probable words starting with `prefix`, from the cached distribution."""
        if self.engine.chinese and not prefix:
            return self._continuations(boundary, n)
        lex = self.engine.lexicon
        lo, hi = lex.prefix_range(prefix)
        probs = boundary.dense[lo:hi]
        if len(probs) > n:
            top = np.argpartition(-probs, n)[:n]
        else:
            top = np.arange(len(probs))
        found = {lex.words[lo + i]: float(probs[i]) for i in top if probs[i] > 0}
        for word, p in boundary.extra.items():
            if word.startswith(prefix):
                found[word] = found.get(word, 0.0) + p
        # The word already typed in full is no completion.
        found.pop(prefix, None)
        mass = float(probs.sum()) + sum(
            p for word, p in boundary.extra.items() if word.startswith(prefix)
        )
        # What the token search found for a shorter prefix is only part of its mass.
        mass += sum(rest for p, rest in boundary.unspelled.items() if prefix.startswith(p))
        mass = mass or 1.0
        ranked = sorted(found.items(), key=lambda item: (-item[1], item[0]))[:n]
        return [Candidate(word, p / mass) for word, p in ranked]

    def _order(self, ranked: list[Candidate], k: int) -> list[Candidate]:
        """Best first at temperature 0; otherwise a draw without replacement."""
        if self.temperature == 0 or len(ranked) <= 1:
            return ranked[:k]
        pool = ranked[: self.top_k]
        logits = np.log(np.array([c.prob for c in pool]) + 1e-12) / self.temperature
        # Gumbel top-k: sorting perturbed logits samples k items without replacement.
        keys = logits + self._rng.gumbel(size=len(pool))
        return [pool[i] for i in np.argsort(-keys)[:k]]

    # -- the token search, for words the tables do not know -----------------------------

    def _spell(self, boundary: _Boundary, prefix: str, k: int) -> list[Candidate]:
        """Spell out words starting with `prefix` token by token with the model.

        Only runs when the cached distribution has no word for the prefix: a new
        identifier, a rare name. Up to `k` paths start from the best first tokens
        consistent with the prefix; each follows the best consistent token until the
        prefix is covered, then the model's choice until it prefers to end the word.
        """
        texts = self.engine.token_texts()
        lead = boundary.lead
        target = lead + prefix
        first = np.array(self.engine.consistent_tokens("", target, lead), dtype=np.int64)
        if not len(first):
            return []
        # Each word's share is of everything the model gives the prefix's first tokens.
        prefix_mass = float(np.exp(boundary.logprobs[first]).sum())
        order = first[np.argsort(-boundary.logprobs[first])][:k]
        found: dict[str, float] = {}
        for token in order:
            word, logp = texts[token], float(boundary.logprobs[token])
            path = [*boundary.tokens, int(token)]
            for _ in range(MAX_SPELL_TOKENS - 1):
                logprobs = self._scorer.logprobs(path)
                if len(word) >= len(target):
                    # Past the prefix the model is free; a non-word token ends the word.
                    best = int(np.argmax(logprobs))
                    if not is_word(texts[best]):
                        break
                else:
                    options = self.engine.consistent_tokens(word, target, lead)
                    if not options:
                        break
                    best = max(options, key=lambda t: logprobs[t])
                word += texts[best]
                logp += float(logprobs[best])
                path.append(best)
            word = word[len(lead) :]
            if word.startswith(prefix) and len(word) > len(prefix):
                found[word] = max(found.get(word, -np.inf), logp)
        self.stats.forwards = self._scorer.forwards
        if not found:
            return []
        return [
            Candidate(word, min(1.0, float(np.exp(v)) / prefix_mass))
            for word, v in sorted(found.items(), key=lambda item: -item[1])
        ]


def _spread(
    counts: Mapping[str, int], index: dict[str, int]
) -> tuple[np.ndarray, dict[str, float]]:
    """Counts as probabilities: dense over the lexicon, and the other words worth
    offering beside it."""
    total = float(sum(counts.values()))
    dense = np.zeros(len(index), dtype=np.float32)
    extra: dict[str, float] = {}
    for word, c in counts.items():
        i = index.get(word)
        if i is not None:
            dense[i] = c / total
        elif is_candidate(word):
            extra[word] = c / total
    return dense, extra


def _following(name: str, counts: Mapping[str, int], index: dict[str, int]) -> Component:
    """What followed the last word (in the document, or in what the user wrote), weighed
    by how often such pairs have repeated."""
    singletons = sum(1 for c in counts.values() if c == 1)
    confidence = repeat_rate(sum(counts.values()), singletons)
    return Component(name, *_spread(counts, index), confidence)


def repeat_rate(seen: int, singletons: int) -> float:
    """How often a cache's next word is one it holds, estimated from its own history.

    Words seen only once are the cache's misses so far (Good-Turing); add-one
    smoothing keeps a young cache (one follower, seen once) at one half. After "the"
    a document's followers rarely repeat; after a name they nearly always do.
    """
    return (seen - singletons + 1) / (seen + 1)


def _next_word_start(text: str, pos: int) -> int:
    """The first offset at or after `pos` where a word starts after whitespace."""
    pos = max(0, pos)
    match = WORD_RE.search(text, pos)
    while match is not None and match.start() > 0 and not text[match.start() - 1].isspace():
        match = WORD_RE.search(text, match.end())
    return match.start() if match is not None else pos


__all__ = ["Candidate", "Decider", "DeciderStats", "Engine"]
